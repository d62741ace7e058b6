//! `rollout`: the embedded default engine. Monte-Carlo tree search with UCT and RAVE over light playouts
//! (captures and atari escapes), needing no files; the engine the workbench uses when nothing else is set.
//!
//! Parallelism is *root parallelism*: each thread grows its own tree from the same root with its own seed
//! and the root statistics are summed. With light playouts a tree step costs about as much as a playout,
//! so a shared tree would spend its time on locks or atomics and virtual loss; independent trees need no
//! synchronisation at all, keep a one-thread search exactly reproducible, and Chaslot, Winands and van den
//! Herik ("Parallel Monte-Carlo Tree Search", 2008) found root parallelism as strong as tree parallelism
//! at these thread counts.
//!
//! Values: the score is the mean area score of the playouts (Black's view, komi included); the winrate is
//! Black's share of won playouts, draws counting half. Proven values of tiny positions come from the
//! exact solver ([`exact`]) through the [`super::exact`] wrapper, which the `rollout` engine spec puts
//! around this engine.

pub(crate) mod exact;
mod nodes;
mod playout;
mod tree;

pub(crate) use tree::RootPosition;
pub use tree::SearchParams;

use super::{Analysis, CancelToken, Engine, EngineError, MoveInfo, Query, Report, RootInfo};
use crate::go::{Color, Move};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tree::{RootMoveStats, Tree};

/// Visits searched when a query sets neither a visit nor a time limit.
pub const DEFAULT_VISITS: u64 = 10_000;

/// Iterations between two snapshots a thread publishes for reports during the search.
const SNAPSHOT_EVERY: u64 = 256;

/// The embedded engine's configuration; each query runs on its own threads.
#[derive(Debug, Clone)]
pub struct RolloutEngine {
    threads: usize,
    params: SearchParams,
}

impl RolloutEngine {
    /// An engine searching on `threads` threads (0: all cores).
    pub fn new(threads: usize) -> RolloutEngine {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        RolloutEngine {
            threads,
            params: SearchParams::default(),
        }
    }

    pub fn with_params(mut self, params: SearchParams) -> RolloutEngine {
        self.params = params;
        self
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs a whole search on the calling thread (and its helpers), sending reports during the search to
    /// `progress` when the query asks for them. Returns the final report.
    pub fn search(
        &self,
        query: &Query,
        cancel: &CancelToken,
        progress: Option<&mpsc::Sender<Result<Report, EngineError>>>,
    ) -> Result<Report, EngineError> {
        let root = Arc::new(root_position(query)?);
        let visit_limit = match (query.max_visits, query.max_time) {
            (None, None) => Some(DEFAULT_VISITS),
            (v, _) => v,
        };
        let deadline = query.max_time.map(|t| Instant::now() + t);
        let threads = self.threads.max(1);
        let slots: Vec<Mutex<Snapshot>> = (0..threads)
            .map(|_| Mutex::new(Snapshot::default()))
            .collect();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let root_moves = Tree::new(Arc::clone(&root), self.params, 0, false).root_moves();
        let legal_count = root_moves.len();
        if legal_count == 0 {
            return Err(EngineError::BadQuery(
                "every legal move is in the avoid list: nothing to search".into(),
            ));
        }
        let finals: Vec<Snapshot> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let root = Arc::clone(&root);
                    let slot = &slots[t];
                    let done = &done;
                    let budget = visit_limit.map(|v| share(v, threads, t));
                    let seed = query.seed ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let params = self.params;
                    scope.spawn(move || {
                        let mut tree = Tree::new(root, params, seed, query.include_ownership);
                        let mut since_snapshot = 0;
                        loop {
                            if budget.is_some_and(|b| tree.root_visits() >= b) {
                                break;
                            }
                            // Checking the clock and the flags every 16 iterations keeps them off the profile; a dropped
                            // analysis stops the search like a cancel.
                            if tree.root_visits().is_multiple_of(16)
                                && (cancel.is_cancelled()
                                    || progress.is_some_and(|tx| tx.is_closed())
                                    || deadline.is_some_and(|d| Instant::now() >= d))
                            {
                                break;
                            }
                            tree.iterate();
                            since_snapshot += 1;
                            if since_snapshot >= SNAPSHOT_EVERY && progress.is_some() {
                                since_snapshot = 0;
                                if let Ok(mut s) = slot.lock() {
                                    *s = Snapshot::of(&tree);
                                }
                            }
                        }
                        done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        Snapshot::of(&tree)
                    })
                })
                .collect();

