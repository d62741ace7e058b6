//! Limits on untrusted files: sizes a file claims are checked before anything is allocated for them, deep
//! nesting is refused before it is recursed into, nothing in a file makes tengen run a program, and the
//! HTML export writes no text taken from a file.

use std::path::Path;
use tengen::book::store;
use tengen::book::{Book, BookMeta, CostParams};
use tengen::go::{BoardSize, Rules};
use tengen::nn::import::KataModel;
use tengen::session::{self, Recorder};
use tengen::tui::action::{Action, Key};

fn small_book() -> Book {
    let meta = BookMeta::new(BoardSize::square(5).unwrap(), Rules::tromp_taylor());
    let mut book = Book::new(meta, CostParams::default());
    tengen::book::recompute_everything(&mut book);
    book
}

#[test]
fn a_book_claiming_a_billion_nodes_reserves_only_what_its_file_can_hold() {
    let dir = tempfile::tempdir().unwrap();
    // Format 1 (still read): the metadata record's node count only sizes the arena. This file claims a
    // billion nodes and holds one; the loader used to reserve room for 2^28 nodes, tens of gigabytes,
    // and the allocation aborted.
    let claims = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/regressions/book_store-meta-claims-a-billion-nodes.tengenbook"
    );
    let (book, _) = store::load(Path::new(claims)).unwrap();
    assert_eq!(book.len(), 1);

    // Format 2: a section's record count must match its length, which must be in the file.
    let mut bytes = store::snapshot_bytes(&small_book(), 1).unwrap();
    let at = bytes
        .windows(4)
        .position(|w| w == b"NODE")
        .expect("a NODE section");
    bytes[at + 8..at + 16].copy_from_slice(&1_000_000_000u64.to_le_bytes());
    let path = dir.path().join("lies.tengenbook");
    std::fs::write(&path, &bytes).unwrap();
    let err = store::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("lies.tengenbook") && err.contains("1000000000"),
        "{err}"
    );
}

const TINY_MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/.ci/fuzz/seeds/model/tiny-b2c2.bin"
);

