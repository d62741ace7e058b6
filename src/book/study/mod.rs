//! Tools to study a book rather than grow it: its shape (`stats`), where two books disagree (`diff`) and
//! where a book is unsure of itself (`disputed`). Each answer names positions by their line from the root,
//! in the root's orientation, so that it can be fed back to `book show`, `book mark` or the workbench.

pub mod diff;
pub mod disputed;
pub mod stats;

use super::dag::{Book, Edge, NodeId};
use super::values::sorting_value;
use crate::go::Move;

/// The node's moves from best to worst for the player to move, as the book's pages sort them.
pub fn ranked_edges(book: &Book, id: NodeId) -> Vec<&Edge> {
    let node = book.node(id);
    let mut edges: Vec<(f64, &Edge)> = node
        .edges
        .iter()
        .map(|e| {
            let v = &book.node(e.child).values;
            let key = sorting_value(&book.params, node.to_move, v, e.prior as f64);
            (key, e)
        })
        .collect();
    edges.sort_by(|a, b| b.0.total_cmp(&a.0));
    edges.into_iter().map(|(_, e)| e).collect()
}

/// The line from the root to `id` (cheapest parents) in GTP coordinates, or `None` for a node the root
/// does not reach.
pub fn line_text(book: &Book, id: NodeId) -> Option<(Vec<Move>, String)> {
    let (moves, _) = book.line_to(id).ok()?;
    let text = gtp_line(book, &moves);
    Some((moves, text))
}

/// Moves in GTP coordinates, space-separated (what `--line` reads).
pub fn gtp_line(book: &Book, moves: &[Move]) -> String {
    let size = book.meta.size;
    moves
        .iter()
        .map(|m| m.to_gtp(size))
        .collect::<Vec<_>>()
        .join(" ")
}
