//! The parts of `tengen book verify` about damage: a torn log tail, and `--repair`.

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use tengen::book::store::{self, LoadReport, repair};

/// Reports a torn log tail on stderr; returns whether it makes the verification fail (it does unless
/// `allowed`: a damaged final record cannot be told apart from an interrupted write, so a checker
/// that succeeded there would pass a book that lost its last record).
pub fn torn_tail(file: &Path, report: &LoadReport, allowed: bool) -> bool {
    let Some(at) = report.torn_at() else {
        return false;
    };
    eprintln!(
        "{}: the last {} bytes, from byte {at}, are a torn record ({}): an interrupted write, or \
         damage to the last record; they are not part of the book, and the next `book expand` or \
         `book mark` cuts them (`book verify --repair` copies the book without them)",
        store::log_path(file).display(),
        report.torn_bytes,
        report.torn_reason.as_deref().unwrap_or("torn"),
    );
    !allowed
}

/// `book verify --repair FILE`: writes FILE.repaired and lists what it left out.
pub fn repair(file: &Path) -> Result<ExitCode> {
    let r = repair::repair(file)?;
    for note in &r.notes {
        println!("note: {note}");
    }
    for d in &r.dropped {
        println!("dropped: {d}");
    }
    println!(
        "{}: {} nodes ({} from the snapshot, {} log records applied), {}; {} is unchanged",
        r.output.display(),
        r.nodes,
        r.snapshot_nodes,
        r.log_records,
        match r.dropped.len() {
            0 => "nothing dropped".to_string(),
            n => format!("{n} damaged parts dropped"),
        },
        file.display(),
    );
    Ok(ExitCode::SUCCESS)
}
