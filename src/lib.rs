//! tengen: a terminal workbench for Go opening books and endgame temperatures.
//!
//! The module tree is the architecture (see `docs/architecture.md`): dependencies point downwards only,
//! from `tui` through `jobs`, `book`/`endgame`/`records`, `engine` and `nn` to `go`.

pub mod book;
pub mod endgame;
pub mod engine;
pub mod go;
pub mod jobs;
pub mod nn;
pub mod records;
pub mod session;
pub mod tui;
