//! Books know which engine grew them: `book show` names the engine of each node's values and of each
//! move, `book expand` refuses to mix engines unless told to, and `book trim` takes one engine's work out
//! again. Real engines: the shipped network and rollout, few visits each.

use std::path::Path;
use std::process::{Command, Output};

const TENGEN: &str = env!("CARGO_BIN_EXE_tengen");

/// Runs tengen with its data directory (and the platform's, for converted networks) inside `home`.
fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(TENGEN)
        .env("TENGEN_DATA", home.join("data"))
        .env("XDG_DATA_HOME", home.join("xdg"))
        .current_dir(home)
        .args(args)
        .output()
        .expect("tengen runs")
}

fn tengen(home: &Path, args: &[&str]) -> Output {
    let out = run(home, args);
    assert!(
        out.status.success(),
        "tengen {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn root(home: &Path, book: &str) -> serde_json::Value {
    let out = tengen(home, &["book", "show", book, "--json"]);
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn engines(node: &serde_json::Value) -> Vec<String> {
    node["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .map(|e| e["engine"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn move_engines(node: &serde_json::Value) -> Vec<String> {
    node["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            let p = &m["provenance"];
            assert!(p["visits"].as_f64().is_some(), "{m}");
            p["engine"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

fn expand(home: &Path, book: &str, extra: &[&str]) -> Output {
    let mut args = vec!["book", "expand", book, "--parallel", "2"];
    args.extend_from_slice(extra);
    run(home, &args)
}

#[test]
fn trimming_rollout_from_a_network_book_gives_the_network_values_back() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let book = home.join("5x5.tengenbook").display().to_string();
    tengen(
        home,
        &["book", "new", "--size", "5x5", "--komi", "24", "-o", &book],
    );
    let grown = expand(home, &book, &["--iterations", "3", "--visits", "24"]);
    assert!(grown.status.success(), "{grown:?}");
    let network = root(home, &book);
    let by_network = network["provenance"]["engine"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(by_network.starts_with("onnx g170-b6c96"), "{network}");
    assert!(network["provenance"]["visits"].as_f64().unwrap() > 0.0);
    assert_eq!(engines(&network), std::slice::from_ref(&by_network));
    assert!(move_engines(&network).iter().all(|e| *e == by_network));
    let text = String::from_utf8_lossy(&tengen(home, &["book", "show", &book]).stdout).into_owned();
    assert!(text.contains(&format!("values by {by_network}")), "{text}");

    // Another engine is refused until the user says so.
    let refused = expand(home, &book, &["--engine", "rollout", "--iterations", "1"]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("--allow-mixed") && err.contains(&by_network),
        "{err}"
    );
    assert_eq!(
        root(home, &book),
        network,
        "a refused expansion changes nothing"
    );
    let mixed = expand(
        home,
        &book,
        &[
            "--engine",
            "rollout",
            "--allow-mixed",
            "--iterations",
            "3",
            "--visits",
            "60",
        ],
    );
    assert!(mixed.status.success(), "{mixed:?}");
    let after = root(home, &book);
    assert_eq!(engines(&after).len(), 2, "{after}");
    assert!(
        after != network,
        "rollout changed the root's moves or values: {after}"
    );

    let trimmed = tengen(home, &["book", "trim", &book, "--engine", "rollout"]);
    let said = String::from_utf8_lossy(&trimmed.stdout);
    assert!(said.contains("removed what `rollout` added"), "{said}");
    let back = root(home, &book);
    for key in ["black_winrate", "black_score", "visits"] {
        let (a, b) = (back[key].as_f64().unwrap(), network[key].as_f64().unwrap());
        assert!(
            (a - b).abs() < 1e-9,
            "{key}: {a} after the trim, {b} before rollout"
        );
    }
    assert_eq!(back["moves"], network["moves"]);
    assert_eq!(engines(&back), [by_network]);
    // Nothing of rollout's is left to trim.
    let again = run(home, &["book", "trim", &book, "--engine", "rollout"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("no part of"));
}
