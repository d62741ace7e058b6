//! Engines answer one question: "search this position (with these root moves banned) and tell me what you
//! found, as it comes in". The book, the endgame analysis and the workbench see only the [`Engine`] trait.
//!
//! Values in reports are always from Black's point of view, whatever the engine's own convention.

pub mod exact;
pub mod gtp;
pub mod id;
pub mod katago;
pub mod line;
pub mod mcts;
pub mod pool;
pub mod process;
pub mod query;
pub mod rollout;
pub mod spec;

pub use id::{EngineId, EngineKind, Network};
pub use query::{Analysis, CancelToken, EngineError, MoveInfo, Query, Report, RootInfo};

/// A search backend. `analyze` returns at once; reports arrive on the returned [`Analysis`], the last one
/// with `is_final` set (or an error). Many analyses may be in flight on one engine.
///
/// Implementations spawn their work on tokio (external processes) or on their own threads (CPU search),
/// never blocking the caller; `analyze` must be called from within a tokio runtime.
pub trait Engine: Send + Sync {
    /// A short name for status lines and errors, e.g. `rollout` or `katago (b6c96)`.
    fn name(&self) -> String;

    /// Who the engine is, as books record it: kind, program, network (see [`EngineId`]). Cheap: engines
    /// work it out once.
    fn id(&self) -> EngineId;

    fn analyze(&self, query: Query) -> Analysis;

    /// The raw network's evaluation of one position (ownership, policy, values), for engines that run a
    /// network in process; `None` for engines without one (rollout, GTP programs). Blocks while the
    /// network runs, so callers off the async threads only.
    fn network_eval(
        &self,
        _game: &crate::go::Game,
    ) -> Option<Result<std::sync::Arc<crate::nn::output::NnEval>, EngineError>> {
        None
    }
}
