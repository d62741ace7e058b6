//! Snapshot formats 2 and 3: the book as fixed-width little-endian columns (nodes, moves, parents, cached
//! values, cached move costs, marks; format 3 adds provenance: node and move engines and superseded
//! values), each a section with its own CRC-32, after the common header (24 bytes in format 2, 32 with its
//! checksum in format 3).
//!
//! Why columns and not MessagePack records: a 1,000,000-node book must load in well under a second.
//! Decoding MessagePack went through serde per field and allocated a vector per node for its moves,
//! another for its parents and a third for its cached move costs, only to copy them again. Fixed widths
//! let the reader check every section's size against the file before allocating anything (a header
//! claiming a billion nodes cannot make it reserve a billion nodes' memory), stream the file through a
//! small buffer section by section, checksumming each as it goes, and build each node with exactly one
//! allocation per non-empty list. Layout and reasons: `docs/book-format.md`.

use super::super::cost::{CostParams, NodeCost};
use super::super::dag::{
    Book, BookMeta, Edge, GameCounts, Node, NodeId, ParentLink, SearchValues, SymmetrySet,
};
use super::super::marks::Marks;
use super::super::provenance::{EngineRef, Superseded};
use super::super::values::RecursiveValues;
use super::{DERIVED_VERSION, HEADER_LEN, KIND_SNAPSHOT, StoreError, header, move_code};
use crate::go::{BookHash, Color, Move, Point, Symmetry};
use serde::{Deserialize, Serialize};
use std::io::Read;

mod columns;
mod reader;
use columns::*;
use reader::*;

const SECTION_HEADER: usize = 24;
/// hash (32) | to move, self-symmetries, to canonical, flags (4) | moves, parents (8) | not-in-book (72)
pub(super) const NODE_WIDTH: usize = 116;
/// move (2) | symmetry to the child (1) | reserved (1) | child (4) | prior f32 (4)
const EDGE_WIDTH: usize = 12;
/// parent (4) | move in the parent (2)
const PARENT_WIDTH: usize = 6;
/// recursive values (80) | min depth (4) | four costs (32) | best parent (4) | expansion is WL-PV (1)
const VALUES_WIDTH: usize = 121;
/// cost from the root (8) | biggest WL cost (8) | is WL-PV (1)
const EDGE_COST_WIDTH: usize = 17;
/// node (4) | bonus, expand, visits (24) | branch (4)
const MARK_WIDTH: usize = 32;
/// engine that added the node (2) | engine that set its values (2)
const NODE_PROV_WIDTH: usize = 4;
/// engine that added the move (2)
const EDGE_PROV_WIDTH: usize = 2;
/// node (4) | engine (2) | its values, 9 × f64 (72)
const SUPERSEDED_WIDTH: usize = 78;
/// games, scored, Black's wins in half points (4 each)
const GAMES_WIDTH: usize = 12;

/// The sections in file order: tag and record width (`None`: one MessagePack value).
const META: ([u8; 4], Option<usize>) = (*b"META", None);
const NODES: ([u8; 4], Option<usize>) = (*b"NODE", Some(NODE_WIDTH));
const EDGES: ([u8; 4], Option<usize>) = (*b"EDGE", Some(EDGE_WIDTH));
const PARENTS: ([u8; 4], Option<usize>) = (*b"PRNT", Some(PARENT_WIDTH));
const VALUES: ([u8; 4], Option<usize>) = (*b"VALS", Some(VALUES_WIDTH));
const EDGE_COSTS: ([u8; 4], Option<usize>) = (*b"ECST", Some(EDGE_COST_WIDTH));
const MARKS: ([u8; 4], Option<usize>) = (*b"MARK", Some(MARK_WIDTH));
const NODE_PROV: ([u8; 4], Option<usize>) = (*b"NPRV", Some(NODE_PROV_WIDTH));
const EDGE_PROV: ([u8; 4], Option<usize>) = (*b"EPRV", Some(EDGE_PROV_WIDTH));
const SUPERSEDED: ([u8; 4], Option<usize>) = (*b"SUPR", Some(SUPERSEDED_WIDTH));
/// Optional, last: the record games on every move, in edge order. Written only for books that carry
/// games, so other books keep their layout (and older readers still read them).
const GAMES: ([u8; 4], Option<usize>) = (*b"GAME", Some(GAMES_WIDTH));

