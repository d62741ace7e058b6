//! Books from game records, on the real 9x9 collection and through the CLI.

use std::path::PathBuf;
use tengen::go::{BoardSize, Color, Move, Symmetry};
use tengen::records::mcst;
use tengen::records::tree::{Outcome, ROOT, RecordTree};
use tengen::records::{collect, collect::sgf_files};

fn games_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/games/9x9"
    ))
}

#[test]
fn counts_are_consistent_on_the_real_collection() {
    let files = sgf_files(&[games_dir()])
        .expect("the shared records are readable")
        .files;
    let c = collect(&files, BoardSize::square(9).expect("9x9"), 16);
    assert_eq!(c.files, 415);
    assert!(c.skipped.iter().all(|s| !s.reason.is_empty()));
    let tree = &c.tree;
    assert_eq!(
        tree.node(ROOT).games as usize,
        c.games,
        "games through the root equal the games read"
    );
    for id in 0..tree.len() {
        let through: u32 = tree
            .node(id)
            .children
            .iter()
            .map(|&k| tree.node(k).games)
            .sum();
        assert_eq!(
            tree.node(id).games,
            through + tree.ended_here(id),
            "node {id}"
        );
    }
    // MCST keeps moves, games and wins (not which games had a result): the text must round-trip.
    let text = mcst::write(tree);
    let back = mcst::read(&text, tree.size).expect("reads back");
    assert_eq!(back.len(), tree.len());
    assert_eq!(mcst::write(&back), text);
}

#[test]
fn a_game_and_its_seven_images_merge_into_one_line() {
    let size = BoardSize::square(9).expect("9x9");
    let text = "C3 E5 G4 D7 F6 C6 pass E3";
    let moves: Vec<(Color, Move)> = Move::parse_list(text, size)
        .expect("moves")
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            (
                if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
                m,
            )
        })
        .collect();
    let mut tree = RecordTree::new(size);
    for s in Symmetry::ALL {
        let image: Vec<(Color, Move)> = moves
            .iter()
            .map(|&(c, m)| (c, s.apply_move(size, m)))
            .collect();
        let (_, oriented) = tengen::records::orient::orient(size, &image);
        tree.add_game(&oriented, Some(Outcome::BlackWin), 16);
    }
    assert_eq!(tree.len(), moves.len() + 1, "one line");
    assert!((0..tree.len()).all(|id| tree.node(id).games == 8));
}

#[test]
fn the_cli_builds_an_mcst_book_and_reports_skips() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = dir.path().join("book.mcst");
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "records",
            "build",
            games_dir().to_str().unwrap_or_default(),
            "-o",
            out.to_str().unwrap_or_default(),
        ])
        .args(["--min-games", "20", "--json"])
        .output()
        .expect("runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let stats: serde_json::Value = serde_json::from_slice(&result.stdout).expect("JSON statistics");
    assert_eq!(stats["files"], 415);
    let read = stats["games_read"].as_u64().unwrap_or_default();
    let skipped = stats["skipped"].as_array().map_or(0, Vec::len) as u64;
    assert_eq!(
        read + skipped,
        415,
        "every file is merged or skipped with a reason"
    );
    assert!(stats["nodes_book"].as_u64() < stats["nodes_merged"].as_u64());
    let book = mcst::read(
        &std::fs::read_to_string(&out).expect("written"),
        BoardSize::square(9).expect("9x9"),
    )
    .expect("a valid MCST file");
    assert_eq!(book.node(ROOT).games as u64, read);
    assert!((1..book.len()).all(|id| book.node(id).games >= 20));
}

