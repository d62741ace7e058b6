//! `:annotate`: a game file checked against the book and stepped through move by move.

use super::navigation::{remember, set_line};
use super::{error, info};
use crate::tui::action::{Command, Effect};
use crate::tui::annotation;
use crate::tui::app::App;

/// Runs an annotation command ([`super::run`] sends only those here).
pub(super) fn run(app: &mut App, command: Command) -> Vec<Effect> {
    match command {
        Command::Annotate(Some(path)) => {
            info(app, format!("reading {path}…"));
            return vec![Effect::ReadGame(path)];
        }
        Command::Annotate(None) => {
            app.annotation = None;
            info(app, "annotation closed".into());
        }
        Command::AnnotateNext => step_game(app, true),
        Command::AnnotatePrev => step_game(app, false),
        _ => {}
    }
    Vec::new()
}

/// A game file for `:annotate` arrived: annotate it and go to the root, where the game starts.
pub(super) fn game_file(app: &mut App, path: &str, text: Result<String, String>) {
    let Some(book) = &app.book else {
        error(app, "no book is open yet".into());
        return;
    };
    let loaded = text
        .map_err(|e| format!("{path}: {e}"))
        .and_then(|text| annotation::load(book, path, &text));
    match loaded {
        Ok(game) => {
            let summary = match game.left_book_at() {
                Some(n) => format!(
                    "{path}: {} moves, leaves the book at move {n} · . and , step through it",
                    game.moves.len()
                ),
                None => format!(
                    "{path}: {} moves, {} in the book · . and , step through it",
                    game.moves.len(),
                    game.book_moves()
                ),
            };
            app.annotation = Some(game);
            set_line(app, &[]);
            remember(app);
            info(app, summary);
        }
        Err(e) => error(app, format!("annotate: {e}")),
    }
}

/// One move forward or back in the annotated game; the book walk follows as far as the book goes.
fn step_game(app: &mut App, forward: bool) {
    let (Some(book), Some(game)) = (&app.book, &mut app.annotation) else {
        info(
            app,
            "no game to step through (:annotate FILE.sgf loads one)".into(),
        );
        return;
    };
    // Expansion may have grown the book since the game was loaded.
    game.notes = annotation::annotate(book, &game.moves);
    game.at = if forward {
        (game.at + 1).min(game.moves.len())
    } else {
        game.at.saturating_sub(1)
    };
    let (at, total, in_book, line) = (
        game.at,
        game.moves.len(),
        game.book_moves(),
        game.book_line(),
    );
    if set_line(app, &line) {
        let text = if at > in_book {
            format!(
                "game move {at} of {total}: out of the book since move {}",
                in_book + 1
            )
        } else {
            format!("game move {at} of {total}")
        };
        info(app, text);
    }
    remember(app);
}
