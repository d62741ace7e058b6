//! One search: its state (the tree, the utility, the ownership seen) and the search threads that grow it.
//!
//! Every thread loops: under the lock, gather a batch of leaves (one by default; each with a virtual loss
//! on its path); outside it, look each leaf up in the evaluation cache, encode the others and submit them;
//! then wait for that batch (or, pipelined, for the one submitted before), post-process it outside the
//! lock and back it up under the lock. With one
//! thread the order of every step is fixed, so the same query gives the same tree whatever the cache
//! holds and however the evaluator batches; with more, threads interleave and the result varies a little
//! from run to run, as KataGo's does.

use super::shared::{Kept, Saved};
use super::tree::{NodeId, Tree, sign};
use super::utility::Utility;
use super::{DEFAULT_VISITS, LeafKey, MctsEngine, edges_for, leaf_features, position_key};
use crate::engine::{CancelToken, Engine, EngineError, MoveInfo, Query, Report, RootInfo};
use crate::go::{Color, Game, Move, score};
use crate::nn::{Features, NnEval, Pending};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

type Progress<'a> = Option<&'a mpsc::Sender<Result<Report, EngineError>>>;

/// The state of one search, behind the lock its threads share: what a later search may start from, and
/// the leaves gathered and not yet backed up, over all threads.
pub(super) struct State {
    search: Saved,
    in_flight: u64,
}

impl std::ops::Deref for State {
    type Target = Saved;
    fn deref(&self) -> &Saved {
        &self.search
    }
}

impl std::ops::DerefMut for State {
    fn deref_mut(&mut self) -> &mut Saved {
        &mut self.search
    }
}

/// A leaf waiting for its evaluation.
struct Leaf {
    path: Vec<NodeId>,
    game: Game,
}

/// A gathered batch on its way through the network: cached leaves have their evaluation already.
struct Batch {
    leaves: Vec<Leaf>,
    keys: Vec<LeafKey>,
    cached: Vec<Option<Arc<NnEval>>>,
    answers: Pending,
}

enum Descent {
    Leaf(Box<Leaf>),
    /// Reached a leaf already waiting for its evaluation: the batch is as wide as the tree allows now.
    Busy,
    /// Backed up at once (a finished game).
    Done,
}

/// What every thread of one search shares.
struct Shared {
    state: Mutex<State>,
    /// Signalled after every backup, for threads that found nothing to gather.
    backed_up: Condvar,
    failed: AtomicBool,
    visit_limit: Option<u64>,
    deadline: Option<Instant>,
}

impl Shared {
    fn lock(&self) -> Result<MutexGuard<'_, State>, EngineError> {
        self.state.lock().map_err(|_| EngineError::Died {
            engine: "mcts".into(),
            detail: "a search thread panicked".into(),
        })
    }

    fn should_stop(&self, state: &State, cancel: &CancelToken) -> bool {
        self.failed.load(Ordering::SeqCst)
            || cancel.is_cancelled()
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .visit_limit
                .is_some_and(|v| state.tree.node(Tree::ROOT).visits + state.in_flight >= v)
    }
}