#[test]
fn minimax_over_a_position_database() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("db.jsonl");
    std::fs::write(
        &db,
        r#"# Black's rates by komi on 5x5
{"size":"5x5","moves":"","winrates":{"23.5":0.9,"24.5":0.6,"25.5":0.3}}
{"size":"5x5","moves":"C3","winrates":{"23.5":0.9,"24.5":0.7,"25.5":0.2}}
{"size":"5x5","moves":"B2","winrates":{"21.5":0.2,"22.5":0.1},"found_by":"alice"}
{"size":"5x5","moves":"C3 C2","winrates":{"24.5":0.8,"25.5":0.45}}
{"size":"5x5","moves":"C3 D2","winrates":{"22.5":0.8,"23.5":0.45},"found_by":"bob"}
"#,
    )
    .expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "records",
            "minimax",
            db.to_str().unwrap_or_default(),
            "--json",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // C2 and D2 are different answers to C3 (a side and a diagonal point): White picks D2 (score 23), so C3
    // is worth 23, B2 at most 21, and Black's best from the empty board is 23 by C3.
    assert_eq!(v["positions"], 5);
    assert_eq!(v["value"], 23.0);
    let best = v["best_line"].as_str().unwrap_or_default().to_string();
    let answer = best.strip_prefix("C3 ").unwrap_or_default();
    assert!(
        ["B2", "B4", "D2", "D4"].contains(&answer),
        "the diagonal answer, in any orientation: {best}"
    );
    // At komi 24 the analysis says Black wins C3 (score 25), but bob's D2 answer (23) reverses that:
    // a refutation, credited to whoever found it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["records", "minimax", db.to_str().unwrap_or_default()])
        .args(["--komi", "24", "--json"])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let refutations = v["refutations"].as_array().cloned().unwrap_or_default();
    assert!(
        refutations
            .iter()
            .any(|r| r["line"] == "C3 D2" && r["found_by"] == "bob"),
        "{refutations:?}"
    );
    assert!(
        refutations.iter().all(|r| r["line"] != "B2"),
        "B2 is not the root's best follow-up: {refutations:?}"
    );
    assert_eq!(v["queues"]["mid"]["count"], 4);
    assert_eq!(
        v["queues"]["mid"]["first"][0]["confidence"], 30.0,
        "the least certain position comes first"
    );
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"size\":\"5x5\",\"moves\":\"C3 C3\",\"winrates\":{\"0.5\":0.5}}\n",
    )
    .expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["records", "minimax", bad.to_str().unwrap_or_default()])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.jsonl:1:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_urgency_queues_feed_the_job_queue_least_certain_first() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let book = dir.path().join("5x5.book");
    let b = book.to_str().unwrap_or_default();
    let tengen = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(args)
            .output()
            .expect("runs")
    };
    assert!(
        tengen(&["book", "new", "--size", "5x5", "--komi", "24", "-o", b])
            .status
            .success()
    );
    let grown = tengen(&[
        "book",
        "expand",
        b,
        "--engine",
        "rollout",
        "--iterations",
        "2",
        "--visits",
        "100",
    ]);
    assert!(
        grown.status.success(),
        "{}",
        String::from_utf8_lossy(&grown.stderr)
    );
    let shown: serde_json::Value =
        serde_json::from_slice(&tengen(&["book", "show", b, "--json"]).stdout).expect("JSON");
    let first = shown["moves"][0]["move"]
        .as_str()
        .expect("a book move")
        .to_string();
    let log_before = std::fs::metadata(format!("{b}.log")).map_or(0, |m| m.len());
    // The book move is analysed with confidence (low urgency), the root barely (high urgency); A1 A2 is
    // not in the book.
    let db = dir.path().join("db.jsonl");
    std::fs::write(
        &db,
        format!(
            "{{\"size\":\"5x5\",\"rules\":\"tromp-taylor\",\"moves\":\"{first}\",\"winrates\":{{\"23.5\":0.95,\"24.5\":0.1}}}}\n\
             {{\"size\":\"5x5\",\"rules\":\"tromp-taylor\",\"moves\":\"\",\"winrates\":{{\"23.5\":0.55,\"24.5\":0.45}}}}\n\
             {{\"size\":\"5x5\",\"rules\":\"tromp-taylor\",\"moves\":\"A1 A2\",\"winrates\":{{\"23.5\":0.6,\"24.5\":0.4}}}}\n"
        ),
    )
    .expect("write");
    let out = tengen(&[
        "records",
        "minimax",
        db.to_str().unwrap_or_default(),
        "--analyze",
        b,
        "--engine",
        "rollout",
        "--visits",
        "50",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let root = err.find("analysing [] (priority 2)").expect(&err);
    let book_move = err
        .find(&format!("analysing [{first}] (priority 0)"))
        .expect(&err);
    assert!(
        root < book_move,
        "the least certain position goes first: {err}"
    );
    assert!(
        err.contains("not in the book, not analysed: A1 A2"),
        "{err}"
    );
    assert!(err.contains("analysed 2 queued positions"), "{err}");
    let log_after = std::fs::metadata(format!("{b}.log")).map_or(0, |m| m.len());
    assert!(
        log_after > log_before,
        "the analysis was written to the book"
    );
}
