//! `tengen book …` through the binary: create, grow with the rollout engine, show, mark, verify, export,
//! import KataGo's book, and the SIGKILL crash test on a few kills.

use std::path::Path;
use std::process::{Command, Output};

const TENGEN: &str = env!("CARGO_BIN_EXE_tengen");
const KATABOOK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/katabook/7x7-tt-k9-146.katabook"
);

fn run(args: &[&str]) -> Output {
    let out = Command::new(TENGEN)
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

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run(args).stdout).expect("JSON output")
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

#[test]
fn a_book_grows_and_is_browsed_marked_verified_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let book = path(dir.path(), "b.tengenbook");
    run(&[
        "book",
        "new",
        "--size",
        "5x5",
        "--rules",
        "tromp-taylor",
        "--komi",
        "0",
        "-o",
        &book,
    ]);
    let out = run(&[
        "book",
        "expand",
        &book,
        "--engine",
        "rollout",
        "--iterations",
        "4",
        "--parallel",
        "3",
        "--visits",
        "80",
        "--json",
    ]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() >= 4, "one line per expansion: {lines:?}");
    let root = json(&["book", "show", &book, "--json"]);
    assert_eq!(root["to_move"], "B");
    let moves = root["moves"].as_array().unwrap();
    assert!(moves.len() >= 2);
    for m in moves {
        for key in [
            "move",
            "black_winrate",
            "black_score",
            "visits",
            "prior",
            "cost",
        ] {
            assert!(!m[key].is_null(), "{key} in {m}");
        }
    }
    assert_eq!(root["hash"].as_str().unwrap().len(), 64);
    // The first expansion was the root's; its first move is in the book and can be followed.
    let first = moves.iter().find(|m| m["move"] != "other").unwrap()["move"]
        .as_str()
        .unwrap()
        .to_string();
    let child = json(&["book", "show", &book, "--line", &first, "--json"]);
    assert_eq!(child["to_move"], "W");
    assert!(child["visits"].as_f64().unwrap() > 0.0);

    run(&[
        "book", "mark", &book, "--line", &first, "--bonus", "1.5", "--visits", "5000",
    ]);
    let marked = json(&["book", "show", &book, "--line", &first, "--json"]);
    assert_eq!(marked["marks"], "B1.5 V5000");
    // The VISITS mark pushes the node: its path cost drops by 500 (plus the bonus).
    assert!(marked["path_cost"].as_f64().unwrap() < child["path_cost"].as_f64().unwrap() - 500.0);

    let verify = String::from_utf8_lossy(&run(&["book", "verify", &book]).stdout).to_string();
    assert!(verify.contains("0 bad histories"), "{verify}");

    let sgf = path(dir.path(), "b.sgf");
    run(&["book", "export", &book, "--sgf", &sgf]);
    let text = std::fs::read_to_string(&sgf).unwrap();
    assert!(
        text.starts_with("(;GM[1]FF[4]") && text.contains("SZ[5]") && text.contains("C[Black "),
        "{text}"
    );
    let games = tengen::go::sgf::parse_str(&text, Path::new(&sgf)).unwrap();
    assert_eq!(games.len(), 1);

    let html = dir.path().join("html");
    run(&["book", "export", &book, "--html", html.to_str().unwrap()]);
    let root_page = std::fs::read_to_string(html.join("root/root.html")).unwrap();
    assert!(root_page.contains("const moves = [") && root_page.contains("../book.js"));
    assert!(html.join("book.js").exists() && html.join("book.css").exists());
}

#[test]
fn sgf_lines_go_into_the_book_and_transpose() {
    let dir = tempfile::tempdir().unwrap();
    let book = path(dir.path(), "b.tengenbook");
    run(&["book", "new", "--size", "7x7", "--komi", "9", "-o", &book]);
    let sgf = path(dir.path(), "lines.sgf");
    // Two variations reaching one position in different orders, and a rotated copy of the first.
    std::fs::write(
        &sgf,
        "(;GM[1]FF[4]SZ[7]KM[9](;B[dd];W[cc];B[ee];W[ce])(;B[ee];W[ce];B[dd];W[cc])(;B[dd];W[ec];B[ce];W[cc]))",
    )
    .unwrap();
    let out = run(&["book", "import-sgf", &book, "--sgf", &sgf, "--visits", "50"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("new positions"));
    let a = json(&["book", "show", &book, "--line", "D4 C5 E3 C3", "--json"]);
    let b = json(&["book", "show", &book, "--line", "E3 C3 D4 C5", "--json"]);
    assert_eq!(a["hash"], b["hash"]);
    assert!(
        a["visits"].as_f64().unwrap() >= 50.0,
        "the new position was searched: {a}"
    );
    let verify = String::from_utf8_lossy(&run(&["book", "verify", &book]).stdout).to_string();
    assert!(verify.contains("0 bad histories"), "{verify}");
}

#[test]
fn katago_book_imports_and_shows_katagos_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let book = path(dir.path(), "k.tengenbook");
    let out = run(&["book", "import-katabook", KATABOOK, "-o", &book]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("146 nodes, 154 moves"));
    let root = json(&["book", "show", &book, "--json"]);
    // KataGo's root page: D4 54.3% / +0.42, visits 45,800 (adjusted 44,000); other 6.9% / -11.80.
    let d4 = &root["moves"][0];
    assert_eq!(d4["move"], "D4");
    assert_eq!(
        format!("{:.1}", d4["black_winrate"].as_f64().unwrap() * 100.0),
        "54.3"
    );
    assert_eq!(
        format!("{:.2}", d4["black_score"].as_f64().unwrap()),
        "0.42"
    );
    assert_eq!(d4["visits"].as_f64(), Some(45800.0));
    assert_eq!(
        d4["adjusted_visits"].as_f64().map(f64::round),
        Some(44000.0)
    );
    let last = root["moves"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["move"], "other");
    assert_eq!(
        format!("{:.2}", last["black_score"].as_f64().unwrap()),
        "-11.80"
    );
    // The imported book is a tengen book: every history rebuilds to tengen's own hash.
    let verify = String::from_utf8_lossy(&run(&["book", "verify", &book]).stdout).to_string();
    assert!(
        verify.contains("146 nodes") && verify.contains("0 bad histories"),
        "{verify}"
    );
    // A line through KataGo's orientation, followed from the user's.
    let e4 = json(&["book", "show", &book, "--line", "E4", "--json"]);
    let c4 = json(&["book", "show", &book, "--line", "C4", "--json"]);
    assert_eq!(
        e4["hash"], c4["hash"],
        "symmetric first moves reach one node"
    );
}

#[test]
fn errors_name_the_file_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let junk = path(dir.path(), "junk");
    std::fs::write(&junk, "not a book").unwrap();
    let out = Command::new(TENGEN)
        .args(["book", "show", &junk])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("junk") && err.contains("tengen book new"),
        "{err}"
    );
    let book = path(dir.path(), "b");
    run(&["book", "new", "--size", "5x5", "-o", &book]);
    let out = Command::new(TENGEN)
        .args(["book", "new", "--size", "5x5", "-o", &book])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    let out = Command::new(TENGEN)
        .args(["book", "show", &book, "--line", "C3"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("not in the book"));
}

#[test]
fn sigkill_during_expansion_loses_no_reported_expansion() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/book-crash-test");
    let out = Command::new("bash")
        .args([script, "3", TENGEN])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("3 kills"), "{text}");
}