            if let (Some(tx), Some(every)) = (progress, query.report_every) {
                let every = every.max(Duration::from_millis(10));
                let mut next = Instant::now() + every;
                while done.load(std::sync::atomic::Ordering::SeqCst) < threads {
                    std::thread::sleep(Duration::from_millis(5).min(every));
                    if Instant::now() >= next {
                        next += every;
                        let snaps: Vec<Snapshot> = slots
                            .iter()
                            .filter_map(|s| s.lock().ok().map(|s| s.clone()))
                            .collect();
                        let report = merge(query, &snaps, legal_count, false);
                        if report.root.visits > 0 {
                            // A slow reader loses intermediate reports, never the final one.
                            let _ = tx.try_send(Ok(report));
                        }
                    }
                }
            }
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        Ok(merge(query, &finals, legal_count, true))
    }
}

impl Engine for RolloutEngine {
    fn name(&self) -> String {
        format!("rollout ({} threads)", self.threads)
    }

    fn id(&self) -> super::EngineId {
        super::EngineId::new(super::EngineKind::Rollout)
    }

    fn analyze(&self, query: Query) -> Analysis {
        let (analysis, tx, cancel) = Analysis::channel();
        let engine = self.clone();
        std::thread::spawn(move || {
            let result = engine.search(&query, &cancel, Some(&tx));
            let _ = tx.blocking_send(result);
        });
        analysis
    }
}

/// Thread `t`'s part of a visit budget shared by `threads` threads (the parts add up exactly).
fn share(total: u64, threads: usize, t: usize) -> u64 {
    let n = threads as u64;
    total / n + u64::from((t as u64) < total % n)
}

/// Replays the query into the root position, with the superko keys of its history.
pub(crate) fn root_position(query: &Query) -> Result<RootPosition, EngineError> {
    let mut game = crate::go::Game::with_setup(query.size, query.rules, query.setup.clone());
    let mut history = Vec::with_capacity(query.moves.len() + 1);
    let key = |g: &crate::go::Game| RootPosition::superko_key(g.rules(), g.board(), g.to_move());
    let stones = |g: &crate::go::Game| g.size().area() - g.board().empty_count();
    history.push(key(&game));
    let mut max_stones = stones(&game);
    for (i, &(color, mv)) in query.moves.iter().enumerate() {
        game.play_as(color, mv).map_err(|reason| {
            EngineError::BadQuery(format!(
                "move {} ({} {}) is illegal: {reason}",
                i + 1,
                color,
                mv.to_gtp(query.size)
            ))
        })?;
        history.push(key(&game));
        max_stones = max_stones.max(stones(&game));
    }
    if game.is_over() {
        return Err(EngineError::BadQuery(
            "the game is over (two passes): there is nothing to search".into(),
        ));
    }
    let rules = query.rules;
    if rules.ko == crate::go::KoRule::Simple {
        history.clear();
    }
    // Sorted for binary search: expansion looks keys up, and a game has few enough positions that a
    // sorted list beats a hash set (whose SipHash would cost more than the search it saves).
    history.sort_unstable();
    history.dedup();
    Ok(RootPosition {
        board: game.board().clone(),
        to_move: query.to_move(),
        consecutive_passes: game.consecutive_passes(),
        rules,
        history,
        max_stones,
        avoid: query.avoid.clone(),
    })
}

/// What one thread's tree knows about the root.
#[derive(Debug, Clone, Default)]
struct Snapshot {
    moves: Vec<RootMoveStats>,
    ownership: Option<Vec<f64>>,
    visits: u64,
}

impl Snapshot {
    fn of(tree: &Tree) -> Snapshot {
        Snapshot {
            moves: tree.root_stats(),
            ownership: tree.ownership_sums().cloned(),
            visits: tree.root_visits(),
        }
    }
}

