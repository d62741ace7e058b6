//! tengen: a terminal workbench for Go opening books and endgame temperatures.
//!
//! The module tree is the architecture (see `docs/architecture.md`): dependencies point downwards only,
//! from `tui` through `jobs`, `book`/`endgame`/`records`, `engine` and `nn` to `go`; `files` (whole writes,
//! folder walks) sits beside `go` at the bottom.

pub mod book;
pub mod endgame;
pub mod engine;
pub mod files;
pub mod go;
pub mod jobs;
pub mod nn;
pub mod records;
pub mod session;
pub mod tui;
