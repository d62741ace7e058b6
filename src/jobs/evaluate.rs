//! One network evaluation of a position for the workbench's overlays (ownership, policy). Not a job: a
//! single network call, answered on its own task so that the job queue never waits on it.

use super::JobEvent;
use super::runner::SharedBook;
use crate::engine::Engine;
use crate::go::Move;
use crate::nn::output::NnEval;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Evaluates the position after `line` (root orientation) and sends [`JobEvent::Evaluated`].
pub fn spawn(
    shared: Arc<SharedBook>,
    engine: Arc<dyn Engine>,
    events: mpsc::UnboundedSender<JobEvent>,
    line: Vec<Move>,
) {
    tokio::spawn(async move {
        let asked = line.clone();
        let eval = tokio::task::spawn_blocking(move || evaluate(&shared, &*engine, &asked))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r);
        let _ = events.send(JobEvent::Evaluated { line, eval });
    });
}

/// The network's evaluation of the position after `line`, or why the engine cannot give one.
pub fn evaluate(
    shared: &SharedBook,
    engine: &dyn Engine,
    line: &[Move],
) -> Result<Box<NnEval>, String> {
    let mut game = shared.lock().meta.initial_game();
    for &mv in line {
        game.play(mv)
            .map_err(|e| format!("{} is illegal here: {e}", mv.to_gtp(game.size())))?;
    }
    match engine.network_eval(&game) {
        Some(Ok(eval)) => Ok(Box::new((*eval).clone())),
        Some(Err(e)) => Err(e.to_string()),
        None => Err(format!(
            "the engine `{}` runs no network of its own",
            engine.name()
        )),
    }
}
