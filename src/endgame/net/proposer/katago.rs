//! A KataGo network as the endgame analysis uses it: batched, cached evaluations of local positions with
//! either colour to move, their ownership (for scoring leaves), and the baseline proposer, KataGo's policy
//! restricted to the region.
//!
//! "No move" for the policy baseline: with colour c to move, let m_c be the policy mass on the region's
//! legal points (pass and the rest of the board make up 1 − m_c). The region is finished when neither
//! side wants to play there, so "no move" = min(1 − m_B, 1 − m_W); the remaining max(m_B, m_W) is split
//! between the colours' moves in proportion to m_B : m_W, each move keeping its share of its colour's mass.

use super::{LocalState, Proposal, Proposer, ProposerError};
use crate::endgame::region::Region;
use crate::go::{Color, Game};
use crate::nn::runtime::RuntimeConfig;
use crate::nn::{BatchOptions, Evaluator, NnEval, encode, postprocess};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Cache key: stones, player to move, ko point, and the local move balance (KataGo's territory komi
/// input counts stones played).
type Key = (u128, Color, Option<crate::go::Point>, i64);

/// Evaluations kept before the cache starts afresh (a 19x19 evaluation is a few kB).
const CACHE_LIMIT: usize = 50_000;

pub struct KataGoNet {
    evaluator: Evaluator,
    cache: Mutex<HashMap<Key, Arc<NnEval>>>,
    evaluations: AtomicUsize,
}

impl KataGoNet {
    /// Opens a KataGo network (`.bin.gz`, imported to ONNX once and cached, or an imported `.onnx`).
    pub fn open(model: &Path) -> Result<KataGoNet, ProposerError> {
        let fail = |detail: String| ProposerError::Open {
            path: model.to_path_buf(),
            detail,
        };
        let onnx = crate::nn::import::onnx_for(model).map_err(|e| fail(e.to_string()))?;
        let session = RuntimeConfig::load()
            .and_then(|c| c.session_options())
            .map_err(|e| fail(e.to_string()))?;
        let batch = BatchOptions {
            max_batch: 16,
            ..BatchOptions::default()
        };
        let evaluator = Evaluator::open(&onnx, &session, batch).map_err(|e| fail(e.to_string()))?;
        Ok(KataGoNet {
            evaluator,
            cache: Mutex::new(HashMap::new()),
            evaluations: AtomicUsize::new(0),
        })
    }

    pub fn evaluations(&self) -> usize {
        self.evaluations.load(Ordering::Relaxed)
    }

    fn key(state: &LocalState, to_move: Color) -> Key {
        let board = state.board();
        (
            board.stone_hash(),
            to_move,
            board.ko_point(),
            state.move_balance(),
        )
    }

    /// Evaluates each (state, colour to move), from the cache where it can; one batch for the rest.
    pub fn evaluate(
        &self,
        items: &[(&LocalState, Color)],
    ) -> Result<Vec<Arc<NnEval>>, ProposerError> {
        let keys: Vec<Key> = items.iter().map(|&(s, c)| Self::key(s, c)).collect();
        let mut found: Vec<Option<Arc<NnEval>>> = {
            let cache = self.lock();
            keys.iter().map(|k| cache.get(k).cloned()).collect()
        };
        let mut missing: Vec<(usize, Game)> = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            if found[i].is_none() && !missing.iter().any(|(j, _)| keys[*j] == *key) {
                let mut game = items[i].0.game.clone();
                game.set_to_move(items[i].1);
                missing.push((i, game));
            }
        }
        if !missing.is_empty() {
            let fresh = self.run(&missing)?;
            let mut cache = self.lock();
            if cache.len() + fresh.len() > CACHE_LIMIT {
                // A long workbench session must not grow without bound; trees rarely revisit old positions.
                cache.clear();
            }
            for ((i, _), eval) in missing.iter().zip(fresh) {
                cache.insert(keys[*i], eval.clone());
                for (slot, key) in found.iter_mut().zip(&keys) {
                    if slot.is_none() && *key == keys[*i] {
                        *slot = Some(eval.clone());
                    }
                }
            }
        }
        found
            .into_iter()
            .map(|e| e.ok_or_else(|| ProposerError::Run("a position was not evaluated".into())))
            .collect()
    }

    /// One batch through the network for positions not in the cache.
    fn run(&self, missing: &[(usize, Game)]) -> Result<Vec<Arc<NnEval>>, ProposerError> {
        let features = missing.iter().map(|(_, g)| encode(g)).collect();
        let raw = self
            .evaluator
            .evaluate_features(features)
            .map_err(|e| ProposerError::Run(e.to_string()))?;
        if raw.len() != missing.len() {
            return Err(ProposerError::Run(format!(
                "{} answers for {} positions",
                raw.len(),
                missing.len()
            )));
        }
        self.evaluations.fetch_add(missing.len(), Ordering::Relaxed);
        Ok(missing
            .iter()
            .zip(raw)
            .map(|((_, game), out)| Arc::new(postprocess(game, &out)))
            .collect())
    }

    /// Each state's ownership from Black's side (+1 Black), row-major from the top row, averaged over
    /// both colours to move (as EndgameBot does: the side to move would otherwise bias unsettled points).
    pub fn ownership(&self, states: &[&LocalState]) -> Result<Vec<Vec<f32>>, ProposerError> {
        let items: Vec<(&LocalState, Color)> = states
            .iter()
            .flat_map(|&s| [(s, Color::Black), (s, Color::White)])
            .collect();
        let evals = self.evaluate(&items)?;
        Ok(evals
            .chunks(2)
            .map(|pair| {
                pair[0]
                    .white_ownership
                    .iter()
                    .zip(&pair[1].white_ownership)
                    .map(|(a, b)| -(a + b) / 2.0)
                    .collect()
            })
            .collect())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<NnEval>>> {
        // A panic while holding the lock leaves a cache that is still consistent: keep using it.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// KataGo's policy restricted to the region, queried with each colour to move.
pub struct PolicyProposer {
    net: Arc<KataGoNet>,
}

impl PolicyProposer {
    pub fn new(net: Arc<KataGoNet>) -> PolicyProposer {
        PolicyProposer { net }
    }
}

impl Proposer for PolicyProposer {
    fn name(&self) -> String {
        "KataGo policy".into()
    }

    fn propose(
        &self,
        region: &Region,
        states: &[&LocalState],
    ) -> Result<Vec<Proposal>, ProposerError> {
        let items: Vec<(&LocalState, Color)> = states
            .iter()
            .flat_map(|&s| [(s, Color::Black), (s, Color::White)])
            .collect();
        let evals = self.net.evaluate(&items)?;
        Ok(states
            .iter()
            .zip(evals.chunks(2))
            .map(|(state, pair)| policy_proposal(region, state, &pair[0], &pair[1]))
            .collect())
    }

    fn evaluations(&self) -> usize {
        self.net.evaluations()
    }
}

/// Combines the two policies into one proposal (the rule in the module's header).
pub fn policy_proposal(
    region: &Region,
    state: &LocalState,
    black_to_move: &NnEval,
    white_to_move: &NnEval,
) -> Proposal {
    let size = state.board().size();
    let local = |eval: &NnEval, color: Color| -> Vec<(crate::go::Point, f32)> {
        state
            .legal_points(region, color)
            .into_iter()
            .map(|p| {
                let prior = eval
                    .policy
                    .get(size.row_major(p))
                    .copied()
                    .flatten()
                    .unwrap_or(0.0);
                (p, prior)
            })
            .collect()
    };
    let black = local(black_to_move, Color::Black);
    let white = local(white_to_move, Color::White);
    let mass = |moves: &[(crate::go::Point, f32)]| moves.iter().map(|&(_, p)| p).sum::<f32>();
    let (mb, mw) = (mass(&black), mass(&white));
    let no_move = (1.0 - mb).min(1.0 - mw).clamp(0.0, 1.0);
    let scale = if mb + mw > 0.0 {
        (1.0 - no_move) / (mb + mw)
    } else {
        0.0
    };
    let scaled = |moves: Vec<(crate::go::Point, f32)>| {
        moves
            .into_iter()
            .map(|(p, q)| (p, q * scale))
            .collect::<Vec<_>>()
    };
    Proposal {
        black: scaled(black),
        white: scaled(white),
        no_move,
    }
    .sorted()
}
