//! Background work for the workbench: book expansion (K at a time), deep analysis of a line, with
//! priorities, progress, cancel and retry. Jobs run as tokio tasks and talk to the app only through
//! [`JobEvent`]s, which the app records like key presses.

pub mod endgame;
pub mod evaluate;
pub mod metered;
pub mod runner;

use crate::book::NodeId;
use crate::book::marks::Mark;
use crate::book::view::NodeView;
use crate::go::Move;
pub use runner::{Request, Runner, RunnerConfig};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct JobId(pub u32);

/// Higher runs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Priority(pub i32);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum JobKind {
    /// One expansion step of a node: search it with the book's moves banned, add the best new move.
    Expand { node: NodeId, line: Vec<Move> },
    /// Search every node of a line with a large budget and harvest the results into the book.
    AnalyzeLine { line: Vec<Move> },
    /// The endgame pane's analysis of a region.
    Endgame(Box<endgame::Request>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobState {
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl JobState {
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            JobState::Done | JobState::Failed | JobState::Cancelled
        )
    }
}

/// What a job tells the app. Times are milliseconds since the session started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum JobEvent {
    Queued {
        id: JobId,
        kind: JobKind,
        priority: Priority,
        target_visits: u64,
    },
    Started {
        id: JobId,
        at_ms: u64,
    },
    Progress {
        id: JobId,
        visits: u64,
    },
    Finished {
        id: JobId,
        at_ms: u64,
        summary: String,
    },
    Failed {
        id: JobId,
        at_ms: u64,
        error: String,
    },
    Cancelled {
        id: JobId,
        at_ms: u64,
    },
    /// Nodes a job changed or created, all from one book update; the app replaces its copies.
    NodesChanged(Vec<NodeView>),
    /// The book accepted a mark (or its removal).
    MarksChanged {
        node: NodeId,
        marks: Vec<Mark>,
    },
    /// Background expansion stopped on its own (nothing left to expand, or an error).
    ExpansionIdle {
        reason: String,
    },
    /// An endgame job's result, sent just before its `Finished`.
    EndgameReport {
        id: JobId,
        report: Box<endgame::Report>,
    },
    /// Something the user should know that belongs to no job (a mark the book refused).
    Notice {
        text: String,
        is_error: bool,
    },
    /// The network's evaluation of the position after `line` (root orientation) for the board's overlays,
    /// or why there is none (the engine has no network, the network failed).
    Evaluated {
        line: Vec<Move>,
        eval: Result<Box<crate::nn::output::NnEval>, String>,
    },
}
