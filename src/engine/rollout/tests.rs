//! The acceptance positions (5x5 and 3x3 openings), banned moves, reproducibility, streaming and cancel.

use super::*;
use crate::go::{BoardSize, Game, Komi, Point, Rules};

fn query(side: usize, komi: f64, visits: u64) -> Query {
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(komi).unwrap());
    let game = Game::new(BoardSize::square(side).unwrap(), rules);
    let mut q = Query::from_game(&game).with_visits(visits);
    q.seed = 7;
    q
}

fn gtp(report: &Report, size: usize) -> Vec<String> {
    let size = BoardSize::square(size).unwrap();
    report.moves.iter().map(|m| m.mv.to_gtp(size)).collect()
}

fn run(engine: &RolloutEngine, q: &Query) -> Report {
    engine.search(q, &CancelToken::default(), None).unwrap()
}

#[test]
fn five_by_five_prefers_the_centre() {
    // Light playouts barely separate C3 from its neighbours; the tree needs some 20,000 playouts.
    let report = run(&RolloutEngine::new(2), &query(5, 24.0, 20_000));
    assert_eq!(gtp(&report, 5)[0], "C3", "{:?}", &report.moves[..4]);
    assert!(report.is_final);
    assert_eq!(report.root.visits, 20_000);
}

#[test]
fn a_banned_centre_never_appears_and_visits_add_up() {
    let c3 = Move::Play(Point::new(2, 2));
    let q = query(5, 24.0, 3000).avoiding(&[c3]);
    let report = run(&RolloutEngine::new(2), &q);
    assert!(report.moves.iter().all(|m| m.mv != c3));
    let sum: u64 = report.moves.iter().map(|m| m.visits).sum();
    assert_eq!(sum, report.root.visits);
    assert_eq!(sum, 3000);
}

#[test]
fn three_by_three_prefers_the_centre() {
    let report = run(&RolloutEngine::new(1), &query(3, 7.5, 2000));
    assert_eq!(gtp(&report, 3)[0], "B2");
    // Black wins 3x3 by 9 from the centre: the search should see Black well ahead.
    assert!(report.moves[0].winrate > 0.6, "{:?}", report.moves[0]);
}

#[test]
fn one_thread_with_a_fixed_seed_repeats_itself() {
    let engine = RolloutEngine::new(1);
    let q = query(5, 0.5, 1500);
    let a = run(&engine, &q);
    assert_eq!(a, run(&engine, &q));
    let mut other = q.clone();
    other.seed = 8;
    assert_ne!(a, run(&engine, &other));
}

#[test]
fn values_are_from_blacks_view_for_white_to_move() {
    // After Black's centre stone on 3x3 White is lost: White's moves must show a high *Black* winrate.
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(0.5).unwrap());
    let game = Game::from_gtp_moves(BoardSize::square(3).unwrap(), rules, "B2").unwrap();
    let report = run(
        &RolloutEngine::new(1),
        &Query::from_game(&game).with_visits(1500),
    );
    assert!(report.root.winrate > 0.7, "{:?}", report.root);
    assert!(report.root.score_mean > 0.0);
    assert!(report.moves.iter().all(|m| m.winrate > 0.5));
}

#[test]
fn ownership_and_policy_have_the_board_layout() {
    let mut q = query(3, 0.5, 500);
    q.include_ownership = true;
    q.include_policy = true;
    let report = run(&RolloutEngine::new(1), &q);
    let own = report.ownership.unwrap();
    assert_eq!(own.len(), 9);
    assert!(own.iter().all(|o| (-1.0..=1.0).contains(o)));
    let policy = report.policy.unwrap();
    assert_eq!(policy.len(), 10);
    let total: f32 = policy.iter().filter(|p| !p.is_nan()).sum();
    assert!((total - 1.0).abs() < 1e-4);
}

#[test]
fn a_finished_game_or_an_all_banned_root_is_a_bad_query() {
    let rules = Rules::tromp_taylor();
    let game = Game::from_gtp_moves(BoardSize::square(3).unwrap(), rules, "pass pass").unwrap();
    let err = RolloutEngine::new(1).search(&Query::from_game(&game), &CancelToken::default(), None);
    assert!(matches!(err, Err(EngineError::BadQuery(_))));
    let q = query(2, 0.5, 100);
    let all: Vec<Move> = Game::new(q.size, q.rules).legal_moves();
    let err = RolloutEngine::new(1).search(&q.avoiding(&all), &CancelToken::default(), None);
    assert!(matches!(err, Err(EngineError::BadQuery(_))));
}

#[tokio::test]
async fn reports_stream_during_the_search_and_cancel_ends_it() {
    let mut q = query(5, 0.5, 0);
    q.max_visits = None;
    q.max_time = Some(Duration::from_secs(60));
    q.report_every = Some(Duration::from_millis(20));
    let mut analysis = RolloutEngine::new(2).analyze(q);
    let first = analysis.next().await.unwrap().unwrap();
    assert!(!first.is_final);
    assert!(first.root.visits > 0);
    analysis.cancel();
    let mut last = first;
    while let Some(r) = analysis.next().await {
        last = r.unwrap();
    }
    assert!(last.is_final);
    let sum: u64 = last.moves.iter().map(|m| m.visits).sum();
    assert_eq!(sum, last.root.visits);
}