impl MctsEngine {
    /// Runs a whole search (on the calling thread and `params.threads - 1` more), sending reports during
    /// the search to `progress` when the query asks for them. Returns the final report.
    pub fn search(
        &self,
        query: &Query,
        cancel: &CancelToken,
        progress: Progress<'_>,
    ) -> Result<Report, EngineError> {
        let root_game = query.game()?;
        if root_game.is_over() {
            return Err(EngineError::BadQuery(
                "the game is over: two passes ended it".into(),
            ));
        }
        let root_eval = self.root_eval(&root_game)?;
        let key = position_key(&root_game);
        let kept = query
            .share_tree
            .and_then(|k| self.trees.find(k, &root_game, key, &query.avoid));
        let started_afresh = kept.is_none();
        let state = match kept {
            Some(Kept::Same(saved)) => State::resumed(*saved, &query.avoid),
            Some(Kept::Below { tree, utility }) => {
                State::below(tree, utility, root_game, root_eval, &query.avoid)
            }
            None => State::fresh(self, root_game, root_eval, &query.avoid),
        };
        if state.tree.node(Tree::ROOT).edges.is_empty() {
            return Err(EngineError::BadQuery(
                "every legal move is in the avoid list: nothing to search".into(),
            ));
        }
        let start_visits = state.tree.node(Tree::ROOT).visits;
        let shared = Shared {
            state: Mutex::new(state),
            backed_up: Condvar::new(),
            failed: AtomicBool::new(false),
            visit_limit: match (query.max_visits, query.max_time) {
                (None, None) => Some(DEFAULT_VISITS),
                (v, _) => v,
            },
            deadline: query.max_time.map(|t| Instant::now() + t),
        };
        let helpers = self.params.threads.max(1) - 1;
        let outcome = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..helpers)
                .map(|_| scope.spawn(|| self.run_thread(&shared, query, cancel, None)))
                .collect();
            let mine = self.run_thread(&shared, query, cancel, progress);
            let theirs = handles.into_iter().map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(EngineError::Died {
                        engine: self.name(),
                        detail: "a search thread panicked".into(),
                    })
                })
            });
            std::iter::once(mine)
                .chain(theirs)
                .collect::<Result<(), _>>()
        });
        outcome?;
        let state = shared.state.into_inner().map_err(|_| EngineError::Died {
            engine: self.name(),
            detail: "a search thread panicked".into(),
        })?;
        let added = state.tree.node(Tree::ROOT).visits - start_visits;
        self.stats.searches.fetch_add(1, Ordering::Relaxed);
        self.stats.visits.fetch_add(added, Ordering::Relaxed);
        let report = state.report(query, true);
        if let Some(k) = query.share_tree
            && started_afresh
        {
            self.trees.save(k, key, &query.avoid, state.into_saved());
        }
        Ok(report)
    }

    /// One search thread; a failure stops the others.
    fn run_thread(
        &self,
        shared: &Shared,
        query: &Query,
        cancel: &CancelToken,
        progress: Progress<'_>,
    ) -> Result<(), EngineError> {
        let result = self.search_loop(shared, query, cancel, progress);
        if result.is_err() {
            shared.failed.store(true, Ordering::SeqCst);
            shared.backed_up.notify_all();
        }
        result
    }

    fn search_loop(
        &self,
        shared: &Shared,
        query: &Query,
        cancel: &CancelToken,
        progress: Progress<'_>,
    ) -> Result<(), EngineError> {
        let every = query.report_every.map(|e| e.max(Duration::from_millis(10)));
        let mut next_report = every.map(|e| Instant::now() + e);
        let mut in_flight: Option<Batch> = None;
        loop {
            let (gathered, stop) = {
                let mut state = shared.lock()?;
                if shared.should_stop(&state, cancel) {
                    (Vec::new(), true)
                } else {
                    let visits = state.tree.node(Tree::ROOT).visits;
                    let budget = shared
                        .visit_limit
                        .map_or(u64::MAX, |v| v.saturating_sub(visits + state.in_flight));
                    let count = self.params.batch_size.max(1).min(budget as usize);
                    let leaves = state.gather(count);
                    state.in_flight += leaves.len() as u64;
                    (leaves, false)
                }
            };
            let mut next = if gathered.is_empty() {
                None
            } else {
                Some(self.submit(gathered)?)
            };
            if let Some(batch) = in_flight.take() {
                self.absorb(shared, batch)?;
            }
            if !self.params.pipelined
                && let Some(batch) = next.take()
            {
                self.absorb(shared, batch)?;
            }
            in_flight = next;
            if stop && in_flight.is_none() {
                return Ok(());
            }
            if !stop && in_flight.is_none() {
                // Every leaf the tree offers is in another thread's batch: wait for a backup.
                let state = shared.lock()?;
                if state.in_flight > 0 && !shared.should_stop(&state, cancel) {
                    let _ = shared
                        .backed_up
                        .wait_timeout(state, Duration::from_millis(20));
                }
            }
            if let (Some(tx), Some(at)) = (progress, next_report)
                && Instant::now() >= at
            {
                next_report = every.map(|e| Instant::now() + e);
                // A slow reader loses intermediate reports, never the final one.
                let report = shared.lock()?.report(query, false);
                let _ = tx.try_send(Ok(report));
            }
        }
    }

    /// Looks the leaves up in the cache and sends the others to the network.
    fn submit(&self, leaves: Vec<Leaf>) -> Result<Batch, EngineError> {
        let keys: Vec<LeafKey> = leaves
            .iter()
            .map(|l| LeafKey::new(&l.game, self.params.leaf_symmetries))
            .collect();
        let cached: Vec<Option<Arc<NnEval>>> = leaves
            .iter()
            .zip(&keys)
            .map(|(l, k)| self.cached(&l.game, k))
            .collect();
        let features: Vec<Features> = leaves
            .iter()
            .zip(&keys)
            .zip(&cached)
            .filter(|(_, c)| c.is_none())
            .map(|((l, k), _)| leaf_features(&l.game, k))
            .collect();
        let answers = self
            .evaluator
            .submit(features)
            .map_err(|e| self.failure(e))?;
        Ok(Batch {
            leaves,
            keys,
            cached,
            answers,
        })
    }

    /// Waits for a batch's evaluations, caches them and backs every leaf up in the order gathered.
    fn absorb(&self, shared: &Shared, batch: Batch) -> Result<(), EngineError> {
        let mut outputs = batch
            .answers
            .wait()
            .map_err(|e| self.failure(e))?
            .into_iter();
        let mut evals = Vec::with_capacity(batch.leaves.len());
        for ((leaf, key), cached) in batch.leaves.iter().zip(batch.keys).zip(batch.cached) {
            let eval = match cached {
                Some(eval) => eval,
                None => {
                    let raw = outputs.next().ok_or_else(|| EngineError::Died {
                        engine: self.name(),
                        detail: "the network answered fewer positions than it was sent".into(),
                    })?;
                    self.store(&leaf.game, &key, raw)?
                }
            };
            evals.push(eval);
        }
        let mut state = shared.lock()?;
        state.in_flight -= batch.leaves.len() as u64;
        for (leaf, eval) in batch.leaves.iter().zip(evals) {
            let id = *leaf.path.last().unwrap_or(&Tree::ROOT);
            state.tree.node_mut(id).pending = false;
            state.expand(id, &leaf.game, &eval, &[]);
            state.record(&leaf.path, &eval, true);
        }
        drop(state);
        shared.backed_up.notify_all();
        Ok(())
    }
}

