//! The book's graph: an arena of positions (`NodeId`), a hash → id map, edges that carry the move in the
//! parent's orientation, the symmetry into the child and the full-symmetry prior, and parent links so that
//! transpositions make a DAG.
//!
//! Every node lives in its own "node space" orientation. For nodes tengen creates that is the canonical
//! orientation of the hash; an imported KataGo node keeps KataGo's orientation and records the symmetry
//! to tengen's canonical one (`to_canonical`), so imported books can be grown further. A user looks at a
//! node through a view symmetry (node space → view space), which `follow` keeps consistent move by move.

use super::cost::{CostParams, NodeCost};
use super::marks::Marks;
use super::provenance::{EngineRef, Superseded};
use super::values::RecursiveValues;
use crate::go::{BoardSize, BookHash, Color, Game, Move, Point, Rules, Setup, Symmetry};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// Index of a node in the book's arena; stable for the life of the book (nodes are never removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A set of symmetries as a bit mask (bit i = symmetry id i).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SymmetrySet(pub u8);

impl SymmetrySet {
    pub fn from_slice(symmetries: &[Symmetry]) -> SymmetrySet {
        SymmetrySet(symmetries.iter().fold(0, |m, s| m | (1 << s.id())))
    }

    pub fn contains(self, s: Symmetry) -> bool {
        self.0 & (1 << s.id()) != 0
    }

    pub fn iter(self) -> impl Iterator<Item = Symmetry> {
        Symmetry::ALL.into_iter().filter(move |&s| self.contains(s))
    }
}

/// What a search said about the moves that are not (yet) children in the book: KataGo's
/// `thisValuesNotInBook`. All values are from White's point of view, as in KataGo's books.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchValues {
    pub win_loss: f64,
    pub score_mean: f64,
    /// The sharp score as searched (unclamped).
    pub sharp_score: f64,
    /// Short-term error estimates; negative means "unknown" (a net without error heads) and counts as 0.
    pub win_loss_error: f64,
    pub score_error: f64,
    pub score_stdev: f64,
    /// The largest prior among the moves not in the book.
    pub max_policy: f64,
    pub weight: f64,
    pub visits: f64,
}

/// A move in the book.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// The move in the parent's node space.
    pub mv: Move,
    /// Maps the parent's node space (after the move) to the child's node space.
    pub to_child: Symmetry,
    pub child: NodeId,
    /// The prior of the move, averaged over symmetries.
    pub prior: f32,
    /// The engine whose expansion added the move (`Book::engines`).
    pub added_by: EngineRef,
    /// Filled by the cost model.
    pub cost_from_root: f64,
    pub biggest_wl_cost: f64,
    pub is_wl_pv: bool,
    /// The games of a records book that played this move here (empty for moves an engine added).
    pub games: GameCounts,
}

impl Edge {
    /// A move to `child` with its prior, before the cost model has run and with no games from records.
    pub fn new(
        mv: Move,
        to_child: Symmetry,
        child: NodeId,
        prior: f32,
        added_by: EngineRef,
    ) -> Edge {
        Edge {
            mv,
            to_child,
            child,
            prior,
            added_by,
            cost_from_root: 0.0,
            biggest_wl_cost: 0.0,
            is_wl_pv: false,
            games: GameCounts::default(),
        }
    }
}

/// A parent link: the parent and the move (in the parent's node space) that leads here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParentLink {
    pub parent: NodeId,
    pub mv: Move,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub hash: BookHash,
    pub to_move: Color,
    /// Symmetries of node space that map the position (with its relevant history) onto itself.
    pub self_symmetries: SymmetrySet,
    /// Maps node space to tengen's canonical orientation of `hash`.
    pub to_canonical: Symmetry,
    pub not_in_book: SearchValues,
    /// The engines that added the node and that set `not_in_book` (`Book::engines`).
    pub created_by: EngineRef,
    pub values_by: EngineRef,
    pub can_expand: bool,
    /// Per run only: a node added from another node's search may be re-searched from scratch once.
    pub can_re_expand: bool,
    /// Boxed slices rather than vectors: no spare capacity, 8 bytes less each (a big book is mostly leaves).
    pub edges: Box<[Edge]>,
    pub parents: Box<[ParentLink]>,
    pub values: RecursiveValues,
    pub cost: NodeCost,
}

