//! What a book looks like to the workbench: plain, serialisable data that the app owns and that background
//! jobs patch node by node.
//!
//! The app never holds the book itself: it holds a [`BookView`] built from it and receives changed
//! [`NodeView`]s as actions, so that a recording of those actions reproduces every frame.

use crate::book::dag::NodeId;
use crate::book::marks::Mark;
use crate::go::{BoardSize, Color, Move, Point, Rules, Symmetry};
use serde::{Deserialize, Serialize};

/// Values of a move or a position, always from Black's point of view (as KataGo's pages show them).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BlackValues {
    /// Black's winning chance, 0..=1.
    pub winrate: f64,
    /// Black's expected lead in points.
    pub score: f64,
    /// Half-width of the win-rate uncertainty interval, 0 when the engine gives none.
    pub winrate_uncertainty: f64,
    /// Half-width of the score uncertainty interval in points.
    pub score_uncertainty: f64,
}

impl BlackValues {
    /// The value for `player`, as a number that player maximises: win rate first, score to break ties.
    pub fn utility_for(&self, player: Color, score_weight: f64) -> f64 {
        let black = (self.winrate - 0.5) * 2.0 + score_weight * self.score;
        if player == Color::Black {
            black
        } else {
            -black
        }
    }
}

/// One move of a node that is in the book.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeView {
    /// The move in the node's own (canonical) orientation.
    pub mv: Move,
    /// Maps the node's orientation onto the child's.
    pub to_child: Symmetry,
    pub child: NodeId,
    /// The network's prior for the move, 0..=1.
    pub prior: f64,
    /// The child's minimax values.
    pub values: BlackValues,
    pub visits: f64,
    pub adjusted_visits: f64,
    /// The book's expansion cost along this edge, when the book computes one.
    pub cost: Option<f64>,
    /// The record games that played this move (0 in books grown by search only).
    #[serde(default)]
    pub games: u32,
}

/// The values of the moves that are not in the book yet (KataGo's "other" row).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OtherMoves {
    pub values: BlackValues,
    /// Largest prior among the moves not in the book.
    pub max_prior: f64,
    pub visits: f64,
}

/// A position of the book as the workbench shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    pub id: NodeId,
    pub to_move: Color,
    /// Symmetries under which the position maps onto itself (a book move stands for all its images).
    pub self_symmetries: Vec<Symmetry>,
    /// The book's moves, best first for the player to move.
    pub edges: Vec<EdgeView>,
    pub other: Option<OtherMoves>,
    /// The node's minimax values over its book moves and the "other" row.
    pub values: BlackValues,
    pub visits: f64,
    pub marks: Vec<Mark>,
    /// How many book moves lead here; more than one means a transposition.
    pub parent_count: u32,
    pub min_depth: u32,
    /// The cost of expanding this node, when the book computes one.
    pub expansion_cost: Option<f64>,
    /// The book's cost of reaching this node from the root (its cheapest parent edge, less its marks'
    /// bonuses): what the rows' costs add to when the book picks what to expand next.
    #[serde(default)]
    pub path_cost: f64,
}

impl NodeView {
    pub fn is_transposition(&self) -> bool {
        self.parent_count > 1
    }

    /// The book move that `mv` is an image of, and the symmetry from that move's child to the root's
    /// orientation. `mv` is in the root's orientation; `to_root` maps this node's onto the root's.
    pub fn follow(
        &self,
        size: BoardSize,
        to_root: Symmetry,
        mv: Move,
    ) -> Option<(&EdgeView, Symmetry)> {
        let in_node = to_root.inverse().apply_move(size, mv);
        self.edges.iter().find_map(|edge| {
            self.self_symmetries
                .iter()
                .find(|t| t.apply_move(size, edge.mv) == in_node)
                .map(|&t| (edge, edge.to_child.inverse().then(t).then(to_root)))
        })
    }

    /// Re-sorts the edges best first for the player to move.
    pub fn sort_edges(&mut self, score_weight: f64) {
        let pla = self.to_move;
        self.edges.sort_by(|a, b| {
            b.values
                .utility_for(pla, score_weight)
                .total_cmp(&a.values.utility_for(pla, score_weight))
        });
    }
}

/// The starting position of a book.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InitialPosition {
    pub black: Vec<Point>,
    pub white: Vec<Point>,
    pub first_player: Option<Color>,
}

/// A whole book as the workbench sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookView {
    /// What the status line calls it (the file name).
    pub name: String,
    pub size: BoardSize,
    pub rules: Rules,
    pub initial: InitialPosition,
    pub root: NodeId,
    /// Indexed by [`NodeId`].
    pub nodes: Vec<NodeView>,
}

impl BookView {
    pub fn node(&self, id: NodeId) -> Option<&NodeView> {
        self.nodes.get(id.index())
    }

    /// Replaces (or appends) a node that a job changed.
    pub fn upsert(&mut self, node: NodeView) {
        let i = node.id.index();
        if i < self.nodes.len() {
            self.nodes[i] = node;
        } else {
            // Ids are dense; a gap would mean a lost update, so fill it with the node's own id only when it is next.
            while self.nodes.len() < i {
                let filler = NodeId(self.nodes.len() as u32);
                self.nodes.push(NodeView::placeholder(filler));
            }
            self.nodes.push(node);
        }
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

impl NodeView {
    /// A node that a job announced by id before sending its contents.
    pub fn placeholder(id: NodeId) -> NodeView {
        NodeView {
            id,
            to_move: Color::Black,
            self_symmetries: vec![Symmetry::IDENTITY],
            edges: Vec::new(),
            other: None,
            values: BlackValues::default(),
            visits: 0.0,
            marks: Vec::new(),
            parent_count: 0,
            min_depth: 0,
            expansion_cost: None,
            path_cost: 0.0,
        }
    }
}
