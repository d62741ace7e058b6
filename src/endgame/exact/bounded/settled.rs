//! The settlements of recently assessed positions. The search, its probes and its proofs reach many
//! positions more than once (a proof of another bound, an option probed then solved): about half of
//! the assessments on the open development regions were of a position assessed before, and the
//! assessment is the largest single cost of a position.

use crate::endgame::local::Settlement;
use crate::endgame::region::{Region, Sealed};
use crate::go::Board;
use std::rc::Rc;

/// Direct-mapped slots: a position's stones hash picks its slot, and a newer position evicts an older
/// one. 16,384 slots hold about 23 MB of settlements at most.
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
