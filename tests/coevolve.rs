//! Coevolution on 5x5 with the rollout engine: the population's root recommendation is C3, the move van der
//! Werf proved best (Black wins by 25 under area scoring).

use std::sync::Arc;
use tengen::engine::rollout::RolloutEngine;
use tengen::go::{BoardSize, Komi, Move, Rules};
use tengen::records::coevolve::{CoevolveConfig, Population, coevolve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_by_five_population_recommends_the_centre() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let log = dir.path().join("population.jsonl");
    let size = BoardSize::square(5).expect("5x5");
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(24.0).expect("komi"));
    // One worker keeps the run reproducible (the engine is seeded); about 1,500 playouts a move is where the
    // light playouts start to prefer the centre.
    let config = CoevolveConfig {
        games: 30,
        workers: 1,
        visits: 1500,
        threshold: 0.10,
        max_moves: 75,
        seed: 1,
    };
    let engine = Arc::new(RolloutEngine::new(1));
    let (population, summary) = coevolve(&log, size, rules, engine, config)
        .await
        .expect("the run completes");
    assert_eq!(summary.games_played, 30);
    assert_eq!(population.games, 30);
    assert!(summary.book_moves > 0, "later games follow the book");
    let c3 = Move::parse_gtp("C3", size).expect("a point");
    assert_eq!(population.recommend(&[]), Some(c3));
    // The log is the population: reloading gives the same book, and a torn last line is skipped.
    let reloaded = Population::load(&log, size, rules).expect("reloads");
    assert_eq!(reloaded.tree.len(), population.tree.len());
    assert_eq!(reloaded.recommend(&[]), Some(c3));
    let mut text = std::fs::read_to_string(&log).expect("the log");
    text.push_str("{\"size\":\"5x5\",\"rul");
    std::fs::write(&log, text).expect("write");
    assert_eq!(
        Population::load(&log, size, rules)
            .expect("a torn tail is cut")
            .games,
        30
    );
}
