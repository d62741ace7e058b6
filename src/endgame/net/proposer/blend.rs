//! A mixture of proposers. The first part says how likely "no move" is; all parts share out the rest (the
//! move probability) in proportion to their weights and their own move distributions.
//!
//! Made for the local-move network (first: it knows whether local play is urgent) with KataGo's policy
//! (whose "no move" means a better move elsewhere on the board, not a finished region). The two miss
//! different moves (`docs/research/endgame-net-defaults.md`, "Root proposals"), so the mixture follows a move either believes in.

use super::{LocalState, Proposal, Proposer, ProposerError};
use crate::endgame::region::Region;
use crate::go::{Color, Point};
use std::collections::BTreeMap;

pub struct Blend {
    parts: Vec<(Box<dyn Proposer>, f32)>,
}

impl Blend {
    /// `parts` with their weights; the weights are normalised to sum to 1 (equal weights when all are zero).
    pub fn new(parts: Vec<(Box<dyn Proposer>, f32)>) -> Blend {
        let total: f32 = parts.iter().map(|&(_, w)| w.max(0.0)).sum();
        let count = parts.len().max(1) as f32;
        let parts = parts
            .into_iter()
            .map(|(p, w)| {
                let w = if total > 0.0 {
                    w.max(0.0) / total
                } else {
                    1.0 / count
                };
                (p, w)
            })
            .collect();
        Blend { parts }
    }
}

impl Proposer for Blend {
    fn name(&self) -> String {
        let names: Vec<String> = self
            .parts
            .iter()
            .map(|(p, w)| format!("{:.2}·{}", w, p.name()))
            .collect();
        format!("blend({})", names.join(" + "))
    }

    fn propose(
        &self,
        region: &Region,
        states: &[&LocalState],
    ) -> Result<Vec<Proposal>, ProposerError> {
        let mut mixed = vec![Mixed::default(); states.len()];
        for (k, (part, weight)) in self.parts.iter().enumerate() {
            for (sum, proposal) in mixed.iter_mut().zip(part.propose(region, states)?) {
                if k == 0 {
                    sum.no_move = proposal.no_move;
                }
                sum.add_moves(&proposal, *weight);
            }
        }
        Ok(mixed.into_iter().map(Mixed::into_proposal).collect())
    }

    fn evaluations(&self) -> usize {
        self.parts.iter().map(|(p, _)| p.evaluations()).sum()
    }
}

/// A running weighted sum of move distributions, keyed by point so each move is counted once.
#[derive(Clone, Default)]
struct Mixed {
    black: BTreeMap<Point, f32>,
    white: BTreeMap<Point, f32>,
    no_move: f32,
}

impl Mixed {
    /// Adds `weight` times the proposal's moves rescaled to sum to 1 (nothing when it has no moves).
    fn add_moves(&mut self, proposal: &Proposal, weight: f32) {
        let total = proposal.total(Color::Black) + proposal.total(Color::White);
        if total <= 0.0 {
            return;
        }
        for (sums, moves) in [
            (&mut self.black, &proposal.black),
            (&mut self.white, &proposal.white),
        ] {
            for &(p, q) in moves {
                *sums.entry(p).or_default() += weight * q / total;
            }
        }
    }

    /// The moves scaled to share `1 − no move`, sorted.
    fn into_proposal(self) -> Proposal {
        let moves = 1.0 - self.no_move;
        let list =
            |sums: BTreeMap<Point, f32>| sums.into_iter().map(|(p, q)| (p, q * moves)).collect();
        Proposal {
            black: list(self.black),
            white: list(self.white),
            no_move: self.no_move,
        }
        .sorted()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{Board, BoardSize};

    /// A proposer that says the same thing everywhere.
    struct Fixed(Proposal);

    impl Proposer for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }

        fn propose(
            &self,
            _region: &Region,
            states: &[&LocalState],
        ) -> Result<Vec<Proposal>, ProposerError> {
            Ok(vec![self.0.clone(); states.len()])
        }
    }

    #[test]
    fn the_first_part_says_no_move_and_all_parts_share_the_moves() {
        let size = BoardSize::square(5).unwrap();
        let (a, b, c) = (Point::new(0, 0), Point::new(1, 1), Point::new(2, 2));
        // Urgent locally: 20% "no move"; Black a three times as likely as White c.
        let local = Proposal {
            black: vec![(a, 0.6)],
            white: vec![(c, 0.2)],
            no_move: 0.2,
        };
        // Prefers elsewhere (90%); here Black b over a.
        let policy = Proposal {
            black: vec![(b, 0.075), (a, 0.025)],
            white: vec![],
            no_move: 0.9,
        };
        let blend = Blend::new(vec![
            (Box::new(Fixed(local)), 3.0),
            (Box::new(Fixed(policy)), 1.0),
        ]);
        let region = Region::new(size.points());
        let root = LocalState::root(&Board::new(size));
        let out = blend.propose(&region, &[&root, &root]).unwrap();
        assert_eq!(out.len(), 2);
        let got = &out[0];
        // Moves share 0.8. Local (weight 3/4): a 0.75, c 0.25; policy (1/4): b 0.75, a 0.25.
        // a: 0.8·(0.75·0.75 + 0.25·0.25) = 0.5; b: 0.8·0.25·0.75 = 0.15; c: 0.8·0.75·0.25 = 0.15.
        assert!((got.no_move - 0.2).abs() < 1e-6);
        assert_eq!(got.black.len(), 2);
        assert_eq!(got.black[0].0, a);
        assert!((got.black[0].1 - 0.5).abs() < 1e-6);
        assert_eq!(got.black[1].0, b);
        assert!((got.black[1].1 - 0.15).abs() < 1e-6);
        assert_eq!(got.white, vec![(c, got.white[0].1)]);
        assert!((got.white[0].1 - 0.15).abs() < 1e-6);
        let sum = got.total(Color::Black) + got.total(Color::White) + got.no_move;
        assert!((sum - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_part_without_moves_leaves_the_others_to_share_them() {
        let size = BoardSize::square(5).unwrap();
        let a = Point::new(0, 0);
        let local = Proposal {
            black: vec![(a, 0.5)],
            white: vec![],
            no_move: 0.5,
        };
        let blend = Blend::new(vec![
            (Box::new(Fixed(local)), 1.0),
            (Box::new(Fixed(Proposal::default())), 1.0),
        ]);
        let region = Region::new(size.points());
        let root = LocalState::root(&Board::new(size));
        let got = &blend.propose(&region, &[&root]).unwrap()[0];
        // The silent part's weight is lost, not given to "no move": a gets 0.5·0.5.
        assert!((got.no_move - 0.5).abs() < 1e-6);
        assert!((got.black[0].1 - 0.25).abs() < 1e-6);
    }
}
