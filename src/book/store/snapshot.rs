//! Snapshot format 2: the book as fixed-width little-endian columns (nodes, moves, parents, cached values,
//! cached move costs, marks), each a section with its own CRC-32, after the common 24-byte header.
//!
//! Why columns and not MessagePack records: a 1,000,000-node book must load in well under a second.
//! Decoding MessagePack went through serde per field and allocated a vector per node for its moves,
//! another for its parents and a third for its cached move costs, only to copy them again. Fixed widths
//! let the reader check every section's size against the file before allocating anything (a header
//! claiming a billion nodes cannot make it reserve a billion nodes' memory), check every checksum before
//! building anything, and then build each node with exactly one allocation per non-empty list.
//! Layout and reasons: `docs/book-format.md`.

use super::super::cost::{CostParams, NodeCost};
use super::super::dag::{
    Book, BookMeta, Edge, Node, NodeId, ParentLink, SearchValues, SymmetrySet,
};
use super::super::marks::Marks;
use super::super::values::RecursiveValues;
use super::{DERIVED_VERSION, HEADER_LEN, KIND_SNAPSHOT, StoreError, header, move_code};
use crate::go::{BookHash, Color, Move, Point, Symmetry};
use serde::{Deserialize, Serialize};

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

/// The sections in file order: tag and record width (`None`: one MessagePack value).
const META: ([u8; 4], Option<usize>) = (*b"META", None);
const NODES: ([u8; 4], Option<usize>) = (*b"NODE", Some(NODE_WIDTH));
const EDGES: ([u8; 4], Option<usize>) = (*b"EDGE", Some(EDGE_WIDTH));
const PARENTS: ([u8; 4], Option<usize>) = (*b"PRNT", Some(PARENT_WIDTH));
const VALUES: ([u8; 4], Option<usize>) = (*b"VALS", Some(VALUES_WIDTH));
const EDGE_COSTS: ([u8; 4], Option<usize>) = (*b"ECST", Some(EDGE_COST_WIDTH));
const MARKS: ([u8; 4], Option<usize>) = (*b"MARK", Some(MARK_WIDTH));

/// What the META section holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SnapshotMeta {
    meta: BookMeta,
    params: CostParams,
    /// The [`DERIVED_VERSION`] the cached values were computed with.
    derived_version: u32,
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
    })
    .map_err(|e| StoreError::Encode(e.to_string()))?;
    let n = book.len();
    let edges = book.edge_count();
    let parents: usize = book.nodes.iter().map(|n| n.parents.len()).sum();
    let total = HEADER_LEN
        + 7 * SECTION_HEADER
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
            let v = &node.not_in_book;
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
    Ok(out)
}

/// A section whose size and checksum have been verified.
struct Section<'a> {
    count: usize,
    payload: &'a [u8],
    /// Where the payload starts in the file.
    offset: usize,
}

impl Section<'_> {
    /// Record `i` and its offset in the file.
    fn record(&self, width: usize, i: usize) -> (&[u8], usize) {
        let at = i * width;
        (&self.payload[at..at + width], self.offset + at)
    }
}

fn tag_name(tag: &[u8]) -> String {
    String::from_utf8_lossy(tag).into_owned()
}

/// Fixed-size little-endian field at `at` of a record (records are sliced to their width beforehand).
fn le<const N: usize>(record: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&record[at..at + N]);
    a
}

fn f64_at(record: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(le(record, at))
}

fn u32_at(record: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(le(record, at))
}

