//! The line: the moves from the root (a `⇄` after a move whose position is a transposition), the node's
//! depth, visits, expansion cost, marks and whether it is bookmarked.

use super::compact_count;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

pub struct LinePane<'a> {
    pub app: &'a App,
}

impl Widget for LinePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let node = app.current();
        let title = match node {
            Some(n) => format!(
                " Line · move {} · depth {} · {} visits · cost {} ",
                app.path.len().saturating_sub(1),
                n.min_depth,
                compact_count(n.visits),
                n.expansion_cost.map_or("—".into(), |c| format!("{c:.2}"))
            ),
            None => " Line ".into(),
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(Style::default().fg(theme.border))
            .title(title)
            .title_style(Style::default().fg(theme.title));
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(book) = &app.book else { return };
        let mut spans = vec![Span::styled("root", Style::default().fg(theme.dim))];
        for (i, step) in app.path.iter().enumerate().skip(1) {
            let Some(mv) = step.mv else { continue };
            spans.push(Span::raw(format!(" {i}.{}", app.screen_text(mv))));
            let here = book.node(step.node);
            if here.is_some_and(|n| n.is_transposition()) {
                spans.push(Span::styled("⇄", Style::default().fg(theme.transposition)));
            }
            if let Some(n) = here.filter(|n| !n.marks.is_empty()) {
                let marks = n.marks.iter().map(|m| m.short()).collect::<Vec<_>>().join(",");
                spans.push(Span::styled(format!("[{marks}]"), Style::default().fg(theme.mark)));
            }
        }
        if app.bookmarks.contains(&app.line()) {
            spans.push(Span::styled("  ★ bookmark", Style::default().fg(theme.mark)));
        }
        Paragraph::new(Line::from(spans)).wrap(Wrap { trim: false }).render(inner, buf);
    }
}