impl Node {
    pub fn new(
        hash: BookHash,
        to_move: Color,
        self_symmetries: SymmetrySet,
        to_canonical: Symmetry,
    ) -> Node {
        Node {
            hash,
            to_move,
            self_symmetries,
            to_canonical,
            not_in_book: SearchValues::default(),
            created_by: EngineRef::UNKNOWN,
            values_by: EngineRef::UNKNOWN,
            can_expand: true,
            can_re_expand: true,
            edges: Box::default(),
            parents: Box::default(),
            values: RecursiveValues::default(),
            cost: NodeCost::default(),
        }
    }

    pub fn edge_for(&self, mv: Move) -> Option<&Edge> {
        self.edges.iter().find(|e| e.mv == mv)
    }

    /// Inserts an edge at `at` (edges are kept in KataGo's move order).
    pub fn insert_edge(&mut self, at: usize, edge: Edge) {
        let mut edges = std::mem::take(&mut self.edges).into_vec();
        edges.insert(at, edge);
        self.edges = edges.into_boxed_slice();
    }

    pub fn push_parent(&mut self, link: ParentLink) {
        let mut parents = std::mem::take(&mut self.parents).into_vec();
        parents.push(link);
        self.parents = parents.into_boxed_slice();
    }
}

/// What defines a book apart from its nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookMeta {
    pub size: BoardSize,
    pub rules: Rules,
    pub rep_bound: usize,
    pub setup_black: Vec<Point>,
    pub setup_white: Vec<Point>,
    pub first_player: Color,
}

impl BookMeta {
    pub fn new(size: BoardSize, rules: Rules) -> BookMeta {
        BookMeta {
            size,
            rules,
            rep_bound: crate::go::hash::DEFAULT_REP_BOUND,
            setup_black: Vec::new(),
            setup_white: Vec::new(),
            first_player: Color::Black,
        }
    }

    pub fn setup(&self) -> Setup {
        Setup {
            black: self.setup_black.clone(),
            white: self.setup_white.clone(),
            first_player: Some(self.first_player),
        }
    }

    pub fn initial_game(&self) -> Game {
        Game::with_setup(self.size, self.rules, self.setup())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DagError {
    #[error("move {mv} is not in the book at this position")]
    NotInBook { mv: String },
    #[error("node {0:?} does not exist in this book")]
    NoSuchNode(NodeId),
    #[error(
        "the history rebuilt for node {hash} hashes to {found}: the book is inconsistent (a hash collision or a \
         corrupted file); run `tengen book show` on its parent and report it"
    )]
    HashMismatch { hash: BookHash, found: BookHash },
    #[error("node {hash} has no path back to the root")]
    NoPathToRoot { hash: BookHash },
    #[error(
        "the book already records 65,536 engines; trim some of them (`tengen book trim`) first"
    )]
    TooManyEngines,
}

/// A node seen through a view symmetry (node space → view space).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrientedNode {
    pub id: NodeId,
    pub to_view: Symmetry,
}

/// The whole book: metadata, parameters, nodes and marks.
#[derive(Debug, Clone)]
pub struct Book {
    pub meta: BookMeta,
    pub params: CostParams,
    pub(crate) nodes: Vec<Node>,
    /// Hash → id, keyed by 64 bits of the hash (12 bytes an entry instead of 36; a big book's index is a
    /// large share of its memory). The rare key collision goes to `index_overflow` with the full hash.
    index: HashMap<u64, NodeId, KeyIsHash>,
    index_overflow: HashMap<BookHash, NodeId>,
    pub marks: HashMap<NodeId, Marks>,
    /// The engines this book's provenance refers to; entry 0 is "unknown" (`book::provenance`).
    pub engines: Vec<crate::engine::EngineId>,
    /// Values another engine set before the current ones, per node (only where engines were mixed).
    pub superseded: HashMap<NodeId, Vec<Superseded>>,
}

impl Book {
    /// A book holding only its root, the initial position of `meta`.
    pub fn new(meta: BookMeta, params: CostParams) -> Book {
        let game = meta.initial_game();
        let canonical = crate::go::hash::canonical(&game, meta.rep_bound);
        let mut book = Book {
            meta,
            params,
            nodes: Vec::new(),
            index: HashMap::default(),
            index_overflow: HashMap::new(),
            marks: HashMap::new(),
            engines: vec![crate::engine::EngineId::unknown()],
            superseded: HashMap::new(),
        };
        // The root's node space is the initial position's own orientation, so that the root shows the way
        // the user set it up.
        let self_syms =
            conjugate_self_symmetries(&canonical.self_symmetries, canonical.to_canonical);
        book.push_node(Node::new(
            canonical.hash,
            game.to_move(),
            self_syms,
            canonical.to_canonical,
        ));
        book
    }

