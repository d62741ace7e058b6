//! The fuzz targets' checks run over their seed corpora (the small files in `.ci/fuzz/seeds/TARGET` and the
//! shared data of each format) and simple mutations of them: CI's smoke version of `cargo fuzz` (full runs
//! and their figures: `docs/reliability.md`).

#[path = "../.ci/fuzz/checks.rs"]
mod checks;

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Files under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .expect("readable")
                    .filter_map(|e| e.ok())
                    .map(|e| e.path()),
            );
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn shared(under: &str, suffix: &str) -> Vec<PathBuf> {
    files(&Path::new(ROOT).join("../shared/data").join(under), suffix)
}

/// The files kept beside the fuzz targets for `target`; there is at least one. With
/// `FUZZ_SMOKE_CORPUS=1`, also the local corpus a fuzzer grew (`.ci/fuzz/corpus/TARGET`, not in git): a
/// replay of everything a run found interesting against the current code.
fn seeds(target: &str) -> Vec<PathBuf> {
    let mut found = files(&Path::new(ROOT).join(".ci/fuzz/seeds").join(target), "");
    assert!(!found.is_empty(), "no seeds for {target}");
    found.extend(corpus(target));
    found
}

/// The local corpus of `target` when `FUZZ_SMOKE_CORPUS=1` (see [`seeds`]), else nothing.
fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(ROOT).join(".ci/fuzz/corpus").join(target);
    match std::env::var_os("FUZZ_SMOKE_CORPUS") {
        Some(v) if v == "1" && dir.is_dir() => files(&dir, ""),
        _ => Vec::new(),
    }
}

/// Deterministic mutations: truncations, a flipped byte, a duplicated slice.
fn mutations(data: &[u8]) -> Vec<Vec<u8>> {
    let n = data.len();
    let mut out = vec![data.to_vec()];
    for cut in [n / 3, n / 2, n.saturating_sub(1)] {
        out.push(data[..cut].to_vec());
    }
    if n > 0 {
        let mut flipped = data.to_vec();
        flipped[n / 2] ^= 0x5d;
        out.push(flipped);
        let mut doubled = data[..n / 2].to_vec();
        doubled.extend_from_slice(data);
        out.push(doubled);
    }
    out
}

/// The check of a target by its name (regression files are named `TARGET-what-it-was.ext`).
fn check(target: &str, data: &[u8]) {
    match target {
        "sgf" => checks::sgf(data),
        "records" | "records_text" => checks::records_text(data),
        "book_store" => checks::book_store(data),
        "book_log" => checks::book_log(data),
        "book_header" => checks::book_header(data),
        "katabook" => checks::katabook(data),
        "model" => checks::model(data),
        "problem" => checks::problem(data),
        "session" => checks::session(data),
        "config" => checks::config(data),
        "katago_json" => checks::katago_json(data),
        "gtp" => checks::gtp(data),
        "engine_lines" => checks::engine_lines(data),
        other => panic!("unknown fuzz target {other}"),
    }
}

fn run_over(target: &str, paths: &[PathBuf]) {
    for f in paths {
        let data = std::fs::read(f).expect("readable");
        for m in mutations(&data) {
            check(target, &m);
        }
    }
}

#[test]
fn sgf_target_over_the_game_records() {
    let files = shared("games", ".sgf");
    assert!(files.len() > 400);
    run_over("sgf", &files);
}

#[test]
fn records_text_target_over_samples() {
    let samples: [&[u8]; 6] = [
        b"{ 0 1.5 3 { +E5 1.5 3 { -C3 0.5 2 } } }",
        b"{ 0 1 2 { +Z9 1 1 } }",
        br#"{"size":"9x9","moves":"E5 C5","winrates":{"4.5":0.8,"5.5":0.35}}"#,
        br#"{"size":"9x9","moves":"E5 E5","winrates":{"4.25":2.0}}"#,
        b"koPOSITIONALscoreAREAtaxNONEsui1",
        b"D4 pass C3, Q16",
    ];
    for s in samples {
        mutations(s).iter().for_each(|m| checks::records_text(m));
    }
}

#[test]
fn book_store_target_over_small_books() {
    run_over("book_store", &seeds("book_store"));
}

#[test]
fn book_log_and_header_targets_over_their_seeds() {
    run_over("book_log", &seeds("book_log"));
    run_over("book_header", &seeds("book_header"));
}

#[test]
fn katabook_target_over_small_and_shared_books() {
    let mut all = seeds("katabook");
    all.extend(shared("katabook", ".katabook"));
    run_over("katabook", &all);
}

#[test]
fn model_target_over_tiny_models() {
    run_over("model", &seeds("model"));
}

#[test]
fn problem_target_over_the_endgame_problems() {
    let mut all = shared("endgame-dev", ".sgf");
    assert!(all.len() >= 40);
    all.extend(corpus("problem"));
    run_over("problem", &all);
}

#[test]
fn session_target_over_recordings() {
    run_over("session", &seeds("session"));
}

#[test]
fn config_target_over_keymaps_themes_and_configs() {
    let mut all = seeds("config");
    all.extend(files(&Path::new(ROOT).join("themes"), ".toml"));
    run_over("config", &all);
}

#[test]
fn katago_json_target_over_real_replies() {
    run_over("katago_json", &seeds("katago_json"));
}

#[test]
fn gtp_target_over_answers_and_analysis_lines() {
    run_over("gtp", &seeds("gtp"));
}

#[test]
fn engine_lines_target_over_engine_output() {
    run_over("engine_lines", &seeds("engine_lines"));
}

/// Every input a fuzzer found a bug with stays a test (`tests/regressions/`, named after the target).
#[test]
fn fuzz_findings_stay_fixed() {
    let dir = Path::new(ROOT).join("tests/regressions");
    let mut found = 0;
    for path in files(&dir, "") {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let target = name
            .split_once('-')
            .map(|(t, _)| t)
            .unwrap_or_else(|| panic!("regression file {name}: name it TARGET-what.ext"));
        check(target, &std::fs::read(&path).expect("readable"));
        found += 1;
    }
    assert!(found > 0);
}
