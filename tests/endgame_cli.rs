//! `tengen endgame` through the binary, on the real development problems.

use std::process::Command;

const DEV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/endgame-dev");

fn tengen(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn solve_prints_exact_fractions_as_json() {
    let file = format!("{DEV}/06-value-of-ko/05.sgf");
    let (ok, out, err) = tengen(&["endgame", "solve", &file, "--method", "exact", "--json"]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["value"], "10/3");
    assert_eq!(json["temperature"], "5/3");
    assert_eq!(json["expected"], "10/3");
    assert_eq!(json["mean"], "7/3");
    assert!(!json["best_black"].as_array().unwrap().is_empty());
    assert!(!json["best_white"].as_array().unwrap().is_empty());
    assert!(json["kind"].is_string());
}

#[test]
fn solve_prints_value_lines_and_tree_as_text() {
    let file = format!("{DEV}/01-value-of-move/01.sgf");
    let (ok, out, err) = tengen(&["endgame", "solve", &file]);
    assert!(ok, "{err}");
    assert!(out.contains("temperature: 1 1/2"), "{out}");
    assert!(
        out.contains("move value (2 x temperature): 3  (matches the answer 3)"),
        "{out}"
    );
    assert!(out.contains("kind: gote"), "{out}");
    assert!(out.contains("best for Black: D19"), "{out}");
    assert!(out.contains("  BD19 -> 3"), "{out}");
}

#[test]
fn a_too_large_region_is_refused_with_size_and_limit() {
    let file = format!("{DEV}/03-addition-method/09.sgf");
    let (ok, _, err) = tengen(&["endgame", "solve", &file]);
    assert!(!ok);
    assert!(
        err.contains("15 empty points") && err.contains("at most 14"),
        "{err}"
    );
}

#[test]
fn bench_ends_with_the_pass_fail_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, source) in [
        ("a.sgf", "01-value-of-move/01.sgf"),
        ("b.sgf", "06-value-of-ko/05.sgf"),
        ("c.sgf", "03-addition-method/09.sgf"),
    ] {
        std::fs::copy(format!("{DEV}/{source}"), dir.path().join(name)).unwrap();
    }
    let (ok, out, err) = tengen(&[
        "endgame",
        "bench",
        dir.path().to_str().unwrap(),
        "--method",
        "exact",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(*lines.last().unwrap(), "2 passed, 1 failed", "{out}");
    assert!(out.contains("refused"), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("a.sgf") && l.contains("yes")),
        "{out}"
    );
}

#[test]
fn the_given_lines_method_scores_a_files_variations() {
    let file = format!("{DEV}/07-subtraction-method/05.sgf");
    let (ok, out, err) = tengen(&["endgame", "solve", &file, "--method", "lines", "--json"]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["value"], "10");
}

/// One problem for each cause of a given-lines miss that the scoring now handles: a dead shape at a
/// line's end (read, not judged by Benson), an open boundary split where the walls meet, a ko retake the
/// lines give and one they leave out (both valued by the ko rule), and a line stepping outside `SQ`.
#[test]
fn the_given_lines_reproduce_the_answers_by_category() {
    let dir = tempfile::tempdir().unwrap();
    for (name, source) in [
        ("dead-shape.sgf", "01-value-of-move/05.sgf"),
        ("open-boundary.sgf", "02-expected-local-result/01.sgf"),
        ("ko-retake-given.sgf", "06-value-of-ko/01.sgf"),
        ("ko-retake-by-rule.sgf", "06-value-of-ko/05.sgf"),
        ("outside-sq.sgf", "04-value-of-reverse-sente/03.sgf"),
    ] {
        std::fs::copy(format!("{DEV}/{source}"), dir.path().join(name)).unwrap();
    }
    let (ok, out, err) = tengen(&[
        "endgame",
        "bench",
        dir.path().to_str().unwrap(),
        "--method",
        "lines",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().last(), Some("5 passed, 0 failed"), "{out}");
}