fn move_at(record: &[u8], at: usize) -> Move {
    match u16::from_le_bytes(le(record, at)) {
        u16::MAX => Move::Pass,
        code => Move::Play(Point::from_index(code as usize)),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    file: &'a str,
}

impl<'a> Reader<'a> {
    fn corrupt(&self, offset: usize, detail: String) -> StoreError {
        StoreError::Corrupt {
            file: self.file.to_string(),
            offset: offset as u64,
            detail,
        }
    }

    /// The next section, which must be `tag`; its length is checked against what the file holds and
    /// against its record count before anything is allocated for it, then its checksum.
    fn section(
        &mut self,
        (tag, width): ([u8; 4], Option<usize>),
    ) -> Result<Section<'a>, StoreError> {
        let name = tag_name(&tag);
        let at = self.at;
        let bytes = self.bytes;
        if bytes.len() - at < SECTION_HEADER {
            return Err(self.corrupt(
                at,
                format!("the file ends where the {name} section should start (it is cut short)"),
            ));
        }
        let h = &bytes[at..at + SECTION_HEADER];
        if h[..4] != tag {
            return Err(self.corrupt(
                at,
                format!("expected the {name} section, found `{}`", tag_name(&h[..4])),
            ));
        }
        let crc = u32_at(h, 4);
        let count = u64::from_le_bytes(le(h, 8));
        let len = u64::from_le_bytes(le(h, 16));
        let body = at + SECTION_HEADER;
        let available = (bytes.len() - body) as u64;
        if len > available {
            return Err(self.corrupt(
                at,
                format!(
                    "the {name} section claims {len} bytes but only {available} follow (the file is cut short)"
                ),
            ));
        }
        let consistent = match width {
            Some(w) => count.checked_mul(w as u64) == Some(len),
            None => count == 1,
        };
        if !consistent {
            return Err(self.corrupt(
                at,
                format!("the {name} section claims {count} records in {len} bytes"),
            ));
        }
        let payload = &bytes[body..body + len as usize];
        if crc32fast::hash(payload) != crc {
            return Err(self.corrupt(body, format!("the {name} section fails its checksum")));
        }
        self.at = body + len as usize;
        Ok(Section {
            // Bounded by the file's length, so it fits.
            count: count as usize,
            payload,
            offset: body,
        })
    }
}

