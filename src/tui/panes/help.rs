//! The help overlay, generated from the active keymap: every command with all its keys and what it does
//! (and, on wide screens, its `:` name). Scrolls with j/k when the list is longer than the screen.

use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

pub struct HelpPane<'a> {
    pub app: &'a App,
    pub scroll: usize,
}

impl Widget for HelpPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let popup = Rect {
            x: area.x + area.width / 20,
            y: area.y + 1,
            width: area.width - area.width / 10,
            height: area.height.saturating_sub(2),
        };
        Clear.render(popup, buf);
        let rows = app.keymap.help_rows();
        let columns = if popup.width >= 150 { 2 } else { 1 };
        let visible = popup.height.saturating_sub(2) as usize * columns;
        let first = self.scroll.min(rows.len().saturating_sub(1));
        let last = (first + visible).min(rows.len());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(Style::default().fg(theme.title))
            .title(format!(
                " Keys {}-{last} of {} · j/k scroll · any other key closes ",
                first + 1,
                rows.len()
            ))
            .title_style(Style::default().fg(theme.title));
        let inner = block.inner(popup);
        block.render(popup, buf);
        let per_column = inner.height as usize;
        let column_width = inner.width / columns as u16;
        let show_names = column_width >= 90;
        for c in 0..columns {
            let lines: Vec<Line> = rows[first..last]
                .iter()
                .skip(c * per_column)
                .take(per_column)
                .map(|(keys, run, desc)| {
                    let mut spans = vec![
                        Span::styled(format!("{keys:<18} "), Style::default().fg(theme.rank_best)),
                        Span::styled(desc.clone(), Style::default().fg(theme.text)),
                    ];
                    if show_names {
                        spans.push(Span::styled(
                            format!("  :{run}"),
                            Style::default().fg(theme.dim),
                        ));
                    }
                    Line::from(spans)
                })
                .collect();
            let column = Rect {
                x: inner.x + c as u16 * column_width,
                width: column_width,
                ..inner
            };
            Paragraph::new(lines).render(column, buf);
        }
    }
}
