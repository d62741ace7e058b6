//! The line: the moves from the root (a `⇄` after a move whose position is a transposition, marks in
//! brackets), then the node's depth, visits, expansion cost and whether it is bookmarked.

use super::compact_count;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

pub struct LinePane<'a> {
    pub app: &'a App,
}

impl Widget for LinePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let inner = super::draw_block(super::pane_block(theme, " Line "), area, buf);
        let (Some(book), Some(node)) = (&app.book, app.current()) else {
            return;
        };
        let dim = Style::default().fg(theme.dim);
        let mut moves = vec![Span::styled("root", dim)];
        for (i, step) in app.path.iter().enumerate().skip(1) {
            let Some(mv) = step.mv else { continue };
            moves.push(Span::raw(format!(" {i}.{}", app.screen_text(mv))));
            let here = book.node(step.node);
            if here.is_some_and(|n| n.is_transposition()) {
                moves.push(Span::styled("⇄", Style::default().fg(theme.transposition)));
            }
            if let Some(n) = here.filter(|n| !n.marks.is_empty()) {
                let marks = n
                    .marks
                    .iter()
                    .map(|m| m.short())
                    .collect::<Vec<_>>()
                    .join(",");
                moves.push(Span::styled(
                    format!("[{marks}]"),
                    Style::default().fg(theme.mark),
                ));
            }
        }
        let mut lines = vec![Line::from(moves), Line::raw("")];
        let transposition = if node.is_transposition() {
            format!(" · reached {} ways", node.parent_count)
        } else {
            String::new()
        };
        lines.push(Line::styled(
            format!(
                "move {} · depth {}{transposition}",
                app.path.len() - 1,
                node.min_depth
            ),
            dim,
        ));
        let cost = node.expansion_cost.map_or("closed".into(), |c| {
            super::moves::cost_text(node.path_cost + c)
        });
        lines.push(Line::styled(
            format!("{} visits · cost {cost}", compact_count(node.visits)),
            dim,
        ));
        if app.bookmarks.contains(&app.line()) {
            lines.push(Line::styled(
                "* bookmarked",
                Style::default().fg(theme.mark),
            ));
        }
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .render(inner, buf);
    }
}
