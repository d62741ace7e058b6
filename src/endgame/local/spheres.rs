//! Spheres: which colour's stones outside the region a point outside it belongs to, for the local
//! Benson test of `settle` (an area or liberty in the opponent's sphere does not help a chain).

use crate::endgame::region::Region;
use crate::go::board::neighbours;
use crate::go::coord::GRID;
use crate::go::{Board, Cell, Color, Point};

/// Which colour's sphere each point outside the region lies in, worked out once per point and position.
pub(super) struct Spheres<'a> {
    /// The whole region searched: a point of it outside the part being assessed is nobody's sphere.
    whole: &'a Region,
    /// The sphere by the stones outside the region alone. 0: not yet worked out; 1: nobody's; 2:
    /// Black's; 3: White's.
    known: [u8; GRID],
    /// Whether a stone of the region is within reach (then the sphere depends on what is judged).
    /// 0: not yet worked out; 1: no; 2: yes.
    near_region: [u8; GRID],
}

/// How far (through empty points outside the region) a point's sphere looks for stones.
const SPHERE_REACH: usize = 3;

impl Spheres<'_> {
    pub(super) fn new(whole: &Region) -> Spheres<'_> {
        Spheres {
            whole,
            known: [0; GRID],
            near_region: [0; GRID],
        }
    }

    /// The colour whose stones are nearest to the empty outside point `p` (through empty outside points,
    /// within `SPHERE_REACH`), or `None` when both are as near or neither is. Local play never fills such
    /// a point; the course counts it as part of the wall behind it, so a stone of the other colour gains
    /// no safety from it, and an area it closes is not open. The wall is every stone but those `judged`:
    /// stones outside the region, and stones in it (a wall's stones are often marked in the region: an
    /// invader at D19 between Black's C18 and E18 is not anchored by E19 beside E18), except the chain
    /// or area whose fate is being decided, which cannot be its own wall: a stone `p` of the region
    /// counts when `counts(p)`.
    pub(super) fn of(
        &mut self,
        board: &Board,
        p: Point,
        counts: impl Fn(Point) -> bool,
    ) -> Option<Color> {
        if self.whole.contains(p) {
            return None;
        }
        // Cached when no stone of the region is within reach: then only the stones outside decide.
        if self.known[p.index()] == 0 {
            self.known[p.index()] = match nearest_colour(board, self.whole, p, |_| true) {
                None => 1,
                Some(Color::Black) => 2,
                Some(Color::White) => 3,
            };
        }
        if self.near_region[p.index()] == 0 {
            self.near_region[p.index()] = 1 + region_stone_within_reach(board, self.whole, p) as u8;
        }
        if self.near_region[p.index()] == 2 {
            return nearest_colour(board, self.whole, p, counts);
        }
        match self.known[p.index()] {
            2 => Some(Color::Black),
            3 => Some(Color::White),
            _ => None,
        }
    }
}

/// The outside empty points within `SPHERE_REACH - 1` steps of `p` (through empty outside points), `p`
/// included, into `seen`; returns how many.
fn reach(board: &Board, whole: &Region, p: Point, seen: &mut [Point; 32]) -> usize {
    seen[0] = p;
    let mut seen_len = 1;
    let mut frontier = 0..1;
    for _ in 1..SPHERE_REACH {
        let next_start = seen_len;
        for i in frontier.clone() {
            for n in neighbours(seen[i]) {
                if !whole.contains(n)
                    && board.cell(n) == Cell::Empty
                    && seen_len < seen.len()
                    && !seen[..seen_len].contains(&n)
                {
                    seen[seen_len] = n;
                    seen_len += 1;
                }
            }
        }
        frontier = next_start..seen_len;
    }
    seen_len
}

/// Whether a stone of the region lies next to an outside point within reach of `p`.
fn region_stone_within_reach(board: &Board, whole: &Region, p: Point) -> bool {
    let mut seen = [p; 32];
    let len = reach(board, whole, p, &mut seen);
    seen[..len].iter().any(|&q| {
        neighbours(q)
            .iter()
            .any(|&n| whole.contains(n) && board.color_at(n).is_some())
    })
}

/// The colour of the nearest stones to `p` through empty outside points: stones outside the region,
/// and stones of the region for which `counts` holds.
fn nearest_colour(
    board: &Board,
    whole: &Region,
    p: Point,
    counts: impl Fn(Point) -> bool,
) -> Option<Color> {
    // Within SPHERE_REACH steps of a point there are at most 25 points: fixed buffers, no allocation.
    let mut seen = [p; 32];
    let mut seen_len = 1;
    let mut frontier = 0..1;
    for _ in 0..SPHERE_REACH {
        let mut found = [false; 2];
        let next_start = seen_len;
        for i in frontier.clone() {
            for n in neighbours(seen[i]) {
                if whole.contains(n) {
                    if let Some(c) = board.color_at(n)
                        && counts(n)
                    {
                        found[c.index()] = true;
                    }
                    continue;
                }
                match board.cell(n) {
                    Cell::Empty => {
                        if seen_len < seen.len() && !seen[..seen_len].contains(&n) {
                            seen[seen_len] = n;
                            seen_len += 1;
                        }
                    }
                    Cell::Border => {}
                    _ => {
                        if let Some(c) = board.color_at(n) {
                            found[c.index()] = true;
                        }
                    }
                }
            }
        }
        match found {
            [true, false] => return Some(Color::Black),
            [false, true] => return Some(Color::White),
            [true, true] => return None,
            _ => frontier = next_start..seen_len,
        }
    }
    None
}
