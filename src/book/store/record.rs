//! What a book's log records: nodes as stored (what cannot be recomputed), the cached derived values of
//! snapshots, and applying a record to a book.

use super::*;

/// A move as two bytes: the padded-grid point index, or `u16::MAX` for a pass.
pub(super) fn move_code(mv: Move) -> u16 {
    match mv {
        Move::Pass => u16::MAX,
        Move::Play(p) => p.index() as u16,
    }
}

pub(super) fn move_from_code(code: u16) -> Move {
    if code == u16::MAX {
        Move::Pass
    } else {
        Move::Play(Point::from_index(code as usize))
    }
}

/// A node as stored: what cannot be recomputed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredNode {
    pub hash: BookHash,
    pub to_move: Color,
    pub self_symmetries: u8,
    pub to_canonical: u8,
    pub not_in_book: SearchValues,
    pub can_expand: bool,
    /// (move, symmetry to the child, child id, prior)
    pub edges: Vec<(u16, u8, u32, f32)>,
    /// (parent id, move in the parent)
    pub parents: Vec<(u32, u16)>,
    /// Provenance (format 3; absent from older logs, which read as the unknown engine 0): the engines
    /// (`Record::Engines`) that added the node and set `not_in_book`, the one that added each edge (in
    /// edge order), and values of other engines that `not_in_book` replaced.
    #[serde(default)]
    pub created_by: u16,
    #[serde(default)]
    pub values_by: u16,
    #[serde(default)]
    pub edges_by: Vec<u16>,
    #[serde(default)]
    pub superseded: Vec<Superseded>,
    /// The record games on each move, in edge order; empty when no move has any (logs written before
    /// records books had none).
    #[serde(default)]
    pub edge_games: Vec<GameCounts>,
}

impl StoredNode {
    pub fn from_node(node: &Node) -> StoredNode {
        StoredNode {
            hash: node.hash,
            to_move: node.to_move,
            self_symmetries: node.self_symmetries.0,
            to_canonical: node.to_canonical.id(),
            not_in_book: node.not_in_book,
            can_expand: node.can_expand,
            edges: node
                .edges
                .iter()
                .map(|e| (move_code(e.mv), e.to_child.id(), e.child.0, e.prior))
                .collect(),
            parents: node
                .parents
                .iter()
                .map(|p| (p.parent.0, move_code(p.mv)))
                .collect(),
            created_by: node.created_by.0,
            values_by: node.values_by.0,
            edges_by: node.edges.iter().map(|e| e.added_by.0).collect(),
            superseded: Vec::new(),
            edge_games: if node.edges.iter().all(|e| e.games.is_empty()) {
                Vec::new()
            } else {
                node.edges.iter().map(|e| e.games).collect()
            },
        }
    }

    /// A node as stored, with the values of other engines it keeps.
    pub fn from_book(book: &Book, id: NodeId) -> StoredNode {
        let mut stored = StoredNode::from_node(book.node(id));
        stored.superseded = book.superseded.get(&id).cloned().unwrap_or_default();
        stored
    }

    pub(super) fn into_node(self) -> Result<Node, String> {
        let sym = |id: u8| Symmetry::from_id(id).ok_or_else(|| format!("bad symmetry id {id}"));
        let mut node = Node::new(
            self.hash,
            self.to_move,
            SymmetrySet(self.self_symmetries),
            sym(self.to_canonical)?,
        );
        node.not_in_book = self.not_in_book;
        node.can_expand = self.can_expand;
        if !self.edge_games.is_empty() && self.edge_games.len() != self.edges.len() {
            return Err(format!(
                "{} game counts for {} moves",
                self.edge_games.len(),
                self.edges.len()
            ));
        }
        let mut games = self.edge_games.into_iter();
        node.created_by = EngineRef(self.created_by);
        node.values_by = EngineRef(self.values_by);
        if !self.edges_by.is_empty() && self.edges_by.len() != self.edges.len() {
            return Err(format!(
                "{} moves with the engines of {}",
                self.edges.len(),
                self.edges_by.len()
            ));
        }
        let by = |i: usize| EngineRef(self.edges_by.get(i).copied().unwrap_or(0));
        node.edges = self
            .edges
            .iter()
            .enumerate()
            .map(|(i, &(mv, s, child, prior))| {
                Ok(Edge {
                    games: games.next().unwrap_or_default(),
                    ..Edge::new(move_from_code(mv), sym(s)?, NodeId(child), prior, by(i))
                })
            })
            .collect::<Result<_, String>>()?;
        node.parents = self
            .parents
            .into_iter()
            .map(|(p, mv)| ParentLink {
                parent: NodeId(p),
                mv: move_from_code(mv),
            })
            .collect();
        Ok(node)
    }
}

