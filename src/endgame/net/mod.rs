//! The network method: a variation tree grown by a proposer (the local-move network, KataGo's policy, or
//! both), its leaves scored, and the tree folded into a game.
//!
//! A leaf is worth its exact count when the region is settled (`local::settle`), else KataGo's ownership,
//! averaged over both colours to move, rounded to −1/0/1 and summed over the region: an area count.
//! Territory counts follow from area counts exactly: over a local sequence, area − territory changes by
//! (Black moves − White moves), so a leaf's territory value is its area value minus the path's move
//! balance and the region's initial stone balance. The tree then becomes a `Game` (Black's moves Left
//! options, White's Right), and the thermograph gives temperature and mean.

mod exact;
mod networks;
pub mod proposer;
mod scoring;
#[cfg(test)]
mod tests;
pub mod tree;
mod value;

pub use networks::{LOCAL_MOVE_ENV, Networks, OWNERSHIP_ENV};
pub(crate) use scoring::{Scorer, region_balance};

use crate::endgame::cgt::Rational;
use crate::endgame::region::Region;
use crate::endgame::types::{
    AnalysisError, AnalysisOptions, LocalPosition, Method, Outcome, TreeLeaves,
};
use crate::go::Scoring;
use exact::ExactSubtrees;
use proposer::{Blend, LocalMoveNet, LocalState, PolicyProposer, Proposer, ProposerError};
use std::sync::Arc;
use tree::{BuiltNode, LeafReason, TreeOptions};

pub(crate) fn proposer_error(e: ProposerError) -> AnalysisError {
    AnalysisError::Evaluation(e.to_string())
}

/// Grows a tree with the network (`Method::Net`), KataGo's policy (`Method::Policy`) or both
/// (`Method::Blend`) and values it.
pub(crate) fn grow(
    nets: &Networks,
    position: &LocalPosition,
    options: &AnalysisOptions,
    method: Method,
) -> Result<Outcome, AnalysisError> {
    let katago = nets.katago()?;
    let proposer: Box<dyn Proposer> = match method {
        Method::Policy => Box::new(PolicyProposer::new(katago.clone())),
        Method::Blend => Box::new(Blend::new(vec![
            (
                Box::new(LocalNetProposer(nets.local()?)),
                1.0 - options.blend_policy_weight,
            ),
            (
                Box::new(PolicyProposer::new(katago.clone())),
                options.blend_policy_weight,
            ),
        ])),
        _ => Box::new(LocalNetProposer(nets.local()?)),
    };
    let scorer = Scorer {
        region: &position.region,
        katago: katago.clone(),
        scoring: options.scoring,
        initial_balance: region_balance(position),
        leaves: options.tree_leaves,
    };
    let exact = ExactSubtrees::new(
        &position.region,
        &position.board,
        options.scoring,
        options.exact_subtrees,
        options.subtree_positions,
    );
    let before = katago.evaluations();
    let nodes = build_tree(&scorer, &exact, position, proposer.as_ref(), &options.tree)?;
    let mut outcome = value::value_tree(&scorer, &exact, position, &nodes, options.forced_replies)?;
    outcome.method = method;
    outcome.evaluations = katago.evaluations() - before + proposer.evaluations();
    outcome
        .notes
        .push(format!("{} nodes from {}", nodes.len(), proposer.name()));
    outcome.notes.extend(exact.note());
    Ok(outcome)
}

/// How a grown tree values `states` (positions reached by local play from `position`) as leaves under
/// `leaves`: the exact count where settled, the judged count where the rule trusts reading, else KataGo's
/// rounded ownership; in `scoring`'s terms, from `position` (prisoners on the way included). Public so
/// that leaf rules can be measured against the exact solver (`examples/leaf_rules.rs`).
pub fn leaf_values(
    nets: &Networks,
    position: &LocalPosition,
    scoring: Scoring,
    leaves: TreeLeaves,
    states: &[&LocalState],
) -> Result<Vec<Rational>, AnalysisError> {
    let scorer = Scorer {
        region: &position.region,
        katago: nets.katago()?,
        scoring,
        initial_balance: region_balance(position),
        leaves,
    };
    Ok(scorer.values(states)?.into_iter().map(|(v, _)| v).collect())
}

/// The local-move network behind a shared handle.
struct LocalNetProposer(Arc<LocalMoveNet>);

impl Proposer for LocalNetProposer {
    fn name(&self) -> String {
        self.0.name()
    }

    fn propose(
        &self,
        region: &Region,
        states: &[&LocalState],
    ) -> Result<Vec<proposer::Proposal>, ProposerError> {
        self.0.propose(region, states)
    }

    fn evaluations(&self) -> usize {
        self.0.evaluations()
    }
}

fn build_tree(
    scorer: &Scorer,
    exact: &ExactSubtrees,
    position: &LocalPosition,
    proposer: &dyn Proposer,
    options: &TreeOptions,
) -> Result<Vec<BuiltNode>, AnalysisError> {
    let mut failure: Option<AnalysisError> = None;
    let mut terminal = |states: &[(&LocalState, bool)]| {
        let mut verdicts: Vec<Option<LeafReason>> = states
            .iter()
            .map(|&(s, root)| {
                if scorer.settled_count(s).is_some() {
                    Some(LeafReason::Settled)
                } else if scorer.finished(s) {
                    Some(LeafReason::Finished)
                } else {
                    (!root && exact.game(s).is_some()).then_some(LeafReason::Exact)
                }
            })
            .collect();
        if let Some(threshold) = options.ownership_terminal {
            let open: Vec<usize> = (0..states.len())
                .filter(|&i| verdicts[i].is_none() && !states[i].1)
                .collect();
            let asked: Vec<&LocalState> = open.iter().map(|&i| states[i].0).collect();
            match scorer.ownership_counts(&asked, threshold) {
                Ok(counts) => {
                    for (&i, (_, decided)) in open.iter().zip(counts) {
                        if decided {
                            verdicts[i] = Some(LeafReason::Decided);
                        }
                    }
                }
                Err(AnalysisError::Evaluation(e)) => return Err(ProposerError::Run(e)),
                Err(e) => {
                    let text = e.to_string();
                    failure = Some(e);
                    return Err(ProposerError::Run(text));
                }
            }
        }
        Ok(verdicts)
    };
    let root = LocalState::root(&position.board);
    let built = tree::build(root, &position.region, proposer, options, &mut terminal);
    match (built, failure) {
        (Ok(nodes), _) => Ok(nodes),
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(proposer_error(e)),
    }
}
