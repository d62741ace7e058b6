//! The fuzz targets' checks run over the seed corpora (every file in `../shared/data`) and simple mutations
//! of them: CI's smoke version of `cargo fuzz` (full runs and their figures: `docs/reliability.md`).

#[path = "../.ci/fuzz/checks.rs"]
mod checks;

use std::path::{Path, PathBuf};

fn seeds(under: &str, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack =
        vec![Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")).join(under)];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .expect("readable")
                    .filter_map(|e| e.ok())
                    .map(|e| e.path()),
            );
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
    out.sort();
    out
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

#[test]
fn sgf_target_over_the_game_records() {
    let files = seeds("games", "sgf");
    assert!(files.len() > 400);
    for f in files {
        let data = std::fs::read(&f).expect("readable");
        mutations(&data).iter().for_each(|m| checks::sgf(m));
    }
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

/// Every input a fuzzer found a bug with stays a test (`tests/regressions/`, named after the bug).
#[test]
fn fuzz_findings_stay_fixed() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/regressions"));
    let mut found = 0;
    for entry in std::fs::read_dir(dir).expect("the regression folder exists") {
        let path = entry.expect("readable").path();
        let data = std::fs::read(&path).expect("readable");
        match path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
        {
            n if n.starts_with("sgf-") => checks::sgf(&data),
            n if n.starts_with("records-") => checks::records_text(&data),
            n => panic!("unknown regression file {n}: name it after its target"),
        }
        found += 1;
    }
    assert!(found > 0);
}