/// What the META section holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SnapshotMeta {
    meta: BookMeta,
    params: CostParams,
    /// The [`DERIVED_VERSION`] the cached values were computed with.
    derived_version: u32,
    /// The engines provenance refers to (format 3; entry 0 is the unknown engine).
    #[serde(default)]
    engines: Vec<crate::engine::EngineId>,
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends one section: its header (CRC and length filled in once the payload is written) and payload.
fn section(out: &mut Vec<u8>, tag: [u8; 4], count: usize, fill: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(&tag);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(count as u64).to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    let body = out.len();
    fill(out);
    let len = out.len() - body;
    let crc = crc32fast::hash(&out[body..]);
    out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
    out[start + 16..start + 24].copy_from_slice(&(len as u64).to_le_bytes());
}

/// Encodes a whole book, cached values included, as a format-2 snapshot.
pub(super) fn encode(book: &Book, generation: u64) -> Result<Vec<u8>, StoreError> {
    let meta = rmp_serde::to_vec(&SnapshotMeta {
        meta: book.meta.clone(),
        params: book.params.clone(),
        derived_version: DERIVED_VERSION,
        engines: book.engines.clone(),
    })
    .map_err(|e| StoreError::Encode(e.to_string()))?;
    let n = book.len();
    let edges = book.edge_count();
    let parents: usize = book.nodes.iter().map(|n| n.parents.len()).sum();
    let mut superseded: Vec<(NodeId, Superseded)> = book
        .superseded
        .iter()
        .flat_map(|(id, kept)| kept.iter().map(|s| (*id, *s)))
        .collect();
    superseded.sort_by_key(|(id, s)| (*id, s.by));
    let total = HEADER_LEN
        + 10 * SECTION_HEADER
        + n * NODE_PROV_WIDTH
        + edges * EDGE_PROV_WIDTH
        + superseded.len() * SUPERSEDED_WIDTH
        + meta.len()
        + n * (NODE_WIDTH + VALUES_WIDTH)
        + edges * (EDGE_WIDTH + EDGE_COST_WIDTH)
        + parents * PARENT_WIDTH
        + book.marks.len() * MARK_WIDTH;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&header(KIND_SNAPSHOT, generation));
    section(&mut out, META.0, 1, |out| out.extend_from_slice(&meta));
    section(&mut out, NODES.0, n, |out| {
        for node in &book.nodes {
            out.extend_from_slice(&node.hash.state.to_le_bytes());
            out.extend_from_slice(&node.hash.history.to_le_bytes());
            out.push(node.to_move as u8);
            out.push(node.self_symmetries.0);
            out.push(node.to_canonical.id());
            out.push(u8::from(node.can_expand));
            put_u32(out, node.edges.len() as u32);
            put_u32(out, node.parents.len() as u32);
            put_values(out, &node.not_in_book);
        }
    });
    section(&mut out, EDGES.0, edges, |out| {
        for e in book.nodes.iter().flat_map(|n| n.edges.iter()) {
            out.extend_from_slice(&move_code(e.mv).to_le_bytes());
            out.push(e.to_child.id());
            out.push(0);
            put_u32(out, e.child.0);
            out.extend_from_slice(&e.prior.to_le_bytes());
        }
    });
    section(&mut out, PARENTS.0, parents, |out| {
        for p in book.nodes.iter().flat_map(|n| n.parents.iter()) {
            put_u32(out, p.parent.0);
            out.extend_from_slice(&move_code(p.mv).to_le_bytes());
        }
    });
    section(&mut out, VALUES.0, n, |out| {
        for node in &book.nodes {
            let v = &node.values;
            for x in [
                v.win_loss,
                v.score_mean,
                v.sharp_score,
                v.win_loss_lcb,
                v.win_loss_ucb,
                v.score_lcb,
                v.score_ucb,
                v.weight,
                v.visits,
                v.adjusted_visits,
            ] {
                put_f64(out, x);
            }
            let c = &node.cost;
            put_u32(out, c.min_depth);
            for x in [
                c.min_cost_from_root,
                c.expansion_cost,
                c.min_cost_wl_pv,
                c.biggest_wl_cost,
            ] {
                put_f64(out, x);
            }
            put_u32(out, c.best_parent);
            out.push(u8::from(c.expansion_is_wl_pv));
        }
    });
    section(&mut out, EDGE_COSTS.0, edges, |out| {
        for e in book.nodes.iter().flat_map(|n| n.edges.iter()) {
            put_f64(out, e.cost_from_root);
            put_f64(out, e.biggest_wl_cost);
            out.push(u8::from(e.is_wl_pv));
        }
    });
    let mut marks: Vec<(NodeId, Marks)> = book.marks.iter().map(|(id, m)| (*id, *m)).collect();
    marks.sort_by_key(|m| m.0);
    section(&mut out, MARKS.0, marks.len(), |out| {
        for (id, m) in &marks {
            put_u32(out, id.0);
            put_f64(out, m.bonus);
            put_f64(out, m.expand);
            put_f64(out, m.visits);
            put_u32(out, m.branch);
        }
    });
    encode_provenance(&mut out, book, &superseded);
    if book.has_games() {
        section(&mut out, GAMES.0, edges, |out| {
            for e in book.nodes.iter().flat_map(|n| n.edges.iter()) {
                put_u32(out, e.games.games);
                put_u32(out, e.games.scored);
                put_u32(out, e.games.black_wins_x2);
            }
        });
    }
    Ok(out)
}

