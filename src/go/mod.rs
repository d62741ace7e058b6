//! The Go core: coordinates, rules, the board, games with superko, symmetry, hashing, scoring and SGF.
//! It knows nothing of the modules above it.

pub mod board;
pub mod coord;
pub mod game;
pub mod hash;
pub mod playout;
pub mod rules;
pub mod score;
pub mod sgf;
pub mod symmetry;
pub mod zobrist;

pub use board::{Board, Cell, IllegalMove};
pub use coord::{BoardSize, Color, Move, Point, PointSet};
pub use game::{Game, GameError, Setup};
pub use hash::{BookHash, Canonical};
pub use rules::{KoRule, Komi, Rules, Scoring, Tax};
pub use symmetry::Symmetry;
