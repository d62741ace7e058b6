//! Exhaustive enumeration: every legal move of both colours, with equal probabilities. Meant for small
//! regions, with tree options that keep every move (`TreeOptions::exhaustive`); "no move" is never
//! proposed, so the tree ends only where the region is settled or a cap is reached.

use super::{LocalState, Proposal, Proposer, ProposerError};
use crate::endgame::region::Region;
use crate::go::Color;

#[derive(Clone, Copy, Debug, Default)]
pub struct Exhaustive;

impl Proposer for Exhaustive {
    fn name(&self) -> String {
        "exhaustive".into()
    }

    fn propose(
        &self,
        region: &Region,
        states: &[&LocalState],
    ) -> Result<Vec<Proposal>, ProposerError> {
        Ok(states
            .iter()
            .map(|state| {
                let black = state.legal_points(region, Color::Black);
                let white = state.legal_points(region, Color::White);
                let n = (black.len() + white.len()).max(1) as f32;
                Proposal {
                    black: black.into_iter().map(|p| (p, 1.0 / n)).collect(),
                    white: white.into_iter().map(|p| (p, 1.0 / n)).collect(),
                    no_move: 0.0,
                }
                .sorted()
            })
            .collect())
    }
}
