#![allow(dead_code)] // each fuzz target uses one of these checks; the smoke test uses them all
//! The properties every fuzz target checks, shared by the libFuzzer targets (`cargo fuzz run`) and the
//! smoke test that CI runs over the seed corpora (`tests/fuzz_smoke.rs`): any input gives a result or a
//! clear error, never a panic, a hang or an unbounded allocation, and what is written reads back the same.
//!
//! Targets whose parser reads a path (the book store, models, problems, sessions) get the input as a file
//! in a scratch directory of this process, so that they are fuzzed through the same door the program uses.

use std::path::{Path, PathBuf};
use tengen::book::interop::katabook;
use tengen::book::store;
use tengen::book::view::{node_table, view_of};
use tengen::book::{Book, NodeId};
use tengen::endgame::problem::Problem;
use tengen::engine::gtp;
use tengen::engine::katago::protocol::{self, Perspective, Reply};
use tengen::engine::line::{CappedLines, LineError};
use tengen::go::sgf::parse_str;
use tengen::go::{BoardSize, Color, Move, Rules, Scoring};
use tengen::nn::import::KataModel;
use tengen::records::mcst;
use tengen::records::posdb::{EntryRecord, Position};
use tengen::session;
use tengen::tui::action::Command;
use tengen::tui::config::Config;
use tengen::tui::keymap::{Keymap, normalize_key};
use tengen::tui::theme::Theme;

/// A file of this thread's scratch directory (one per process and thread, so that parallel fuzzers and
/// the smoke test's parallel tests do not collide).
fn scratch(name: &str) -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
    let dir = std::env::temp_dir().join(format!("tengen-fuzz-{}-{thread}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join(name)
}

/// An error message must name the file it is about.
fn names_file(message: &str, path: &Path) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    assert!(
        message.contains(name),
        "the error does not name the file: {message}"
    );
}

/// SGF reading; read → write → read gives the same tree; replaying the main line never panics.
pub fn sgf(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(games) = parse_str(&text, Path::new("fuzz.sgf")) else {
        return;
    };
    for game in games {
        let again =
            parse_str(&game.to_sgf(), Path::new("rewritten.sgf")).expect("written SGF reads back");
        assert_eq!(again.len(), 1);
        assert_eq!(again[0], game, "read → write → read changed the tree");
        let line = game.main_line();
        let _ = game.replay(
            &line,
            game.rules_or(Rules::chinese()),
            true,
            Path::new("fuzz.sgf"),
        );
    }
}

/// The records module's text formats (MCST trees, position-database lines) and the small parsers they use.
pub fn records_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let size = BoardSize::square(9).expect("9x9");
    if let Ok(tree) = mcst::read(&text, size) {
        let written = mcst::write(&tree);
        let again = mcst::read(&written, size).expect("written MCST reads back");
        assert_eq!(mcst::write(&again), written);
    }
    if let Ok(record) = serde_json::from_str::<EntryRecord>(&text) {
        let _ = Position::from_record(&record, 1);
    }
    let _ = BoardSize::parse(&text);
    let _ = Rules::parse(&text);
    let _ = Move::parse_list(&text, size);
}

/// What `tengen book show` and `verify` do with a loaded book, on its first nodes.
fn use_book(book: &Book) {
    assert!(!book.is_empty(), "a loaded book has a root");
    let _ = node_table(book, view_of(book.root()));
    for (id, _) in book.nodes().take(32) {
        let _ = book.game_at(id);
        let _ = node_table(book, view_of(id));
    }
    let _ = book.get(NodeId(book.len() as u32));
}

