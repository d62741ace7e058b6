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

/// Complete lines of the log (a torn last line, without its newline, is not a game).
fn logged_games(log: &std::path::Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.matches('\n').count())
}

#[test]
fn a_killed_worker_loses_at_most_its_game_in_progress() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let log = dir.path().join("population.jsonl");
    let l = log.to_str().unwrap_or_default();
    let args = ["--komi", "24", "--visits", "30", "--workers", "2"];
    // A run far longer than the test: it is killed once it has logged a few games.
    let mut worker = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["records", "coevolve", l, "--games", "100000"])
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    // Polls for progress; the bound only keeps a broken build from hanging the suite.
    for _ in 0..6000 {
        if logged_games(&log) >= 3 || worker.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    worker.kill().expect("the worker is killed");
    let _ = worker.wait();
    let before = logged_games(&log);
    assert!(before >= 3, "the worker logged games before it was killed");
    let size = BoardSize::square(5).expect("5x5");
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(24.0).expect("komi"));
    let population = Population::load(&log, size, rules).expect("the log survives the kill");
    assert_eq!(population.games, before, "every finished game is kept");
    // A worker killed mid-write leaves a torn line; a new worker cuts it and appends to the population.
    let mut text = std::fs::read_to_string(&log).expect("the log");
    text.push_str("{\"size\":\"5x5\",\"mov");
    std::fs::write(&log, text).expect("write");
    let resumed = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["records", "coevolve", l, "--games", "2"])
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let after = Population::load(&log, size, rules).expect("reloads");
    assert!(
        after.games >= before + 2,
        "{} games before, {} after",
        before,
        after.games
    );
    assert!(
        String::from_utf8_lossy(&resumed.stdout).contains(&format!("population {}", after.games)),
        "{}",
        String::from_utf8_lossy(&resumed.stdout)
    );
}
