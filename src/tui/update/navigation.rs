//! Moving through the book: into and out of positions, siblings, the best line, history, bookmarks,
//! `:goto`, and the view's symmetry.

use super::{error, info};
use crate::go::{Move, Symmetry};
use crate::tui::action::Command;
use crate::tui::app::{App, Step};

/// Runs a navigation command ([`super::run`] sends only those here).
pub(super) fn run(app: &mut App, command: Command) {
    match command {
        Command::Into => {
            if !enter(app, app.cursor) {
                info(
                    app,
                    "no book move here: expand this position (space) to grow the book".into(),
                );
            } else {
                remember(app);
            }
        }
        Command::Parent => {
            let moved = parent(app);
            if moved {
                remember(app);
            }
        }
        Command::CursorUp => app.cursor = app.cursor.saturating_sub(1),
        Command::CursorDown => {
            let n = app.current().map_or(0, |n| n.edges.len());
            app.cursor = (app.cursor + 1).min(n.saturating_sub(1));
        }
        Command::NextSibling | Command::PrevSibling => {
            if app.path.len() < 2 {
                info(app, "the root has no siblings".into());
            } else {
                parent(app);
                let n = app.current().map_or(0, |n| n.edges.len());
                app.cursor = if command == Command::NextSibling {
                    (app.cursor + 1) % n.max(1)
                } else {
                    (app.cursor + n.max(1) - 1) % n.max(1)
                };
                enter(app, app.cursor);
                remember(app);
            }
        }
        Command::BestLine => {
            let mut steps = 0;
            // A book is a DAG, so this ends; the bound only guards against a corrupt one.
            while steps < 1000 && enter(app, 0) {
                steps += 1;
            }
            if steps > 0 {
                remember(app);
            }
        }
        Command::Root => {
            set_line(app, &[]);
            remember(app);
        }
        Command::HistoryBack if app.history_pos > 0 => {
            app.history_pos -= 1;
            let line = app.history[app.history_pos].clone();
            set_line(app, &line);
        }
        Command::HistoryForward if app.history_pos + 1 < app.history.len() => {
            app.history_pos += 1;
            let line = app.history[app.history_pos].clone();
            set_line(app, &line);
        }
        Command::BookmarkToggle => {
            let line = app.line();
            if let Some(i) = app.bookmarks.iter().position(|b| *b == line) {
                app.bookmarks.remove(i);
                info(app, "bookmark removed".into());
            } else {
                app.bookmarks.push(line);
                app.bookmarks.sort();
                info(app, format!("bookmarked ({} in all)", app.bookmarks.len()));
            }
        }
        Command::BookmarkNext | Command::BookmarkPrev => {
            if app.bookmarks.is_empty() {
                info(app, "no bookmarks yet (ctrl-b sets one)".into());
            } else {
                let line = app.line();
                let n = app.bookmarks.len();
                let i = app.bookmarks.iter().position(|b| *b == line);
                let next = match (i, command == Command::BookmarkNext) {
                    (Some(i), true) => (i + 1) % n,
                    (Some(i), false) => (i + n - 1) % n,
                    (None, true) => 0,
                    (None, false) => n - 1,
                };
                let target = app.bookmarks[next].clone();
                set_line(app, &target);
                remember(app);
            }
        }
        Command::Goto(words) => goto(app, &words),
        Command::Rotate | Command::Reflect => {
            let square = app.book.as_ref().is_some_and(|b| b.size.is_square());
            let by = if command == Command::Reflect {
                Symmetry::ALL[2]
            } else if square {
                Symmetry::ALL[5]
            } else {
                // Rectangles have no quarter turns; a half turn keeps them in shape.
                Symmetry::ALL[3]
            };
            app.view = app.view.then(by);
            info(app, format!("view: {}", app.view));
        }
        Command::ResetView => {
            app.view = Symmetry::IDENTITY;
            info(app, "view: as the book stores it".into());
        }
        _ => {}
    }
}

