//! Applying the log to the snapshot's book: which log belongs to which snapshot (the generation rule), and
//! damage in the log reported with the file and the offset. The rule: `docs/book-format.md`, *Snapshots
//! and compaction*.

use super::log::{Damage, Ending, read_records};
use super::{
    Book, Header, KIND_LOG, LoadReport, NodeId, Record, StoreError, apply, io_err, log_path,
    read_header, touched_by,
};
use std::path::Path;

/// The log's header, which must be a log's (a missing magic is damage here: the book exists).
fn read_log_header(log: &[u8], lpath: &Path) -> Result<Header, StoreError> {
    let lfile = lpath.display().to_string();
    let h = read_header(log, lpath).map_err(|e| match e {
        StoreError::NotABook { file } => StoreError::Corrupt {
            file,
            offset: 0,
            detail: "the log does not start with `TENGENBK`".into(),
        },
        e => e,
    })?;
    if h.kind != KIND_LOG {
        return Err(StoreError::Corrupt {
            file: lfile,
            offset: 12,
            detail: format!("the kind is {}, a log's is {KIND_LOG}", h.kind),
        });
    }
    Ok(h)
}

fn damaged(lpath: &Path) -> impl Fn(Damage) -> StoreError + '_ {
    move |d| StoreError::Corrupt {
        file: lpath.display().to_string(),
        offset: d.at as u64,
        detail: d.detail,
    }
}

/// Whether everything a log records is in `book`: every node under the same id with the same hash, and
/// the marks each node has after the log. That is what a log that a compaction has already folded into
/// the snapshot looks like. `Err` when the log has damage.
pub(super) fn contained(
    book: &Book,
    log: &[u8],
    start: usize,
) -> Result<Result<(), String>, Damage> {
    let mut missing = None;
    let mut marks = std::collections::HashMap::new();
    read_records(log, start, |at, r| {
        match (&r, &missing) {
            (Record::Nodes(nodes), None) => {
                let absent = nodes
                    .iter()
                    .find(|(id, node)| book.get(NodeId(*id)).map(|n| n.hash) != Some(node.hash));
                if let Some((id, _)) = absent {
                    missing = Some(format!(
                        "node {id} of the log's record at byte {at} is not in the snapshot"
                    ));
                }
            }
            (Record::Marks(m), None) => marks.extend(m.iter().map(|(id, m)| (*id, (*m, at)))),
            _ => {}
        }
        Ok(())
    })?;
    for (id, (m, at)) in marks {
        let held = book.marks.get(&NodeId(id)).copied().unwrap_or_default();
        if missing.is_none() && held != m {
            missing = Some(format!(
                "the marks of node {id} in the log's record at byte {at} are not in the snapshot"
            ));
        }
    }
    Ok(missing.map_or(Ok(()), Err))
}

/// Applies the log at `lpath` (if there is one) to the snapshot's book, following the generation rule:
/// a log of the snapshot's generation is applied; one of the generation before, whose every node the
/// snapshot holds, was folded into it by a compaction that stopped before starting the new log, and is
/// stale; any other generation is an error naming both files.
pub(super) fn apply_log(
    path: &Path,
    generation: u64,
    book: &mut Book,
    report: &mut LoadReport,
) -> Result<(), StoreError> {
    let lpath = log_path(path);
    let log = match std::fs::read(&lpath) {
        Ok(log) => log,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(&lpath)(e)),
    };
    let lh = read_log_header(&log, &lpath)?;
    let mismatch = |detail: String| StoreError::Generation {
        snapshot: path.display().to_string(),
        snapshot_generation: generation,
        log: lpath.display().to_string(),
        log_generation: lh.generation,
        detail,
    };
    if lh.generation != generation {
        if lh.generation.checked_add(1) != Some(generation) {
            return Err(mismatch(
                "a log is either of its snapshot's generation or, after an interrupted \
                 compaction, of the one before"
                    .into(),
            ));
        }
        return match contained(book, &log, lh.len).map_err(damaged(&lpath))? {
            Ok(()) => {
                report.stale_log = true;
                Ok(())
            }
            Err(d) => Err(mismatch(format!(
                "the log is of the generation before, but not folded into the snapshot: {d}"
            ))),
        };
    }
    let (touched, params) = (&mut report.log_touched, &mut report.log_changes_params);
    let (count, ending) = read_records(&log, lh.len, |_, r| {
        *params |= touched_by(&r, touched);
        apply(book, r)
    })
    .map_err(damaged(&lpath))?;
    report.log_records = count;
    report.valid_log_len = log.len() as u64;
    if let Ending::Torn { at, reason } = ending {
        report.torn_bytes = (log.len() - at) as u64;
        report.torn_reason = Some(reason);
        report.valid_log_len = at as u64;
    }
    Ok(())
}
