//! The client against real KataGo transcripts, replayed by `tests/support/fake_katago.py`.

use super::process::version_at_least;
use super::*;
use crate::engine::Report;
use crate::go::{Game, Komi, Move, Rules};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/katago-analysis/"
);
const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/fake_katago.py");

/// An engine whose successive launches replay `transcripts` in turn.
fn fake(transcripts: &[&str], counter: &tempfile::TempDir) -> KataGoEngine {
    let mut command: Vec<String> = vec![
        "python3".into(),
        FAKE.into(),
        "--scale".into(),
        "0.05".into(),
    ];
    command.push("--counter".into());
    command.push(counter.path().join("launches").display().to_string());
    command.extend(transcripts.iter().map(|t| format!("{DATA}{t}.jsonl")));
    KataGoEngine::new(KataGoConfig::new(command, Perspective::Black))
}

/// The replies KataGo wrote in a transcript, as JSON.
fn recorded_replies(transcript: &str) -> Vec<Value> {
    std::fs::read_to_string(format!("{DATA}{transcript}.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["dir"] == "out")
        .map(|r| serde_json::from_str(r["line"].as_str().unwrap()).unwrap())
        .collect()
}

fn position(size: usize, rules: Rules, komi: f64, moves: &str) -> Query {
    let rules = rules.with_komi(Komi::from_f64(komi).unwrap());
    let size = BoardSize::square(size).unwrap();
    Query::from_game(&Game::from_gtp_moves(size, rules, moves).unwrap())
}

fn gtp(mv: Move, size: usize) -> String {
    mv.to_gtp(BoardSize::square(size).unwrap())
}

async fn collect(mut analysis: Analysis) -> Vec<Result<Report, EngineError>> {
    let mut out = Vec::new();
    while let Some(r) = analysis.next().await {
        out.push(r);
    }
    out
}

#[tokio::test]
async fn empty_7x7_with_ownership_and_policy() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(&["01-7x7-empty-ownership-policy"], &dir);
    let mut q = position(7, Rules::tromp_taylor(), 9.0, "").with_visits(300);
    q.include_ownership = true;
    q.include_policy = true;
    let report = engine.analyze(q).final_report().await.unwrap();
    let recorded = &recorded_replies("01-7x7-empty-ownership-policy")[0];
    assert_eq!(gtp(report.moves[0].mv, 7), "D4");
    assert_eq!(
        report.root.winrate,
        recorded["rootInfo"]["winrate"].as_f64().unwrap()
    );
    assert_eq!(
        report.root.visits,
        recorded["rootInfo"]["visits"].as_u64().unwrap()
    );
    assert_eq!(
        report.moves.len(),
        recorded["moveInfos"].as_array().unwrap().len()
    );
    assert_eq!(report.ownership.as_ref().unwrap().len(), 49);
    let policy = report.policy.unwrap();
    assert_eq!(policy.len(), 50);
    let sum: f32 = policy.iter().filter(|p| !p.is_nan()).sum();
    assert!((sum - 1.0).abs() < 1e-3);
    assert_eq!(engine.name(), "katago 1.17.2");
}

#[tokio::test]
async fn banned_root_moves_are_sent_as_avoid_moves() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(&["02-9x9-avoid-root"], &dir);
    let size = BoardSize::square(9).unwrap();
    let banned = Move::parse_list("D4 D6 F4 F6 E3 E7 C3 G7 G3 C7", size).unwrap();
    let mut q = position(9, Rules::tromp_taylor(), 7.0, "E5 C5")
        .with_visits(200)
        .avoiding(&banned);
    q.include_policy = true;
    let report = engine.analyze(q).final_report().await.unwrap();
    assert_eq!(gtp(report.moves[0].mv, 9), "D7");
    assert!(report.moves.iter().all(|m| !banned.contains(&m.mv)));
}

