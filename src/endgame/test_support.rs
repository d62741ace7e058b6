//! Helpers shared by the endgame modules' unit tests: the development problems and 19x19 positions.

use super::problem::Problem;
use crate::go::{Board, BoardSize, Color, Point};
use std::path::Path;

/// A development problem, by its path under `../shared/data/endgame-dev/`.
pub fn problem(name: &str) -> Problem {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/endgame-dev/");
    Problem::read(&Path::new(dir).join(name)).expect("problem file")
}

/// A point of a 19x19 board, in GTP coordinates.
pub fn at(gtp: &str) -> Point {
    Point::parse_gtp(gtp, BoardSize::square(19).expect("19x19")).expect("point")
}

/// A 19x19 board with the given stones (GTP coordinates).
pub fn board_with(black: &[&str], white: &[&str]) -> Board {
    let mut board = Board::new(BoardSize::square(19).expect("19x19"));
    for (color, stones) in [(Color::Black, black), (Color::White, white)] {
        for s in stones {
            board.setup_stone(color, at(s));
        }
    }
    board
}
