//! The `mcts` engine on the shared b6c96 network: KataGo's answer on the 7x7 empty board, banned moves,
//! and reports. Needs ONNX Runtime (`ORT_DYLIB_PATH`, set by `.ci/test`).

use std::path::Path;
use tengen::engine::mcts::{MctsEngine, SearchParams};
use tengen::engine::{CancelToken, Query};
use tengen::go::{BoardSize, Game, Komi, Move, Point, Rules};

const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/models/g170-b6c96-s175395328-d26788732.bin.gz"
);

fn engine(dir: &Path) -> MctsEngine {
    if let Err(e) = tengen::nn::runtime::check() {
        panic!("this test needs ONNX Runtime: {e}");
    }
    let onnx = dir.join("b6c96.onnx");
    tengen::nn::import::import(Path::new(MODEL), &onnx).unwrap();
    MctsEngine::open(&onnx, SearchParams::default()).unwrap()
}

fn empty_7x7() -> Game {
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(9.0).unwrap());
    Game::new(BoardSize::square(7).unwrap(), rules)
}

#[test]
fn finds_tengen_on_the_empty_7x7_and_respects_bans() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    let size = BoardSize::square(7).unwrap();
    let d4 = Move::Play(Point::parse_gtp("D4", size).unwrap());

    let mut query = Query::from_game(&empty_7x7()).with_visits(2000);
    query.include_ownership = true;
    query.include_policy = true;
    let report = engine
        .search(&query, &CancelToken::default(), None)
        .unwrap();
    assert!(report.is_final);
    assert_eq!(report.root.visits, 2000);
    let top = &report.moves[0];
    assert_eq!(
        top.mv,
        d4,
        "top move {} ({} visits)",
        top.mv.to_gtp(size),
        top.visits
    );
    assert_eq!(top.pv[0], d4);
    // Black moves first, so the winrate (Black's) is the mover's.
    assert!(
        top.lcb.is_some_and(|l| l <= top.winrate + 1e-9),
        "the LCB is below the mover's winrate"
    );
    let visits: u64 = report.moves.iter().map(|m| m.visits).sum();
    assert_eq!(
        visits + 1,
        report.root.visits,
        "every visit but the root's own went to a move"
    );
    assert_eq!(report.ownership.as_ref().map(Vec::len), Some(49));
    assert_eq!(report.policy.as_ref().map(Vec::len), Some(50));
    // With komi 9 on 7x7 the game is close to even for perfect play; the value must be a probability.
    assert!((0.0..=1.0).contains(&report.root.winrate));

    // Banning D4: it never appears, and the priors left sum to one.
    let banned = Query::from_game(&empty_7x7())
        .with_visits(200)
        .avoiding(&[d4]);
    let report = engine
        .search(&banned, &CancelToken::default(), None)
        .unwrap();
    assert!(report.moves.iter().all(|m| m.mv != d4));
    assert_ne!(report.moves[0].mv, d4);
    let root_priors: f64 = {
        // The symmetric 7x7 prior spreads over D4's neighbours; the reported ones are renormalised.
        report.moves.iter().map(|m| m.prior).sum()
    };
    assert!(
        root_priors <= 1.0 + 1e-6 && root_priors > 0.5,
        "priors of the searched moves: {root_priors}"
    );
}

#[tokio::test]
async fn analyze_streams_reports_and_ends_with_a_final_one() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    use tengen::engine::Engine;
    let mut query = Query::from_game(&empty_7x7()).with_visits(300);
    query.report_every = Some(std::time::Duration::from_millis(20));
    let report = engine.analyze(query).final_report().await.unwrap();
    assert!(report.is_final);
    assert_eq!(report.root.visits, 300);
    assert!(engine.name().starts_with("mcts"));
}

#[tokio::test]
async fn a_cancelled_analysis_ends_with_a_final_report_of_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    use tengen::engine::Engine;
    let mut query = Query::from_game(&empty_7x7()).with_visits(1_000_000);
    query.report_every = Some(std::time::Duration::from_millis(50));
    let mut analysis = engine.analyze(query);
    let first = analysis.next().await.unwrap().unwrap();
    assert!(!first.is_final);
    analysis.cancel();
    let last = analysis.final_report().await.unwrap();
    assert!(last.is_final);
    assert!(last.root.visits >= first.root.visits && last.root.visits < 1_000_000);
    assert!(!last.moves.is_empty());
}
