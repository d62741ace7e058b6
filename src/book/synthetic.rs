//! Synthetic books for `tengen bench book`: the shape of a grown book (a tree with a few transpositions,
//! realistic branching and values) at any size, without a day of searching.

use super::cost::CostParams;
use super::dag::{Book, BookMeta, Edge, Node, NodeId, ParentLink, SearchValues, SymmetrySet};
use super::provenance::EngineRef;
use crate::go::playout::FastRng;
use crate::go::{BoardSize, BookHash, Color, Move, Rules, Symmetry};

fn random_values(rng: &mut FastRng) -> SearchValues {
    let wl = rng.unit() * 2.0 - 1.0;
    let score = (rng.unit() - 0.5) * 20.0;
    SearchValues {
        win_loss: wl,
        score_mean: score,
        sharp_score: score + rng.unit() - 0.5,
        win_loss_error: rng.unit() * 0.1,
        score_error: rng.unit() * 2.0,
        score_stdev: 5.0 + rng.unit() * 5.0,
        max_policy: rng.unit() * 0.5,
        weight: 200.0,
        visits: 200.0,
    }
}

/// A 7x7 book of `nodes` nodes: every node after the root hangs under a random earlier node (so the
/// shape is a bushy tree near the root), and about 3% of nodes get a second parent (a transposition).
pub fn build(nodes: usize, seed: u64) -> Book {
    let size = BoardSize::square(7).unwrap_or(BoardSize {
        width: 7,
        height: 7,
    });
    let mut book = Book::new(
        BookMeta::new(size, Rules::tromp_taylor()),
        CostParams::default(),
    );
    let mut rng = FastRng::new(seed);
    book.node_mut(book.root()).not_in_book = random_values(&mut rng);
    for i in 1..nodes {
        // Bias parents toward recent nodes so depth grows like a real book's (about log-depth).
        let span = i.min(1 + i / 2);
        let parent = NodeId((i - 1 - rng.below(span)) as u32);
        let hash = BookHash {
            state: (rng.next_u64() as u128) << 64 | rng.next_u64() as u128,
            history: rng.next_u64() as u128,
        };
        let to_move = if book.node(parent).to_move == Color::Black {
            Color::White
        } else {
            Color::Black
        };
        let mut node = Node::new(hash, to_move, SymmetrySet(1), Symmetry::IDENTITY);
        node.not_in_book = random_values(&mut rng);
        let id = book.push_node(node);
        link(&mut book, parent, id, &mut rng);
        if rng.below(100) < 3 && i > 2 {
            let other = NodeId(rng.below(i - 1) as u32);
            if other != parent && book.node(other).to_move == book.node(parent).to_move {
                link(&mut book, other, id, &mut rng);
            }
        }
    }
    book
}

/// Adds an edge from `parent` to `child` on a move `parent` does not use yet.
fn link(book: &mut Book, parent: NodeId, child: NodeId, rng: &mut FastRng) {
    let size = book.meta.size;
    let area = size.area();
    let start = rng.below(area);
    let Some(mv) = unused_move(book, parent, start) else {
        return;
    };
    let prior = rng.unit() as f32 * 0.5;
    append_edge(book, parent, mv, child, prior);
    book.node_mut(child).push_parent(ParentLink { parent, mv });
}

/// The first move, in row-major order from point `start` round the board, that `parent` has no edge for.
fn unused_move(book: &Book, parent: NodeId, start: usize) -> Option<Move> {
    let size = book.meta.size;
    let area = size.area();
    let used: Vec<Move> = book.node(parent).edges.iter().map(|e| e.mv).collect();
    (0..area)
        .map(|k| Move::Play(size.from_row_major((start + k) % area)))
        .find(|m| !used.contains(m))
}

/// Appends the edge `mv` from `parent` to `child`.
fn append_edge(book: &mut Book, parent: NodeId, mv: Move, child: NodeId, prior: f32) {
    let at = book.node(parent).edges.len();
    let edge = Edge::new(mv, Symmetry::IDENTITY, child, prior, EngineRef::UNKNOWN);
    book.node_mut(parent).insert_edge(at, edge);
}

/// Adds `count` new leaf children under `parent` with random values, the way an expansion does.
pub fn expand_randomly(
    book: &mut Book,
    parent: NodeId,
    count: usize,
    rng: &mut FastRng,
) -> Vec<NodeId> {
    let mut changed = vec![parent];
    for _ in 0..count {
        let Some(mv) = unused_move(book, parent, 0) else {
            break;
        };
        let hash = BookHash {
            state: (rng.next_u64() as u128) << 64 | rng.next_u64() as u128,
            history: rng.next_u64() as u128,
        };
        let to_move = book.node(parent).to_move.opponent();
        let mut node = Node::new(hash, to_move, SymmetrySet(1), Symmetry::IDENTITY);
        node.not_in_book = random_values(rng);
        node.push_parent(ParentLink { parent, mv });
        let id = book.push_node(node);
        let prior = rng.unit() as f32 * 0.3;
        append_edge(book, parent, mv, id, prior);
        changed.push(id);
    }
    book.node_mut(parent).not_in_book = random_values(rng);
    changed
}
