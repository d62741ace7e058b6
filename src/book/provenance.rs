//! Which engine grew which part of a book. The book keeps a table of engine identities
//! ([`crate::engine::EngineId`], `Book::engines`); every node records the engine that added it and the one
//! that set its own values, every move the engine that added it, all as an [`EngineRef`] into that table.
//! When an engine replaces values another engine set, the earlier values are kept ([`Superseded`]), so
//! that `book trim` can take one engine's work out again (`book::trim`).
//!
//! Mixing engines is a decision: [`Book::mixing`] says when the engine about to grow a book does not
//! agree with one that grew it (`EngineId::agrees_with`); commands ask before going on.

use super::dag::{Book, DagError, NodeId, SearchValues};
use crate::engine::EngineId;
use serde::{Deserialize, Serialize};

/// An index into `Book::engines`. Entry 0 is the unknown engine of books written before provenance.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct EngineRef(pub u16);

impl EngineRef {
    pub const UNKNOWN: EngineRef = EngineRef(0);
}

/// Values of a node that a later search by another engine replaced, kept so the later engine's work can
/// be taken out (one entry per engine, the latest).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Superseded {
    pub by: EngineRef,
    pub values: SearchValues,
}

/// Where a node's values or a move came from, as `book show` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Provenance {
    /// The engine, as one line (`onnx g170-b6c96 #1a2b3c4d`, `rollout`, `katago`, `unknown`).
    pub engine: String,
    pub id: EngineId,
    /// Visits of the search that gave the values.
    pub visits: f64,
}

impl Book {
    /// The entry for `id` in the engine table, added if new.
    pub fn register_engine(&mut self, id: &EngineId) -> Result<EngineRef, DagError> {
        if let Some(i) = self.engines.iter().position(|e| e == id) {
            return Ok(EngineRef(i as u16));
        }
        let i = u16::try_from(self.engines.len()).map_err(|_| DagError::TooManyEngines)?;
        self.engines.push(id.clone());
        Ok(EngineRef(i))
    }

    /// The engine `r` refers to (loaders check every reference, so the fallback is never used).
    pub fn engine(&self, r: EngineRef) -> &EngineId {
        self.engines
            .get(r.0 as usize)
            .unwrap_or_else(|| &self.engines[0])
    }

    /// Sets a node's own values as found by `by`, keeping those of another engine that it replaces.
    pub fn set_values(&mut self, id: NodeId, values: SearchValues, by: EngineRef) {
        let node = self.node_mut(id);
        let (old, old_by) = (node.not_in_book, node.values_by);
        node.not_in_book = values;
        node.values_by = by;
        // Values never searched (a new book's root) are nothing to go back to.
        if old_by != by && old != SearchValues::default() {
            let kept = self.superseded.entry(id).or_default();
            kept.retain(|s| s.by != old_by && s.by != by);
            kept.push(Superseded {
                by: old_by,
                values: old,
            });
        } else if let Some(kept) = self.superseded.get_mut(&id) {
            kept.retain(|s| s.by != by);
        }
        if self.superseded.get(&id).is_some_and(Vec::is_empty) {
            self.superseded.remove(&id);
        }
    }

    /// The engines whose work is in the book (values of nodes, moves), in table order; unknown included
    /// when old parts of the book have no record. A node never searched (a new book's root) counts for
    /// nothing.
    pub fn grown_by(&self) -> Vec<EngineRef> {
        let mut used = vec![false; self.engines.len()];
        for (_, node) in self.nodes() {
            let searched = node.not_in_book != SearchValues::default();
            for r in searched
                .then_some(node.values_by)
                .into_iter()
                .chain(node.edges.iter().map(|e| e.added_by))
            {
                if let Some(u) = used.get_mut(r.0 as usize) {
                    *u = true;
                }
            }
        }
        (0..self.engines.len())
            .filter(|&i| used[i])
            .map(|i| EngineRef(i as u16))
            .collect()
    }

    /// Why growing the book with `id` mixes engines, if it does: an engine that grew part of it does not
    /// judge positions the way `id` does. Parts of unknown origin (books from before provenance) and game
    /// records do not count.
    pub fn mixing(&self, id: &EngineId) -> Option<String> {
        let others: Vec<String> = self
            .grown_by()
            .into_iter()
            .map(|r| self.engine(r))
            .filter(|e| {
                !e.is_unknown()
                    && e.kind != crate::engine::EngineKind::Records
                    && !e.agrees_with(id)
            })
            .map(|e| format!("`{e}`"))
            .collect();
        (!others.is_empty()).then(|| {
            format!(
                "this book was grown by {}; growing it with `{id}` mixes values of engines that judge \
                 positions differently",
                others.join(" and ")
            )
        })
    }

    /// The provenance of a node's own values.
    pub fn provenance(&self, id: NodeId) -> Provenance {
        let node = self.node(id);
        let engine = self.engine(node.values_by);
        Provenance {
            engine: engine.to_string(),
            id: engine.clone(),
            visits: node.not_in_book.visits,
        }
    }

    /// The provenance of a move: the engine that added it, and the visits of its child's own search.
    pub fn edge_provenance(&self, id: NodeId, edge: usize) -> Provenance {
        let e = &self.node(id).edges[edge];
        let engine = self.engine(e.added_by);
        Provenance {
            engine: engine.to_string(),
            id: engine.clone(),
            visits: self.node(e.child).not_in_book.visits,
        }
    }

    /// Marks every node, move and value of the book as coming from `by` (an import from one source).
    pub fn attribute_all(&mut self, by: EngineRef) {
        for node in &mut self.nodes {
            node.created_by = by;
            node.values_by = by;
            for e in node.edges.iter_mut() {
                e.added_by = by;
            }
        }
        self.superseded.clear();
    }

    /// Nodes whose values were searched by an engine the book does not know (parts written before
    /// books recorded their engines).
    pub fn of_unknown_origin(&self) -> usize {
        self.nodes()
            .filter(|(_, n)| {
                n.values_by == EngineRef::UNKNOWN && n.not_in_book != SearchValues::default()
            })
            .count()
    }

    /// Checks every reference into the engine table (for loaders); the first bad one as an error.
    pub(crate) fn check_engine_refs(&self) -> Result<(), String> {
        let n = self.engines.len();
        let bad = |r: EngineRef| r.0 as usize >= n;
        for (id, node) in self.nodes() {
            let refs = [node.values_by, node.created_by];
            if refs.into_iter().any(bad) || node.edges.iter().any(|e| bad(e.added_by)) {
                return Err(format!(
                    "node {} refers to an engine the book does not list ({n} listed)",
                    id.0
                ));
            }
        }
        for (id, kept) in &self.superseded {
            if id.index() >= self.len() || kept.iter().any(|s| bad(s.by)) {
                return Err(format!("earlier values of node {} are inconsistent", id.0));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
