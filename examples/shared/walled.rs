//! Walled corner and edge regions on an otherwise empty 19x19 board, the shape of a boundary play in the
//! endgame course, drawn from a seeded generator (shared by the examples that label them with the exact
//! solver).

// Each example that includes this file uses a part of it.
#![allow(dead_code)]

use tengen::endgame::region::Region;
use tengen::go::{Board, BoardSize, Color, Point, Symmetry};

const SIDE: usize = 19;

/// splitmix64: small, seeded, and the same on every platform and crate version.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.range(0, items.len() - 1))
        }
    }
}

/// A generated local problem.
pub struct Position {
    pub board: Board,
    pub region: Region,
}

/// The training data's windows: 2–5 points wide, 2–3 deep.
pub const SMALL: Window = Window { width: 5, depth: 3 };

/// The largest window drawn (its smallest is 2 × 2).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub width: usize,
    pub depth: usize,
}

/// Draws a walled window at the top-left corner or the top edge, then maps it by a random symmetry.
pub fn generate(rng: &mut Rng, size: BoardSize, window: Window) -> Position {
    let corner = rng.chance(0.5);
    let (w, h) = (rng.range(2, window.width), rng.range(2, window.depth));
    let x0 = if corner {
        0
    } else {
        rng.range(3, SIDE - w - 3)
    };
    // The wall runs around the window from the edge back to the edge (or the other edge at a corner).
    let mut wall = Vec::new();
    if !corner {
        wall.extend((0..=h).map(|y| (x0 - 1, y)));
    }
    if corner {
        // From the top edge down the right side, then along the bottom back to the left edge.
        wall.extend((0..=h).map(|y| (x0 + w, y)));
        wall.extend((x0..x0 + w).rev().map(|x| (x, h)));
    } else {
        wall.extend((x0..x0 + w).map(|x| (x, h)));
        wall.extend((0..=h).rev().map(|y| (x0 + w, y)));
    }
    let split = rng.range(1, wall.len() - 1);
    let first = if rng.chance(0.5) {
        Color::Black
    } else {
        Color::White
    };
    let symmetry = Symmetry::ALL[rng.range(0, 7)];
    let at = |x: usize, y: usize| symmetry.apply(size, Point::new(x, y));
    let mut board = Board::new(size);
    let mut wall_colour = Vec::new();
    for (i, &(x, y)) in wall.iter().enumerate() {
        let colour = if i < split { first } else { first.opponent() };
        board.setup_stone(colour, at(x, y));
        wall_colour.push(((x, y), colour));
        // Thicker walls, as in real positions (they change nothing locally: the wall is anchored).
        if y + 1 < SIDE && y == h && rng.chance(0.4) {
            board.setup_stone(colour, at(x, y + 1));
        }
    }
    // Stones inside, each of the colour of the nearest wall stone more often than not.
    let density = 0.15 + 0.3 * (rng.next() % 100) as f64 / 100.0;
    let mut inside = Vec::new();
    for y in 0..h {
        for x in x0..x0 + w {
            inside.push(at(x, y));
            if !rng.chance(density) {
                continue;
            }
            let nearest = wall_colour
                .iter()
                .min_by_key(|((wx, wy), _)| wx.abs_diff(x) + wy.abs_diff(y))
                .map_or(Color::Black, |&(_, c)| c);
            let colour = if rng.chance(0.7) {
                nearest
            } else {
                nearest.opponent()
            };
            let p = at(x, y);
            if board.check(colour, p, false).is_ok() {
                board.setup_stone(colour, p);
            }
        }
    }
    Position {
        board,
        region: Region::new(inside),
    }
}
