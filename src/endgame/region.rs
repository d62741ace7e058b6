//! A local region: the set of points where local play happens, as a mask over the padded grid.

use crate::go::coord::GRID;
use crate::go::{Board, Color, Point};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    points: Vec<Point>,
    mask: Vec<bool>,
    /// Position of each grid point in `points` (for `PointSet`), `u8::MAX` outside.
    slot: Vec<u8>,
    /// A hash of the sorted points, for memo keys of results that depend on the region.
    fingerprint: u64,
}

/// The most points a region may have (its point sets are 128-bit masks).
pub const MAX_REGION_POINTS: usize = 128;

impl Region {
    pub fn new(points: impl IntoIterator<Item = Point>) -> Region {
        let mut mask = vec![false; GRID];
        let mut list = Vec::new();
        for p in points {
            if !mask[p.index()] {
                mask[p.index()] = true;
                list.push(p);
            }
        }
        list.sort();
        let mut slot = vec![u8::MAX; GRID];
        for (i, p) in list.iter().enumerate().take(MAX_REGION_POINTS) {
            slot[p.index()] = i as u8;
        }
        let fingerprint = {
            use std::hash::BuildHasher;
            foldhash::fast::FixedState::default().hash_one(&list)
        };
        Region {
            points: list,
            mask,
            slot,
            fingerprint,
        }
    }

    /// A hash of the region's points, the same for equal regions: a key for memos across searches.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    fn bit(&self, p: Point) -> u128 {
        match self.slot.get(p.index()) {
            Some(&s) if s != u8::MAX => 1u128 << s,
            _ => 0,
        }
    }

    #[inline]
    pub fn contains(&self, p: Point) -> bool {
        self.mask.get(p.index()).copied().unwrap_or(false)
    }

    pub fn points(&self) -> &[Point] {
        &self.points
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The region's points that are empty on `board`.
    pub fn empty_points(&self, board: &Board) -> Vec<Point> {
        self.points
            .iter()
            .copied()
            .filter(|&p| board.color_at(p).is_none())
            .collect()
    }
}

/// For each colour, the region points emptied by capturing that colour's stones: the colour may play there
/// again only with a move that captures (a ko retake, a snapback's recapture, play under the stones). This
/// keeps local search from re-invading space just captured, where it would only cycle (see
/// `docs/endgame.md`, which also names the one course line it cuts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sealed {
    masks: [u128; 2],
}

impl Sealed {
    pub fn contains(&self, region: &Region, color: Color, p: Point) -> bool {
        self.masks[color.index()] & region.bit(p) != 0
    }

    /// Clears the marks of `p`, where a stone has just been played. A stone leaves only by capture, which
    /// sets both colours' marks of its point afresh, so a mark under a stone can never matter again:
    /// dropping it lets positions that differ only there share a table entry. (Marks are set only on
    /// emptied points, so clearing the played point keeps every occupied point unmarked.)
    pub fn forget(&mut self, region: &Region, p: Point) {
        let kept = !region.bit(p);
        self.masks[0] &= kept;
        self.masks[1] &= kept;
    }

    /// Records that `victim`'s stones at `points` were captured: sealed for it, open to the capturer.
    pub fn capture(&mut self, region: &Region, victim: Color, points: &[Point]) {
        for &p in points {
            let bit = region.bit(p);
            self.masks[victim.index()] |= bit;
            self.masks[victim.opponent().index()] &= !bit;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::test_support::at;

    #[test]
    fn a_sealed_mark_under_a_stone_is_forgotten() {
        let region = Region::new([at("A19"), at("B19")]);
        let mut sealed = Sealed::default();
        sealed.capture(&region, Color::White, &[at("A19"), at("B19")]);
        // Black retook A19 with a stone: only B19's mark still matters.
        sealed.forget(&region, at("A19"));
        assert!(!sealed.contains(&region, Color::White, at("A19")));
        assert!(sealed.contains(&region, Color::White, at("B19")));
        let mut expected = Sealed::default();
        expected.capture(&region, Color::White, &[at("B19")]);
        assert_eq!(sealed, expected);
    }
}
