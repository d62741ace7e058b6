//! `exact:SPEC`: proven values for tiny positions, around any engine. Before the wrapped engine searches a
//! tiny root (a board of at most 4x4 with at most 9 empty points, superko rules), the exact solver of
//! [`super::rollout::exact`] settles what it can of each root move; the engine's reports then carry those
//! moves' proven winrate and score, marked [`MoveInfo::proven`]. The `rollout` specification wraps the
//! rollout engine in it, since light playouts misjudge 4x4 capturing races by points.
//!
//! Order: the report lists first the move the wrapped engine would play, except that the best proven move
//! leads when it is at least as good as that move's estimate (a proof beats an estimate), or when every
//! listed move is proven. The root's values follow: exact when every move is proven, otherwise raised to
//! the best proven move's where that bounds them from the mover's side. A book reads neither the order nor
//! the root: it takes the moves as a set (`book::expand::pruned`).

use super::rollout::{RootPosition, exact, root_position};
use super::{Analysis, Engine, MoveInfo, Query, Report};
use crate::go::{KoRule, Move};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Exact values of root moves already tried, by root (see [`exact_key`]) and move: a book asks about one
/// position several times.
type Cache = Arc<Mutex<HashMap<(u128, Move), Tried>>>;

/// A root move's exact value, or `None` when it did not settle within `budget` nodes (a query with a
/// larger budget tries again).
#[derive(Debug, Clone, Copy)]
struct Tried {
    value: Option<i32>,
    budget: u64,
}

/// An engine whose reports carry proven values where the exact solver reaches.
#[derive(Clone)]
pub struct ExactEngine {
    inner: Arc<dyn Engine>,
    cache: Cache,
}

impl ExactEngine {
    pub fn new(inner: Arc<dyn Engine>) -> ExactEngine {
        ExactEngine {
            inner,
            cache: Cache::default(),
        }
    }

    /// Black's exact area difference after each of the root's legal moves that settles, for a tiny root
    /// (nothing otherwise, and nothing for a one-visit query, which only wants the prior).
    fn solve(&self, query: &Query) -> Vec<(Move, i32)> {
        let Ok(root) = root_position(query) else {
            return Vec::new();
        };
        if query.max_visits == Some(1) || !exact::root_is_tiny(&root) {
            return Vec::new();
        }
        let Ok(game) = query.game() else {
            return Vec::new();
        };
        let moves: Vec<Move> = game
            .legal_moves()
            .into_iter()
            .filter(|m| !query.avoid.contains(m))
            .collect();
        self.exact_values(&root, &moves, exact::root_budget(query.max_visits))
    }

    /// The values of `moves` at `root`, solving only those the cache does not hold.
    fn exact_values(&self, root: &RootPosition, moves: &[Move], budget: u64) -> Vec<(Move, i32)> {
        let key = exact_key(root);
        // A move is known once it settled, or failed with at least this budget.
        let known = |cache: &HashMap<(u128, Move), Tried>, mv: Move| {
            cache
                .get(&(key, mv))
                .filter(|t| t.value.is_some() || t.budget >= budget)
                .map(|t| t.value)
        };
        let missing: Vec<Move> = match self.cache.lock() {
            Ok(cache) => moves
                .iter()
                .copied()
                .filter(|&m| known(&cache, m).is_none())
                .collect(),
            Err(_) => return Vec::new(),
        };
        let solved = exact::root_values(root, &missing, budget).unwrap_or_default();
        let Ok(mut cache) = self.cache.lock() else {
            return Vec::new();
        };
        for (&mv, &value) in missing.iter().zip(&solved) {
            cache.insert((key, mv), Tried { value, budget });
        }
        moves
            .iter()
            .filter_map(|&mv| Some((mv, known(&cache, mv).flatten()?)))
            .collect()
    }
}

/// What an exact value depends on: the stones, the player to move, pending passes, the superko rule and
/// the game's history.
fn exact_key(root: &RootPosition) -> u128 {
    let state = (root.to_move.index() as u128) << 8
        | u128::from(root.consecutive_passes) << 4
        | u128::from(root.rules.ko == KoRule::Situational);
    root.history
        .iter()
        .fold(root.board.stone_hash() ^ state, |k, &h| {
            k.rotate_left(13).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ h
        })
}