/// The book store's loader, through its public door (a path): a snapshot, and a log when the input holds a
/// second `TENGENBK` header. A loaded book is used as `book show` uses it, written back as a snapshot, and
/// that snapshot loads to the same book.
pub fn book_store(data: &[u8]) {
    let path = scratch("fuzz.tengenbook");
    let log = store::log_path(&path);
    let split = data
        .windows(store::MAGIC.len())
        .skip(1)
        .position(|w| w == store::MAGIC)
        .map(|p| p + 1);
    let (snapshot, log_bytes) = match split {
        Some(at) => (&data[..at], Some(&data[at..])),
        None => (data, None),
    };
    std::fs::write(&path, snapshot).expect("scratch write");
    match log_bytes {
        Some(bytes) => std::fs::write(&log, bytes).expect("scratch write"),
        None => {
            let _ = std::fs::remove_file(&log);
        }
    }
    let (book, report) = match store::load(&path) {
        Ok(loaded) => loaded,
        Err(e) => return names_file(&e.to_string(), &path),
    };
    use_book(&book);
    let again = scratch("rewritten.tengenbook");
    let _ = std::fs::remove_file(store::log_path(&again));
    let bytes = store::snapshot_bytes(&book, report.generation).expect("a loaded book encodes");
    std::fs::write(&again, bytes).expect("scratch write");
    let (back, _) = store::load(&again).expect("a written snapshot loads");
    assert_eq!(back.len(), book.len());
    assert_eq!(back.edge_count(), book.edge_count());
    for ((_, a), (_, b)) in book.nodes().zip(back.nodes()) {
        assert_eq!(a.hash, b.hash);
    }
}

/// A small book grown through the store in this thread's scratch directory: a 20-node snapshot and a log
/// of 6 expansions; returns its path and its snapshot's and log's bytes.
fn grown_book() -> (PathBuf, Vec<u8>, Vec<u8>) {
    use tengen::book::store::BookStore;
    use tengen::book::synthetic;
    let path = scratch("grown.tengenbook");
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(store::log_path(&path));
    let mut book = synthetic::build(20, 7);
    let mut writer = BookStore::create(&path, &book).expect("a scratch book");
    let mut rng = tengen::go::playout::FastRng::new(7);
    for k in 0..6u32 {
        let changed = synthetic::expand_randomly(&mut book, NodeId(k * 3), 2, &mut rng);
        writer
            .append_nodes(&book, &changed)
            .expect("a scratch append");
    }
    drop(writer);
    let snapshot = std::fs::read(&path).expect("scratch read");
    let log = std::fs::read(store::log_path(&path)).expect("scratch read");
    (path, snapshot, log)
}

fn same_nodes(a: &Book, b: &Book) -> bool {
    a.len() == b.len()
        && a.nodes()
            .zip(b.nodes())
            .all(|((_, x), (_, y))| x.hash == y.hash)
}

/// The log's record reader, through `store::load`: the input is a log's records after a valid header of
/// the snapshot's generation. A book loads, or an error names the log and a byte offset. A torn tail is
/// reported inside the log, opening the book for growing cuts exactly it, and the book then loads the
/// same with nothing torn. A refused log is left untouched by a refused open, and a repair copies the
/// book beside it without writing the log.
pub fn book_log(data: &[u8]) {
    let (path, _, log) = grown_book();
    let lpath = store::log_path(&path);
    let mut bytes = log[..32].to_vec();
    bytes.extend_from_slice(data);
    std::fs::write(&lpath, &bytes).expect("scratch write");
    match store::load(&path) {
        Ok((book, report)) => {
            use_book(&book);
            let Some(at) = report.torn_at() else { return };
            assert!(at >= 32 && at < bytes.len() as u64);
            let opened = store::BookStore::open(&path).expect("a loadable book opens");
            assert_eq!(opened.0.log_len(), at, "opening cuts exactly the torn tail");
            drop(opened);
            let (again, report) = store::load(&path).expect("a cut log loads");
            assert!(same_nodes(&book, &again) && report.torn_at().is_none());
        }
        Err(e) => {
            let message = e.to_string();
            names_file(&message, &lpath);
            assert!(message.contains("byte "), "no place named: {message}");
            assert!(store::BookStore::open(&path).is_err());
            let repaired = store::repair::repair(&path).expect("a damaged log is repaired");
            assert_eq!(std::fs::read(&lpath).expect("scratch read"), bytes);
            let (book, _) = store::load(&repaired.output).expect("a repaired book loads");
            use_book(&book);
            let _ = std::fs::remove_file(&repaired.output);
            let _ = std::fs::remove_file(store::log_path(&repaired.output));
        }
    }
}

