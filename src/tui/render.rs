//! Drawing the whole screen: a pure function of the [`App`], so that a replay draws the same frames.

use super::app::{App, Mode};
use super::panes::annotate::AnnotatePane;
use super::panes::board::BoardPane;
use super::panes::help::HelpPane;
use super::panes::jobs::JobsPane;
use super::panes::line::LinePane;
use super::panes::moves::MovesPane;
use super::panes::status::StatusPane;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};

pub fn render(app: &App, frame: &mut Frame) {
    draw(app, frame.area(), frame.buffer_mut());
}

/// Draws into any buffer (the terminal's, a test's, a headless replay's).
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    use ratatui::widgets::Widget;
    let [main, status] = Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
    let (board_w, board_h) = BoardPane::size_for(app);
    let [left, right] =
        Layout::horizontal([Constraint::Length(board_w), Constraint::Min(0)]).areas(main);
    let jobs_h = (app.jobs.len() as u16 + 2)
        .clamp(3, 10)
        .min(main.height / 3);
    // The line goes under the board when the board leaves room, otherwise on the right.
    let line_h = 4;
    if left.height >= board_h + line_h {
        let [board, line] =
            Layout::vertical([Constraint::Length(board_h), Constraint::Min(0)]).areas(left);
        BoardPane { app }.render(board, buf);
        LinePane { app }.render(line, buf);
        let [moves, jobs] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(jobs_h)]).areas(right);
        MovesPane { app }.render(moves, buf);
        JobsPane { app }.render(jobs, buf);
    } else {
        BoardPane { app }.render(left, buf);
        let [moves, line, jobs] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(3),
            Constraint::Length(jobs_h),
        ])
        .areas(right);
        MovesPane { app }.render(moves, buf);
        LinePane { app }.render(line, buf);
        JobsPane { app }.render(jobs, buf);
    }
    if app.show_graph {
        let half = right.height / 2;
        let graph = Rect::new(right.x, right.y + half, right.width, right.height - half);
        super::panes::graph::GraphPane { app }.render(graph, buf);
    }
    if let Some(state) = app.endgame_open() {
        super::panes::endgame::EndgamePane { app, state }.render(main, buf);
    }
    StatusPane { app }.render(status, buf);
    if let Some(game) = &app.annotation {
        AnnotatePane { app, game }.render(AnnotatePane::area(main, board_w), buf);
    }
    if let Mode::Help(scroll) = app.mode {
        HelpPane { app, scroll }.render(area, buf);
    }
}

/// The buffer as plain text, one line per row with trailing spaces kept: what headless replay writes and
/// what the end-to-end test compares with tmux's `capture-pane`.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::with_capacity((area.width as usize + 1) * area.height as usize);
    for y in area.y..area.bottom() {
        let mut skip = 0;
        for x in area.x..area.right() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buf[(x, y)].symbol();
            out.push_str(symbol);
            // Wide glyphs occupy the next cell too.
            skip = unicode_width(symbol).saturating_sub(1);
        }
        out.push('\n');
    }
    out
}

fn unicode_width(s: &str) -> usize {
    use ratatui::text::Span;
    Span::raw(s).width()
}
