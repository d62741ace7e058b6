//! One cheap query per screen: a node's moves as KataGo's pages list them (sorted by KataGo's sorting
//! value), shown from Black's point of view, with uncertainty, prior, visits, adjusted visits, edge cost
//! and marks, and the "other moves" row for what the book has not expanded.

mod build;
mod model;

pub use build::{book_view, node_view};
pub use model::{BlackValues, BookView, EdgeView, InitialPosition, NodeView, OtherMoves};

use super::dag::{Book, GameCounts, NodeId, OrientedNode};
use super::marks::Marks;
use super::values::{RecursiveValues, own_values, sorting_value};
use crate::go::{BookHash, Color, Move, Symmetry};
use serde::Serialize;

/// One row of a node's table. Values are Black's; KataGo's White-view values are kept for parity checks.
#[derive(Debug, Clone, Serialize)]
pub struct MoveRow {
    /// The move in the view's orientation and its symmetric equivalents; empty for the "other" row.
    pub moves: Vec<Move>,
    pub is_other: bool,
    pub prior: f64,
    pub black_winrate: f64,
    pub black_score: f64,
    /// Half-widths of the UCB − LCB intervals (win/loss from −1..1, and points).
    pub win_loss_radius: f64,
    pub score_radius: f64,
    pub visits: f64,
    pub adjusted_visits: f64,
    /// The edge's cost above the parent's path cost, or the node's expansion cost for the "other" row.
    pub cost: f64,
    /// White-view recursive win/loss, as on KataGo's pages.
    pub white_win_loss: f64,
    /// White-view average of score mean and sharp score, as on KataGo's pages.
    pub white_score: f64,
    /// The child and how to look at it so that the orientation stays the user's.
    #[serde(skip)]
    pub child: Option<OrientedNode>,
    pub marks: Option<Marks>,
    /// The record games that played this move (empty in books grown by search only).
    pub games: GameCounts,
}

/// Everything a screen shows about one node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeTable {
    pub hash: BookHash,
    pub to_move: Color,
    pub black_winrate: f64,
    pub black_score: f64,
    pub visits: f64,
    pub adjusted_visits: f64,
    pub path_cost: f64,
    pub expansion_cost: f64,
    pub depth: u32,
    pub marks: Option<Marks>,
    /// The record games through this position.
    pub games: GameCounts,
    pub rows: Vec<MoveRow>,
}

fn black_winrate(white_wl: f64) -> f64 {
    (1.0 - white_wl) / 2.0
}

/// The table for `view`. Equivalent moves (under the node's self-symmetries) are listed together, each
/// point once, the way KataGo's pages give `xy`.
pub fn node_table(book: &Book, view: OrientedNode) -> NodeTable {
    let node = book.node(view.id);
    let size = book.meta.size;
    let params = &book.params;
    let self_syms: Vec<Symmetry> = node.self_symmetries.iter().collect();
    let mut order: Vec<(f64, usize)> = node
        .edges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (
                sorting_value(
                    params,
                    node.to_move,
                    &book.node(e.child).values,
                    e.prior as f64,
                ),
                i,
            )
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut seen: Vec<Move> = Vec::new();
    let mut rows = Vec::new();
    for (_, i) in order {
        let e = &node.edges[i];
        let child = book.node(e.child);
        let mut moves = Vec::new();
        for &s in &self_syms {
            let m = view.to_view.apply_move(size, s.apply_move(size, e.mv));
            if !seen.contains(&m) {
                seen.push(m);
                moves.push(m);
            }
        }
        if moves.is_empty() {
            moves.push(view.to_view.apply_move(size, e.mv));
        }
        let child_view = book.follow(view, moves[0]).unwrap_or(OrientedNode {
            id: e.child,
            to_view: Symmetry::IDENTITY,
        });
        let mut row = row_from_values(
            moves,
            false,
            e.prior as f64,
            &child.values,
            e.cost_from_root - node.cost.min_cost_from_root,
            Some(child_view),
            book.marks.get(&e.child).copied(),
        );
        row.games = e.games;
        rows.push(row);
    }
    let nib = &node.not_in_book;
    if nib.max_policy > 0.0 {
        let v = own_values(nib, params, &book.meta.rules);
        rows.push(row_from_values(
            Vec::new(),
            true,
            nib.max_policy,
            &v,
            node.cost.expansion_cost,
            None,
            None,
        ));
    }
    let v = &node.values;
    NodeTable {
        hash: node.hash,
        to_move: node.to_move,
        black_winrate: black_winrate(v.win_loss),
        black_score: -0.5 * (v.score_mean + v.sharp_score),
        visits: v.visits,
        adjusted_visits: v.adjusted_visits,
        path_cost: node.cost.min_cost_from_root,
        expansion_cost: node.cost.expansion_cost,
        depth: node.cost.min_depth,
        marks: book.marks.get(&view.id).copied(),
        games: book.games_through(view.id),
        rows,
    }
}

fn row_from_values(
    moves: Vec<Move>,
    is_other: bool,
    prior: f64,
    v: &RecursiveValues,
    cost: f64,
    child: Option<OrientedNode>,
    marks: Option<Marks>,
) -> MoveRow {
    let white_score = 0.5 * (v.score_mean + v.sharp_score);
    MoveRow {
        moves,
        is_other,
        prior,
        black_winrate: black_winrate(v.win_loss),
        black_score: -white_score,
        win_loss_radius: 0.5 * (v.win_loss_ucb - v.win_loss_lcb),
        score_radius: 0.5 * (v.score_ucb - v.score_lcb),
        visits: v.visits,
        adjusted_visits: v.adjusted_visits,
        cost,
        white_win_loss: v.win_loss,
        white_score,
        child,
        marks,
        games: GameCounts::default(),
    }
}

/// The node's id for a view, for callers that only keep views.
pub fn view_of(id: NodeId) -> OrientedNode {
    OrientedNode {
        id,
        to_view: Symmetry::IDENTITY,
    }
}
