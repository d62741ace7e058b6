//! The values a book takes from one search: the root's values over the moves the search would play, as
//! KataGo's book takes them (`getPrunedNodeValues`, `facts/katago-book.md` §7), never one listed move's.
//!
//! Each root move counts with its visits. A move other than the most visited one counts only with the
//! visits PUCT would still have given it now that the search is over: where its value falls short of what
//! the best move's selection value asks for, its exploration visits are taken back (KataGo's
//! `getReducedPlaySelectionWeight`). So a move with a handful of visits, even a proven win, weighs a handful
//! of visits against the hundreds of the move the search settled on; and a bad move that soaked up visits
//! early does not drag the average down. The book reads the report's moves as a set: their order means
//! nothing here.
//!
//! The engine interface reports no utilities and no exploration constants, so the reduction uses the win
//! values and priors the report gives and tengen's PUCT constants (KataGo's defaults). The score is the
//! moves' self-play score mean where the engine gives one (KataGo's books store that, not the lead), else
//! their lead.

use super::super::dag::SearchValues;
use crate::engine::{MoveInfo, Report};
use crate::go::{Color, Game, Move};

/// KataGo's `cpuctExploration`, `cpuctExplorationLog` and `cpuctExplorationBase` (`engine::mcts`'s too).
const CPUCT: f64 = 1.0;
const CPUCT_LOG: f64 = 0.45;
const CPUCT_BASE: f64 = 500.0;

/// Each candidate's weight in the node's values, in the report's order.
pub fn play_weights(moves: &[&MoveInfo], to_move: Color) -> Vec<f64> {
    if moves.is_empty() {
        return Vec::new();
    }
    let visits: Vec<f64> = moves.iter().map(|m| m.visits as f64).collect();
    let total: f64 = visits.iter().sum();
    let prior_sum: f64 = moves.iter().map(|m| m.prior.max(0.0)).sum();
    let prior = |m: &MoveInfo| {
        if prior_sum > 0.0 {
            m.prior.max(0.0) / prior_sum
        } else {
            0.0
        }
    };
    // The win value for the player choosing, -1..1.
    let value = |m: &MoveInfo| {
        let black = 2.0 * m.winrate - 1.0;
        if to_move == Color::Black {
            black
        } else {
            -black
        }
    };
    // KataGo's "most stably explored" move: the most visits, one visit discounted, a little prior.
    let goodness = |i: usize| {
        let n = visits[i];
        n * (n - 1.0).max(0.0) / n.max(1.0) + 2.0 * prior(moves[i])
    };
    let best = (0..moves.len())
        .max_by(|&a, &b| goodness(a).total_cmp(&goodness(b)).then(b.cmp(&a)))
        .unwrap_or(0);
    let explore =
        (CPUCT + CPUCT_LOG * ((total + CPUCT_BASE) / CPUCT_BASE).ln()) * total.max(1.0).sqrt();
    let best_selection = value(moves[best]) + explore * prior(moves[best]) / (1.0 + visits[best]);
    let mut weights: Vec<f64> = (0..moves.len())
        .map(|i| {
            let q = value(moves[i]);
            if i == best || q >= best_selection {
                return visits[i];
            }
            // The visits at which this move's selection value would meet the best move's.
            let deserved = explore * prior(moves[i]) / (best_selection - q) - 1.0;
            visits[i].min(deserved.max(0.0).ceil())
        })
        .collect();
    // KataGo's `chosenMovePrune`: weights under a visit (or a 64th of the largest) count for nothing.
    let largest = weights.iter().copied().fold(0.0, f64::max);
    let prune = (largest / 64.0).min(1.0);
    for w in &mut weights {
        if *w < prune {
            *w = 0.0;
        }
    }
    weights
}

