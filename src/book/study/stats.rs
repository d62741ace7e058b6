//! A book's shape: nodes and moves by depth, branching, transpositions, where its nodes came from, the
//! shallowest good moves nobody has searched yet, and how far apart the root's moves are.

use super::super::dag::{Book, NodeId};
use super::{line_text, ranked_edges};
use crate::go::Color;
use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DepthRow {
    pub depth: u32,
    pub nodes: usize,
    /// Moves out of the nodes at this depth.
    pub moves: usize,
    /// Nodes at this depth with at least one move in the book.
    pub expanded: usize,
}

/// A move to a position the book has not expanded, good for the player who plays it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unexpanded {
    pub line: String,
    pub depth: u32,
    /// Black's win rate after the move.
    pub black_winrate: f64,
    pub visits: f64,
}

/// One move at the root.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootMove {
    pub mv: String,
    pub black_winrate: f64,
    pub black_score: f64,
    pub visits: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookStats {
    pub nodes: usize,
    pub moves: usize,
    pub by_depth: Vec<DepthRow>,
    /// Moves per expanded node.
    pub branching: f64,
    /// Nodes reached by more than one move, and the moves into them beyond the first.
    pub transposed_nodes: usize,
    pub transposition_links: usize,
    /// Nodes by where they came from: "records" for positions the record games reached, "search" for
    /// the others.
    pub sources: Vec<(String, usize)>,
    /// The record games at the root (0 for a book grown by search only).
    pub games: u32,
    pub unexpanded_good: Vec<Unexpanded>,
    pub root_moves: Vec<RootMove>,
    /// Largest minus smallest Black win rate and score among the root's moves.
    pub root_winrate_spread: f64,
    pub root_score_spread: f64,
}

/// How far from its parent's best move (in win/loss, −1..1, for the mover) a move still counts as good.
pub const GOOD_MOVE_MARGIN: f64 = 0.05;

/// The book's statistics; `show` caps the list of unexpanded good moves.
pub fn stats(book: &Book, show: usize) -> BookStats {
    let mut by_depth: Vec<DepthRow> = Vec::new();
    let (mut transposed_nodes, mut transposition_links, mut expanded) = (0, 0, 0);
    let mut from_records = 0;
    for (id, node) in book.nodes() {
        let d = node.cost.min_depth as usize;
        if by_depth.len() <= d {
            by_depth.resize_with(d + 1, DepthRow::default);
        }
        let row = &mut by_depth[d];
        row.depth = d as u32;
        row.nodes += 1;
        row.moves += node.edges.len();
        if !node.edges.is_empty() {
            row.expanded += 1;
            expanded += 1;
        }
        if node.parents.len() > 1 {
            transposed_nodes += 1;
            transposition_links += node.parents.len() - 1;
        }
        if !book.games_through(id).is_empty() {
            from_records += 1;
        }
    }
    let mut sources = Vec::new();
    if from_records > 0 {
        sources.push(("records".to_string(), from_records));
    }
    if book.len() > from_records {
        sources.push(("search".to_string(), book.len() - from_records));
    }
    let root_moves = root_moves(book);
    let spread = |f: fn(&RootMove) -> f64| {
        let (lo, hi) = root_moves
            .iter()
            .map(f)
            .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
        if root_moves.is_empty() { 0.0 } else { hi - lo }
    };
    BookStats {
        nodes: book.len(),
        moves: book.edge_count(),
        branching: if expanded == 0 {
            0.0
        } else {
            book.edge_count() as f64 / expanded as f64
        },
        by_depth,
        transposed_nodes,
        transposition_links,
        sources,
        games: book.games_through(book.root()).games,
        unexpanded_good: unexpanded_good(book, show),
        root_winrate_spread: spread(|m| m.black_winrate),
        root_score_spread: spread(|m| m.black_score),
        root_moves,
    }
}

fn root_moves(book: &Book) -> Vec<RootMove> {
    let root = book.root();
    ranked_edges(book, root)
        .into_iter()
        .map(|e| {
            let v = &book.node(e.child).values;
            RootMove {
                mv: e.mv.to_gtp(book.meta.size),
                black_winrate: (1.0 - v.win_loss) / 2.0,
                black_score: -0.5 * (v.score_mean + v.sharp_score),
                visits: v.visits,
            }
        })
        .collect()
}

/// Moves into expandable leaves whose win/loss for the mover is within [`GOOD_MOVE_MARGIN`] of the
/// parent's best move, shallowest first (then the most visited), at most `show`.
fn unexpanded_good(book: &Book, show: usize) -> Vec<Unexpanded> {
    let mut found: Vec<(u32, f64, NodeId)> = Vec::new();
    for (_, node) in book.nodes() {
        let sign = if node.to_move == Color::White {
            1.0
        } else {
            -1.0
        };
        let best = node
            .edges
            .iter()
            .map(|e| sign * book.node(e.child).values.win_loss)
            .fold(f64::MIN, f64::max);
        for e in node.edges.iter() {
            let child = book.node(e.child);
            let good = sign * child.values.win_loss >= best - GOOD_MOVE_MARGIN;
            if good && child.edges.is_empty() && child.can_expand {
                found.push((child.cost.min_depth, child.values.visits, e.child));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    found.dedup_by_key(|f| f.2);
    found
        .into_iter()
        .filter_map(|(depth, visits, id)| {
            let (_, line) = line_text(book, id)?;
            Some(Unexpanded {
                line,
                depth,
                black_winrate: (1.0 - book.node(id).values.win_loss) / 2.0,
                visits,
            })
        })
        .take(show)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::reference_book;

    /// The counts add up to the book's, on KataGo's real book, and the good unexpanded moves are leaves
    /// sorted shallowest first.
    #[test]
    fn stats_of_the_katago_book_add_up() {
        let book = reference_book();
        let s = stats(&book, 10);
        assert_eq!(s.nodes, 146);
        assert_eq!(s.moves, 154);
        assert_eq!(s.by_depth.iter().map(|r| r.nodes).sum::<usize>(), 146);
        assert_eq!(s.by_depth.iter().map(|r| r.moves).sum::<usize>(), 154);
        assert_eq!(s.by_depth[0].nodes, 1);
        let links: usize = book.nodes().map(|(_, n)| n.parents.len()).sum();
        assert_eq!(links, 145 + s.transposition_links);
        assert_eq!(s.sources, vec![("search".to_string(), 146)]);
        assert!(!s.unexpanded_good.is_empty() && s.unexpanded_good.len() <= 10);
        assert!(
            s.unexpanded_good
                .windows(2)
                .all(|w| w[0].depth <= w[1].depth)
        );
        for u in &s.unexpanded_good {
            let moves = crate::go::Move::parse_list(&u.line, book.meta.size).unwrap();
            let view = book.follow_line(&moves).unwrap();
            assert!(book.node(view.id).edges.is_empty(), "{}", u.line);
        }
        assert_eq!(s.root_moves.len(), book.node(book.root()).edges.len());
        assert!(s.root_winrate_spread >= 0.0);
    }
}
