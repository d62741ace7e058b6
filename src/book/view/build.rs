//! Turns the book into what the workbench shows: [`BookView`] and [`NodeView`] built from the book's own
//! page query ([`node_table`]), so the app sees KataGo's sorting, values and costs without holding the
//! book.

use super::model::{BlackValues, BookView, EdgeView, InitialPosition, NodeView, OtherMoves};
use super::{node_table, view_of};
use crate::book::{Book, NodeId};
use crate::go::Symmetry;

/// The whole book as the app's first action carries it.
pub fn book_view(book: &Book, name: &str) -> BookView {
    let meta = &book.meta;
    BookView {
        name: name.to_string(),
        size: meta.size,
        rules: meta.rules,
        initial: InitialPosition {
            black: meta.setup_black.clone(),
            white: meta.setup_white.clone(),
            first_player: Some(meta.first_player),
        },
        root: book.root(),
        nodes: (0..book.len())
            .map(|i| node_view(book, NodeId(i as u32)))
            .collect(),
    }
}

/// One node in its own orientation.
pub fn node_view(book: &Book, id: NodeId) -> NodeView {
    let table = node_table(book, view_of(id));
    let node = book.node(id);
    let mut edges = Vec::new();
    let mut other = None;
    for row in &table.rows {
        let values = BlackValues {
            winrate: row.black_winrate,
            score: row.black_score,
            winrate_uncertainty: row.win_loss_radius / 2.0,
            score_uncertainty: row.score_radius,
        };
        match (&row.child, row.moves.first()) {
            (Some(child), Some(&mv)) if !row.is_other => edges.push(EdgeView {
                mv,
                // The row's child view maps child space to this node's space; the edge goes the other way.
                to_child: child.to_view.inverse(),
                child: child.id,
                prior: row.prior,
                values,
                visits: row.visits,
                adjusted_visits: row.adjusted_visits,
                cost: Some(row.cost),
                games: row.games.games,
            }),
            _ if row.is_other => {
                other = Some(OtherMoves {
                    values,
                    max_prior: row.prior,
                    visits: row.visits,
                });
            }
            _ => {}
        }
    }
    NodeView {
        id,
        to_move: table.to_move,
        self_symmetries: node.self_symmetries.iter().collect::<Vec<Symmetry>>(),
        edges,
        other,
        values: BlackValues {
            winrate: table.black_winrate,
            score: table.black_score,
            winrate_uncertainty: 0.0,
            score_uncertainty: 0.0,
        },
        visits: table.visits,
        marks: table.marks.map(|m| m.list()).unwrap_or_default(),
        parent_count: node.parents.len() as u32,
        min_depth: table.depth,
        expansion_cost: (node.can_expand && table.expansion_cost < 1e99)
            .then_some(table.expansion_cost),
        path_cost: table.path_cost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::interop::katabook;
    use std::path::Path;

    const SAMPLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/katabook/7x7-tt-k9-146.katabook"
    );

    #[test]
    fn the_view_of_the_real_7x7_book_matches_katago_root_page() {
        let (book, _) = katabook::import(Path::new(SAMPLE)).unwrap();
        let view = book_view(&book, "7x7");
        assert_eq!(view.node_count(), 146);
        let root = view.node(view.root).unwrap();
        let size = view.size;
        // KataGo's root page: D4 54.3% / +0.42, E4 20.0% / -3.55, E5 8.6% / -5.60, other 6.9% / -11.80.
        let expect = [
            ("D4", 0.543, 0.42),
            ("E4", 0.200, -3.55),
            ("E5", 0.086, -5.60),
        ];
        for (edge, (mv, winrate, score)) in root.edges.iter().zip(expect) {
            assert_eq!(edge.mv.to_gtp(size), mv);
            assert!(
                (edge.values.winrate - winrate).abs() < 0.001,
                "{mv} {}",
                edge.values.winrate
            );
            assert!(
                (edge.values.score - score).abs() < 0.01,
                "{mv} {}",
                edge.values.score
            );
        }
        let other = root.other.unwrap();
        assert!(
            (other.values.winrate - 0.069).abs() < 0.001
                && (other.values.score + 11.80).abs() < 0.01
        );
        assert!(view.nodes.iter().filter(|n| n.is_transposition()).count() >= 8);
        // Every edge leads to a node of the view.
        assert!(
            view.nodes
                .iter()
                .flat_map(|n| &n.edges)
                .all(|e| view.node(e.child).is_some())
        );
    }
}