/// Decodes a format-2 snapshot (the whole file, header included). Returns the book and whether its
/// cached values and costs were installed (`use_cache` and a cache of the current [`DERIVED_VERSION`]).
pub(super) fn decode(
    bytes: &[u8],
    file: &str,
    use_cache: bool,
) -> Result<(Book, bool), StoreError> {
    let mut r = Reader {
        bytes,
        at: HEADER_LEN,
        file,
    };
    // Every section is located and checksummed before anything is built from it.
    let meta = r.section(META)?;
    let nodes = r.section(NODES)?;
    let edges = r.section(EDGES)?;
    let parents = r.section(PARENTS)?;
    let values = r.section(VALUES)?;
    let edge_costs = r.section(EDGE_COSTS)?;
    let marks = r.section(MARKS)?;
    if r.at != bytes.len() {
        return Err(r.corrupt(
            r.at,
            format!(
                "{} unexpected bytes follow the last section",
                bytes.len() - r.at
            ),
        ));
    }
    let SnapshotMeta {
        meta: book_meta,
        params,
        derived_version,
    } = rmp_serde::from_slice(meta.payload).map_err(|e| {
        r.corrupt(
            meta.offset,
            format!("the META section does not decode: {e}"),
        )
    })?;
    let n = nodes.count;
    if n == 0 || n > u32::MAX as usize {
        return Err(r.corrupt(nodes.offset, format!("a book of {n} nodes")));
    }
    // The per-node list lengths must add up to the sections that hold the lists.
    let (mut edge_total, mut parent_total) = (0usize, 0usize);
    for rec in nodes.payload.chunks_exact(NODE_WIDTH) {
        edge_total += u32_at(rec, 36) as usize;
        parent_total += u32_at(rec, 40) as usize;
    }
    if edge_total != edges.count || parent_total != parents.count {
        return Err(r.corrupt(
            nodes.offset,
            format!(
                "the nodes list {edge_total} moves and {parent_total} parents, the EDGE and PRNT \
                 sections hold {} and {}",
                edges.count, parents.count
            ),
        ));
    }
    let has_cache = values.count > 0 || edge_costs.count > 0;
    if has_cache && (values.count != n || edge_costs.count != edges.count) {
        return Err(r.corrupt(
            values.offset,
            format!(
                "cached values for {} nodes and {} moves in a book of {n} nodes and {} moves",
                values.count, edge_costs.count, edges.count
            ),
        ));
    }
    let cached = use_cache && has_cache && derived_version == DERIVED_VERSION;

    let symmetry = |id: u8, offset: usize| {
        Symmetry::from_id(id).ok_or_else(|| r.corrupt(offset, format!("bad symmetry id {id}")))
    };
    // `what` and `owner` only name the culprit in the error, built when there is one.
    let link = |target: u32, offset: usize, what: &str, owner: usize| {
        if (target as usize) < n {
            Ok(NodeId(target))
        } else {
            Err(r.corrupt(
                offset,
                format!("{what} {owner} links to node {target}, the book has {n} nodes"),
            ))
        }
    };
    let mut book = Book::empty(book_meta, params, n);
    let (mut next_edge, mut next_parent) = (0usize, 0usize);
    for i in 0..n {
        let (rec, at) = nodes.record(NODE_WIDTH, i);
        let to_move = match rec[32] {
            0 => Color::Black,
            1 => Color::White,
            x => return Err(r.corrupt(at + 32, format!("node {i}: player to move {x}"))),
        };
        let hash = BookHash {
            state: u128::from_le_bytes(le(rec, 0)),
            history: u128::from_le_bytes(le(rec, 16)),
        };
        let mut node = Node::new(
            hash,
            to_move,
            SymmetrySet(rec[33]),
            symmetry(rec[34], at + 34)?,
        );
        node.can_expand = rec[35] & 1 != 0;
        let f = |k: usize| f64_at(rec, 44 + 8 * k);
        node.not_in_book = SearchValues {
            win_loss: f(0),
            score_mean: f(1),
            sharp_score: f(2),
            win_loss_error: f(3),
            score_error: f(4),
            score_stdev: f(5),
            max_policy: f(6),
            weight: f(7),
            visits: f(8),
        };
        // Exact capacity, so turning the vectors into boxed slices does not reallocate.
        let edge_count = u32_at(rec, 36) as usize;
        let mut list = Vec::with_capacity(edge_count);
        for k in next_edge..next_edge + edge_count {
            let (e, at) = edges.record(EDGE_WIDTH, k);
            let mut edge = Edge {
                mv: move_at(e, 0),
                to_child: symmetry(e[2], at + 2)?,
                child: link(u32_at(e, 4), at + 4, "a move of node", i)?,
                prior: f32::from_le_bytes(le(e, 8)),
                cost_from_root: 0.0,
                biggest_wl_cost: 0.0,
                is_wl_pv: false,
            };
            if cached {
                let (c, _) = edge_costs.record(EDGE_COST_WIDTH, k);
                edge.cost_from_root = f64_at(c, 0);
                edge.biggest_wl_cost = f64_at(c, 8);
                edge.is_wl_pv = c[16] != 0;
            }
            list.push(edge);
        }
        next_edge += edge_count;
        node.edges = list.into_boxed_slice();
        let parent_count = u32_at(rec, 40) as usize;
        let mut list = Vec::with_capacity(parent_count);
        for k in next_parent..next_parent + parent_count {
            let (p, at) = parents.record(PARENT_WIDTH, k);
            list.push(ParentLink {
                parent: link(u32_at(p, 0), at, "a parent link of node", i)?,
                mv: move_at(p, 4),
            });
        }
        next_parent += parent_count;
        node.parents = list.into_boxed_slice();
        if cached {
            let (v, _) = values.record(VALUES_WIDTH, i);
            let f = |k: usize| f64_at(v, 8 * k);
            node.values = RecursiveValues {
                win_loss: f(0),
                score_mean: f(1),
                sharp_score: f(2),
                win_loss_lcb: f(3),
                win_loss_ucb: f(4),
                score_lcb: f(5),
                score_ucb: f(6),
                weight: f(7),
                visits: f(8),
                adjusted_visits: f(9),
            };
            node.cost = NodeCost {
                min_depth: u32_at(v, 80),
                min_cost_from_root: f64_at(v, 84),
                expansion_cost: f64_at(v, 92),
                min_cost_wl_pv: f64_at(v, 100),
                biggest_wl_cost: f64_at(v, 108),
                best_parent: u32_at(v, 116),
                expansion_is_wl_pv: v[120] != 0,
            };
        }
        book.push_node(node);
    }
    book.marks.reserve(marks.count);
    for i in 0..marks.count {
        let (m, at) = marks.record(MARK_WIDTH, i);
        let id = link(u32_at(m, 0), at, "mark record", i)?;
        book.marks.insert(
            id,
            Marks {
                bonus: f64_at(m, 4),
                expand: f64_at(m, 12),
                visits: f64_at(m, 20),
                branch: u32_at(m, 28),
            },
        );
    }
    Ok((book, cached))
}