/// Plays the book move in row `row` of the current node. False when there is none.
pub(super) fn enter(app: &mut App, row: usize) -> bool {
    let (Some(book), Some(step)) = (&app.book, app.path.last()) else {
        return false;
    };
    let Some(edge) = book.node(step.node).and_then(|n| n.edges.get(row)) else {
        return false;
    };
    let mv = step.to_root.apply_move(book.size, edge.mv);
    let next = Step {
        node: edge.child,
        to_root: edge.to_child.inverse().then(step.to_root),
        mv: Some(mv),
    };
    if book.node(next.node).is_none() {
        return false;
    }
    if let Some(game) = &mut app.game
        && let Err(reason) = game.play(mv)
    {
        let text = format!(
            "the book move {} is illegal here: {reason}",
            mv.to_gtp(book.size)
        );
        error(app, text);
        return false;
    }
    app.path.push(next);
    app.cursor = 0;
    true
}

/// Steps back to the parent, highlighting the move we came by.
fn parent(app: &mut App) -> bool {
    if app.path.len() < 2 {
        return false;
    }
    let Some(left) = app.path.pop() else {
        return false;
    };
    rebuild_game(app);
    app.cursor = 0;
    if let (Some(node), Some(step), Some(mv)) =
        (app.current().cloned(), app.path.last().cloned(), left.mv)
        && let Some(row) = node
            .edges
            .iter()
            .position(|e| app.edge_points_in_root(&node, &step, e).contains(&mv))
    {
        app.cursor = row;
    }
    true
}

fn rebuild_game(app: &mut App) {
    let Some(book) = &app.book else { return };
    let mut game = App::initial_game(book);
    for mv in app.path.iter().filter_map(|s| s.mv) {
        if game.play(mv).is_err() {
            break;
        }
    }
    app.game = Some(game);
}

/// The step after playing `mv` (root orientation) at the end of the path, if the book has that move.
fn follow(app: &App, mv: Move) -> Option<Step> {
    let book = app.book.as_ref()?;
    crate::tui::annotation::follow(book, app.path.last()?, mv).map(|(step, _)| step)
}

/// Walks from the root along `line` (root orientation) as far as the book goes; says where it stopped.
pub(super) fn set_line(app: &mut App, line: &[Move]) -> bool {
    let Some(book) = &app.book else { return false };
    app.path = vec![Step {
        node: book.root,
        to_root: Symmetry::IDENTITY,
        mv: None,
    }];
    app.game = Some(App::initial_game(book));
    app.cursor = 0;
    for (i, &mv) in line.iter().enumerate() {
        match follow(app, mv) {
            Some(step) if app.game.as_mut().is_some_and(|g| g.play(mv).is_ok()) => {
                app.path.push(step)
            }
            _ => {
                let text = format!(
                    "{} (move {}) is not in the book; stopped after move {i}",
                    app.screen_text(mv),
                    i + 1
                );
                error(app, text);
                rebuild_game(app);
                return false;
            }
        }
    }
    true
}

fn goto(app: &mut App, words: &[String]) {
    let Some(size) = app.book.as_ref().map(|b| b.size) else {
        return;
    };
    let mut line = Vec::new();
    for w in words {
        match Move::parse_gtp(w, size) {
            // Typed moves are in screen coordinates; the book walks in the root's orientation.
            Ok(mv) => line.push(app.view.inverse().apply_move(size, mv)),
            Err(e) => {
                error(app, format!("goto: {e}"));
                return;
            }
        }
    }
    if set_line(app, &line) {
        info(app, format!("at move {}", line.len()));
    }
    remember(app);
}

/// Records the current line in the history (dropping anything forward of the current entry).
pub(super) fn remember(app: &mut App) {
    let line = app.line();
    if app.history.get(app.history_pos) == Some(&line) {
        return;
    }
    app.history.truncate(app.history_pos + 1);
    app.history.push(line);
    app.history_pos = app.history.len() - 1;
}
