//! The workbench's command line without a terminal: errors that say what to do, and headless replay of a
//! recording written through the library.

use std::process::Command;
use tengen::book::interop::katabook;
use tengen::book::view::book_view;
use tengen::session::Recorder;
use tengen::tui::action::{Action, Key};

const BIN: &str = env!("CARGO_BIN_EXE_tengen");
const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/7x7-tt-k9.katabook");

fn tengen(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("TENGEN_CONFIG", dir.join("config"))
        .env("TENGEN_DATA", dir.join("data"))
        .output()
        .unwrap()
}

#[test]
fn opening_a_missing_book_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = tengen(&["open", "/no/such/book.katabook"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/no/such/book.katabook does not exist"),
        "{err}"
    );
}

#[test]
fn a_size_without_a_shipped_book_says_which_sizes_have_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = tengen(&["open", "--size", "13x13"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no book is shipped for 13x13 (shipped: 7x7, 9x9)")
            && err.contains("book new"),
        "{err}"
    );
    let out = tengen(&["open", "--size", "7x7", BOOK], dir.path());
    assert_eq!(out.status.code(), Some(2), "a size or a file, not both");
}

#[test]
fn a_broken_config_file_stops_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/config.toml"),
        "[jobs]\nconcurrent = -1\n",
    )
    .unwrap();
    let out = tengen(&["open", BOOK], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("config.toml") && err.contains("jobs.concurrent"),
        "{err}"
    );
}

#[test]
fn replay_refuses_what_is_not_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let out = tengen(&["replay", BOOK, "--headless", "--frames", "x"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a tengen session recording"), "{err}");
}

#[test]
fn headless_replay_writes_one_frame_per_action_ending_where_the_session_ended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.tengen-session");
    let (book, _) = katabook::import(std::path::Path::new(BOOK)).unwrap();
    let mut recorder = Recorder::create(&path).unwrap();
    let mut actions = vec![
        Action::Resize {
            width: 80,
            height: 24,
        },
        Action::BookLoaded(Box::new(book_view(&book, "7x7-tt-k9"))),
    ];
    for k in ["l", "j", "l", "ctrl-b"] {
        actions.push(Action::Key(Key(k.into())));
    }
    for (i, a) in actions.iter().enumerate() {
        recorder.record(i as u64 * 100, a).unwrap();
    }
    drop(recorder);
    let frames = dir.path().join("frames");
    let out = tengen(
        &[
            "replay",
            path.to_str().unwrap(),
            "--headless",
            "--frames",
            frames.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("6 frames written"));
    let last = std::fs::read_to_string(frames.join("last.txt")).unwrap();
    assert_eq!(
        last,
        std::fs::read_to_string(frames.join("frame-000005.txt")).unwrap()
    );
    assert_eq!(last.lines().count(), 24);
    assert!(
        last.contains("1.D4") && last.contains("* bookmarked"),
        "{last}"
    );
    let first_with_book = std::fs::read_to_string(frames.join("frame-000001.txt")).unwrap();
    assert!(
        first_with_book.contains("146 positions"),
        "{first_with_book}"
    );
}
