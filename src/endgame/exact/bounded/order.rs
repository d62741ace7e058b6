//! Move ordering for the bounded search: moves likely to be best first, so that the first solved option
//! sets a scaffold the others rarely beat and the first answer to an option bounds it tightly.

use super::Candidate;
use crate::go::board::neighbours;
use crate::go::{Board, Cell, Color};

/// Sorts the candidates (stably) by a cheap promise: captures first, then ataris, then contact with the
/// opponent's stones, then moves beside the mover's own stones; self-ataris last.
pub(super) fn by_promise(board: &Board, candidates: &mut [(Color, Candidate)]) {
    candidates.sort_by_cached_key(|(color, c)| -promise(board, *color, c));
}

fn promise(board: &Board, color: Color, c: &Candidate) -> i64 {
    let after = &c.board;
    let mut score = 0;
    let mut captured = 0;
    for n in neighbours(c.point) {
        match board.cell(n) {
            Cell::Border | Cell::Empty => {}
            _ => {
                let Some(owner) = board.color_at(n) else {
                    continue;
                };
                if owner == color {
                    score += 1;
                } else if after.color_at(n).is_none() {
                    captured += 1;
                } else {
                    score += 2;
                    if after.in_atari(n) {
                        score += 4;
                    }
                }
            }
        }
    }
    if after.color_at(c.point) == Some(color) && after.in_atari(c.point) && captured == 0 {
        score -= 8;
    }
    score + 16 * captured + 16 * c.gain.abs()
}
