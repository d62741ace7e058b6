//! The bottom line: the `:` command line while typing one, a yes/no question while one is asked, otherwise
//! the last message on the left and the book, rules, view, overlay and engine on the right.

use crate::tui::app::{App, Mode};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

pub struct StatusPane<'a> {
    pub app: &'a App,
}

impl Widget for StatusPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let base = Style::default().fg(theme.status_fg).bg(theme.status_bg);
        buf.set_style(area, base);
        if let Mode::Command(text) = &app.mode {
            buf.set_stringn(
                area.x,
                area.y,
                format!(":{text}█"),
                area.width as usize,
                base,
            );
            return;
        }
        if let Mode::Confirm { question, .. } = &app.mode {
            buf.set_stringn(
                area.x,
                area.y,
                format!(" {question}"),
                area.width as usize,
                base.fg(theme.error),
            );
            return;
        }
        let engine = app
            .engine
            .as_ref()
            .map(|e| format!(" · {}", crate::tui::confirm::label(e)))
            .unwrap_or_default();
        let overlay = match app.overlay {
            crate::tui::overlay::Overlay::Off => String::new(),
            kind if crate::tui::overlay::current(app).is_none() => {
                format!(" · {} …", kind.name())
            }
            kind => format!(" · {}", kind.name()),
        };
        let right = match &app.book {
            Some(b) => format!(
                " {} · {} komi {} · view {}{overlay}{engine} ",
                b.name, b.size, b.rules.komi, app.view
            ),
            None => String::new(),
        };
        // The message comes first: the right-hand summary only gets the room the message leaves.
        let message = format!(" {}", app.status.text.replace('\n', " "));
        let room = (area.width as usize).saturating_sub(message.chars().count() + 1);
        let right_width = right.chars().count().min(room) as u16;
        let left_width = area.width.saturating_sub(right_width);
        let style = if app.status.is_error {
            base.fg(theme.error)
        } else {
            base
        };
        buf.set_stringn(area.x, area.y, message, left_width as usize, style);
        if right_width > 0 {
            let right: String = right
                .chars()
                .rev()
                .take(right_width as usize)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            buf.set_stringn(
                area.x + left_width,
                area.y,
                right,
                right_width as usize,
                base.fg(theme.dim),
            );
        }
    }
}
