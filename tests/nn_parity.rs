//! Parity with KataGo: the shared b6c96 network, imported to ONNX by tengen and run through ONNX Runtime,
//! must reproduce KataGo's own raw evaluations (`kata-raw-nn`, symmetry 0, Eigen backend) of every
//! position in `../shared/data/katago-raw/g170-b6c96-raw-dev.json`.
//!
//! Needs ONNX Runtime: `.ci/test` sets `ORT_DYLIB_PATH`; elsewhere run `tengen setup` or set it yourself.

use serde_json::Value;
use std::path::{Path, PathBuf};
use tengen::go::{BoardSize, Color, Game, Komi, Move, Rules};
use tengen::nn::{BatchOptions, Evaluator, SessionOptions};

const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/models/g170-b6c96-s175395328-d26788732.bin.gz"
);
const RAW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/katago-raw/g170-b6c96-raw-dev.json"
);

/// The shared network imported to ONNX in a temporary folder (kept alive by the returned guard).
fn imported_model() -> (tempfile::TempDir, PathBuf) {
    if let Err(e) = tengen::nn::runtime::check() {
        panic!("this test needs ONNX Runtime: {e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let onnx = dir.path().join("b6c96.onnx");
    tengen::nn::import::import(Path::new(MODEL), &onnx).unwrap();
    (dir, onnx)
}

fn position(p: &Value) -> Game {
    let side = p["board_size"].as_u64().unwrap() as usize;
    let size = BoardSize::square(side).unwrap();
    let rules = Rules::parse(p["rules"].as_str().unwrap())
        .unwrap()
        .with_komi(Komi::from_f64(p["komi"].as_f64().unwrap()).unwrap());
    let mut game = Game::new(size, rules);
    for m in p["moves"].as_array().unwrap() {
        let color = Color::parse(m[0].as_str().unwrap()).unwrap();
        let mv = Move::parse_gtp(m[1].as_str().unwrap(), size).unwrap();
        game.play_as(color, mv).unwrap();
    }
    let next = Color::parse(p["next_player"].as_str().unwrap()).unwrap();
    if game.to_move() != next {
        game.set_to_move(next);
    }
    game
}

#[test]
fn imported_b6c96_matches_katago_raw_outputs() {
    let (_dir, onnx) = imported_model();
    let evaluator =
        Evaluator::open(&onnx, &SessionOptions::default(), BatchOptions::default()).unwrap();
    let data: Value = serde_json::from_str(&std::fs::read_to_string(RAW).unwrap()).unwrap();
    let positions = data["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 22);
    let mut failures = Vec::new();
    for (n, p) in positions.iter().enumerate() {
        let game = position(p);
        let ours = evaluator.evaluate(&game).unwrap();
        let raw = &p["raw"];
        let label = format!(
            "#{n} {}x{} {} {} moves",
            game.size().width(),
            game.size().height(),
            p["rules"],
            game.moves().len()
        );
        let mut worst = |what: &str, theirs: f64, ours: f64, tolerance: f64| {
            let delta = (theirs - ours).abs();
            if delta > tolerance || !delta.is_finite() {
                failures.push(format!(
                    "{label}: {what} KataGo {theirs} tengen {ours} (|Δ| {delta:.5})"
                ));
            }
        };
        worst(
            "whiteWin",
            raw["whiteWin"].as_f64().unwrap(),
            ours.white_win as f64,
            1e-3,
        );
        worst(
            "whiteLoss",
            raw["whiteLoss"].as_f64().unwrap(),
            ours.white_loss as f64,
            1e-3,
        );
        worst(
            "noResult",
            raw["noResult"].as_f64().unwrap(),
            ours.no_result as f64,
            1e-3,
        );
        worst(
            "whiteLead",
            raw["whiteLead"].as_f64().unwrap(),
            ours.white_lead as f64,
            0.05,
        );
        worst(
            "policyPass",
            raw["policyPass"].as_f64().unwrap(),
            ours.policy_pass as f64,
            1e-3,
        );
        let theirs_policy = raw["policy"].as_array().unwrap();
        assert_eq!(theirs_policy.len(), ours.policy.len(), "{label}");
        for (i, (t, o)) in theirs_policy.iter().zip(&ours.policy).enumerate() {
            match (t.as_f64(), o) {
                (Some(t), Some(o)) => worst(&format!("policy[{i}]"), t, *o as f64, 1e-3),
                (None, None) => {}
                (t, o) => worst(
                    &format!("policy[{i}] legality (KataGo {t:?}, tengen {o:?})"),
                    0.0,
                    f64::NAN,
                    0.0,
                ),
            }
        }
        let theirs_own = raw["whiteOwnership"].as_array().unwrap();
        for (i, (t, o)) in theirs_own.iter().zip(&ours.white_ownership).enumerate() {
            worst(
                &format!("ownership[{i}]"),
                t.as_f64().unwrap(),
                *o as f64,
                1e-3,
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_cuda_request_without_a_gpu_falls_back_to_the_cpu_and_says_why() {
    let (_dir, onnx) = imported_model();
    let options = SessionOptions {
        device: tengen::nn::Device::Cuda(0),
        ..SessionOptions::default()
    };
    let evaluator = Evaluator::open(&onnx, &options, BatchOptions::default()).unwrap();
    assert_eq!(evaluator.device(), tengen::nn::Device::Cpu);
    let reason = evaluator.fallback().expect("the fallback is reported");
    assert!(reason.contains("CUDA device 0 unavailable"), "{reason}");
    // And the CPU session it fell back to evaluates.
    let game = Game::new(BoardSize::square(9).unwrap(), Rules::tromp_taylor());
    let eval = evaluator.evaluate(&game).unwrap();
    assert!((eval.white_win + eval.white_loss + eval.no_result - 1.0).abs() < 1e-4);
}

#[test]
fn batched_requests_of_mixed_sizes_from_several_threads_get_their_own_answers() {
    let (_dir, onnx) = imported_model();
    let batch = BatchOptions {
        max_batch: 16,
        deadline: std::time::Duration::from_millis(5),
    };
    // One session: while it runs, the other threads' requests queue and the next gather waits for them up to
    // the deadline, so batches form even on a loaded machine (with a session per core an idle session takes
    // each request alone as soon as it comes, and whether any batch forms depends on the scheduler).
    let sessions = SessionOptions {
        sessions: 1,
        ..SessionOptions::default()
    };
    let evaluator = Evaluator::open(&onnx, &sessions, batch).unwrap();
    let data: Value = serde_json::from_str(&std::fs::read_to_string(RAW).unwrap()).unwrap();
    let games: Vec<Game> = data["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(position)
        .collect();
    // One at a time first: the reference answers.
    let alone: Vec<_> = games
        .iter()
        .map(|g| evaluator.evaluate(g).unwrap())
        .collect();
    let batches_before = evaluator
        .stats()
        .batches
        .load(std::sync::atomic::Ordering::Relaxed);
    // Then every position at once from four threads, 7x7 to 19x19 mixed, so that batches form and split by size.
    let together: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = games
            .chunks(6)
            .map(|chunk| {
                let evaluator = evaluator.clone();
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|g| evaluator.evaluate(g).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let batches = evaluator
        .stats()
        .batches
        .load(std::sync::atomic::Ordering::Relaxed)
        - batches_before;
    assert!(
        batches < games.len() as u64,
        "requests were batched: {batches} runs for {} positions",
        games.len()
    );
    for (i, (a, b)) in alone.iter().zip(&together).enumerate() {
        assert!((a.white_win - b.white_win).abs() < 1e-4, "position {i}");
        assert_eq!(a.policy.len(), b.policy.len(), "position {i}");
        for (x, y) in a.policy.iter().zip(&b.policy) {
            assert!(
                (x.unwrap_or(0.0) - y.unwrap_or(0.0)).abs() < 1e-4,
                "position {i}"
            );
        }
    }
}

/// KataGo's own check of masking and pooling: a 5x5 position evaluated inside a 6x6 buffer, White to move,
/// komi 7.5, no history. Reference (KataGo's Eigen backend at symmetry 0, printed to the digits below):
/// White wins 92.06 %, lead 8.38, policy D3 637 ‰ and B3 296 ‰.
#[test]
fn a_5x5_board_in_a_6x6_buffer_matches_katagos_tiny_board_test() {
    let (_dir, onnx) = imported_model();
    let evaluator =
        Evaluator::open(&onnx, &SessionOptions::default(), BatchOptions::default()).unwrap();
    let size = BoardSize::square(5).unwrap();
    let at = |t: &str| tengen::go::Point::parse_gtp(t, size).unwrap();
    // Rows 5..1: ".....", "...X.", "..O..", ".XXO.", "....."
    let setup = tengen::go::Setup {
        black: vec![at("D4"), at("B2"), at("C2")],
        white: vec![at("C3"), at("D2")],
        first_player: Some(Color::White),
    };
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(7.5).unwrap());
    let game = Game::with_setup(size, rules, setup);
    let buffer = BoardSize::square(6).unwrap();
    let features = tengen::nn::encode(&game).padded_to(buffer);
    let raw = evaluator
        .evaluate_features(vec![features])
        .unwrap()
        .remove(0);
    assert_eq!(raw.policy.len(), 36);
    let eval = tengen::nn::postprocess(&game, &raw.cropped(buffer, size));
    assert!(
        (eval.white_win - 0.9206).abs() < 0.0006,
        "whiteWin {}",
        eval.white_win
    );
    assert!(
        (eval.white_lead - 8.38).abs() < 0.006,
        "whiteLead {}",
        eval.white_lead
    );
    let p = |t: &str| eval.policy[size.row_major(at(t))].unwrap();
    assert!((p("D3") - 0.637).abs() < 0.0006, "D3 {}", p("D3"));
    assert!((p("B3") - 0.296).abs() < 0.0006, "B3 {}", p("B3"));
    assert!(eval.policy[size.row_major(at("C2"))].is_none());
}