fn put_values(out: &mut Vec<u8>, v: &SearchValues) {
    for x in [
        v.win_loss,
        v.score_mean,
        v.sharp_score,
        v.win_loss_error,
        v.score_error,
        v.score_stdev,
        v.max_policy,
        v.weight,
        v.visits,
    ] {
        put_f64(out, x);
    }
}

fn values_at(rec: &[u8], at: usize) -> SearchValues {
    let f = |k: usize| f64_at(rec, at + 8 * k);
    SearchValues {
        win_loss: f(0),
        score_mean: f(1),
        sharp_score: f(2),
        win_loss_error: f(3),
        score_error: f(4),
        score_stdev: f(5),
        max_policy: f(6),
        weight: f(7),
        visits: f(8),
    }
}

/// The format-3 sections: per node and per move the engine (`Book::engines`), then superseded values.
fn encode_provenance(out: &mut Vec<u8>, book: &Book, superseded: &[(NodeId, Superseded)]) {
    section(out, NODE_PROV.0, book.len(), |out| {
        for node in &book.nodes {
            out.extend_from_slice(&node.created_by.0.to_le_bytes());
            out.extend_from_slice(&node.values_by.0.to_le_bytes());
        }
    });
    section(out, EDGE_PROV.0, book.edge_count(), |out| {
        for e in book.nodes.iter().flat_map(|n| n.edges.iter()) {
            out.extend_from_slice(&e.added_by.0.to_le_bytes());
        }
    });
    section(out, SUPERSEDED.0, superseded.len(), |out| {
        for (id, s) in superseded {
            put_u32(out, id.0);
            out.extend_from_slice(&s.by.0.to_le_bytes());
            put_values(out, &s.values);
        }
    });
}

