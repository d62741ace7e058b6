//! The value of a grown tree's leaf: the exact count where the region is settled, the judged count where
//! the leaf rule trusts reading, else KataGo's ownership rounded and summed over the region.

use super::proposer::{KataGoNet, LocalState};
use crate::endgame::cgt::Rational;
use crate::endgame::local::{self, Settlement, Status};
use crate::endgame::region::{Region, Sealed};
use crate::endgame::types::{AnalysisError, LocalPosition, TreeLeaves};
use crate::go::board::neighbours;
use crate::go::coord::GRID;
use crate::go::{Board, Scoring};
use std::sync::Arc;

/// Scores positions of one region.
pub(crate) struct Scorer<'a> {
    pub(crate) region: &'a Region,
    pub(crate) katago: Arc<KataGoNet>,
    pub(crate) scoring: Scoring,
    /// Black stones minus White stones in the region at the start.
    pub(crate) initial_balance: i64,
    pub(crate) leaves: TreeLeaves,
}

impl Scorer<'_> {
    pub(crate) fn settled_count(&self, state: &LocalState) -> Option<i64> {
        let board = state.board();
        let settlement = Settlement::assess(board, self.region, &Sealed::default());
        let area = self.scoring == Scoring::Area;
        settlement
            .is_settled(board, self.region, area)
            .then(|| settlement.count(board, self.region, true))
    }

    /// Whether the position is finished in the course's sense (judged leaves only): no move changes its
    /// count, so the tree need not ask the proposer about it.
    pub(crate) fn finished(&self, state: &LocalState) -> bool {
        if self.leaves == TreeLeaves::Ownership {
            return false;
        }
        let board = state.board();
        let settlement = Settlement::assess(board, self.region, &Sealed::default());
        let area = self.scoring == Scoring::Area;
        local::finished_count(board, self.region, &settlement, area).is_some()
    }

    /// The exact count where settled; else the judged count (`local::judged`) (an area count, like the others)
    /// where the leaf rule trusts reading: finished positions (`Finished`), or every chain decided
    /// (`Judged`); `None` where only the ownership can say.
    fn known_count(&self, state: &LocalState) -> Option<i64> {
        self.settled_count(state).or_else(|| {
            let board = state.board();
            let judged = match self.leaves {
                TreeLeaves::Ownership => false,
                TreeLeaves::Finished => self.finished(state),
                TreeLeaves::Judged => chains_decided(board, self.region),
            };
            judged.then(|| local::judged_count(board, self.region, true))
        })
    }

    /// Rounded ownership summed over the region, with whether every point is decided at `threshold`.
    pub(crate) fn ownership_counts(
        &self,
        states: &[&LocalState],
        threshold: f32,
    ) -> Result<Vec<(i64, bool)>, AnalysisError> {
        let owned = self
            .katago
            .ownership(states)
            .map_err(super::proposer_error)?;
        Ok(states
            .iter()
            .zip(owned)
            .map(|(state, own)| {
                let size = state.board().size();
                let mut total = 0i64;
                let mut decided = true;
                for &p in self.region.points() {
                    let o = own.get(size.row_major(p)).copied().unwrap_or(0.0);
                    total += o.round().clamp(-1.0, 1.0) as i64;
                    decided &= o.abs() >= threshold;
                }
                (total, decided)
            })
            .collect())
    }

    /// An area count turned into the analysis's scoring (see the module's header).
    fn in_scoring(&self, area: i64, state: &LocalState) -> Rational {
        match self.scoring {
            Scoring::Area => Rational::integer(area),
            Scoring::Territory => {
                Rational::integer(area - state.move_balance() - self.initial_balance)
            }
        }
    }

    /// Each leaf's value: exact where settled (or judged, see `known_count`), rounded ownership elsewhere.
    pub(crate) fn values(
        &self,
        states: &[&LocalState],
    ) -> Result<Vec<(Rational, bool)>, AnalysisError> {
        let exact: Vec<Option<i64>> = states.iter().map(|s| self.known_count(s)).collect();
        let open: Vec<&LocalState> = states
            .iter()
            .zip(&exact)
            .filter(|(_, e)| e.is_none())
            .map(|(s, _)| *s)
            .collect();
        let mut owned = self.ownership_counts(&open, 0.5)?.into_iter();
        states
            .iter()
            .zip(exact)
            .map(|(state, e)| {
                let (area, settled) = match e {
                    Some(count) => (count, true),
                    None => {
                        let (count, _) = owned.next().ok_or_else(|| {
                            AnalysisError::Evaluation("an ownership was not computed".into())
                        })?;
                        (count, false)
                    }
                };
                Ok((self.in_scoring(area, state), settled))
            })
            .collect()
    }
}

/// Whether reading decides (safe or dead) every chain in or next to the region.
pub(super) fn chains_decided(board: &Board, region: &Region) -> bool {
    let mut seen = vec![false; GRID];
    for &p in region.points() {
        for q in std::iter::once(p).chain(neighbours(p)) {
            if board.color_at(q).is_none() || seen[q.index()] {
                continue;
            }
            for s in board.chain_stones(q) {
                seen[s.index()] = true;
            }
            if local::chain_status(board, region, q) == Status::Open {
                return false;
            }
        }
    }
    true
}

pub(crate) fn region_balance(position: &LocalPosition) -> i64 {
    position
        .region
        .points()
        .iter()
        .filter_map(|&p| position.board.color_at(p))
        .map(|c| c.sign() as i64)
        .sum()
}
