//! The book on disk, crash-safe: a snapshot file plus an append-only log beside it (`BOOK.log`).
//!
//! Both files start with a header (magic, format version, kind, generation and, from format 3, its own
//! CRC-32: `header`). The log is then records, each one `length (u32 LE) | CRC-32 of the payload (u32 LE)
//! | MessagePack payload`; the snapshot is checksummed fixed-width columns (`snapshot`; format-1 snapshots
//! of records are still read, `v1`). An expansion is appended to the log and `fsync`ed before it is
//! reported, so a `kill -9` loses at most the searches in flight. Only a bad *last* record is a torn write
//! and is cut off; a bad record that a valid one follows is damage and the book is refused (`log`).
//! Compaction writes a new snapshot to a temporary file, syncs it, renames it over the old one, then
//! starts an empty log of the new generation the same way; so a log is of its snapshot's generation, or
//! of the one before when a compaction stopped between the two (then the snapshot holds all of it). Any
//! other pair is refused, naming both files. `repair` copies what is readable of a damaged book to a new
//! one. Format and reasons: `docs/book-format.md`.

use super::cost::{CostParams, NodeCost};
use super::dag::{
    Book, BookMeta, Edge, GameCounts, Node, NodeId, ParentLink, SearchValues, SymmetrySet,
};
use super::marks::Marks;
use super::provenance::{EngineRef, Superseded};
use super::values::RecursiveValues;
use crate::engine::EngineId;
use crate::go::{BookHash, Color, Move, Point, Symmetry};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

mod header;
mod log;
mod log_file;
mod record;
pub mod repair;
mod snapshot;
mod v1;

pub use record::{DERIVED_VERSION, DerivedNode, Record, StoredNode};
use record::{apply, check_edges, frame, move_code, touched_by};

use header::{HEADER_LEN, Header, header, read_header};
use log::{Ending, read_records};
use log_file::{apply_log, contained};

pub const MAGIC: &[u8; 8] = b"TENGENBK";
/// The version written. Format 2 changed the snapshot only; format 3 added a checksum to both headers and
/// provenance (which engine added each node and move and set each node's values) to both files; older
/// books read as of unknown origin.
pub const FORMAT_VERSION: u32 = 3;
/// The oldest version still read.
pub const OLDEST_FORMAT_VERSION: u32 = 1;
const KIND_SNAPSHOT: u32 = 0;
const KIND_LOG: u32 = 1;
/// Larger records are refused as corrupt (no honest record comes near this).
const MAX_RECORD: u32 = 1 << 30;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error(
        "{file} is not a tengen book (no `TENGENBK` header at byte 0); create one with `tengen book new`"
    )]
    NotABook { file: String },
    #[error(
        "{file} uses book format {found} (byte 8), this tengen reads formats {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION}; upgrade tengen"
    )]
    Version { file: String, found: u32 },
    #[error(
        "{file} is damaged at byte {offset}: {detail}; it is left as it is (restore it from a backup, \
         or let `tengen book verify --repair BOOK` copy what is readable to a new book)"
    )]
    Corrupt {
        file: String,
        offset: u64,
        detail: String,
    },
    #[error(
        "{log} has generation {log_generation} but {snapshot} has generation {snapshot_generation} \
         (byte 16 of each): {detail}; both files are left as they are, and \
         `tengen book verify --repair {snapshot}` writes what is readable to a new book beside them"
    )]
    Generation {
        snapshot: String,
        snapshot_generation: u64,
        log: String,
        log_generation: u64,
        detail: String,
    },
    #[error("{file} already exists; choose another name or delete it first")]
    Exists { file: String },
    #[error("{file} is being grown by another process; stop it first (or wait for it to finish)")]
    Locked { file: String },
    /// A whole-file write failed; the error names the file.
    #[error("{0}")]
    Write(std::io::Error),
    #[error("cannot encode a record: {0}")]
    Encode(String),
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        file: path.display().to_string(),
        source,
    }
}

/// The log's path for a book file.
pub fn log_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".log");
    PathBuf::from(p)
}

/// What loading found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadReport {
    pub generation: u64,
    /// The format version of the snapshot.
    pub version: u32,
    pub log_records: usize,
    /// Bytes at the end of the log that were torn or corrupt and are not part of the book.
    pub torn_bytes: u64,
    pub torn_reason: Option<String>,
    /// The log belonged to an older snapshot (a compaction was interrupted) and was ignored.
    pub stale_log: bool,
    /// Where the valid log ends (appends continue here; a torn tail starts here).
    valid_log_len: u64,
    /// Whether the snapshot's cached values and costs were installed for every node.
    snapshot_cached: bool,
    log_touched: Vec<NodeId>,
    log_changes_params: bool,
}