impl State {
    /// A new tree: the root expanded from its evaluation, minus `avoid`, and backed up once.
    fn fresh(
        engine: &MctsEngine,
        root_game: Game,
        root_eval: Arc<NnEval>,
        avoid: &[Move],
    ) -> State {
        let size = root_game.size();
        let params = engine.params;
        let utility = Utility::new(
            params.static_score_utility_factor,
            params.dynamic_score_utility_factor,
            root_eval.white_score_mean as f64,
            size.area(),
        );
        let mut state = State {
            search: Saved {
                tree: Tree::new(params, root_game.to_move()),
                utility,
                ownership_sum: vec![0.0; size.area()],
                ownership_count: 0,
                root_game,
                root_eval,
            },
            in_flight: 0,
        };
        let (game, eval) = (state.root_game.clone(), state.root_eval.clone());
        state.expand(Tree::ROOT, &game, &eval, avoid);
        state.record(&[Tree::ROOT], &eval, false);
        state
    }

    /// A search that starts from the subtree an earlier search grew below one of its root moves: the
    /// subtree's visits and values stay, the root's priors become the position's own (averaged over the
    /// symmetries, as a fresh root's), and the utility stays the one the subtree's values were backed up
    /// with.
    fn below(
        mut tree: Tree,
        utility: Utility,
        root_game: Game,
        root_eval: Arc<NnEval>,
        avoid: &[Move],
    ) -> State {
        let old = std::mem::take(&mut tree.node_mut(Tree::ROOT).edges);
        let mut edges = edges_for(&root_game, &root_eval, &[]);
        for edge in &mut edges {
            edge.child = old.iter().find(|o| o.mv == edge.mv).and_then(|o| o.child);
        }
        tree.node_mut(Tree::ROOT).edges = edges;
        let saved = Saved {
            tree,
            utility,
            ownership_sum: root_eval
                .white_ownership
                .iter()
                .map(|&o| o as f64)
                .collect(),
            ownership_count: 1,
            root_game,
            root_eval,
        };
        State::resumed(saved, avoid)
    }

    /// An earlier search's tree, less the root moves `avoid` adds to the ones it banned: their subtrees'
    /// visits and values leave the root, and the priors are renormalised over the moves left. (The
    /// root's ownership keeps what those subtrees saw: it is not kept per node.)
    fn resumed(saved: Saved, avoid: &[Move]) -> State {
        let mut tree = saved.tree;
        let root = tree.node(Tree::ROOT).clone();
        let mut kept = Vec::with_capacity(root.edges.len());
        let mut removed = Vec::new();
        for edge in root.edges {
            if avoid.contains(&edge.mv) {
                removed.extend(edge.child);
            } else {
                kept.push(edge);
            }
        }
        for child in removed {
            let c = tree.node(child).clone();
            tree.subtract_from_root(&c);
        }
        let total: f32 = kept.iter().map(|e| e.prior).sum();
        if total > 0.0 {
            for e in &mut kept {
                e.prior /= total;
            }
        }
        tree.node_mut(Tree::ROOT).edges = kept;
        State {
            search: Saved { tree, ..saved },
            in_flight: 0,
        }
    }

    fn into_saved(self) -> Saved {
        self.search
    }

    /// Descends until `count` descents have ended (at a leaf for the network or a finished game), or one
    /// reaches a leaf already waiting; returns the leaves for the network.
    fn gather(&mut self, count: usize) -> Vec<Leaf> {
        let mut leaves = Vec::new();
        let mut ended = 0;
        while ended < count {
            ended += 1;
            match self.descend() {
                Descent::Leaf(leaf) => leaves.push(*leaf),
                Descent::Busy => break,
                Descent::Done => {}
            }
        }
        leaves
    }