/// Reads the format-3 provenance sections into `book` (engine references are checked by the caller).
fn read_provenance(r: &mut Reader<'_, impl Read>, book: &mut Book) -> Result<(), StoreError> {
    let head = r.head(NODE_PROV)?;
    let edge_count = book.edge_count();
    if head.count != book.len() {
        return Err(r.corrupt(
            head.at,
            format!(
                "provenance for {} nodes in a book of {}",
                head.count,
                book.len()
            ),
        ));
    }
    let nodes = &mut book.nodes;
    r.records(&head, NODE_PROV_WIDTH, |i, p, _| {
        nodes[i].created_by = EngineRef(u16::from_le_bytes(le(p, 0)));
        nodes[i].values_by = EngineRef(u16::from_le_bytes(le(p, 2)));
        Ok(())
    })?;
    let head = r.head(EDGE_PROV)?;
    if head.count != edge_count {
        return Err(r.corrupt(
            head.at,
            format!(
                "provenance for {} moves in a book of {edge_count}",
                head.count
            ),
        ));
    }
    let (mut i, mut j) = (0usize, 0usize);
    r.records(&head, EDGE_PROV_WIDTH, |_, p, _| {
        while j == nodes[i].edges.len() {
            (i, j) = (i + 1, 0);
        }
        nodes[i].edges[j].added_by = EngineRef(u16::from_le_bytes(le(p, 0)));
        j += 1;
        Ok(())
    })?;
    let head = r.head(SUPERSEDED)?;
    let (file, n) = (r.file, book.len());
    let kept = &mut book.superseded;
    r.records(&head, SUPERSEDED_WIDTH, |k, s, at| {
        let id = link(file, n, u32_at(s, 0), at, "superseded values record", k)?;
        kept.entry(id).or_default().push(Superseded {
            by: EngineRef(u16::from_le_bytes(le(s, 4))),
            values: values_at(s, 6),
        });
        Ok(())
    })
}

/// How much of a section is read at a time: big enough that reading is mostly copying, small enough to
/// stay in the CPU's cache. (Reading a whole 272 MB snapshot into fresh memory first cost more than
/// building the book from it: the kernel had to fault in and zero every page of the buffer.)
pub(super) const CHUNK_BYTES: usize = 1 << 20;

/// Decodes a format-2 or 3 snapshot from `input`, which is positioned just after the file header (at
/// byte `start`); `len` is the file's length. Returns the book and whether its cached values and costs were installed
/// (`use_cache` and a cache of the current [`DERIVED_VERSION`]).
///
/// The file is read once, front to back, `chunk` bytes at a time. Each section is checksummed as it
/// streams by and nothing from it is used by a later section (or returned) unless its checksum passed;
/// every count is checked against the file's length or an earlier, verified section before anything
/// is allocated for it.
pub(super) fn decode(
    input: impl Read,
    start: usize,
    len: usize,
    file: &str,
    use_cache: bool,
    chunk: usize,
    version: u32,
) -> Result<(Book, bool), StoreError> {
    let mut r = Reader {
        input,
        at: start,
        len,
        file,
        buf: Vec::with_capacity(chunk.min(len)),
        chunk,
    };
    let meta = r.head(META)?;
    let SnapshotMeta {
        meta: book_meta,
        params,
        derived_version,
        engines,
    } = rmp_serde::from_slice(&r.payload(&meta)?)
        .map_err(|e| r.corrupt(meta.body, format!("the META section does not decode: {e}")))?;
    let mut nodes = read_nodes(&mut r)?;
    let edges = read_edges(&mut r, &mut nodes)?;
    read_parents(&mut r, &mut nodes)?;
    let usable = use_cache && derived_version == DERIVED_VERSION;
    let cached = read_cache(&mut r, &mut nodes.arena, &edges, usable)?;
    let mut book = Book::from_nodes(book_meta, params, nodes.arena);
    read_marks(&mut r, &mut book)?;
    if version >= 3 {
        if engines.is_empty() {
            return Err(r.corrupt(meta.body, "the META section lists no engines".into()));
        }
        book.engines = engines;
        read_provenance(&mut r, &mut book)?;
    }
    if r.at != r.len {
        read_games(&mut r, &mut book, &edges)?;
    }
    if r.at != r.len {
        return Err(r.corrupt(
            r.at,
            format!("{} unexpected bytes follow the last section", r.len - r.at),
        ));
    }
    Ok((book, cached))
}