impl LoadReport {
    /// The byte offset in the log where a torn tail starts, if the log has one.
    pub fn torn_at(&self) -> Option<u64> {
        (self.torn_bytes > 0).then_some(self.valid_log_len)
    }

    /// Whether the snapshot's cached values cover it and the log keeps the parameters.
    fn cache_usable(&self) -> bool {
        self.snapshot_cached && !self.log_changes_params
    }
}

/// Loads a book (snapshot plus log) and recomputes its values and costs.
pub fn load(path: &Path) -> Result<(Book, LoadReport), StoreError> {
    let (mut book, report) = load_stored(path, true)?;
    if report.cache_usable() {
        // Only what the log changed, and the nodes whose cost depends on the per-run re-expansion flag.
        let limit = book.params.max_visits_for_re_expansion;
        let mut touched = report.log_touched.clone();
        touched.extend(
            book.nodes()
                .filter(|(_, n)| n.can_expand && n.values.visits <= limit)
                .map(|(id, _)| id),
        );
        touched.retain(|id| id.index() < book.len());
        touched.sort();
        touched.dedup();
        if !touched.is_empty() {
            super::recompute_after_change(&mut book, &touched);
        }
    } else {
        super::recompute_everything(&mut book);
    }
    Ok((book, report))
}

/// Loads the stored data only (values and costs are left at zero).
pub fn load_without_recompute(path: &Path) -> Result<(Book, LoadReport), StoreError> {
    load_stored(path, false)
}

/// Reads the snapshot's header and body. Returns the header, the book and whether the cached values
/// were installed.
fn read_snapshot(path: &Path, use_cache: bool) -> Result<(Header, Book, bool), StoreError> {
    let file = path.display().to_string();
    let mut input = File::open(path).map_err(io_err(path))?;
    let len = input.metadata().map_err(io_err(path))?.len() as usize;
    let mut head = vec![0u8; len.min(HEADER_LEN)];
    input.read_exact(&mut head).map_err(io_err(path))?;
    let h = read_header(&head, path)?;
    if h.kind != KIND_SNAPSHOT {
        return Err(StoreError::Corrupt {
            file,
            offset: 12,
            detail: format!(
                "the kind is {}, a book snapshot's is {KIND_SNAPSHOT}",
                h.kind
            ),
        });
    }
    // A format-1 or 2 header is shorter than the bytes read: those belong to the contents.
    let rest = std::io::Read::chain(&head[h.len..], input);
    let (book, cached) = if h.version == 1 {
        // Format 1 is decoded from memory, the whole file at once.
        let mut bytes = head[..h.len].to_vec();
        let mut rest = rest;
        rest.read_to_end(&mut bytes).map_err(io_err(path))?;
        v1::decode(&bytes, &file, use_cache)?
    } else {
        snapshot::decode(
            rest,
            h.len,
            len,
            &file,
            use_cache,
            snapshot::CHUNK_BYTES,
            h.version,
        )?
    };
    Ok((h, book, cached))
}

/// Reads the snapshot (with its cached values when `use_cache`) and applies the log.
fn load_stored(path: &Path, use_cache: bool) -> Result<(Book, LoadReport), StoreError> {
    let (h, mut book, cached) = read_snapshot(path, use_cache)?;
    let mut report = LoadReport {
        generation: h.generation,
        version: h.version,
        snapshot_cached: cached,
        ..LoadReport::default()
    };
    apply_log(path, h.generation, &mut book, &mut report)?;
    let checked = if h.version == 1 {
        check_edges(&book, book.nodes().map(|(id, _)| id))
    } else {
        check_edges(&book, report.log_touched.iter().copied())
    };
    let corrupt = |detail: String| StoreError::Corrupt {
        file: path.display().to_string(),
        offset: 0,
        detail,
    };
    checked.map_err(corrupt)?;
    book.check_engine_refs().map_err(corrupt)?;
    Ok((book, report))
}

/// Writes `bytes` to `path` whole or not at all (a failed write leaves the previous file and no partial
/// copy).
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    crate::files::write_whole(path, bytes).map_err(StoreError::Write)
}

/// Encodes a whole book as a snapshot (the current format, cached values included).
pub fn snapshot_bytes(book: &Book, generation: u64) -> Result<Vec<u8>, StoreError> {
    snapshot::encode(book, generation)
}

/// Only one process may append to a log; the lock goes away with the process, even on `kill -9`.
fn lock(log: &File, path: &Path) -> Result<(), StoreError> {
    log.try_lock().map_err(|e| match e {
        std::fs::TryLockError::WouldBlock => StoreError::Locked {
            file: path.display().to_string(),
        },
        std::fs::TryLockError::Error(source) => StoreError::Io {
            file: path.display().to_string(),
            source,
        },
    })
}

