//! Exact combinatorial game theory for Go endgames: rational numbers, games with number leaves and their
//! simplification, thermographs (temperature, mean, stops), and the Go player's classification.

pub mod classify;
pub mod fast_hash;
pub mod forced;
pub mod game;
pub mod rational;
pub mod thermograph;

pub use classify::{Kind, best_option, classify};
pub use forced::{best_mean, forced};
pub use game::Game;
pub use rational::Rational;
pub use thermograph::{Thermograph, Wall, attaining_wall, move_value};

#[cfg(test)]
mod tests;
