//! Uniformly random playouts: the baseline the rollout engine builds on and the board's speed benchmark.
//!
//! A playout picks uniformly among the empty points, skipping illegal moves and the mover's own
//! single-point eyes, until both players have to pass. Simple ko only: superko cycles are cut by a move cap.

use super::board::Board;
use super::coord::{Color, Point};

/// A small, fast, seedable generator (xoshiro256++), good enough for playouts and reproducible.
#[derive(Debug, Clone)]
pub struct FastRng {
    s: [u64; 4],
}

impl FastRng {
    pub fn new(seed: u64) -> FastRng {
        let mut z = seed;
        let mut next = || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        FastRng {
            s: [next(), next(), next(), next()],
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A number in `0..n` (Lemire's multiply-shift; the bias is negligible for board-sized `n`).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Picks a uniformly random legal move for `color` that does not fill its own eye, or `None` (pass).
#[inline]
pub fn random_move(board: &Board, color: Color, rng: &mut FastRng) -> Option<Point> {
    let empties = board.empty_points();
    let n = empties.len();
    if n == 0 {
        return None;
    }
    // Walk the empty list from a random start: every point is tried once, in a rotated order.
    let start = rng.below(n);
    for k in 0..n {
        let i = start + k;
        let p = Point::from_index(empties[if i >= n { i - n } else { i }] as usize);
        if board.ko_point() != Some(p)
            && !board.is_eye(color, p)
            && board.has_liberty_after(color, p)
        {
            return Some(p);
        }
    }
    None
}

/// Plays random moves until two passes in a row or `max_moves`; returns the number of moves played.
pub fn play_out(board: &mut Board, mut color: Color, rng: &mut FastRng, max_moves: usize) -> usize {
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < max_moves {
        match random_move(board, color, rng) {
            Some(p) => {
                board.place(color, p);
                passes = 0;
            }
            None => {
                board.clear_ko();
                passes += 1;
            }
        }
        moves += 1;
        color = color.opponent();
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::coord::BoardSize;
    use crate::go::score::area_difference;

    #[test]
    fn playouts_end_with_only_eyes_left() {
        let mut rng = FastRng::new(7);
        for _ in 0..50 {
            let size = BoardSize::square(9).unwrap();
            let mut b = Board::new(size);
            let moves = play_out(&mut b, Color::Black, &mut rng, 1000);
            assert!(moves < 1000);
            assert!(random_move(&b, Color::Black, &mut rng).is_none());
            assert!(random_move(&b, Color::White, &mut rng).is_none());
            assert!(area_difference(&b).abs() <= 81);
        }
    }

    #[test]
    fn seeded_playouts_repeat() {
        let size = BoardSize::square(7).unwrap();
        let run = |seed| {
            let mut b = Board::new(size);
            play_out(&mut b, Color::Black, &mut FastRng::new(seed), 500);
            b.stone_hash()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }
}
