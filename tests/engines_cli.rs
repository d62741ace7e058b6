//! `tengen analyze`, `tengen match` and `tengen bench rollout` driven as a user would.

use serde_json::Value;
use std::process::{Command, Output};

fn tengen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("tengen runs")
}

fn analyze_json(args: &[&str]) -> Value {
    let mut all = vec!["analyze", "--json"];
    all.extend_from_slice(args);
    let out = tengen(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn moves(report: &Value) -> Vec<(String, u64)> {
    report["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["visits"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn five_by_five_at_komi_24_is_the_centre_and_a_ban_is_honoured() {
    let base = [
        "--size",
        "5x5",
        "--rules",
        "tromp-taylor",
        "--komi",
        "24",
        "--threads",
        "2",
        "--engine",
        "rollout",
    ];
    let mut args = base.to_vec();
    args.extend(["--visits", "20000"]);
    let report = analyze_json(&args);
    let found = moves(&report);
    assert_eq!(found[0].0, "C3", "{found:?}");
    for key in ["winrate", "score_lead", "prior"] {
        assert!(report["moves"][0][key].is_number(), "{key}");
    }
    assert_eq!(report["root"]["visits"], 20000);

    let mut banned = base.to_vec();
    banned.extend(["--visits", "4000", "--avoid", "C3"]);
    let report = analyze_json(&banned);
    let found = moves(&report);
    assert!(found.iter().all(|(m, _)| m != "C3"));
    assert_eq!(
        found.iter().map(|(_, v)| v).sum::<u64>(),
        report["root"]["visits"].as_u64().unwrap()
    );
    // Best first.
    assert!(found.windows(2).all(|w| w[0].1 >= w[1].1));
}

#[test]
fn three_by_three_is_the_centre() {
    let report = analyze_json(&["--size", "3x3", "--visits", "2000", "--threads", "1"]);
    assert_eq!(moves(&report)[0].0, "B2");
    assert_eq!(report["to_move"], "B");
}

#[test]
fn gnu_go_answers_through_the_gtp_engine() {
    let report = analyze_json(&[
        "--size",
        "7x7",
        "--komi",
        "9",
        "--moves",
        "D4 D5",
        "--engine",
        "gtp:gnugo --level 1",
    ]);
    let found = moves(&report);
    assert_eq!(found.len(), 1);
    assert!(!["D4", "D5"].contains(&found[0].0.as_str()));
}

#[test]
fn missing_networks_unknown_engines_and_bad_moves_are_explained() {
    let out = tengen(&[
        "analyze",
        "--size",
        "7x7",
        "--engine",
        "onnx:no-such-net.onnx",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-net.onnx") && err.lines().count() == 1,
        "{err}"
    );
    let out = tengen(&["analyze", "--engine", "deepthought"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown engine"));
    let out = tengen(&["analyze", "--size", "7x7", "--moves", "D4 D4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("D4"));
}

#[test]
fn a_short_match_against_gnu_go_is_reported() {
    let out = tengen(&[
        "match",
        "--size",
        "5x5",
        "--komi",
        "0.5",
        "--games",
        "2",
        "--visits",
        "300",
        "--threads",
        "1",
        "--engine",
        "rollout",
        "--opponent",
        "gnugo --level 1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("game  1: tengen Black"), "{text}");
    assert!(text.contains("game  2: tengen White"), "{text}");
    // The score line: draws count half, and each colour's wins-draws-losses.
    assert!(text.contains("tengen scored"), "{text}");
    assert!(
        text.contains("as Black") && text.contains("as White"),
        "{text}"
    );
}

#[test]
fn bench_rollout_prints_its_rate() {
    let out = tengen(&[
        "bench",
        "rollout",
        "--size",
        "7x7",
        "--seconds",
        "0.2",
        "--threads",
        "1",
    ]);
    assert!(out.status.success());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["playouts"].as_u64().unwrap() > 0);
    assert!(json["playouts_per_sec"].as_f64().unwrap() > 0.0);
}
