//! Bad input is an error that names the file and the place, never a panic, a hang or a silent misreading
//! (`docs/reliability.md`): `.katabook` setups and graph shapes, folder walks through link loops and
//! FIFOs, malformed SGF values and illegal moves, configuration values out of range, theme names that are
//! paths, and recordings with more frames than anyone asked for. Each test drives the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tengen");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn regression(name: &str) -> PathBuf {
    Path::new(ROOT).join("tests/regressions").join(name)
}

/// Runs tengen in `dir` (its config and data directories there too), killing it after `limit`: a run
/// that does not end is a failure, not a hung test.
fn tengen_within(args: &[&str], dir: &Path, limit: Duration) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("TENGEN_CONFIG", dir.join("config"))
        .env("TENGEN_DATA", dir.join("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let start = Instant::now();
    let watchdog = std::thread::spawn(move || {
        while start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(100));
            if !Path::new(&format!("/proc/{pid}")).exists() {
                return false;
            }
        }
        // SAFETY: signalling our own child by its pid.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        true
    });
    let out = child.wait_with_output().unwrap();
    let killed = watchdog.join().unwrap();
    assert!(
        !killed || out.status.success(),
        "`tengen {}` did not end within {limit:?}",
        args.join(" ")
    );
    out
}

fn tengen(args: &[&str], dir: &Path) -> Output {
    tengen_within(args, dir, Duration::from_secs(120))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A refusal: exit status 2 (an error, not a panic's 101) with every one of `words` in the message.
fn refused(out: &Output, words: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for w in words {
        assert!(err.contains(w), "`{w}` not in: {err}");
    }
}

#[test]
fn katabook_setups_that_do_not_fit_the_board_are_refused_at_import_and_open() {
    let dir = tempfile::tempdir().unwrap();
    for (file, place) in [
        ("katabook-setup-rows-beyond-the-board.katabook", "23 rows"),
        (
            "katabook-setup-row-wider-than-the-board.katabook",
            "row 1 has 25 points",
        ),
        (
            "katabook-setup-row-narrower-than-the-board.katabook",
            "row 1 has 6 points",
        ),
    ] {
        let path = regression(file);
        let path = path.to_str().unwrap();
        let out = tengen(
            &["book", "import-katabook", path, "-o", "b.tengenbook"],
            dir.path(),
        );
        refused(&out, &[file, ":1:", "initialBoard.stones", place]);
        assert!(!dir.path().join("b.tengenbook").exists());
        // The workbench reads the file before it takes the terminal: the same error, no panic.
        refused(&tengen(&["open", path], dir.path()), &[file, place]);
    }
}

#[test]
fn katabook_duplicate_moves_cycles_and_rep_bounds_are_refused_naming_the_node() {
    let dir = tempfile::tempdir().unwrap();
    for (file, words) in [
        (
            "katabook-a-move-listed-2001-times.katabook",
            &["node 1", "move D4 is listed twice"][..],
        ),
        (
            "katabook-a-move-back-to-its-own-node.katabook",
            &["node 3 has a move to itself"],
        ),
        (
            "katabook-moves-in-a-cycle.katabook",
            &["cycle", "node 0 → node 1 → node 4 → node 0"],
        ),
        (
            "katabook-rep-bound-at-u64-max.katabook",
            &["repBound 18446744073709551615 is outside 3..1000"],
        ),
    ] {
        let path = regression(file);
        let out = tengen(
            &[
                "book",
                "import-katabook",
                path.to_str().unwrap(),
                "-o",
                "b.tengenbook",
            ],
            dir.path(),
        );
        let mut all = vec![file];
        all.extend_from_slice(words);
        refused(&out, &all);
    }
}

/// A folder of records with a link back to its parent, a link to itself and a FIFO named like a record.
fn looping_folder(root: &Path, record: &Path) -> PathBuf {
    let games = root.join("games");
    std::fs::create_dir_all(games.join("sub")).unwrap();
    std::fs::copy(record, games.join("sub/game.sgf")).unwrap();
    std::os::unix::fs::symlink(&games, games.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(".", games.join("here")).unwrap();
    let fifo = std::ffi::CString::new(games.join("stuck.sgf").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    games
}

#[test]
fn folder_walks_end_on_link_loops_read_each_record_once_and_skip_fifos() {
    let dir = tempfile::tempdir().unwrap();
    let record = Path::new(ROOT).join("../shared/data/games/9x9");
    let record = std::fs::read_dir(record)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sgf"))
        .unwrap();
    let games = looping_folder(dir.path(), &record);
    let out = tengen_within(
        &[
            "records",
            "build",
            games.to_str().unwrap(),
            "-o",
            "book.mcst",
            "--min-games",
            "1",
            "--json",
        ],
        dir.path(),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["files"], 1, "the record is read once: {stats}");
    let skipped = stats["skipped"].to_string();
    assert!(
        skipped.contains("stuck.sgf") && skipped.contains("FIFO"),
        "{skipped}"
    );
    assert!(
        skipped.contains("loop") && skipped.contains("here") && skipped.contains("already read"),
        "{skipped}"
    );

    let problem = Path::new(ROOT).join("../shared/data/endgame-dev/01-value-of-move/01.sgf");
    let problems = looping_folder(&dir.path().join("p"), &problem);
    let out = tengen_within(
        &[
            "endgame",
            "bench",
            problems.to_str().unwrap(),
            "--method",
            "lines",
        ],
        dir.path(),
        Duration::from_secs(60),
    );
    let err = stderr(&out);
    assert!(err.contains("stuck.sgf") && err.contains("FIFO"), "{err}");
    let listed = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("game.sgf"))
        .count();
    assert_eq!(listed, 1, "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn malformed_sgf_sizes_komi_and_moves_are_errors_naming_the_file_and_node() {
    let dir = tempfile::tempdir().unwrap();
    for (props, node, words) in [
        ("SZ[9:400]", 0, "SZ[9:400] is not a board size"),
        ("SZ[-5]", 0, "SZ[-5] is not a board size"),
        ("SZ[abc]", 0, "SZ[abc] is not a board size"),
        ("SZ[9]KM[NaN]", 0, "KM[NaN] is not a komi"),
        ("SZ[9]KM[seven]", 0, "KM[seven] is not a valid komi"),
        ("SZ[9];B[a]", 1, "B[a] is not a valid move"),
        (
            "SZ[9];B[cc];W[dd]AB[z]",
            2,
            "AB[z] is not a valid list of points",
        ),
    ] {
        let file = dir.path().join("bad.sgf");
        std::fs::write(&file, format!("(;GM[1]FF[4]{props};W[ee])")).unwrap();
        let out = tengen(&["position", "--sgf", "bad.sgf"], dir.path());
        refused(&out, &["bad.sgf", &format!("node {node}:"), words]);
    }
}

#[test]
fn import_sgf_reports_where_a_line_stops_instead_of_stopping_in_silence() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ok = tengen(&["book", "new", "--size", "5x5", "-o", "b.tengenbook"], d);
    assert!(ok.status.success(), "{}", stderr(&ok));
    // Move 3 of the first line plays on an occupied point (`position` refuses it too); the second line
    // has White moving first; the third is fine.
    std::fs::write(
        d.join("lines.sgf"),
        "(;GM[1]SZ[5](;B[cc];W[bb];B[cc];W[dd])(;W[cc])(;B[bc];W[cb]))",
    )
    .unwrap();
    let out = tengen(
        &[
            "book",
            "import-sgf",
            "b.tengenbook",
            "--sgf",
            "lines.sgf",
            "--visits",
            "8",
        ],
        d,
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("lines.sgf: move 3 (B C3) is not imported"),
        "{err}"
    );
    assert!(
        err.contains("lines.sgf: move 1 (W C3) is not imported") && err.contains("Black's turn"),
        "{err}"
    );
    // The lines' good moves are in the book: root, C3, C3-B4, B3, B3-C4.
    let verify = tengen(&["book", "verify", "b.tengenbook"], d);
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(text.contains("5 nodes"), "{text}");
}

#[test]
fn config_values_out_of_range_stop_the_workbench_with_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/config.toml"),
        "[jobs]\nconcurrent = 100000\n",
    )
    .unwrap();
    let book = Path::new(ROOT).join("books/7x7-tt-k9.katabook");
    let out = tengen(&["open", book.to_str().unwrap()], dir.path());
    refused(
        &out,
        &["config.toml", "jobs.concurrent = 100000", "four per core"],
    );
}

#[test]
fn headless_replay_writes_at_most_the_frames_asked_for() {
    use tengen::session::Recorder;
    use tengen::tui::action::{Action, Key};
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.tengen-session");
    let mut recorder = Recorder::create(&session).unwrap();
    let small = Action::Resize {
        width: 20,
        height: 6,
    };
    recorder.record(0, &small).unwrap();
    // One more than the default limit, so that the default is what stops it.
    let frames = tengen::session::replay::DEFAULT_MAX_FRAMES;
    for i in 1..=frames {
        recorder
            .record(i as u64, &Action::Key(Key("j".into())))
            .unwrap();
    }
    drop(recorder);
    let session = session.to_str().unwrap();
    let out = tengen(
        &["replay", session, "--headless", "--frames", "f"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let count = |d: &str| std::fs::read_dir(dir.path().join(d)).unwrap().count();
    assert_eq!(count("f"), frames + 1, "the frames and last.txt");
    assert!(
        stderr(&out).contains(&format!("has {} frames; the first {frames}", frames + 1)),
        "{}",
        stderr(&out)
    );
    let out = tengen(
        &[
            "replay",
            session,
            "--headless",
            "--frames",
            "g",
            "--max-frames",
            "3",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(count("g"), 4);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("3 frames written"));
}
