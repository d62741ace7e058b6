//! The help overlay, generated from the active keymap: every command with all its keys and what it does.

use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

pub struct HelpPane<'a> {
    pub app: &'a App,
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
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(Style::default().fg(theme.title))
            .title(" Keys (any key closes; :command runs any of these by name) ")
            .title_style(Style::default().fg(theme.title));
        let inner = block.inner(popup);
        block.render(popup, buf);
        let rows = app.keymap.help_rows();
        let columns = if inner.width >= 150 { 2 } else { 1 };
        let per_column = rows.len().div_ceil(columns);
        let column_width = inner.width / columns as u16;
        for c in 0..columns {
            let lines: Vec<Line> = rows
                .iter()
                .skip(c * per_column)
                .take(per_column)
                .map(|(keys, run, desc)| {
                    Line::from(vec![
                        Span::styled(format!("{keys:<20} "), Style::default().fg(theme.rank_best)),
                        Span::styled(format!("{desc} "), Style::default().fg(theme.text)),
                        Span::styled(format!(":{run}"), Style::default().fg(theme.dim)),
                    ])
                })
                .collect();
            let column = Rect { x: inner.x + c as u16 * column_width, width: column_width, ..inner };
            Paragraph::new(lines).render(column, buf);
        }
    }
}