#[test]
fn a_tiny_model_imports_and_one_claiming_a_billion_channels_is_refused_cheaply() {
    let tiny = std::fs::read(TINY_MODEL).unwrap();
    let model = KataModel::from_bytes(&tiny, Path::new("tiny.bin")).unwrap();
    assert_eq!(model.trunk.blocks.len(), 2);
    assert!(!tengen::nn::import::graph::build(&model).is_empty());

    let text = "huge 8 22 19\ntrunk 1 1000000000 1000000000 1000000000 1000000000 1000000000\n\
                conv1 3 3 22 1000000000 1 1\n@BIN@\0\0\0\0";
    let err = KataModel::from_bytes(text.as_bytes(), Path::new("huge.bin"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("huge.bin") && err.contains("conv1") && err.contains("ends inside a block"),
        "{err}"
    );

    // A block count no file could hold: refused at the first missing block, nothing reserved for it.
    let text = String::from_utf8_lossy(&tiny).into_owned();
    let many = text.replacen("trunk 2 2 2 1 2 1", "trunk 1000000000000 2 2 1 2 1", 1);
    assert_ne!(many, text, "the tiny model's trunk line");
    let err = KataModel::from_bytes(many.as_bytes(), Path::new("many.bin"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("many.bin"), "{err}");

    // Sizes whose product does not fit in memory's address space are refused, not wrapped around.
    let text = "wrap 8 22 19\ntrunk 1 1152921504606846976 1 1 1 1\n\
                conv1 19 19 22 1152921504606846976 1 1\n@BIN@";
    let err = KataModel::from_bytes(text.as_bytes(), Path::new("wrap.bin"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("wrap.bin") && err.contains("too large"),
        "{err}"
    );
}

#[test]
fn an_sgf_with_a_ten_thousand_deep_variation_is_refused_before_it_is_built() {
    let mut deep = String::from("(;GM[1]FF[4]SZ[9]");
    for i in 0..10_000 {
        deep.push_str(if i % 2 == 0 { ";B[aa]" } else { ";W[]" });
    }
    deep.push(')');
    let err = tengen::go::sgf::parse_str(&deep, Path::new("deep.sgf"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("deep.sgf") && err.contains("10001"),
        "names the file and the depth: {err}"
    );

    // The same depth as nested variations, each one move.
    let mut nested = String::from("(;GM[1]FF[4]SZ[9]");
    for _ in 0..10_000 {
        nested.push_str("(;B[aa]");
    }
    nested.push_str(&")".repeat(10_001));
    let err = tengen::go::sgf::parse_str(&nested, Path::new("nested.sgf"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("nested.sgf"), "{err}");
}

/// Every place tengen starts a process. A new one must be added here after a look at where its command
/// comes from: engines only from the command line or the config file, never from a book, a game record,
/// a model, a session or a keymap.
const SPAWNS: [&str; 4] = [
    // GTP engines and KataGo: the argv from `--engine gtp:…` / `--engine katago…` or the config's `engine`
    "src/engine/process.rs",
    "src/engine/pool.rs",    // only in its tests (`kill`)
    "src/nn/runtime.rs",     // `python3 -m venv` and pip, fixed commands, on `tengen nn setup`
    "src/cli/bench_book.rs", // tengen itself, for the benchmark's child measurements
];

#[test]
fn only_engines_and_fixed_tools_start_processes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![root.join("src")];
    let mut found = Vec::new();
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            if text.contains("Command::new(") || text.contains("process::Command") {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                found.push(rel);
            }
        }
    }
    let unexpected: Vec<&String> = found
        .iter()
        .filter(|f| !SPAWNS.contains(&f.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "new places that start processes: {unexpected:?}"
    );
}

#[test]
fn a_session_binding_keys_to_shell_text_runs_nothing_when_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let evil = format!(
        "[normal]\nprepend_keymap = [ {{ on = \"x\", run = \"!touch {m}\" }}, \
         {{ on = \"y\", run = \"sh -c 'touch {m}'\" }} ]\n",
        m = marker.display()
    );
    let path = dir.path().join("evil.tengen-session");
    let mut rec = Recorder::create(&path).unwrap();
    let actions = [
        Action::Resize {
            width: 80,
            height: 24,
        },
        Action::KeymapFile {
            path: "keymap.toml".into(),
            text: Some(evil),
        },
        Action::Key(Key("x".into())),
        Action::Key(Key("y".into())),
        Action::Key(Key(":".into())),
    ];
    for (i, a) in actions.iter().enumerate() {
        rec.record(i as u64, a).unwrap();
    }
    for c in format!("!touch {}", marker.display()).chars() {
        rec.record(9, &Action::Key(Key(c.to_string()))).unwrap();
    }
    rec.record(10, &Action::Key(Key("enter".into()))).unwrap();
    drop(rec);
    let records = session::read(&path).unwrap();
    let last = session::replay::frames(&records, |_, _| {});
    assert!(!marker.exists(), "replaying a session ran a command");
    assert!(
        last.contains("unknown command"),
        "the `:` line refuses it: {last}"
    );
}

#[test]
fn html_export_writes_no_text_from_the_game_records_it_was_built_from() {
    let dir = tempfile::tempdir().unwrap();
    let tengen = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let book = dir.path().join("b.tengenbook");
    let book = book.to_str().unwrap();
    tengen(&["book", "new", "--size", "5x5", "--komi", "0", "-o", book]);
    let sgf = dir.path().join("evil.sgf");
    std::fs::write(
        &sgf,
        "(;GM[1]FF[4]SZ[5]KM[0]GN[<script>alert('gn')</script>]C[<script>alert('root')</script>]\
         (;B[cc]C[</script><script>alert(1)</script>]LB[cc:<img src=x onerror=alert(2)>];W[bb]N[<b>])\
         (;B[bc]TR[cc]C[\"'><svg onload=alert(3)>]))",
    )
    .unwrap();
    tengen(&[
        "book",
        "import-sgf",
        book,
        "--sgf",
        sgf.to_str().unwrap(),
        "--engine",
        "rollout",
        "--visits",
        "5",
    ]);
    let html = dir.path().join("html");
    tengen(&["book", "export", book, "--html", html.to_str().unwrap()]);
    let mut pages = 0;
    let mut stack = vec![html];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        // `book.js` and `book.css` are constants of the binary; the pages carry the book's data.
        if p.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for bad in ["alert", "onerror", "<img", "<svg", "<b>"] {
            assert!(!text.contains(bad), "{} holds {bad}", p.display());
        }
        assert_eq!(text.matches("<script").count(), 2, "{}", p.display());
        pages += 1;
    }
    assert!(pages >= 3, "the root and the imported lines have pages");
}
