//! The mouse, mapped to actions in one place: the screen's layout ([`render::areas`]) says what is under
//! the pointer. A left click on a row of the moves table or on a board point that is a book move walks into
//! that move; the wheel moves through the moves table, the jobs table and the help. What comes out is an
//! ordinary [`Action`] (a command, or a key for the help), so `update` stays the only place state changes
//! and a recording holds what the click meant.

use super::action::{Action, Command, Key};
use super::app::{App, Mode};
use super::render;
use crate::go::{Move, Point};
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

/// The action a mouse event stands for on the app's current screen, if any.
pub fn action(app: &App, event: &MouseEvent) -> Option<Action> {
    let at = Position::new(event.column, event.row);
    let screen = Rect::new(0, 0, app.width, app.height);
    match (&app.mode, event.kind) {
        (Mode::Help(_), MouseEventKind::ScrollDown) => Some(Action::Key(Key("down".into()))),
        (Mode::Help(_), MouseEventKind::ScrollUp) => Some(Action::Key(Key("up".into()))),
        (Mode::Normal, _) if app.endgame_open().is_none() => {
            let areas = render::areas(app, screen);
            // Panes drawn over others (the graph, the annotated game) take the pointer there.
            let covered = |r: Option<Rect>| r.is_some_and(|r| r.contains(at));
            if covered(areas.graph) || covered(areas.annotate) {
                return None;
            }
            let command = match event.kind {
                MouseEventKind::Down(MouseButton::Left) if areas.moves.contains(at) => {
                    table_click(app, areas.moves, at)?
                }
                MouseEventKind::Down(MouseButton::Left) if areas.board.contains(at) => {
                    board_click(app, areas.board, at)?
                }
                MouseEventKind::ScrollDown if areas.moves.contains(at) => Command::CursorDown,
                MouseEventKind::ScrollUp if areas.moves.contains(at) => Command::CursorUp,
                MouseEventKind::ScrollDown if areas.jobs.contains(at) => Command::JobDown,
                MouseEventKind::ScrollUp if areas.jobs.contains(at) => Command::JobUp,
                _ => return None,
            };
            Some(Action::Run(command))
        }
        _ => None,
    }
}

/// A click on the moves table: the move of that row (the header, the "other" row and the borders play
/// nothing).
fn table_click(app: &App, pane: Rect, at: Position) -> Option<Command> {
    let inner = inner(pane);
    if !inner.contains(at) || at.y == inner.y {
        return None;
    }
    let first = super::panes::moves::first_row(app.cursor, inner.height);
    let row = first + (at.y - inner.y - 1) as usize;
    let edge = app.current()?.edges.get(row)?;
    Some(play(app, app.edge_move_in_root(edge)))
}

/// A click on the board: the book move on that point (any of its images under the position's
/// symmetries), if there is one.
fn board_click(app: &App, pane: Rect, at: Position) -> Option<Command> {
    let book = app.book.as_ref()?;
    let inner = inner(pane);
    let (x, y) = (
        at.x.checked_sub(inner.x + 3)?,
        at.y.checked_sub(inner.y + 1)?,
    );
    // Each point takes two columns: its own and the grid line to its right.
    let (sx, sy) = ((x / 2) as usize, y as usize);
    if sx >= book.size.width() || sy >= book.size.height() {
        return None;
    }
    let clicked = Move::Play(app.view.inverse().apply(book.size, Point::new(sx, sy)));
    let (node, step) = (app.current()?, app.current_step()?);
    node.edges
        .iter()
        .find(|e| app.edge_points_in_root(node, step, e).contains(&clicked))?;
    Some(play(app, clicked))
}

/// Walking into `mv` (root orientation) after the current line: `goto` with the line as the screen
/// shows it, which the book follows move by move.
fn play(app: &App, mv: Move) -> Command {
    let mut line = app.line();
    line.push(mv);
    Command::Goto(line.into_iter().map(|m| app.screen_text(m)).collect())
}

fn inner(pane: Rect) -> Rect {
    ratatui::widgets::Block::bordered().inner(pane)
}