/// Black's winrate of a proven score: a win, a loss or a draw.
fn black_winrate(score: f64) -> f64 {
    if score > 0.0 {
        1.0
    } else if score < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// The report with the proven values of `exact` (Black's area difference, before komi) written in.
pub fn with_proofs(query: &Query, mut report: Report, exact: &[(Move, i32)]) -> Report {
    if exact.is_empty() {
        return report;
    }
    let komi = query.rules.komi.value();
    let exact_of = |mv: Move| {
        exact
            .iter()
            .find(|e| e.0 == mv)
            .map(|e| f64::from(e.1) - komi)
    };
    for m in &mut report.moves {
        if let Some(score) = exact_of(m.mv) {
            m.score_lead = score;
            m.score_mean = None;
            m.winrate = black_winrate(score);
            m.proven = true;
        }
    }
    let sign = f64::from(query.to_move().sign());
    let mover_score = |m: &MoveInfo| m.score_lead * sign;
    let moves = &mut report.moves;
    let all_proven = !moves.is_empty() && moves.iter().all(|m| m.proven);
    let best_proven = (0..moves.len())
        .filter(|&i| moves[i].proven)
        .max_by(|&i, &j| mover_score(&moves[i]).total_cmp(&mover_score(&moves[j])));
    let lead_is_proven = match best_proven {
        Some(i) if all_proven || mover_score(&moves[i]) >= mover_score(&moves[0]) => {
            let best = moves.remove(i);
            moves.insert(0, best);
            true
        }
        _ => false,
    };
    let root = &mut report.root;
    if lead_is_proven && (all_proven || mover_score(&moves[0]) > root.score_lead * sign) {
        root.score_lead = moves[0].score_lead;
        root.score_mean = moves[0].score_lead;
        root.winrate = moves[0].winrate;
    }
    report
}

impl Engine for ExactEngine {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn id(&self) -> super::EngineId {
        self.inner.id().with_exact()
    }

    fn network_eval(
        &self,
        game: &crate::go::Game,
    ) -> Option<Result<Arc<crate::nn::output::NnEval>, super::EngineError>> {
        self.inner.network_eval(game)
    }

    fn analyze(&self, query: Query) -> Analysis {
        let (analysis, tx, cancel) = Analysis::channel();
        let engine = self.clone();
        tokio::spawn(async move {
            let solving = engine.clone();
            let asked = query.clone();
            let exact = tokio::task::spawn_blocking(move || solving.solve(&asked))
                .await
                .unwrap_or_default();
            let mut inner = engine.inner.analyze(query.clone());
            let mut stopped = false;
            loop {
                tokio::select! {
                    item = inner.next() => match item {
                        Some(Ok(report)) if report.is_final => {
                            let _ = tx.send(Ok(with_proofs(&query, report, &exact))).await;
                            break;
                        }
                        // A slow reader loses reports sent during the search, never the final one.
                        Some(Ok(report)) => {
                            let _ = tx.try_send(Ok(with_proofs(&query, report, &exact)));
                        }
                        Some(Err(e)) => {
                            let _ = tx.send(Err(e)).await;
                            break;
                        }
                        None => break,
                    },
                    _ = cancel.cancelled(), if !stopped => {
                        stopped = true;
                        inner.cancel();
                    }
                    _ = tx.closed(), if !stopped => {
                        stopped = true;
                        inner.cancel();
                    }
                }
            }
        });
        analysis
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rollout::RolloutEngine;
    use crate::go::{BoardSize, Color, Game, Komi, Rules};

    /// 4x4 after C3 B2 C2 B3 B4 C1 B1 A1 (8 empty points): C4 and D2 are proven +1, A3 proven 0.
    fn four_by_four_ending() -> Query {
        let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(0.0).unwrap());
        let size = BoardSize::square(4).unwrap();
        let mut game = Game::new(size, rules);
        for mv in ["C3", "B2", "C2", "B3", "B4", "C1", "B1", "A1"] {
            game.play(Move::parse_gtp(mv, size).unwrap()).unwrap();
        }
        let mut q = Query::from_game(&game).with_visits(2000);
        q.seed = 1;
        q
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_proven_move_at_least_as_good_as_the_most_visited_one_leads() {
        // At 2,000 visits the rollout engine gives A3 the most visits; the wrapped report leads with a
        // proven +1 and values the position at least that.
        let q = four_by_four_ending();
        let size = q.size;
        let engine = ExactEngine::new(Arc::new(RolloutEngine::new(1)));
        let report = engine.analyze(q).final_report().await.unwrap();
        let best = &report.moves[0];
        assert!(
            ["C4", "D2"].contains(&best.mv.to_gtp(size).as_str()),
            "{:?}",
            &report.moves[..3]
        );
        assert!(best.proven);
        assert_eq!(best.score_lead, 1.0);
        assert_eq!(report.root.score_lead, 1.0);
        assert_eq!(report.root.winrate, 1.0);
        let a3 = Move::parse_gtp("A3", size).unwrap();
        let a3 = report.moves.iter().find(|m| m.mv == a3).unwrap();
        assert!(a3.proven && a3.score_lead == 0.0 && a3.winrate == 0.5);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_wrapped_engine_alone_reports_estimates_and_large_roots_get_no_proofs() {
        let q = four_by_four_ending();
        let plain = RolloutEngine::new(1)
            .analyze(q.clone())
            .final_report()
            .await;
        assert!(plain.unwrap().moves.iter().all(|m| !m.proven));
        // 5x5 is beyond the solver's root limit: the reports pass through unchanged.
        let game = Game::new(BoardSize::square(5).unwrap(), Rules::tromp_taylor());
        let mut big = Query::from_game(&game).with_visits(300);
        big.seed = 3;
        let wrapped = ExactEngine::new(Arc::new(RolloutEngine::new(1)))
            .analyze(big.clone())
            .final_report()
            .await
            .unwrap();
        let alone = RolloutEngine::new(1)
            .analyze(big)
            .final_report()
            .await
            .unwrap();
        assert_eq!(wrapped, alone);
    }

    #[test]
    fn the_best_proven_move_leads_when_everything_is_proven() {
        let q = four_by_four_ending();
        let size = q.size;
        let mv = |t: &str| Move::parse_gtp(t, size).unwrap();
        let info = |t: &str, visits: u64| MoveInfo {
            mv: mv(t),
            visits,
            winrate: 0.5,
            score_lead: 0.0,
            prior: 0.1,
            pv: Vec::new(),
            lcb: None,
            proven: false,
            score_mean: None,
        };
        let report = Report {
            moves: vec![info("A3", 900), info("D2", 5)],
            ..Report::default()
        };
        let proved = with_proofs(&q, report, &[(mv("A3"), 0), (mv("D2"), 1)]);
        assert_eq!(proved.moves[0].mv, mv("D2"));
        assert_eq!(proved.root.score_lead, 1.0);
        assert_eq!(q.to_move(), Color::Black);
    }
}
