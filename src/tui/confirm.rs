//! The engine the workbench grows the book with, and the question it asks before growing a book with an
//! engine that misjudges the board (`rollout` beyond 5x5, `engine::spec::caution`) or that did not grow
//! the book (`Book::mixing`): the status line names the engine and its caution, and the first expansion
//! waits for `y`.

use super::action::{Command, Effect, Key};
use super::app::{App, EngineStatus, Mode, Status};

/// The engine is known: remember it, and say at once what the user must know about it.
pub fn engine_ready(app: &mut App, engine: EngineStatus) {
    if let Some(caution) = engine.caution.as_ref().or(engine.mixing.as_ref()) {
        app.status = Status {
            text: caution.clone(),
            is_error: true,
        };
    }
    app.engine = Some(engine);
    app.caution_accepted = false;
}

/// The question to ask before `command` runs, if there is one; asking puts the app in [`Mode::Confirm`].
pub fn ask(app: &mut App, command: &Command) -> bool {
    if *command != Command::ExpandStart || app.caution_accepted {
        return false;
    }
    let Some(engine) = app
        .engine
        .as_ref()
        .filter(|e| e.caution.is_some() || e.mixing.is_some())
    else {
        return false;
    };
    // Short, so that the answer keys fit on a narrow terminal; the caution itself was said at start and
    // the right-hand side of the status line keeps saying it.
    let question = if engine.caution.is_some() {
        format!(
            "{} is unreliable on this board: grow the book with it anyway? y / n",
            engine.name
        )
    } else {
        format!(
            "another engine grew this book: mix in {}'s values? y / n",
            engine.name
        )
    };
    app.mode = Mode::Confirm {
        question,
        then: command.clone(),
    };
    true
}

/// The answer: `y` runs the command (and the question is not asked again this session), any other key
/// leaves things as they were.
pub fn on_key(app: &mut App, key: &Key, then: Command) -> Vec<Effect> {
    app.mode = Mode::Normal;
    if key.0 == "y" || key.0 == "Y" {
        app.caution_accepted = true;
        super::update::run(app, then)
    } else {
        let mixing = app.engine.as_ref().is_some_and(|e| e.caution.is_none());
        let text = if mixing {
            "expansion not started; open it with the engine that grew it, or trim it (`tengen book trim`)"
        } else {
            "expansion not started; `--engine onnx` grows it with the network"
        };
        app.status = Status {
            text: text.into(),
            is_error: false,
        };
        Vec::new()
    }
}

/// The engine as the status line's right-hand side names it.
pub fn label(engine: &EngineStatus) -> String {
    match (&engine.caution, &engine.mixing) {
        (Some(_), _) => format!("engine {} (unreliable here)", engine.name),
        (None, Some(_)) => format!("engine {} (mixing engines)", engine.name),
        (None, None) => format!("engine {}", engine.name),
    }
}
