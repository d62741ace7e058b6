//! Repairing a damaged book (`tengen book verify --repair BOOK`): everything readable is copied to a new
//! book beside the old one (`BOOK.repaired`, never over it), and what could not be kept is listed.
//!
//! What can be saved: a snapshot whose header fails its checksum or whose generation does not match the
//! log's (its body has its own checksums), and every log record that reads and fits the book. Damaged
//! stretches of the log are skipped to the next valid record. A log record is applied only if it fits:
//! its new nodes continue the node ids, a node it replaces is the same position (the same hash), and its
//! moves and parents link to nodes that exist; otherwise it is dropped whole, so that the new book is
//! consistent. A snapshot whose body is damaged cannot be repaired this way (its sections depend on each
//! other); the error says where it is damaged.

use super::super::dag::{Book, NodeId};
use super::header::{HEADER_LEN_V2, read_header_leniently};
use super::log::{next_valid_record, record_at};
use super::{
    BookStore, KIND_LOG, KIND_SNAPSHOT, Record, StoreError, contained, io_err, log_path, snapshot,
    v1,
};
use std::path::{Path, PathBuf};

/// What a repair kept and dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Repaired {
    /// The new book.
    pub output: PathBuf,
    pub nodes: usize,
    pub snapshot_nodes: usize,
    /// Log records applied.
    pub log_records: usize,
    /// What was left out, each naming the file and the place.
    pub dropped: Vec<String>,
    /// Checks that failed without losing anything (a header's checksum, a generation mismatch).
    pub notes: Vec<String>,
}

/// Where the repaired copy of `path` goes.
pub fn repaired_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".repaired");
    PathBuf::from(p)
}

/// Copies what is readable of the book at `path` to [`repaired_path`]; refuses if that exists.
pub fn repair(path: &Path) -> Result<Repaired, StoreError> {
    let output = repaired_path(path);
    if output.exists() || log_path(&output).exists() {
        return Err(StoreError::Exists {
            file: output.display().to_string(),
        });
    }
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(io_err(path))?;
    let (h, problem) = read_header_leniently(&bytes, path)?;
    let mut notes: Vec<String> = problem.into_iter().collect();
    if h.kind != KIND_SNAPSHOT {
        notes.push(format!(
            "{file}: the kind at byte 12 is {}, read as a snapshot",
            h.kind
        ));
    }
    let (mut book, _) = if h.version == 1 {
        v1::decode(&bytes, &file, false)?
    } else {
        snapshot::decode(
            &bytes[h.len..],
            h.len,
            bytes.len(),
            &file,
            false,
            snapshot::CHUNK_BYTES,
            h.version,
        )?
    };
    let snapshot_nodes = book.len();
    let mut dropped = Vec::new();
    let log_records = repair_log(path, h.generation, &mut book, &mut dropped, &mut notes)?;
    crate::book::recompute_everything(&mut book);
    BookStore::create(&output, &book)?;
    Ok(Repaired {
        output,
        nodes: book.len(),
        snapshot_nodes,
        log_records,
        dropped,
        notes,
    })
}

/// Applies what fits of the log to `book`; returns how many records were applied.
fn repair_log(
    path: &Path,
    generation: u64,
    book: &mut Book,
    dropped: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<usize, StoreError> {
    let lpath = log_path(path);
    let lfile = lpath.display().to_string();
    let log = match std::fs::read(&lpath) {
        Ok(log) => log,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io_err(&lpath)(e)),
    };
    let start = match read_header_leniently(&log, &lpath) {
        Ok((h, problem)) => {
            let trusted = problem.is_none();
            notes.extend(problem);
            if h.kind != KIND_LOG {
                notes.push(format!(
                    "{lfile}: the kind at byte 12 is {}, read as a log",
                    h.kind
                ));
            }
            if trusted && h.generation != generation {
                let older = h.generation < generation;
                if older && matches!(contained(book, &log, h.len), Ok(Ok(()))) {
                    notes.push(format!(
                        "{lfile} (generation {}) is older than the snapshot (generation \
                         {generation}) and folded into it; not applied",
                        h.generation
                    ));
                    return Ok(0);
                }
                notes.push(format!(
                    "{lfile} has generation {}, the snapshot {generation}; applied what fits",
                    h.generation
                ));
            }
            h.len
        }
        Err(e) => {
            notes.push(format!(
                "{e}; its records are looked for from byte {HEADER_LEN_V2}"
            ));
            HEADER_LEN_V2
        }
    };
    let mut applied = 0;
    let mut at = start;
    while at < log.len() {
        match record_at(&log, at) {
            Ok((record, next)) => {
                match apply_if_it_fits(book, record) {
                    Ok(()) => applied += 1,
                    Err(why) => dropped.push(format!("{lfile}: the record at byte {at}: {why}")),
                }
                at = next;
            }
            Err(reason) => {
                let next = next_valid_record(&log, at + 1);
                let end = next.unwrap_or(log.len());
                dropped.push(format!("{lfile}: bytes {at}..{end}: {reason}"));
                at = end;
            }
        }
    }
    Ok(applied)
}

/// Applies a log record if it fits the book (see the module's comment); otherwise says why not.
fn apply_if_it_fits(book: &mut Book, record: Record) -> Result<(), String> {
    match record {
        Record::Nodes(nodes) => {
            let before = book.len();
            let engines = book.engines.len();
            let mut n = before;
            let mut built = Vec::with_capacity(nodes.len());
            for (id, stored) in &nodes {
                let i = *id as usize;
                if i > n {
                    return Err(format!("node {id} comes before node {n}"));
                }
                if i < before && book.node(NodeId(*id)).hash != stored.hash {
                    return Err(format!("node {id} is a different position in the book"));
                }
                let refs = [stored.created_by, stored.values_by].into_iter();
                let refs = refs
                    .chain(stored.edges_by.iter().copied())
                    .chain(stored.superseded.iter().map(|s| s.by.0));
                if refs.into_iter().any(|r| r as usize >= engines) {
                    return Err(format!(
                        "node {id} refers to an engine the book does not list"
                    ));
                }
                n = n.max(i + 1);
                built.push((*id, stored.clone().into_node()?));
            }
            let n = n as u32;
            for (id, node) in &built {
                if node.edges.iter().any(|e| e.child.0 >= n)
                    || node.parents.iter().any(|p| p.parent.0 >= n)
                {
                    return Err(format!("node {id} links to a node that does not exist"));
                }
            }
            super::apply(book, Record::Nodes(nodes))
        }
        Record::Marks(marks) => {
            if let Some((id, _)) = marks.iter().find(|(id, _)| *id as usize >= book.len()) {
                return Err(format!("marks for node {id}, which does not exist"));
            }
            super::apply(book, Record::Marks(marks))
        }
        Record::Params(p) => super::apply(book, Record::Params(p)),
        Record::Engines(e) => super::apply(book, Record::Engines(e)),
        Record::Meta { .. } | Record::Derived { .. } | Record::End { .. } => {
            Err("a snapshot's record inside a log".into())
        }
    }
}
