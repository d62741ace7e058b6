//! Endgame temperatures: exact combinatorial games, the exact local solver, and endgame problem files.
//! Sees the Go core only; engines arrive through the `Engine` trait in later work.

pub mod analysis;
pub mod cgt;
pub mod leaf;
pub mod problem;
pub mod proposer;
pub mod region;
pub mod settle;
pub mod solver;
pub mod tree;