    /// An empty shell that loaders fill node by node, with room for `capacity` nodes.
    pub(crate) fn empty(meta: BookMeta, params: CostParams, capacity: usize) -> Book {
        Book {
            meta,
            params,
            nodes: Vec::with_capacity(capacity),
            index: HashMap::with_capacity_and_hasher(capacity, KeyIsHash),
            index_overflow: HashMap::new(),
            marks: HashMap::new(),
            engines: vec![crate::engine::EngineId::unknown()],
            superseded: HashMap::new(),
        }
    }

    /// A book of the given nodes (node 0 is the root), for loaders. The index is filled in the order of
    /// its table rather than node by node: in a big book, inserts in random order miss the cache each time.
    pub(crate) fn from_nodes(meta: BookMeta, params: CostParams, nodes: Vec<Node>) -> Book {
        let mut book = Book {
            meta,
            params,
            index: HashMap::with_capacity_and_hasher(nodes.len(), KeyIsHash),
            index_overflow: HashMap::new(),
            marks: HashMap::new(),
            engines: vec![crate::engine::EngineId::unknown()],
            superseded: HashMap::new(),
            nodes,
        };
        let keys: Vec<u64> = book.nodes.iter().map(|n| index_key(&n.hash)).collect();
        for (key, id) in table_order(&keys, book.index.capacity()) {
            book.index_insert_key(key, id);
        }
        book
    }

    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn edge_count(&self) -> usize {
        self.nodes.iter().map(|n| n.edges.len()).sum()
    }

    /// The record games through a node: the games on the moves into it (at the root, on the moves out
    /// of it). A game passes a position once, so the moves into it count each of its games once.
    pub fn games_through(&self, id: NodeId) -> GameCounts {
        let mut total = GameCounts::default();
        if id == self.root() {
            for e in self.node(id).edges.iter() {
                total.add(e.games);
            }
            return total;
        }
        for link in self.node(id).parents.iter() {
            if let Some(e) = self.get(link.parent).and_then(|p| p.edge_for(link.mv)) {
                total.add(e.games);
            }
        }
        total
    }