/// White-view values of a search report over the moves not in `avoid`, or `None` when the report carries
/// no values at all (an engine that only names moves, see [`crate::engine::gtp`]). The engine interface
/// has no sharp score and no error heads, so the sharp score is the mean and the errors are "unknown" (as
/// with KataGo nets before version 9).
///
/// `raw_policy` is the engine's prior with nothing avoided (an engine renormalises its policy over the
/// moves it may play, and KataGo's book stores the unrestricted network prior).
pub fn report_values(
    report: &Report,
    game: &Game,
    avoid: &[Move],
    raw_policy: Option<&[f32]>,
) -> Option<SearchValues> {
    let root = &report.root;
    let candidates: Vec<&MoveInfo> = report
        .moves
        .iter()
        .filter(|m| !avoid.contains(&m.mv) && m.visits > 0)
        .collect();
    let weights = play_weights(&candidates, game.to_move());
    let weight: f64 = weights.iter().sum();
    let (winrate, score) = if let Some(best) = solved(&candidates, game, avoid) {
        (best.winrate, best.score_mean.unwrap_or(best.score_lead))
    } else if weight > 0.0 {
        let mean = |f: fn(&MoveInfo) -> f64| {
            candidates
                .iter()
                .zip(&weights)
                .map(|(m, w)| w * f(m))
                .sum::<f64>()
                / weight
        };
        (
            mean(|m| m.winrate),
            mean(|m| m.score_mean.unwrap_or(m.score_lead)),
        )
    } else if root.visits > 0 {
        (root.winrate, root.score_mean)
    } else {
        return None;
    };
    let visits = if root.visits > 0 {
        root.visits
    } else {
        report.moves.iter().map(|m| m.visits).sum()
    };
    Some(SearchValues {
        win_loss: 1.0 - 2.0 * winrate,
        score_mean: -score,
        sharp_score: -score,
        win_loss_error: -1.0,
        score_error: -1.0,
        score_stdev: root.score_stdev,
        max_policy: max_policy(report, game, avoid, raw_policy),
        weight: visits as f64,
        visits: visits as f64,
    })
}

/// The best move of a solved position: one where every allowed legal move is listed with a proven value
/// (`engine::exact`). A position is then worth exactly its best move, however the visits fell; a proof
/// for only some of the moves counts like any other move, with its visits.
fn solved<'a>(candidates: &[&'a MoveInfo], game: &Game, avoid: &[Move]) -> Option<&'a MoveInfo> {
    if candidates.is_empty() || !candidates.iter().all(|m| m.proven) {
        return None;
    }
    let all_listed = game
        .legal_moves()
        .into_iter()
        .filter(|m| !avoid.contains(m))
        .all(|m| candidates.iter().any(|c| c.mv == m));
    let sign = f64::from(game.to_move().sign());
    all_listed
        .then(|| {
            candidates.iter().copied().max_by(|a, b| {
                (a.score_lead * sign)
                    .total_cmp(&(b.score_lead * sign))
                    .then((a.winrate * sign).total_cmp(&(b.winrate * sign)))
            })
        })
        .flatten()
}