/// The headers: the input's first byte picks the snapshot or the log, the rest is written over the start
/// of that file's header. Either the book loads exactly as before, or an error names the file and a byte.
pub fn book_header(data: &[u8]) {
    let Some((&which, patch)) = data.split_first() else {
        return;
    };
    let (path, snapshot, log) = grown_book();
    let (before, _) = store::load(&path).expect("the grown book loads");
    let (file, mut bytes) = if which & 1 == 0 {
        (path.clone(), snapshot)
    } else {
        (store::log_path(&path), log)
    };
    let n = patch.len().min(32);
    bytes[..n].copy_from_slice(&patch[..n]);
    std::fs::write(&file, &bytes).expect("scratch write");
    match store::load(&path) {
        Ok((book, report)) => {
            assert!(report.torn_at().is_none());
            assert!(
                same_nodes(&book, &before),
                "a changed header loaded another book"
            );
        }
        Err(e) => {
            let message = e.to_string();
            names_file(&message, &file);
            assert!(message.contains("byte "), "no place named: {message}");
        }
    }
}

/// KataGo `.katabook` import: a book or an error naming the file and line.
pub fn katabook(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match katabook::import_str(&text, "fuzz.katabook") {
        Ok((book, _)) => use_book(&book),
        Err(e) => names_file(&e.to_string(), Path::new("fuzz.katabook")),
    }
}

/// KataGo model import (`.bin.gz` or inflated `.bin`): a model whose ONNX graph builds, or an error naming
/// the file. Sizes are checked before anything is allocated for them.
pub fn model(data: &[u8]) {
    let path = Path::new("fuzz.bin.gz");
    match KataModel::from_bytes(data, path) {
        Ok(model) => {
            let _ = model.parameter_count();
            let onnx = tengen::nn::import::graph::build(&model);
            assert!(!onnx.is_empty());
        }
        Err(e) => names_file(&e.to_string(), path),
    }
}

/// Endgame problem files: a problem or an error; a problem's given lines score as a game under both
/// scorings (or the line that breaks the rules is named).
pub fn problem(data: &[u8]) {
    let path = scratch("fuzz-problem.sgf");
    std::fs::write(&path, data).expect("scratch write");
    match Problem::read(&path) {
        Ok(problem) => {
            let _ = problem.empty_points();
            for scoring in [Scoring::Area, Scoring::Territory] {
                if let Err(e) = tengen::endgame::lines::problem_game(&problem, scoring) {
                    names_file(&e.to_string(), &path);
                }
            }
        }
        Err(e) => names_file(&e.to_string(), &path),
    }
}

/// Session recordings: records or an error; the records written again read back the same, and a replay
/// of the first 16 draws frames without running anything (replay drops every effect).
pub fn session(data: &[u8]) {
    let path = scratch("fuzz.tengen-session");
    std::fs::write(&path, data).expect("scratch write");
    let records = match session::read(&path) {
        Ok(records) => records,
        Err(e) => return names_file(&e.to_string(), &path),
    };
    // Compared as bytes (written, read, written again): values may hold NaN, which equals nothing.
    let write = |name: &str, records: &[session::Record]| {
        let path = scratch(name);
        let mut recorder = session::Recorder::create(&path).expect("scratch recording");
        for r in records {
            recorder
                .record(r.at_ms, &r.action)
                .expect("a read action encodes");
        }
        drop(recorder);
        path
    };
    let once = write("rewritten.tengen-session", &records);
    let back = session::read(&once).expect("a written session reads back");
    assert_eq!(back.len(), records.len());
    let twice = write("rewritten-again.tengen-session", &back);
    assert_eq!(
        std::fs::read(&once).expect("scratch read"),
        std::fs::read(&twice).expect("scratch read"),
        "write → read → write changed the recording"
    );
    let first = &records[..records.len().min(16)];
    let _ = session::replay::frames(first, |_, _| {});
}

/// Keymaps, themes, the config file, `:` command lines and key names: a value or a message, never a panic.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = Keymap::with_user(&text, "fuzz-keymap.toml") {
        assert!(e.contains("fuzz-keymap.toml"), "{e}");
    }
    if let Err(e) = Theme::parse("fuzz", &text, "fuzz-theme.toml") {
        assert!(e.contains("fuzz-theme.toml"), "{e}");
    }
    if let Err(e) = Config::parse(&text, "fuzz-config.toml") {
        assert!(e.to_string().contains("fuzz-config.toml"), "{e}");
    }
    for line in text.lines().take(64) {
        let _ = Command::parse(line);
        let _ = normalize_key(line);
    }
}

