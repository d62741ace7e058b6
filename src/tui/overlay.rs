//! Board overlays from the network at the current position: ownership (who the network expects to own
//! each point) and policy (where it would play). The runtime asks the engine for one evaluation per
//! position ([`Effect::Evaluate`]); the answer comes back as a job event and is kept per line, so that
//! walking back and forth redraws at once.

use super::action::Effect;
use super::app::App;
use crate::go::Move;
use crate::jobs::Request;
use crate::nn::output::NnEval;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, VecDeque};

/// Evaluations kept; a 19×19 one is a few kilobytes.
const KEPT: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Overlay {
    #[default]
    Off,
    Ownership,
    Policy,
}

impl Overlay {
    pub fn parse(word: &str) -> Result<Overlay, String> {
        match word {
            "ownership" | "own" | "territory" => Ok(Overlay::Ownership),
            "policy" | "prior" => Ok(Overlay::Policy),
            "off" | "none" => Ok(Overlay::Off),
            _ => Err(format!(
                "no overlay `{word}` (usage: overlay [ownership|policy|off])"
            )),
        }
    }

    /// The next one in the cycle off → ownership → policy → off.
    pub fn next(self) -> Overlay {
        match self {
            Overlay::Off => Overlay::Ownership,
            Overlay::Ownership => Overlay::Policy,
            Overlay::Policy => Overlay::Off,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Overlay::Off => "off",
            Overlay::Ownership => "ownership",
            Overlay::Policy => "policy",
        }
    }
}

/// The network's evaluations by line (root orientation), and the lines asked for and not yet answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evals {
    cache: VecDeque<(Vec<Move>, Box<NnEval>)>,
    pending: BTreeSet<Vec<Move>>,
}

impl Evals {
    pub fn get(&self, line: &[Move]) -> Option<&NnEval> {
        self.cache
            .iter()
            .find(|(l, _)| l.as_slice() == line)
            .map(|(_, e)| e.as_ref())
    }

    pub fn is_pending(&self, line: &[Move]) -> bool {
        self.pending.contains(line)
    }

    fn insert(&mut self, line: Vec<Move>, eval: Box<NnEval>) {
        self.cache.retain(|(l, _)| *l != line);
        if self.cache.len() >= KEPT {
            self.cache.pop_front();
        }
        self.cache.push_back((line, eval));
    }
}

/// `:overlay KIND`, or with no kind the next one in the cycle.
pub fn set(app: &mut App, choice: Option<Overlay>) {
    app.overlay = choice.unwrap_or_else(|| app.overlay.next());
    app.status = super::app::Status {
        text: match app.overlay {
            Overlay::Off => "overlay off".into(),
            kind => format!("overlay: {} from the network at this position", kind.name()),
        },
        is_error: false,
    };
}

/// After every update: ask for the current position's evaluation when an overlay needs it and it is
/// neither known nor on its way.
pub fn request(app: &mut App) -> Option<Effect> {
    if app.overlay == Overlay::Off || app.book.is_none() {
        return None;
    }
    let line = app.line();
    if app.evals.get(&line).is_some() || app.evals.is_pending(&line) {
        return None;
    }
    app.evals.pending.insert(line.clone());
    Some(Effect::Job(Request::Evaluate { line }))
}

/// An evaluation arrived, or the reason there is none: then the overlay turns off and says why.
pub fn evaluated(app: &mut App, line: Vec<Move>, eval: Result<Box<NnEval>, String>) {
    app.evals.pending.remove(&line);
    match eval {
        Ok(eval) => app.evals.insert(line, eval),
        Err(why) => {
            if app.overlay != Overlay::Off {
                app.status = super::app::Status {
                    text: format!("overlay unavailable: {why} (the onnx engine does)"),
                    is_error: true,
                };
            }
            app.overlay = Overlay::Off;
        }
    }
}

/// The evaluation of the position on screen, when the overlay is on and it has arrived.
pub fn current(app: &App) -> Option<&NnEval> {
    if app.overlay == Overlay::Off {
        return None;
    }
    app.evals.get(&app.line())
}
