//! The one flood fill of `local/`: a connected set of points grown from a start point, where the caller
//! decides which neighbours join (and records what the others are: walls, liberties, openings).

use crate::go::board::neighbours;
use crate::go::{Board, Cell, Point};
use std::ops::Range;

/// Grows the set through `start` into `points` (appended, breadth first; `start` is pushed, so the caller
/// marks it as seen first). `step(n)` is called for every on-board neighbour `n` of a point of the set;
/// it returns whether `n` joins, and marks it seen when it does. Returns the set's range in `points`.
pub(super) fn flood(
    board: &Board,
    start: Point,
    points: &mut Vec<Point>,
    mut step: impl FnMut(Point) -> bool,
) -> Range<usize> {
    let first = points.len();
    points.push(start);
    let mut i = first;
    while i < points.len() {
        for n in neighbours(points[i]) {
            if board.cell(n) != Cell::Border && step(n) {
                points.push(n);
            }
        }
        i += 1;
    }
    first..points.len()
}