/// KataGo's analysis replies: every line is classified, and analyses convert to reports on several board
/// sizes and from every perspective (or give the reason they are malformed).
pub fn katago_json(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let sizes = [
        BoardSize::square(19).expect("19x19"),
        BoardSize::square(9).expect("9x9"),
        BoardSize::new(2, 3).expect("2x3"),
    ];
    for line in text.lines().take(64) {
        let Some(reply) = protocol::classify(line) else {
            continue;
        };
        if let Reply::Analysis { value, .. } | Reply::Action { value, .. } = reply {
            for size in sizes {
                for p in [
                    Perspective::Black,
                    Perspective::White,
                    Perspective::SideToMove,
                ] {
                    if let Ok(report) = protocol::report_from(&value, size, p, Color::White) {
                        for m in &report.moves {
                            let _ = m.mv.to_gtp(size);
                        }
                    }
                }
            }
        }
    }
}

/// GTP answers: the answer framing (`=`/`?`, ids, the blank line), `kata-analyze`/`lz-analyze` lines,
/// scores and moves.
pub fn gtp(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines: Vec<String> = text.lines().take(256).map(str::to_string).collect();
    let _ = gtp::parse_answer(&lines);
    let size = BoardSize::square(9).expect("9x9");
    let odd = BoardSize::new(19, 7).expect("19x7");
    for line in &lines {
        for (size, color, kata) in [
            (size, Color::Black, true),
            (odd, Color::White, true),
            (size, Color::White, false),
        ] {
            if let Some(report) = gtp::parse_analysis(line, size, color, kata) {
                assert!(!report.moves.is_empty());
            }
        }
        let _ = gtp::parse_score(line);
        let _ = Move::parse_gtp(line.trim(), size);
    }
}

/// Polls a future that never waits (a reader over bytes in memory) to its end.
fn ready<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("a reader over bytes in memory waited"),
    }
}

/// The engines' capped line reader (`engine::line`): the first byte sets the cap (1 to 64 bytes), the
/// rest is the engine's output. The lines must be the input split at `\n` (a final `\r` dropped), each
/// over-long line an error quoting its start and the reader going on after it; the lossy reader (for
/// stderr) never fails and gives as many lines.
pub fn engine_lines(data: &[u8]) {
    let Some((&first, output)) = data.split_first() else {
        return;
    };
    let cap = usize::from(first % 64) + 1;
    let mut expected: Vec<&[u8]> = output.split(|&b| b == b'\n').collect();
    if expected.last().is_some_and(|l| l.is_empty()) {
        expected.pop();
    }
    let mut strict = CappedLines::new(output, cap);
    for raw in &expected {
        // The cap counts the line as written, `\r` included.
        let want = raw.strip_suffix(b"\r").unwrap_or(raw);
        match ready(strict.next_bytes()) {
            Ok(Some(got)) => {
                assert!(raw.len() <= cap);
                assert_eq!(got, want);
            }
            Err(LineError::TooLong { start, cap: c }) => {
                assert_eq!(c, cap);
                assert!(raw.len() > cap, "a line of {} bytes refused", raw.len());
                assert!(start.starts_with('"') && start.ends_with('"'), "{start}");
            }
            other => panic!("expected a line of {} bytes, got {other:?}", want.len()),
        }
    }
    assert!(matches!(ready(strict.next_bytes()), Ok(None)));
    let mut lossy = CappedLines::new(output, cap);
    let mut count = 0;
    while let Some(line) = ready(lossy.next_line_lossy()).expect("reading memory cannot fail") {
        // At most 64 bytes made text (3 bytes a replacement character), or a cut line's quoted start
        // (60 bytes, each escaped to at most 10 characters) and its note.
        assert!(line.len() <= 700, "a line of {} bytes", line.len());
        count += 1;
    }
    assert_eq!(count, expected.len());
}