/// An open book file that durable changes are appended to.
pub struct BookStore {
    path: PathBuf,
    log: File,
    generation: u64,
    /// How many entries of the book's engine table the snapshot and the log hold.
    engines_stored: usize,
}

impl BookStore {
    /// Creates a new book file (refusing to overwrite one) and its empty log.
    pub fn create(path: &Path, book: &Book) -> Result<BookStore, StoreError> {
        if path.exists() {
            return Err(StoreError::Exists {
                file: path.display().to_string(),
            });
        }
        write_atomically(path, &snapshot_bytes(book, 1)?)?;
        Self::start_log(path, 1, book.engines.len())
    }

    fn start_log(
        path: &Path,
        generation: u64,
        engines_stored: usize,
    ) -> Result<BookStore, StoreError> {
        write_atomically(&log_path(path), &header(KIND_LOG, generation))?;
        Self::attach(path, generation, engines_stored)
    }

    /// Opens the book's existing log for appends and takes the lock on it.
    fn attach(
        path: &Path,
        generation: u64,
        engines_stored: usize,
    ) -> Result<BookStore, StoreError> {
        let lpath = log_path(path);
        let log = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&lpath)
            .map_err(io_err(&lpath))?;
        lock(&log, &lpath)?;
        Ok(BookStore {
            path: path.to_path_buf(),
            log,
            generation,
            engines_stored,
        })
    }

    /// Opens a book for growing: loads it, cuts a torn log tail, and keeps the log open for appends.
    pub fn open(path: &Path) -> Result<(BookStore, Book, LoadReport), StoreError> {
        let (book, report) = load(path)?;
        let lpath = log_path(path);
        if report.version < FORMAT_VERSION {
            // Records of this version must not go into a log whose header says an older one: upgrade
            // the pair first (the old parts of the book are of unknown origin).
            // A missing log is started whole first, so that a compaction cut short (a full disk) leaves
            // a readable pair behind, never an empty log.
            let mut store = if lpath.exists() {
                Self::attach(path, report.generation, book.engines.len())?
            } else {
                Self::start_log(path, report.generation, book.engines.len())?
            };
            store.compact(&book)?;
            return Ok((store, book, report));
        }
        if report.stale_log || !lpath.exists() {
            let store = Self::start_log(path, report.generation, book.engines.len())?;
            return Ok((store, book, report));
        }
        let store = Self::attach(path, report.generation, book.engines.len())?;
        if report.torn_bytes > 0 {
            store
                .log
                .set_len(report.valid_log_len)
                .map_err(io_err(&lpath))?;
            store.log.sync_all().map_err(io_err(&lpath))?;
        }
        Ok((store, book, report))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends records and makes them durable before returning.
    pub fn append(&mut self, records: &[Record]) -> Result<(), StoreError> {
        let mut bytes = Vec::new();
        for r in records {
            frame(r, &mut bytes)?;
        }
        let lpath = log_path(&self.path);
        self.log.write_all(&bytes).map_err(io_err(&lpath))?;
        self.log.sync_data().map_err(io_err(&lpath))
    }

    /// Appends the current state of the given nodes (new ones in id order) and their marks.
    pub fn append_nodes(&mut self, book: &Book, ids: &[NodeId]) -> Result<(), StoreError> {
        let mut ids = ids.to_vec();
        ids.sort();
        ids.dedup();
        let nodes = ids
            .iter()
            .map(|&id| (id.0, StoredNode::from_book(book, id)))
            .collect();
        let mut records = Vec::with_capacity(2);
        if book.engines.len() > self.engines_stored {
            let new = (self.engines_stored..book.engines.len())
                .map(|i| (i as u16, book.engines[i].clone()))
                .collect();
            records.push(Record::Engines(new));
        }
        records.push(Record::Nodes(nodes));
        self.append(&records)?;
        self.engines_stored = book.engines.len();
        Ok(())
    }

    /// Appends the marks the given nodes have now in `book` (a node without marks records that it has none).
    pub fn append_marks(&mut self, book: &Book, ids: &[NodeId]) -> Result<(), StoreError> {
        let marks = ids
            .iter()
            .map(|id| (id.0, book.marks.get(id).copied().unwrap_or_default()))
            .collect();
        self.append(&[Record::Marks(marks)])
    }

    /// Folds the log into a new snapshot.
    pub fn compact(&mut self, book: &Book) -> Result<(), StoreError> {
        let generation = self.generation + 1;
        write_atomically(&self.path, &snapshot_bytes(book, generation)?)?;
        *self = Self::start_log(&self.path, generation, book.engines.len())?;
        Ok(())
    }

    /// The size of the log in bytes (to decide when to compact).
    pub fn log_len(&self) -> u64 {
        self.log.metadata().map(|m| m.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod damage_tests;
#[cfg(test)]
mod tests;
