//! The settlements of recently assessed positions. The search, its probes and its proofs reach many
//! positions more than once (a proof of another bound, an option probed then solved): about half of
//! the assessments on the open development regions were of a position assessed before, and the
//! assessment is the largest single cost of a position.

use crate::endgame::local::Settlement;
use crate::endgame::region::{Region, Sealed};
use crate::go::Board;
use std::rc::Rc;

/// Direct-mapped slots: a position's stones hash picks its slot, and a newer position evicts an older
/// one. 16,384 slots hold about 5 MB of settlements (bit sets) at most.
const SLOTS: usize = 1 << 14;

type Key = (u128, Sealed);

pub(super) struct Settlements {
    slots: Vec<Option<(Key, Rc<Settlement>)>>,
}

impl Settlements {
    pub fn new() -> Settlements {
        Settlements {
            slots: vec![None; SLOTS],
        }
    }

    /// The settlement of `board` with `sealed`, assessed now or remembered.
    pub fn of(&mut self, board: &Board, region: &Region, sealed: &Sealed) -> Rc<Settlement> {
        let key = (board.stone_hash(), *sealed);
        let slot = &mut self.slots[(key.0 as usize) & (SLOTS - 1)];
        if let Some((k, settlement)) = slot
            && *k == key
        {
            return settlement.clone();
        }
        let settlement = Rc::new(Settlement::assess(board, region, sealed));
        *slot = Some((key, settlement.clone()));
        settlement
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::test_support::{at, board_with};

    #[test]
    fn a_remembered_settlement_is_its_own_position_s() {
        // White's D19-D18 in atari with its last liberty at E19 is not safe; with E18 empty and White's
        // F18 beside it, it has two liberties outside in White's sphere and is (`settle_tests`).
        // Positions that follow each other never share a settlement.
        let region = Region::new(["D19", "D18", "C19", "C18"].iter().map(|s| at(s)));
        let in_atari = board_with(&["C19", "C18", "D17", "E18"], &["D19", "D18"]);
        let anchored = board_with(&["C19", "C18", "D17"], &["D19", "D18", "F18"]);
        let mut settlements = Settlements::new();
        let sealed = Sealed::default();
        for board in [&in_atari, &anchored, &in_atari, &anchored] {
            let remembered = settlements.of(board, &region, &sealed);
            let fresh = Settlement::assess(board, &region, &sealed);
            for p in region.points() {
                assert_eq!(remembered.owner(*p), fresh.owner(*p), "{p:?}");
                assert_eq!(remembered.is_safe(*p), fresh.is_safe(*p), "{p:?}");
            }
            let safe = remembered.is_safe(at("D19"));
            assert_eq!(safe, std::ptr::eq(board, &anchored));
        }
        let again = settlements.of(&anchored, &region, &sealed);
        assert!(Rc::ptr_eq(
            &again,
            &settlements.of(&anchored, &region, &sealed)
        ));
    }
}