    /// Whether any move of the book carries record games.
    pub fn has_games(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| n.edges.iter().any(|e| !e.games.is_empty()))
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }

    pub fn nodes(&self) -> impl Iterator<Item = (NodeId, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (NodeId(i as u32), n))
    }

    pub fn find(&self, hash: &BookHash) -> Option<NodeId> {
        match self.index.get(&index_key(hash)) {
            Some(&id) if self.nodes[id.index()].hash == *hash => Some(id),
            _ => self.index_overflow.get(hash).copied(),
        }
    }

    fn index_insert(&mut self, hash: BookHash, id: NodeId) {
        self.index_insert_key(index_key(&hash), id);
    }

    /// Indexes node `id` (already in the arena) under `key`, its hash's index key.
    fn index_insert_key(&mut self, key: u64, id: NodeId) {
        // One probe of the table, not two: loading a big book is mostly cache misses in this map.
        match self.index.entry(key) {
            Entry::Vacant(slot) => {
                slot.insert(id);
            }
            Entry::Occupied(mut slot) => {
                let hash = self.nodes[id.index()].hash;
                if self.nodes[slot.get().index()].hash == hash {
                    slot.insert(id);
                } else {
                    self.index_overflow.insert(hash, id);
                }
            }
        }
    }

    fn index_remove(&mut self, hash: &BookHash, id: NodeId) {
        if self.index.get(&index_key(hash)) == Some(&id) {
            self.index.remove(&index_key(hash));
        } else {
            self.index_overflow.remove(hash);
        }
    }

    pub(crate) fn push_node(&mut self, node: Node) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        let hash = node.hash;
        self.nodes.push(node);
        self.index_insert(hash, id);
        id
    }

    /// Replaces a node loaded again from a log record (same id).
    pub(crate) fn replace_node(&mut self, id: NodeId, node: Node) {
        let old = self.nodes[id.index()].hash;
        let new = node.hash;
        if old != new {
            self.index_remove(&old, id);
        }
        self.nodes[id.index()] = node;
        if old != new {
            self.index_insert(new, id);
        }
    }

    /// The representative of `mv` under the node's self-symmetries: the move with the largest x, then the
    /// smallest y (KataGo prefers the upper-right corner), so symmetric moves are stored once.
    pub fn representative(&self, id: NodeId, mv: Move) -> (Move, Symmetry) {
        let size = self.meta.size;
        let node = self.node(id);
        let mut best = (mv, Symmetry::IDENTITY);
        for s in node.self_symmetries.iter() {
            let candidate = s.apply_move(size, mv);
            let better = match (candidate, best.0) {
                (Move::Play(c), Move::Play(b)) => {
                    c.x() > b.x() || (c.x() == b.x() && c.y() < b.y())
                }
                _ => false,
            };
            if better {
                best = (candidate, s);
            }
        }
        best
    }

    /// The edge reached by `mv` (in node space), trying every self-symmetry; with the self-symmetry used.
    pub fn edge_by_move(&self, id: NodeId, mv: Move) -> Option<(usize, Symmetry)> {
        let node = self.node(id);
        for s in node.self_symmetries.iter() {
            let m = s.apply_move(self.meta.size, mv);
            if let Some(i) = node.edges.iter().position(|e| e.mv == m) {
                return Some((i, s));
            }
        }
        None
    }

    /// Follows a move given in the view's orientation; the child keeps the user's orientation.
    pub fn follow(&self, view: OrientedNode, mv: Move) -> Result<OrientedNode, DagError> {
        let size = self.meta.size;
        let in_node = view.to_view.inverse().apply_move(size, mv);
        let (i, s) = self
            .edge_by_move(view.id, in_node)
            .ok_or_else(|| DagError::NotInBook {
                mv: mv.to_gtp(size),
            })?;
        let edge = &self.node(view.id).edges[i];
        // child space → parent space after the edge move → parent space after `in_node` → view.
        let to_view = edge.to_child.inverse().then(s.inverse()).then(view.to_view);
        Ok(OrientedNode {
            id: edge.child,
            to_view,
        })
    }

    /// Follows a line of moves (view orientation) from the root seen as the identity.
    pub fn follow_line(&self, moves: &[Move]) -> Result<OrientedNode, DagError> {
        let mut view = OrientedNode {
            id: self.root(),
            to_view: Symmetry::IDENTITY,
        };
        for &mv in moves {
            view = self.follow(view, mv)?;
        }
        Ok(view)
    }

    /// The cheapest known path from the root: the moves in each parent's node space and the edges used.
    pub fn path_from_root(&self, id: NodeId) -> Result<Vec<(NodeId, usize)>, DagError> {
        let mut path = Vec::new();
        let mut at = id;
        let mut guard = 0usize;
        while at != self.root() {
            let node = self.node(at);
            let link = node
                .parents
                .get(node.cost.best_parent as usize)
                .or_else(|| node.parents.first())
                .ok_or(DagError::NoPathToRoot { hash: node.hash })?;
            let edge = self
                .node(link.parent)
                .edges
                .iter()
                .position(|e| e.mv == link.mv && e.child == at)
                .ok_or(DagError::NoPathToRoot { hash: node.hash })?;
            path.push((link.parent, edge));
            at = link.parent;
            guard += 1;
            if guard > self.nodes.len() {
                return Err(DagError::NoPathToRoot {
                    hash: self.node(id).hash,
                });
            }
        }
        path.reverse();
        Ok(path)
    }

    /// The moves from the root to `id` along the cheapest parents, in the root's orientation, and the
    /// symmetry from the root's orientation (after those moves) to the node's space.
    pub fn line_to(&self, id: NodeId) -> Result<(Vec<Move>, Symmetry), DagError> {
        let path = self.path_from_root(id)?;
        let size = self.meta.size;
        let mut moves = Vec::with_capacity(path.len());
        let mut root_to_node = Symmetry::IDENTITY;
        for (parent, edge) in path {
            let e = &self.node(parent).edges[edge];
            moves.push(root_to_node.inverse().apply_move(size, e.mv));
            root_to_node = root_to_node.then(e.to_child);
        }
        Ok((moves, root_to_node))
    }

    /// Rebuilds the game reaching `id`, in the node's own orientation, and checks its hash.
    pub fn game_at(&self, id: NodeId) -> Result<Game, DagError> {
        let (moves, root_to_node) = self.line_to(id)?;
        let mut game = self.meta.initial_game();
        for mv in moves {
            // Book moves were legal when added; tolerant replay mirrors KataGo's history rebuild.
            let _ = game.play_tolerant(game.to_move(), mv);
        }
        let game = transform_game(&game, root_to_node);
        let node = self.node(id);
        let found = crate::go::hash::canonical(&game, self.meta.rep_bound).hash;
        if found != node.hash {
            return Err(DagError::HashMismatch {
                hash: node.hash,
                found,
            });
        }
        Ok(game)
    }
}

mod games;
pub use games::GameCounts;

mod index;
pub(crate) use index::KeyIsHash;
use index::{index_key, table_order};

mod symmetry;
pub use symmetry::{conjugate_self_symmetries, transform_game};
