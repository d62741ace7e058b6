//! The converse graph-history guard: what a table entry knows of the positions searched below it, so
//! that it is used only on lines none of whose earlier positions can be among them.
//!
//! An entry is stored only where no superko ban in its subtree referred to a position above it (the
//! module's first guard), so its search ran exactly as it would with nothing above it. Reached again
//! along another line, the same search runs the same way unless one of the positions it visited (a
//! move's result, at any depth, tables hits included) is a position of that line before it: there that
//! move is banned. The game's history and the tree's path are the same for every line of one solve, and
//! a visited position equal to one of them was banned in the first search already (and the entry then
//! not stored), so only the solver's own line needs checking. Each summary below is a superset test of
//! the visited set: a line position it rules out cannot be visited, which is all soundness needs.
//!
//! - `kept`: stones standing in every visited position. A line position equal to a visited one holds
//!   them all (a capture below the entry is what lets an earlier, smaller position recur).
//! - `ever`: stones standing in some visited position. A line position equal to a visited one holds
//!   none outside them.
//! - `pairs`: the (Black, White) stone counts of the visited positions, one bit per pair; an equal line
//!   position has one of them. This rules out the solved position and the first moves of its line,
//!   which the other tests of a large subtree rarely do (the empty board has no pair below it).
//! - `bloom`: each visited position's superko key sets [`PROBES`] bits of [`BLOOM_BITS`]; an equal line
//!   position (same key) finds all its bits set.

use super::Position;

/// The Bloom filter's size in bits, and bits set per position.
const BLOOM_BITS: usize = 256;
const PROBES: usize = 3;
const WORDS: usize = BLOOM_BITS / 64;

/// A superset test of the positions searched below a table entry (see the module).
#[derive(Debug, Clone, Copy)]
pub(super) struct Reach {
    kept: [u32; 2],
    ever: [u32; 2],
    pairs: [u64; 4],
    bloom: [u64; WORDS],
}

impl Reach {
    /// No position visited: rules every line position out.
    pub(super) const NONE: Reach = Reach {
        kept: [u32::MAX; 2],
        ever: [0; 2],
        pairs: [0; 4],
        bloom: [0; WORDS],
    };

    /// The bits of the filter a superko key sets: `PROBES` slices of its low bits.
    #[inline]
    fn probes(key: u128) -> impl Iterator<Item = (usize, u64)> {
        (0..PROBES).map(move |i| {
            let bit = (key >> (i * 16)) as usize % BLOOM_BITS;
            (bit / 64, 1u64 << (bit % 64))
        })
    }

    /// Adds a visited position (its stones and superko key).
    #[inline]
    pub(super) fn add(&mut self, pos: &Position, key: u128) {
        for side in 0..2 {
            self.kept[side] &= pos.stones[side];
            self.ever[side] |= pos.stones[side];
        }
        for (word, bit) in Reach::probes(key) {
            self.bloom[word] |= bit;
        }
        let (word, bit) = Reach::pair(pos.stones);
        self.pairs[word] |= bit;
    }

    /// The bit of the stone counts' pair: triangular numbering, exact up to 21 stones in all.
    #[inline]
    fn pair(stones: [u32; 2]) -> (usize, u64) {
        let [black, white] = stones.map(|s| s.count_ones() as usize);
        let all = black + white;
        let index = (all * (all + 1) / 2 + black) % 256;
        (index / 64, 1u64 << (index % 64))
    }

    /// The positions of both.
    #[inline]
    pub(super) fn and(self, other: Reach) -> Reach {
        let mut both = self;
        for side in 0..2 {
            both.kept[side] &= other.kept[side];
            both.ever[side] |= other.ever[side];
        }
        for (word, other) in both.bloom.iter_mut().zip(other.bloom) {
            *word |= other;
        }
        for (word, other) in both.pairs.iter_mut().zip(other.pairs) {
            *word |= other;
        }
        both
    }

    /// Whether the position with `stones` and superko key `key` may be one of the visited ones.
    #[inline]
    pub(super) fn may_hold(&self, stones: [u32; 2], key: u128) -> bool {
        let (word, bit) = Reach::pair(stones);
        self.pairs[word] & bit != 0
            && (0..2).all(|side| {
                stones[side] & self.kept[side] == self.kept[side]
                    && stones[side] & !self.ever[side] == 0
            })
            && Reach::probes(key).all(|(word, bit)| self.bloom[word] & bit != 0)
    }
}