#[tokio::test]
async fn reports_during_the_search_stream_before_the_final_one() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(&["03-9x9-during-search-reports"], &dir);
    let mut q = position(9, Rules::japanese(), 6.0, "E5").with_visits(400);
    q.report_every = Some(Duration::from_millis(500));
    let reports = collect(engine.analyze(q)).await;
    let reports: Vec<Report> = reports.into_iter().map(Result::unwrap).collect();
    let (last, during) = reports.split_last().unwrap();
    assert!(last.is_final);
    assert!(
        during.len() >= 5,
        "only {} reports during the search",
        during.len()
    );
    assert!(during.iter().all(|r| !r.is_final));
    let visits: Vec<u64> = during.iter().map(|r| r.root.visits).collect();
    assert!(visits.windows(2).all(|w| w[0] <= w[1]), "{visits:?}");
    let recorded = recorded_replies("03-9x9-during-search-reports");
    assert_eq!(
        last.root.visits,
        recorded.last().unwrap()["rootInfo"]["visits"]
            .as_u64()
            .unwrap()
    );
}

#[tokio::test]
async fn version_and_error_replies() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(&["04-errors-and-version"], &dir);
    assert_eq!(engine.start().await.unwrap(), "1.17.2");
    let size9 = BoardSize::square(9).unwrap();
    // Queries tengen's types cannot even express go in as KataGo JSON.
    let bad_point = json!({"moves": [["B", "Z9"]], "rules": "tromp-taylor", "komi": 7, "boardXSize": 9, "boardYSize": 9});
    let bad_komi = json!({"moves": [], "rules": "tromp-taylor", "komi": 7.3, "boardXSize": 9, "boardYSize": 9});
    let a1 = engine.analyze_json(bad_point, size9, Color::Black, 1);
    let a2 = engine.analyze_json(bad_komi, size9, Color::Black, 0);
    // An illegal move is KataGo's to refuse: the client does not second-guess the engine's rules.
    let mut illegal = position(9, Rules::tromp_taylor(), 7.0, "");
    illegal.moves = vec![
        (Color::Black, Move::parse_gtp("E5", size9).unwrap()),
        (Color::White, Move::parse_gtp("E5", size9).unwrap()),
    ];
    let a3 = engine.analyze(illegal);
    let rect_size = BoardSize::new(6, 5).unwrap();
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(4.0).unwrap());
    let rect =
        Query::from_game(&Game::from_gtp_moves(rect_size, rules, "C3").unwrap()).with_visits(100);
    let a4 = engine.analyze(rect);
    for (analysis, words) in [
        (a1, "Could not parse board location: Z9"),
        (a2, "half-integer"),
        (a3, "Illegal move 1: E5"),
    ] {
        match analysis.final_report().await {
            Err(EngineError::Refused { message, .. }) => {
                assert!(message.contains(words), "{message}")
            }
            other => panic!("expected a refusal with `{words}`, got {other:?}"),
        }
    }
    let report = a4.final_report().await.unwrap();
    assert_eq!(report.moves[0].mv.to_gtp(rect_size), "D3");
}

#[tokio::test]
async fn cancel_sends_terminate_and_the_partial_result_still_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(&["05-terminate-mid-search"], &dir);
    let mut q = position(9, Rules::tromp_taylor(), 7.0, "").with_visits(100_000);
    q.report_every = Some(Duration::from_millis(300));
    let analysis = engine.analyze(q);
    tokio::time::sleep(Duration::from_millis(300)).await;
    analysis.cancel();
    let reports: Vec<Report> = collect(analysis)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let last = reports.last().unwrap();
    assert!(last.is_final);
    let recorded = recorded_replies("05-terminate-mid-search");
    assert_eq!(
        last.root.visits,
        recorded.last().unwrap()["rootInfo"]["visits"]
            .as_u64()
            .unwrap()
    );
    assert_eq!(reports.len(), 7);
}