/// Sums the threads' root statistics into one report, moves sorted by visits (best first).
fn merge(query: &Query, snaps: &[Snapshot], legal_count: usize, is_final: bool) -> Report {
    struct Sum {
        mover: Color,
        visits: u64,
        win_sum: f64,
        score_sum: f64,
        score_sq_sum: f64,
        pv: Vec<Move>,
        pv_visits: u64,
    }
    let mut sums: Vec<(Move, Sum)> = Vec::new();
    for snap in snaps {
        for m in &snap.moves {
            let idx = match sums.iter().position(|(mv, _)| *mv == m.mv) {
                Some(i) => i,
                None => {
                    sums.push((
                        m.mv,
                        Sum {
                            mover: m.mover,
                            visits: 0,
                            win_sum: 0.0,
                            score_sum: 0.0,
                            score_sq_sum: 0.0,
                            pv: Vec::new(),
                            pv_visits: 0,
                        },
                    ));
                    sums.len() - 1
                }
            };
            let s = &mut sums[idx].1;
            s.visits += m.visits;
            s.win_sum += m.win_sum;
            s.score_sum += m.score_sum;
            s.score_sq_sum += m.score_sq_sum;
            if m.visits > s.pv_visits {
                s.pv_visits = m.visits;
                s.pv = m.pv.clone();
            }
        }
    }
    let prior = 1.0 / legal_count.max(1) as f64;
    let mut moves: Vec<MoveInfo> = sums
        .iter()
        .filter(|(_, s)| s.visits > 0)
        .map(|(mv, s)| {
            let n = s.visits as f64;
            let mover_rate = s.win_sum / n;
            let black_rate = if s.mover == Color::Black {
                mover_rate
            } else {
                1.0 - mover_rate
            };
            MoveInfo {
                mv: *mv,
                visits: s.visits,
                winrate: black_rate,
                score_lead: s.score_sum / n,
                prior,
                pv: s.pv.clone(),
                lcb: Some(mover_rate - 1.96 * (mover_rate * (1.0 - mover_rate) / n).sqrt()),
                proven: false,
                score_mean: None,
            }
        })
        .collect();
    let to_move = query.to_move();
    let mover_rate = |m: &MoveInfo| {
        if to_move == Color::Black {
            m.winrate
        } else {
            1.0 - m.winrate
        }
    };
    moves.sort_by(|a, b| {
        b.visits
            .cmp(&a.visits)
            .then(mover_rate(b).total_cmp(&mover_rate(a)))
    });

    let visits: u64 = sums.iter().map(|(_, s)| s.visits).sum();
    let n = visits.max(1) as f64;
    let black_wins: f64 = sums
        .iter()
        .map(|(_, s)| {
            if s.mover == Color::Black {
                s.win_sum
            } else {
                s.visits as f64 - s.win_sum
            }
        })
        .sum();
    let score_mean = sums.iter().map(|(_, s)| s.score_sum).sum::<f64>() / n;
    let score_sq = sums.iter().map(|(_, s)| s.score_sq_sum).sum::<f64>() / n;
    let root = RootInfo {
        winrate: black_wins / n,
        score_lead: score_mean,
        score_mean,
        score_stdev: (score_sq - score_mean * score_mean).max(0.0).sqrt(),
        visits,
    };
    let ownership = query.include_ownership.then(|| {
        let area = query.size.area();
        let total_visits: u64 = snaps.iter().map(|s| s.visits).sum();
        let mut own = vec![0.0f64; area];
        for s in snaps {
            if let Some(o) = &s.ownership {
                for (a, b) in own.iter_mut().zip(o) {
                    *a += b;
                }
            }
        }
        own.iter()
            .map(|x| (x / total_visits.max(1) as f64) as f32)
            .collect()
    });
    let policy = query
        .include_policy
        .then(|| uniform_policy(query, snaps, legal_count));
    Report {
        moves,
        root,
        policy,
        ownership,
        is_final,
    }
}

/// The engine has no policy of its own: its prior is uniform over the moves it may search.
fn uniform_policy(query: &Query, snaps: &[Snapshot], legal_count: usize) -> Vec<f32> {
    let size = query.size;
    let mut policy = vec![f32::NAN; size.area() + 1];
    let p = 1.0 / legal_count.max(1) as f32;
    if let Some(s) = snaps.first() {
        for m in &s.moves {
            match m.mv {
                Move::Play(pt) => policy[size.row_major(pt)] = p,
                Move::Pass => policy[size.area()] = p,
            }
        }
    }
    policy
}

#[cfg(test)]
mod tests;
