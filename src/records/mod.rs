//! Books from other sources: game records (Chen et al.), and the tools to read and write them.
//!
//! `orient` brings games to a canonical orientation with the Go core's hashing, `tree` merges and trims
//! them, `mcst` reads and writes the paper's text format, `collect` reads SGF files and folders.

pub mod annotate;
pub mod book;
pub mod coevolve;
pub mod collect;
pub mod mcst;
pub mod orient;
pub mod posdb;
pub mod tree;

pub use collect::{Collection, Skipped, collect};
pub use tree::{MergeCounts, Outcome, RecordTree};