    fn descend(&mut self) -> Descent {
        let mut id = Tree::ROOT;
        let mut game = self.search.root_game.clone();
        let mut path = vec![Tree::ROOT];
        loop {
            let node = self.search.tree.node(id);
            if node.pending {
                return Descent::Busy;
            }
            if !node.expanded {
                break;
            }
            let Some(edge) = self.search.tree.select_edge(id) else {
                // No legal move left here (cannot happen while passing is legal): score the board.
                self.search.tree.backup(
                    &path,
                    self.search.utility.terminal(-score::final_score(&game)),
                    false,
                );
                return Descent::Done;
            };
            let mv = self.search.tree.node(id).edges[edge].mv;
            if game.play(mv).is_err() {
                // The policy only offers legal moves, so this is a superko the history makes illegal
                // along this path only: drop the edge here.
                self.search.tree.node_mut(id).edges.remove(edge);
                continue;
            }
            id = self.search.tree.child(id, edge);
            path.push(id);
            if game.is_over() {
                self.search.tree.backup(
                    &path,
                    self.search.utility.terminal(-score::final_score(&game)),
                    false,
                );
                return Descent::Done;
            }
        }
        for &n in &path {
            self.search.tree.node_mut(n).virtual_losses += 1;
        }
        self.search.tree.node_mut(id).pending = true;
        Descent::Leaf(Box::new(Leaf { path, game }))
    }

    /// Gives `id` an edge for every legal move the policy allows, minus `avoid`, renormalised.
    fn expand(&mut self, id: NodeId, game: &Game, eval: &NnEval, avoid: &[Move]) {
        let nn_utility = self.search.utility.sample(eval).utility;
        let node = self.search.tree.node_mut(id);
        node.edges = edges_for(game, eval, avoid);
        node.expanded = true;
        node.nn_utility = nn_utility;
    }

    fn record(&mut self, path: &[NodeId], eval: &NnEval, had_virtual_loss: bool) {
        self.search
            .tree
            .backup(path, self.search.utility.sample(eval), had_virtual_loss);
        for (sum, &o) in self
            .search
            .ownership_sum
            .iter_mut()
            .zip(&eval.white_ownership)
        {
            *sum += o as f64;
        }
        self.search.ownership_count += 1;
    }

    fn report(&self, query: &Query, is_final: bool) -> Report {
        let tree = &self.search.tree;
        let root_eval = &self.search.root_eval;
        let root = tree.node(Tree::ROOT);
        let to_move = self.search.root_game.to_move();
        let chooser = sign(to_move);
        let size = self.search.root_game.size();
        let moves = tree
            .ranked_root_edges()
            .into_iter()
            .filter_map(|(i, lcb)| {
                let edge = &root.edges[i];
                let child = tree.node(edge.child?);
                let n = child.visits as f64;
                let white_win = child.win_sum / n;
                let mover_win = if to_move == Color::White {
                    white_win
                } else {
                    1.0 - white_win
                };
                let mean_utility = chooser * child.utility_sum / n;
                let mut pv = vec![edge.mv];
                pv.extend(tree.principal_variation(edge.child?, 12));
                Some(MoveInfo {
                    mv: edge.mv,
                    visits: child.visits,
                    winrate: 1.0 - white_win,
                    score_lead: -child.lead_sum / n,
                    // The network's prior as KataGo reports it: before banned moves are removed (the search
                    // itself uses the renormalised one).
                    prior: root_eval.prior(size, edge.mv) as f64,
                    pv,
                    // The utility's confidence radius, in win-chance units (utility spans twice as much).
                    lcb: lcb.map(|l| (mover_win - (mean_utility - l) / 2.0).clamp(0.0, 1.0)),
                    proven: false,
                    score_mean: Some(-child.score_mean_sum / n),
                })
            })
            .collect();
        let n = root.visits.max(1) as f64;
        let score_mean = -root.score_mean_sum / n;
        let score_stdev = (root.score_sq_sum / n - score_mean * score_mean)
            .max(0.0)
            .sqrt();
        let policy = query.include_policy.then(|| {
            let mut p: Vec<f32> = root_eval
                .policy
                .iter()
                .map(|v| v.unwrap_or(f32::NAN))
                .collect();
            p.push(root_eval.policy_pass);
            p
        });
        let ownership = query.include_ownership.then(|| {
            let count = self.search.ownership_count.max(1) as f64;
            self.search
                .ownership_sum
                .iter()
                .map(|s| (-s / count) as f32)
                .collect()
        });
        Report {
            moves,
            root: RootInfo {
                winrate: 1.0 - root.win_sum / n,
                score_lead: -root.lead_sum / n,
                score_mean,
                score_stdev,
                visits: root.visits,
            },
            policy,
            ownership,
            is_final,
        }
    }
}