/// Bumped whenever the value backup or the cost model computes differently, so old caches are ignored.
pub const DERIVED_VERSION: u32 = 1;

/// Recomputable data of a node, cached in snapshots.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DerivedNode {
    pub values: RecursiveValues,
    pub cost: NodeCost,
    /// (cost from root, biggest WL cost, is WL-PV) per edge, in edge order.
    pub edges: Vec<(f64, f64, bool)>,
}

/// One record of a log (or of a format-1 snapshot: `Meta`, `Derived` and `End` appear only there).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Record {
    Meta {
        meta: BookMeta,
        params: CostParams,
        /// How many nodes the snapshot holds (to size the arena before reading them).
        nodes: u64,
    },
    /// New or replaced nodes, by id (ids are dense: a new node has id = current node count).
    Nodes(Vec<(u32, StoredNode)>),
    /// Marks set on nodes; empty marks remove them.
    Marks(Vec<(u32, Marks)>),
    Params(CostParams),
    /// Values and costs of nodes as computed when the snapshot was written, so that loading need not
    /// recompute the whole book. Ignored (and everything recomputed) when `version` is not
    /// [`DERIVED_VERSION`] or the log changes the parameters.
    Derived {
        version: u32,
        nodes: Vec<(u32, DerivedNode)>,
    },
    /// Closes a snapshot: it must hold this many nodes.
    End {
        nodes: u64,
    },
    /// Engines added to the book's table, by index (format 3; written before the nodes that refer to
    /// them, in the same append).
    Engines(Vec<(u16, EngineId)>),
}

pub(super) fn frame(record: &Record, out: &mut Vec<u8>) -> Result<(), StoreError> {
    let payload = rmp_serde::to_vec(record).map_err(|e| StoreError::Encode(e.to_string()))?;
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(())
}

pub(super) fn apply(book: &mut Book, record: Record) -> Result<(), String> {
    match record {
        Record::Meta { .. } => return Err("a second metadata record".into()),
        Record::Nodes(nodes) => {
            for (id, mut stored) in nodes {
                let superseded = std::mem::take(&mut stored.superseded);
                let node = stored.into_node()?;
                if superseded.is_empty() {
                    book.superseded.remove(&NodeId(id));
                } else {
                    book.superseded.insert(NodeId(id), superseded);
                }
                let n = book.len() as u32;
                if id == n {
                    book.push_node(node);
                } else if id < n {
                    book.replace_node(NodeId(id), node);
                } else {
                    return Err(format!("node {id} comes before node {n}"));
                }
            }
        }
        Record::Marks(marks) => {
            for (id, m) in marks {
                if m.is_empty() {
                    book.marks.remove(&NodeId(id));
                } else {
                    book.marks.insert(NodeId(id), m);
                }
            }
        }
        Record::Params(p) => book.params = p,
        Record::Engines(engines) => {
            for (i, id) in engines {
                match book.engines.get(i as usize) {
                    None if i as usize == book.engines.len() => book.engines.push(id),
                    Some(known) if *known == id => {}
                    _ => {
                        return Err(format!(
                            "engine {i} does not follow the engines listed before"
                        ));
                    }
                }
            }
        }
        Record::Derived { .. } => return Err("cached values inside a log".into()),
        Record::End { .. } => return Err("an end record inside a log".into()),
    }
    Ok(())
}

/// The nodes a log record changes (for the incremental recompute after loading); true when it changes
/// the cost parameters (then everything is recomputed).
pub(super) fn touched_by(record: &Record, out: &mut Vec<NodeId>) -> bool {
    match record {
        Record::Nodes(nodes) => out.extend(nodes.iter().map(|(id, _)| NodeId(*id))),
        Record::Marks(marks) => out.extend(marks.iter().map(|(id, _)| NodeId(*id))),
        Record::Params(_) => return true,
        _ => {}
    }
    false
}

/// Checks that the given nodes link only to nodes that exist (the format-2 reader checks every link of
/// the snapshot as it reads it; what a log or a format-1 snapshot added is checked here).
pub(super) fn check_edges(book: &Book, ids: impl Iterator<Item = NodeId>) -> Result<(), String> {
    let n = book.len() as u32;
    if n == 0 {
        return Err("the book has no root".into());
    }
    for id in ids {
        let Some(node) = book.get(id) else { continue };
        if node.edges.iter().any(|e| e.child.0 >= n) || node.parents.iter().any(|p| p.parent.0 >= n)
        {
            return Err(format!("node {} links to a node that does not exist", id.0));
        }
    }
    Ok(())
}