#[tokio::test]
async fn several_turns_and_queries_in_flight_are_matched_by_id_and_turn() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(&["06-multi-turn-and-priority"], &dir);
    let mt = position(7, Rules::tromp_taylor(), 9.0, "D4 D5 E4").with_visits(100);
    let turns = engine.analyze_with(
        mt,
        KataGoOptions {
            turns: Some(vec![0, 1, 2, 3]),
            priority: None,
        },
    );
    let hi = position(7, Rules::tromp_taylor(), 9.0, "D4").with_visits(100);
    let hi = engine
        .analyze_with(
            hi,
            KataGoOptions {
                turns: None,
                priority: Some(10),
            },
        )
        .remove(0);
    let recorded = recorded_replies("06-multi-turn-and-priority");
    let best = |id: &str, turn: u64| {
        recorded
            .iter()
            .find(|r| r["id"] == id && r["turnNumber"] == turn)
            .unwrap()["moveInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["order"] == 0)
            .unwrap()["move"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        gtp(hi.final_report().await.unwrap().moves[0].mv, 7),
        best("hi", 1)
    );
    for (turn, analysis) in turns.into_iter().enumerate() {
        let report = analysis.final_report().await.unwrap();
        assert_eq!(
            gtp(report.moves[0].mv, 7),
            best("mt", turn as u64),
            "turn {turn}"
        );
    }
}

#[tokio::test]
async fn a_killed_engine_fails_its_query_and_is_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(
        &[
            "07-engine-killed-mid-search",
            "01-7x7-empty-ownership-policy",
        ],
        &dir,
    );
    let mut q = position(9, Rules::tromp_taylor(), 7.0, "").with_visits(100_000);
    q.report_every = Some(Duration::from_millis(400));
    let results = collect(engine.analyze(q)).await;
    let (last, during) = results.split_last().unwrap();
    assert_eq!(during.len(), 3);
    assert!(during.iter().all(|r| r.as_ref().is_ok_and(|r| !r.is_final)));
    match last {
        Err(EngineError::Died { detail, .. }) => assert!(
            detail.contains("signal 9") || detail.contains("SIGKILL"),
            "{detail}"
        ),
        other => panic!("expected the engine's death, got {other:?}"),
    }
    // The next query starts a fresh process (which replays transcript 01).
    let mut q = position(7, Rules::tromp_taylor(), 9.0, "").with_visits(300);
    q.include_ownership = true;
    q.include_policy = true;
    let report = engine.analyze(q).final_report().await.unwrap();
    assert_eq!(gtp(report.moves[0].mv, 7), "D4");
    assert_eq!(engine.starts(), 2);
}

#[tokio::test]
async fn start_up_failures_show_the_engines_stderr() {
    let failing = vec![
        "python3".to_string(),
        "-c".to_string(),
        "import sys; sys.stderr.write('Error: could not find model file m.bin.gz\\n'); sys.exit(1)"
            .to_string(),
    ];
    let engine = KataGoEngine::new(KataGoConfig::new(failing, Perspective::Black));
    match engine.start().await {
        Err(EngineError::Unavailable { detail, .. }) => {
            assert!(detail.contains("could not find model file"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    let missing = KataGoEngine::new(KataGoConfig::standard(
        "/nonexistent/katago",
        "a.cfg",
        "m.bin.gz",
    ));
    match missing
        .analyze(position(7, Rules::tromp_taylor(), 9.0, ""))
        .final_report()
        .await
    {
        Err(EngineError::Unavailable { detail, .. }) => {
            assert!(detail.contains("/nonexistent/katago"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn versions_compare_numerically() {
    assert!(version_at_least("1.17.2", MIN_VERSION));
    assert!(version_at_least("1.10.0", MIN_VERSION));
    assert!(!version_at_least("1.8.2", MIN_VERSION));
    assert!(!version_at_least("", MIN_VERSION));
}

#[tokio::test]
async fn dropping_the_engine_lets_katago_exit() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake(&["01-7x7-empty-ownership-policy"], &dir);
    engine.start().await.unwrap();
    let pid = engine.pid().await.unwrap();
    drop(engine);
    let proc_dir = format!("/proc/{pid}");
    for _ in 0..100 {
        if !std::path::Path::new(&proc_dir).exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("KataGo (pid {pid}) still runs 5 s after its engine was dropped");
}
