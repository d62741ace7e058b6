//! Reading format-1 snapshots: MessagePack records (metadata, nodes, cached values, marks, end) in the
//! same framing as the log. Books written before format 2 still open; the next compaction rewrites them
//! as format 2.

use super::super::dag::Book;
use super::header::HEADER_LEN_V2;
use super::{
    DERIVED_VERSION, DerivedNode, Ending, NodeId, Record, StoreError, apply, read_records,
};

/// Installs cached values; returns how many nodes took them.
fn apply_derived(book: &mut Book, nodes: Vec<(u32, DerivedNode)>) -> Result<usize, String> {
    let mut count = 0;
    for (id, d) in nodes {
        let node = book
            .get(NodeId(id))
            .ok_or_else(|| format!("cached values for missing node {id}"))?;
        if node.edges.len() != d.edges.len() {
            return Err(format!("cached values of node {id} do not match its moves"));
        }
        let node = book.node_mut(NodeId(id));
        node.values = d.values;
        node.cost = d.cost;
        for (e, (cost, big, pv)) in node.edges.iter_mut().zip(d.edges) {
            e.cost_from_root = cost;
            e.biggest_wl_cost = big;
            e.is_wl_pv = pv;
        }
        count += 1;
    }
    Ok(count)
}

/// Decodes a format-1 snapshot (the whole file, header included). Returns the book and whether cached
/// values covered every node (only looked at with `use_cache`).
pub(super) fn decode(
    bytes: &[u8],
    file: &str,
    use_cache: bool,
) -> Result<(Book, bool), StoreError> {
    let corrupt = |offset: u64, detail: String| StoreError::Corrupt {
        file: file.to_string(),
        offset,
        detail,
    };
    let mut book: Option<Book> = None;
    let mut ended = false;
    let mut cached = 0;
    let read = read_records(bytes, HEADER_LEN_V2, |_, r| match (r, book.as_mut()) {
        (
            Record::Meta {
                meta,
                params,
                nodes,
            },
            None,
        ) => {
            // The count only sizes the arena (bounded by what the file could hold); the end record
            // checks it.
            let cap = (nodes as usize).min(bytes.len() / 16);
            book = Some(Book::empty(meta, params, cap));
            Ok(())
        }
        (_, None) => Err("the snapshot does not start with its metadata".into()),
        (_, Some(_)) if ended => Err("records follow the snapshot's end record".into()),
        (Record::End { nodes }, Some(b)) => {
            if nodes != b.len() as u64 {
                return Err(format!(
                    "the snapshot holds {} nodes, its end record says {nodes}",
                    b.len()
                ));
            }
            ended = true;
            Ok(())
        }
        (Record::Derived { version, nodes }, Some(b)) => {
            if use_cache && version == DERIVED_VERSION {
                cached += apply_derived(b, nodes)?;
            }
            Ok(())
        }
        (r, Some(b)) => apply(b, r),
    });
    // A snapshot is written whole before it is renamed into place: a torn one is damage too.
    let end = match read {
        Ok((_, Ending::Clean)) => bytes.len(),
        Ok((_, Ending::Torn { at, reason })) => return Err(corrupt(at as u64, reason)),
        Err(d) => return Err(corrupt(d.at as u64, d.detail)),
    };
    let book = book.ok_or_else(|| corrupt(0, "the snapshot has no metadata".into()))?;
    if !ended {
        return Err(corrupt(end as u64, "the snapshot has no end record".into()));
    }
    let complete = cached == book.len();
    Ok((book, complete))
}
