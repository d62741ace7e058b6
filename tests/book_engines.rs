//! `tengen book expand` grows books with every kind of engine, each a real one: the shipped network (the
//! default) and a KataGo network file through ONNX Runtime, KataGo's own analysis engine, GNU Go over GTP,
//! and a pool. Few nodes and few visits each, so that the suite stays fast.

use std::path::Path;
use std::process::{Command, Output};

const TENGEN: &str = env!("CARGO_BIN_EXE_tengen");
const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/models/g170-b6c96-s175395328-d26788732.bin.gz"
);
const KATAGO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/peers/katago/katago");
const KATAGO_CONFIG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/peers/katago/analysis.cfg"
);

/// Runs tengen with its data directory (and the platform's, for converted networks) inside `home`.
fn tengen(home: &Path, args: &[&str]) -> Output {
    let out = Command::new(TENGEN)
        .env("TENGEN_DATA", home.join("data"))
        .env("XDG_DATA_HOME", home.join("xdg"))
        .current_dir(home)
        .args(args)
        .output()
        .expect("tengen runs");
    assert!(
        out.status.success(),
        "tengen {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn show(home: &Path, book: &str, line: &str) -> serde_json::Value {
    let out = tengen(home, &["book", "show", book, "--line", line, "--json"]);
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// A new book of `size` and komi grown by `engine` for `iterations` iterations at `visits`; returns the
/// book's path and the expansion's stderr.
fn grow(
    home: &Path,
    size: &str,
    komi: &str,
    engine: &str,
    iterations: &str,
    visits: &str,
) -> (String, String) {
    let tag = engine
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(131).wrapping_add(u64::from(b)));
    let book = home
        .join(format!("{size}-{tag:x}.tengenbook"))
        .display()
        .to_string();
    tengen(
        home,
        &["book", "new", "--size", size, "--komi", komi, "-o", &book],
    );
    let mut args = vec![
        "book",
        "expand",
        &book,
        "--iterations",
        iterations,
        "--parallel",
        "2",
    ];
    args.extend(["--visits", visits]);
    if !engine.is_empty() {
        args.extend(["--engine", engine]);
    }
    let out = tengen(home, &args);
    (book, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn moves(node: &serde_json::Value) -> Vec<String> {
    node["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["move"].as_str().unwrap_or_default().to_string())
        .filter(|m| m != "other")
        .collect()
}

/// Black's win rate and score of a node are numbers within their ranges.
fn assert_sane(node: &serde_json::Value) {
    let winrate = node["black_winrate"].as_f64().expect("a winrate");
    let score = node["black_score"].as_f64().expect("a score");
    assert!((0.0..=1.0).contains(&winrate), "{node}");
    assert!(score.abs() < 49.0, "{node}");
}

#[test]
fn the_shipped_network_grows_a_7x7_book_by_default_and_a_named_network_file_does_too() {
    let home = tempfile::tempdir().unwrap();
    let (book, err) = grow(home.path(), "7x7", "9", "", "3", "24");
    assert!(
        !err.contains("warning"),
        "the default needs no warning: {err}"
    );
    let root = show(home.path(), &book, "");
    assert_sane(&root);
    // The network's first choice on the empty 7x7 board is the centre, as in KataGo's own book.
    assert_eq!(moves(&root)[0], "D4", "{root}");
    let winrate = root["black_winrate"].as_f64().unwrap();
    assert!((0.35..0.75).contains(&winrate), "{root}");
    let named = format!("onnx:{MODEL}");
    let (book, _) = grow(home.path(), "7x7", "9", &named, "2", "24");
    let root = show(home.path(), &book, "");
    assert_sane(&root);
    assert_eq!(moves(&root)[0], "D4", "{root}");
}

#[test]
fn katago_s_analysis_engine_grows_a_book() {
    let home = tempfile::tempdir().unwrap();
    let logs = home.path().join("katago-logs");
    let engine = format!(
        "katago:{KATAGO} analysis -config {KATAGO_CONFIG} -model {MODEL} -override-config \
         reportAnalysisWinratesAs=BLACK,logDir={},numAnalysisThreads=2,numSearchThreadsPerAnalysisThread=1,nnCacheSizePowerOfTwo=16",
        logs.display()
    );
    let (book, _) = grow(home.path(), "7x7", "9", &engine, "2", "16");
    let root = show(home.path(), &book, "");
    assert_sane(&root);
    assert_eq!(moves(&root)[0], "D4", "{root}");
    let d4 = show(home.path(), &book, "D4");
    assert!(
        d4["visits"].as_f64().unwrap() >= 8.0,
        "D4 was searched: {d4}"
    );
}

#[test]
fn gnu_go_grows_a_book_valued_by_its_own_score_estimate() {
    let home = tempfile::tempdir().unwrap();
    let (book, _) = grow(home.path(), "7x7", "9", "gtp:gnugo --level 1", "2", "10");
    let root = show(home.path(), &book, "");
    assert_sane(&root);
    let first = moves(&root);
    assert!(!first.is_empty(), "{root}");
    // A leaf holds GNU Go's count after its own reply, and the winrate is the documented map of it.
    let leaf = show(home.path(), &book, &first[0]);
    let (winrate, score) = (
        leaf["black_winrate"].as_f64().unwrap(),
        leaf["black_score"].as_f64().unwrap(),
    );
    let scale = 0.75 * 49f64.sqrt();
    let expected = 0.5 + (score / scale).atan() / std::f64::consts::PI;
    assert!(
        (winrate - expected).abs() < 1e-6,
        "winrate {winrate} from score {score:+}: {leaf}"
    );
}

#[test]
fn a_pool_of_two_engines_grows_a_book() {
    let home = tempfile::tempdir().unwrap();
    let (book, err) = grow(home.path(), "5x5", "24", "pool:2:rollout", "3", "60");
    assert!(
        !err.contains("warning"),
        "rollout on 5x5 needs no caution: {err}"
    );
    let root = show(home.path(), &book, "");
    assert_sane(&root);
    assert!(moves(&root).len() >= 2, "{root}");
    // Rollout on a larger board is allowed, with a caution on stderr.
    let (_, err) = grow(home.path(), "7x7", "9", "pool:2:rollout", "1", "20");
    assert!(
        err.contains("warning: rollout is unreliable on 7x7"),
        "{err}"
    );
}
