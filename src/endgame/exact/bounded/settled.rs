//! The settlements of recently assessed positions. The search, its probes and its proofs reach many
//! positions more than once (a proof of another bound, an option probed then solved): about half of
//! the assessments on the open development regions were of a position assessed before, and the
//! assessment is the largest single cost of a position.

use crate::endgame::local::Settlement;
use crate::endgame::local::recent::Recent;
use crate::endgame::region::{Region, Sealed};
use crate::go::Board;
use std::rc::Rc;

/// The stones and the sealed captured space.
type Key = (u128, Sealed);

/// 16,384 direct-mapped slots: about 5 MB of settlements (bit sets) at most.
pub(super) struct Settlements(Recent<Key, Rc<Settlement>>);

impl Settlements {
    pub fn new() -> Settlements {
        Settlements(Recent::new(14))
    }

    /// The settlement of `board` with `sealed`, assessed now or remembered.
    pub fn of(&mut self, board: &Board, region: &Region, sealed: &Sealed) -> Rc<Settlement> {
        let key = (board.stone_hash(), *sealed);
        let hash = key.0 as u64;
        if let Some(settlement) = self.0.get(&key, hash) {
            return settlement;
        }
        let settlement = Rc::new(Settlement::assess(board, region, sealed));
        self.0.insert(key, hash, settlement.clone());
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
