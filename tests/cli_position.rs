//! `tengen position` through the real binary.

use std::process::Command;

fn tengen(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (ok, out, err) = tengen(args);
    assert!(ok, "tengen {args:?} failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

#[test]
fn json_has_the_documented_keys() {
    let v = json(&[
        "position",
        "--size",
        "9x9",
        "--rules",
        "tromp-taylor",
        "--komi",
        "7",
        "--moves",
        "E5 C5 D4",
        "--json",
    ]);
    assert_eq!(v["to_move"], "W");
    assert_eq!(v["legal_moves"], 81 - 3 + 1);
    assert_eq!(v["canonical_hash"].as_str().map(str::len), Some(64));
    assert!(v["to_canonical"].is_string());
    assert!(v["self_symmetries"].is_array());
    assert!(v["score"].is_null(), "no score before the game ends");
}

#[test]
fn rotated_openings_share_the_canonical_hash() {
    let a = json(&["position", "--size", "9", "--moves", "C3 G7", "--json"]);
    let b = json(&["position", "--size", "9", "--moves", "G3 C7", "--json"]);
    assert_eq!(a["canonical_hash"], b["canonical_hash"]);
    let c = json(&["position", "--size", "9", "--moves", "C3 G3", "--json"]);
    assert_ne!(a["canonical_hash"], c["canonical_hash"]);
}

#[test]
fn finished_game_prints_the_score() {
    let v = json(&[
        "position",
        "--size",
        "5",
        "--komi",
        "0.5",
        "--moves",
        "C3 pass pass",
        "--json",
    ]);
    assert_eq!(v["score"], 24.5);
    let (ok, out, _) = tengen(&[
        "position",
        "--size",
        "5",
        "--komi",
        "0.5",
        "--moves",
        "C3 pass pass",
    ]);
    assert!(ok && out.contains("B+24.5"), "{out}");
}

#[test]
fn sgf_input_and_errors_name_the_place() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let good = dir.path().join("g.sgf");
    std::fs::write(
        &good,
        "(;GM[1]SZ[7]KM[9]RU[tromp-taylor];B[dd];W[cc];B[ee])",
    )
    .expect("write");
    let v = json(&[
        "position",
        "--sgf",
        good.to_str().unwrap_or_default(),
        "--move",
        "2",
        "--json",
    ]);
    assert_eq!(v["moves_played"], 2);
    assert_eq!(v["komi"], 9.0);
    let bad = dir.path().join("bad.sgf");
    std::fs::write(&bad, "(;GM[1]SZ[7]\n;B[dd];W[cc").expect("write");
    let (ok, _, err) = tengen(&["position", "--sgf", bad.to_str().unwrap_or_default()]);
    assert!(!ok);
    assert!(err.contains("bad.sgf:2:"), "{err}");
    let (ok, _, err) = tengen(&["position", "--size", "9", "--moves", "E5 E5"]);
    assert!(!ok && err.contains("move 2 (E5) is illegal"), "{err}");
}