/// The largest prior among the moves still allowed: from the unrestricted policy when the engine gave one,
/// else from the report's moves.
fn max_policy(report: &Report, game: &Game, avoid: &[Move], raw_policy: Option<&[f32]>) -> f64 {
    let size = game.size();
    let from_policy = raw_policy.map(|policy| {
        game.legal_moves()
            .into_iter()
            .filter(|m| !avoid.contains(m))
            .filter_map(|m| {
                let i = match m {
                    Move::Play(p) => size.row_major(p),
                    Move::Pass => size.area(),
                };
                policy.get(i).copied().filter(|p| p.is_finite())
            })
            .fold(0.0f64, |a, p| a.max(p as f64))
    });
    let from_moves = report
        .moves
        .iter()
        .filter(|m| !avoid.contains(&m.mv))
        .map(|m| m.prior)
        .fold(0.0f64, f64::max);
    from_policy.filter(|&p| p > 0.0).unwrap_or(from_moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RootInfo;
    use crate::go::{BoardSize, Rules};

    fn info(gtp: &str, visits: u64, winrate: f64, score_lead: f64, prior: f64) -> MoveInfo {
        let size = BoardSize::square(7).unwrap();
        MoveInfo {
            mv: Move::parse_gtp(gtp, size).unwrap(),
            visits,
            winrate,
            score_lead,
            prior,
            pv: Vec::new(),
            lcb: None,
            proven: false,
            score_mean: None,
        }
    }

    fn report(moves: Vec<MoveInfo>) -> Report {
        let visits = moves.iter().map(|m| m.visits).sum();
        Report {
            moves,
            root: RootInfo {
                winrate: 0.5,
                score_lead: 0.0,
                score_mean: 0.0,
                score_stdev: 5.0,
                visits,
            },
            policy: None,
            ownership: None,
            is_final: true,
        }
    }

    fn black_view(v: &SearchValues) -> (f64, f64) {
        ((1.0 - v.win_loss) / 2.0, -v.score_mean)
    }

    fn empty_7x7() -> Game {
        Game::new(BoardSize::square(7).unwrap(), Rules::tromp_taylor())
    }

    #[test]
    fn a_first_move_with_three_visits_at_100_percent_does_not_set_the_value() {
        // Listed first, three visits, a proven-looking 100%; the search spent its visits on D4 and C3.
        let r = report(vec![
            info("G7", 3, 1.0, 20.0, 0.001),
            info("D4", 400, 0.56, 0.4, 0.6),
            info("C3", 60, 0.50, -0.5, 0.2),
        ]);
        let v = report_values(&r, &empty_7x7(), &[], None).unwrap();
        let (winrate, score) = black_view(&v);
        assert!(
            (0.54..0.58).contains(&winrate),
            "Black {winrate:.3}: the 3-visit move weighs 3 visits, not all of them"
        );
        assert!((0.2..0.7).contains(&score), "score {score:+.2}");
        assert_eq!(v.visits, 463.0);
    }

    #[test]
    fn the_order_of_the_moves_does_not_matter() {
        let moves = vec![
            info("G7", 3, 1.0, 20.0, 0.001),
            info("D4", 400, 0.56, 0.4, 0.6),
            info("C3", 60, 0.50, -0.5, 0.2),
        ];
        let game = empty_7x7();
        let forward = report_values(&report(moves.clone()), &game, &[], None).unwrap();
        let mut reversed = moves;
        reversed.reverse();
        let backward = report_values(&report(reversed), &game, &[], None).unwrap();
        assert!((forward.win_loss - backward.win_loss).abs() < 1e-12);
        assert!((forward.score_mean - backward.score_mean).abs() < 1e-12);
    }

    #[test]
    fn a_bad_move_explored_early_gives_its_visits_back() {
        // C3 is far worse than D4 yet got 150 visits: PUCT would now give it only a few.
        let moves = [
            info("D4", 400, 0.60, 1.0, 0.5),
            info("C3", 150, 0.10, -12.0, 0.4),
        ];
        let refs: Vec<&MoveInfo> = moves.iter().collect();
        let weights = play_weights(&refs, Color::Black);
        assert_eq!(weights[0], 400.0);
        assert!(
            weights[1] < 30.0,
            "the weak move keeps {} of its 150 visits",
            weights[1]
        );
        // For White to move the same figures favour C3: now D4 is the weak one.
        let weights = play_weights(&refs, Color::White);
        assert!(weights[0] <= 400.0 && weights[1] == 150.0, "{weights:?}");
    }

    #[test]
    fn a_position_whose_every_move_is_proven_is_worth_its_best_move() {
        // 2x2 with one black stone at A1: White's legal moves are A2, B1, B2 and pass.
        let size = BoardSize::square(2).unwrap();
        let game = Game::from_gtp_moves(size, Rules::tromp_taylor(), "A1").unwrap();
        let proven = |gtp: &str, visits: u64, black_lead: f64| MoveInfo {
            mv: Move::parse_gtp(gtp, size).unwrap(),
            visits,
            winrate: if black_lead > 0.0 { 1.0 } else { 0.0 },
            score_lead: black_lead,
            prior: 0.25,
            pv: Vec::new(),
            lcb: None,
            proven: true,
            score_mean: None,
        };
        let mut moves = vec![
            proven("A2", 300, 4.0),
            proven("B1", 300, 4.0),
            proven("B2", 3, -1.0),
            proven("pass", 200, 4.0),
        ];
        let v = report_values(&report(moves.clone()), &game, &[], None).unwrap();
        let (winrate, score) = black_view(&v);
        assert_eq!((winrate, score), (0.0, -1.0), "White's B2 decides it");
        // With one legal move unproven the proof of B2 is one move among others, with its 3 visits.
        moves[0].proven = false;
        let v = report_values(&report(moves), &game, &[], None).unwrap();
        let (winrate, _) = black_view(&v);
        assert!(winrate > 0.9, "Black {winrate}");
    }

    #[test]
    fn the_score_is_the_self_play_mean_where_the_engine_gives_one() {
        let mut d4 = info("D4", 400, 0.56, 0.4, 0.6);
        d4.score_mean = Some(0.8);
        let v = report_values(&report(vec![d4]), &empty_7x7(), &[], None).unwrap();
        assert_eq!(
            black_view(&v).1,
            0.8,
            "KataGo's books store the score mean, not the lead"
        );
    }

    #[test]
    fn avoided_moves_do_not_count_and_no_values_is_none() {
        let game = empty_7x7();
        let d4 = Move::parse_gtp("D4", game.size()).unwrap();
        let r = report(vec![
            info("D4", 400, 0.9, 9.0, 0.6),
            info("C3", 100, 0.4, -1.0, 0.2),
        ]);
        let v = report_values(&r, &game, &[d4], None).unwrap();
        let (winrate, score) = black_view(&v);
        assert!((winrate - 0.4).abs() < 1e-9 && (score + 1.0).abs() < 1e-9);
        // A move without visits carries no values, and neither does a root without visits.
        let mut silent = report(vec![info("D4", 0, 0.5, 0.0, 1.0)]);
        silent.root.visits = 0;
        assert!(report_values(&silent, &game, &[], None).is_none());
    }
}
