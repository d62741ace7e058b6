//! Taking one engine's work out of a book (`tengen book trim`): the book as it would be had that engine
//! never grown it, as far as the book can know.
//!
//! What goes and what stays, for the engines being removed ("T"):
//! - every move T added goes;
//! - a node whose own values T set gets back the values another engine had set before (kept in
//!   `Book::superseded`); a node with no such values (T created it and only T searched it) goes, even
//!   when another engine's move later transposed into it, and so does that move: without T, the other
//!   engine would have searched the position itself;
//! - what is then no longer reachable from the root goes too: a position only T's moves led to, with
//!   everything other engines grew below it;
//! - a node that lost moves can be expanded again; the root always stays (with no values, if only T
//!   searched it);
//! - a node T created that another engine's move still reaches stays, recorded as that engine's.
//!
//! A node's recursive values mix its own values with its children's; they are recomputed from what
//! remains, so a node whose subtree several engines grew keeps the values of the other engines' part.

use super::dag::{Book, Edge, Node, NodeId, ParentLink, SearchValues};
use super::provenance::EngineRef;
use std::collections::HashMap;

/// What [`trim`] removed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrimReport {
    pub nodes_removed: usize,
    pub moves_removed: usize,
    /// Nodes whose values went back to those of another engine.
    pub values_restored: usize,
}

/// The book without the work of the engines in `remove`, its values and costs recomputed.
pub fn trim(book: &Book, remove: &[EngineRef]) -> (Book, TrimReport) {
    let gone = |r: EngineRef| remove.contains(&r);
    let root = book.root();
    let mut report = TrimReport::default();
    // Each node's own values without T: `None` when nothing but T searched it.
    let values: Vec<Option<(SearchValues, EngineRef)>> = book
        .nodes()
        .map(|(id, node)| {
            if !gone(node.values_by) {
                return Some((node.not_in_book, node.values_by));
            }
            let earlier = book.superseded.get(&id).map_or(&[][..], Vec::as_slice);
            match earlier.iter().rfind(|s| !gone(s.by)) {
                Some(s) => Some((s.values, s.by)),
                None if id == root => Some((SearchValues::default(), EngineRef::UNKNOWN)),
                None => None,
            }
        })
        .collect();
    let keeps_edge = |e: &Edge| !gone(e.added_by) && values[e.child.index()].is_some();
    // Reachable from the root over the moves that stay, in id order for the new numbering.
    let mut reached = vec![false; book.len()];
    reached[root.index()] = true;
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        for e in book.node(id).edges.iter().filter(|e| keeps_edge(e)) {
            if !reached[e.child.index()] {
                reached[e.child.index()] = true;
                stack.push(e.child);
            }
        }
    }
    let mut new_id: Vec<Option<NodeId>> = vec![None; book.len()];
    let mut next = 0u32;
    for (i, r) in reached.iter().enumerate() {
        if *r {
            new_id[i] = Some(NodeId(next));
            next += 1;
        }
    }
    let mut nodes = Vec::with_capacity(next as usize);
    for (id, node) in book.nodes().filter(|(id, _)| reached[id.index()]) {
        let edges: Box<[Edge]> = node
            .edges
            .iter()
            .filter(|e| keeps_edge(e))
            .map(|e| Edge {
                child: new_id[e.child.index()].unwrap_or(e.child),
                ..e.clone()
            })
            .collect();
        report.moves_removed += node.edges.len() - edges.len();
        // A parent link stays when its move does.
        let parents: Box<[ParentLink]> = node
            .parents
            .iter()
            .filter_map(|p| {
                let parent = new_id[p.parent.index()]?;
                let stays = book
                    .node(p.parent)
                    .edges
                    .iter()
                    .any(|e| e.mv == p.mv && e.child == id && keeps_edge(e));
                stays.then_some(ParentLink { parent, mv: p.mv })
            })
            .collect();
        let (not_in_book, values_by) = values[id.index()].unwrap_or_default();
        if values_by != node.values_by {
            report.values_restored += 1;
        }
        let created_by = if gone(node.created_by) {
            // Still reached by another engine's move: that engine would have added it.
            let first = node.parents.iter().find_map(|p| {
                book.node(p.parent)
                    .edges
                    .iter()
                    .find(|e| e.child == id && keeps_edge(e))
                    .map(|e| e.added_by)
            });
            first.unwrap_or(EngineRef::UNKNOWN)
        } else {
            node.created_by
        };
        nodes.push(Node {
            can_expand: node.can_expand || edges.len() < node.edges.len(),
            edges,
            parents,
            not_in_book,
            values_by,
            created_by,
            ..node.clone()
        });
    }
    report.nodes_removed = book.len() - nodes.len();
    let mut out = Book::from_nodes(book.meta.clone(), book.params.clone(), nodes);
    out.engines = book.engines.clone();
    out.marks = remap(&book.marks, &new_id);
    let superseded = book.superseded.iter().map(|(id, kept)| {
        let kept: Vec<_> = kept.iter().filter(|s| !gone(s.by)).copied().collect();
        (*id, kept)
    });
    let superseded: HashMap<_, _> = superseded.filter(|(_, k)| !k.is_empty()).collect();
    out.superseded = remap(&superseded, &new_id);
    // Values put back are current again, not superseded.
    let restored: Vec<(NodeId, EngineRef)> = out.nodes().map(|(i, n)| (i, n.values_by)).collect();
    for (id, by) in restored {
        if let Some(kept) = out.superseded.get_mut(&id) {
            kept.retain(|s| s.by != by);
            if kept.is_empty() {
                out.superseded.remove(&id);
            }
        }
    }
    super::recompute_everything(&mut out);
    (out, report)
}

fn remap<T: Clone>(map: &HashMap<NodeId, T>, new_id: &[Option<NodeId>]) -> HashMap<NodeId, T> {
    map.iter()
        .filter_map(|(id, v)| Some((new_id.get(id.index()).copied().flatten()?, v.clone())))
        .collect()
}
