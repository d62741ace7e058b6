//! Endgame analysis with combinatorial game theory, laid out by method:
//! - `cgt`: exact combinatorial games, thermographs and the Go player's classification;
//! - `region`: the local region and the captured space sealed off in it;
//! - `local`: what local play can still change without a search (settled points, reading, judged counts);
//! - `exact`: the exact local solver;
//! - `net`: network-guided variation trees (proposers, the tree builder, the networks, leaf scoring);
//! - `lines`: a problem file's given lines scored as a game;
//! - `problem`: the endgame problem file format;
//! - `types` and `analysis`: the types the methods share, and the facade that runs one.

pub mod analysis;
pub mod cgt;
pub mod exact;
pub mod lines;
pub mod local;
pub mod net;
pub mod problem;
pub mod region;
#[cfg(test)]
mod test_support;
pub mod types;
