//! Endgame temperatures: exact combinatorial games, the exact local solver, life and death by reading,
//! endgame problem files, and network-guided variation trees (proposers, leaf scoring, the analysis facade).

pub mod analysis;
pub mod cgt;
pub mod leaf;
pub mod problem;
pub mod proposer;
pub mod region;
pub mod settle;
pub mod solver;
pub mod status;
#[cfg(test)]
mod test_support;
pub mod tree;
