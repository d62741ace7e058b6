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

/// Where each pane goes on a screen of `area`: one computation that drawing and the mouse share, so a
/// click lands on what was drawn there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub main: Rect,
    pub status: Rect,
    pub board: Rect,
    pub moves: Rect,
    pub line: Rect,
    pub jobs: Rect,
    /// The graph (`w`) over the lower half of the right side, when shown.
    pub graph: Option<Rect>,
    /// The annotated game's pane, over the lower right, when a game is loaded.
    pub annotate: Option<Rect>,
}

pub fn areas(app: &App, area: Rect) -> Areas {
    let [main, status] = Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
    let (board_w, board_h) = BoardPane::size_for(app);
    let [left, right] =
        Layout::horizontal([Constraint::Length(board_w), Constraint::Min(0)]).areas(main);
    let jobs_h = (app.jobs.len() as u16 + 2)
        .clamp(3, 10)
        .min(main.height / 3);
    // The line goes under the board when the board leaves room, otherwise on the right.
    let line_h = 4;
    let (board, line, moves, jobs) = if left.height >= board_h + line_h {
        let [board, line] =
            Layout::vertical([Constraint::Length(board_h), Constraint::Min(0)]).areas(left);
        let [moves, jobs] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(jobs_h)]).areas(right);
        (board, line, moves, jobs)
    } else {
        let [moves, line, jobs] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(3),
            Constraint::Length(jobs_h),
        ])
        .areas(right);
        (left, line, moves, jobs)
    };
    let graph = app.show_graph.then(|| {
        let half = right.height / 2;
        Rect::new(right.x, right.y + half, right.width, right.height - half)
    });
    let annotate = app
        .annotation
        .as_ref()
        .map(|_| AnnotatePane::area(main, board_w));
    Areas {
        main,
        status,
        board,
        moves,
        line,
        jobs,
        graph,
        annotate,
    }
}

/// Draws into any buffer (the terminal's, a test's, a headless replay's).
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    use ratatui::widgets::Widget;
    let at = areas(app, area);
    BoardPane { app }.render(at.board, buf);
    MovesPane { app }.render(at.moves, buf);
    LinePane { app }.render(at.line, buf);
    JobsPane { app }.render(at.jobs, buf);
    if let Some(graph) = at.graph {
        super::panes::graph::GraphPane { app }.render(graph, buf);
    }
    if let Some(state) = app.endgame_open() {
        super::panes::endgame::EndgamePane { app, state }.render(at.main, buf);
    }
    StatusPane { app }.render(at.status, buf);
    if let (Some(game), Some(pane)) = (&app.annotation, at.annotate) {
        AnnotatePane { app, game }.render(pane, buf);
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
