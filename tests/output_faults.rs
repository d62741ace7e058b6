//! Output that cannot be written: a reader that closed the pipe (`| head`) ends a command quietly, a full
//! disk (a file-size limit, which fails writes with EFBIG as a full disk fails them with ENOSPC) leaves
//! the previous export whole, and SIGTERM stops `book expand` as Ctrl-C does (`docs/reliability.md`).

use std::io::{BufRead, BufReader};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tengen");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const KATABOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/7x7-tt-k9.katabook");

fn tengen(args: &[&str], dir: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn ok(args: &[&str], dir: &Path) -> Output {
    let out = tengen(args, dir);
    assert!(
        out.status.success(),
        "tengen {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The write end of a pipe whose read end is already closed: every write to it fails with EPIPE, as
/// after `head` has read its lines and gone.
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills two descriptors we then own; the read end is closed at once.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::close(fds[0]);
        Stdio::from(OwnedFd::from_raw_fd(fds[1]))
    }
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&["book", "new", "--size", "5x5", "-o", "b.tengenbook"], d);
    let problem = format!("{ROOT}/../shared/data/endgame-dev/01-value-of-move/01.sgf");
    let commands: [&[&str]; 5] = [
        &["position", "--moves", "D4 D5"],
        &["book", "show", "b.tengenbook"],
        &["endgame", "solve", &problem, "--method", "lines"],
        &[
            "analyze",
            "--size",
            "5x5",
            "--visits",
            "30",
            "--threads",
            "1",
            "--engine",
            "rollout",
        ],
        &[
            "book",
            "expand",
            "b.tengenbook",
            "--json",
            "--iterations",
            "3",
            "--visits",
            "20",
            "--threads",
            "1",
        ],
    ];
    for args in commands {
        let out = Command::new(BIN)
            .args(args)
            .current_dir(d)
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let quiet = matches!(out.status.code(), Some(0 | 141))
            || out.status.signal() == Some(libc::SIGPIPE);
        assert!(quiet, "tengen {}: {:?} {err}", args.join(" "), out.status);
        assert!(
            !err.contains("panicked"),
            "tengen {}: {err}",
            args.join(" ")
        );
    }
    // `book expand` stopped as on Ctrl-C: its expansion was compacted into the book.
    let verify = ok(&["book", "verify", "b.tengenbook"], d);
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(
        text.contains("0 log records") && !text.contains(": 1 nodes"),
        "{text}"
    );
}

/// Runs tengen with files limited to 512 bytes and SIGXFSZ ignored: a write past the limit fails with
/// EFBIG through the same code path a full disk's ENOSPC takes.
fn tengen_on_a_full_disk(args: &[&str], dir: &Path) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 1; trap '' XFSZ; exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The names in `dir` (not recursive), sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_full_disk_leaves_the_previous_export_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        &["book", "import-katabook", KATABOOK, "-o", "b.tengenbook"],
        d,
    );
    ok(
        &[
            "book",
            "export",
            "b.tengenbook",
            "--sgf",
            "out.sgf",
            "--html",
            "site",
        ],
        d,
    );
    let sgf = std::fs::read(d.join("out.sgf")).unwrap();
    let page = std::fs::read(d.join("site/root/root.html")).unwrap();
    assert!(sgf.len() > 512 && page.len() > 512);
    let before = names(d);

    for args in [
        &["book", "export", "b.tengenbook", "--sgf", "out.sgf"][..],
        &["book", "export", "b.tengenbook", "--html", "site"],
    ] {
        let out = tengen_on_a_full_disk(args, d);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("File too large"), "{err}");
        assert_eq!(std::fs::read(d.join("out.sgf")).unwrap(), sgf);
        assert_eq!(std::fs::read(d.join("site/root/root.html")).unwrap(), page);
        assert_eq!(names(d), before, "no temporary file or folder is left");
    }

    // Replay frames: each frame is whole or absent, never empty or cut.
    let session = d.join("s.tengen-session");
    let mut recorder = tengen::session::Recorder::create(&session).unwrap();
    let resize = tengen::tui::action::Action::Resize {
        width: 80,
        height: 24,
    };
    recorder.record(0, &resize).unwrap();
    drop(recorder);
    let out = tengen_on_a_full_disk(
        &[
            "replay",
            "s.tengen-session",
            "--headless",
            "--frames",
            "frames",
        ],
        d,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("frame-000000.txt"), "{err}");
    assert_eq!(names(&d.join("frames")), Vec::<String>::new());
}

/// A book whose expansions will take a while, to be interrupted.
fn growing_book(d: &Path) -> std::process::Child {
    ok(&["book", "new", "--size", "5x5", "-o", "b.tengenbook"], d);
    Command::new(BIN)
        .args([
            "book",
            "expand",
            "b.tengenbook",
            "--iterations",
            "1000",
            "--visits",
            "40",
            "--threads",
            "1",
        ])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn sigterm_stops_book_expand_as_ctrl_c_does_and_the_book_is_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = growing_book(d);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("expanded"), "{first}");
    // SAFETY: signalling our own child by its pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(err.contains("SIGTERM: stopping"), "{err}");
    let verify = ok(&["book", "verify", "b.tengenbook"], d);
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(text.contains("0 log records"), "{text}");
}
