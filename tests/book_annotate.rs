//! `tengen book annotate` on a small book grown with the rollout engine.

use std::process::Command;

fn tengen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn a_game_is_commented_until_it_leaves_the_book() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let book = dir.path().join("5x5.book");
    let b = book.to_str().unwrap_or_default();
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
        "4",
        "--parallel",
        "2",
        "--visits",
        "300",
    ]);
    assert!(
        grown.status.success(),
        "{}",
        String::from_utf8_lossy(&grown.stderr)
    );
    let shown = tengen(&["book", "show", b, "--json"]);
    let table: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("JSON");
    let first = table["moves"][0]["move"]
        .as_str()
        .expect("the root has a book move")
        .to_string();
    // The game plays the book's first move, then a move that cannot be in a 4-expansion book's reply list
    // and an unrelated third move.
    let game = dir.path().join("g.sgf");
    let sgf_point = |gtp: &str| {
        let size = tengen::go::BoardSize::square(5).expect("5x5");
        tengen::go::Point::parse_gtp(gtp, size)
            .expect("a point")
            .to_sgf()
    };
    let reply = if first == "A1" { "E5" } else { "A1" };
    let text = format!(
        "(;GM[1]SZ[5]KM[24]RU[tromp-taylor];B[{}];W[{}];B[{}])",
        sgf_point(&first),
        sgf_point(reply),
        sgf_point("B2")
    );
    std::fs::write(&game, text).expect("write");
    let g = game.to_str().unwrap_or_default();
    let out = tengen(&["book", "annotate", b, g, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let moves = v["moves"].as_array().expect("notes");
    assert_eq!(moves[0]["in_book"], true);
    assert_eq!(moves[0]["move"], first.as_str());
    assert_eq!(v["left_book_at"], 2, "the corner reply leaves the book");
    assert_eq!(moves.len(), 2, "notes stop where the game leaves the book");
    assert!(moves.iter().all(|m| m["score_loss"].as_f64() >= Some(0.0)));
    let out_sgf = dir.path().join("annotated.sgf");
    assert!(
        tengen(&[
            "book",
            "annotate",
            b,
            g,
            "-o",
            out_sgf.to_str().unwrap_or_default()
        ])
        .status
        .success()
    );
    let annotated = tengen::go::sgf::read_file(&out_sgf)
        .expect("the annotated game reads back")
        .remove(0);
    let line = annotated.main_line();
    assert!(
        line[1]
            .comment()
            .is_some_and(|c| c.contains("is in the book"))
    );
    assert!(
        line[2]
            .comment()
            .is_some_and(|c| c.contains("leaves the book"))
    );
    assert!(line[3].comment().is_none());
}
