//! A tengen book from a record tree. Each move of the book carries the games that played it (count,
//! results, Black's wins) and each position the values of the games through it, until an engine grows it.
//!
//! Games were oriented canonically before merging; in the book they are merged again on the book's own
//! hashes, so different move orders of the same position (transpositions) meet in one node.

use super::tree::{ROOT, RecordId, RecordTree};
use crate::book::dag::{
    Book, BookMeta, GameCounts, NodeId, OrientedNode, SearchValues, transform_game,
};
use crate::book::expand::add_move;
use crate::book::{CostParams, recompute_everything};
use crate::engine::{EngineId, EngineKind};
use crate::go::{Game, Rules, Symmetry};

#[derive(Debug, thiserror::Error)]
pub enum RecordsBookError {
    #[error("the record tree is empty: no game was merged")]
    Empty,
    #[error(transparent)]
    Book(#[from] crate::book::dag::DagError),
}

/// What the conversion did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordsBookReport {
    /// Record-tree nodes turned into moves of the book.
    pub moves: usize,
    /// Moves that reached a position already in the book by another order.
    pub transpositions: usize,
    /// Record moves that are not legal in the book's rules, or by the wrong colour, with their subtrees.
    pub dropped: usize,
}

/// Builds a book of `rules` from `tree` (games on the empty board of the tree's size).
pub fn to_book(
    tree: &RecordTree,
    rules: Rules,
    params: CostParams,
) -> Result<(Book, RecordsBookReport), RecordsBookError> {
    if tree.is_empty() {
        return Err(RecordsBookError::Empty);
    }
    let meta = BookMeta::new(tree.size, rules);
    let mut book = Book::new(meta, params);
    // Every position and move of such a book, and its values until an engine grows it, come from the games.
    let by = book.register_engine(&EngineId::new(EngineKind::Records))?;
    let size = book.meta.size;
    let mut report = RecordsBookReport::default();
    let root_view = OrientedNode {
        id: book.root(),
        to_view: Symmetry::IDENTITY,
    };
    // (record node, its view in the book, the game in the records' orientation)
    let mut stack: Vec<(RecordId, OrientedNode, Game)> =
        vec![(ROOT, root_view, book.meta.initial_game())];
    while let Some((rid, view, game)) = stack.pop() {
        for &c in &tree.node(rid).children {
            let record = tree.node(c);
            let Some((color, mv)) = record.mv else {
                continue;
            };
            let to_node = view.to_view.inverse();
            let node_game = transform_game(&game, to_node);
            let in_node = to_node.apply_move(size, mv);
            let added = (color == game.to_move())
                .then(|| add_move(&mut book, view.id, &node_game, in_node, 0.0, by).ok())
                .flatten();
            let Some((_, is_new)) = added else {
                report.dropped += 1;
                continue;
            };
            let Some((i, _)) = book.edge_by_move(view.id, in_node) else {
                report.dropped += 1;
                continue;
            };
            book.node_mut(view.id).edges[i].games.add(GameCounts {
                games: record.games,
                scored: record.scored,
                black_wins_x2: record.black_wins_x2,
            });
            report.moves += 1;
            if !is_new {
                report.transpositions += 1;
            }
            let Ok(child_view) = book.follow(view, mv) else {
                continue;
            };
            let mut next = game.clone();
            if next.play(mv).is_ok() {
                stack.push((c, child_view, next));
            }
        }
    }
    set_values_from_games(&mut book);
    let ids: Vec<NodeId> = book.nodes().map(|(id, _)| id).collect();
    for id in ids {
        let node = book.node_mut(id);
        node.created_by = by;
        node.values_by = by;
    }
    recompute_everything(&mut book);
    Ok((book, report))
}

/// Every node's "not in book" values and every move's prior, from the games. The "not in book" part of
/// a position is the games that left the book there (they ended, were cut, or played a move the book
/// does not hold), so the visits of a subtree add up to the games through it. Its win/loss is White's
/// win rate minus Black's in those games (in all games through the position when none of those had a
/// result), its error the binomial standard error of that, visits and weight the games. A move's prior is
/// its share of the position's games, the unexpanded moves' the share that left (each counted with one
/// game more, so that neither is ever zero).
pub fn set_values_from_games(book: &mut Book) {
    let ids: Vec<NodeId> = book.nodes().map(|(id, _)| id).collect();
    for id in ids {
        let through = book.games_through(id);
        let n = through.games as f64;
        let node = book.node_mut(id);
        let mut continued = GameCounts::default();
        for e in node.edges.iter_mut() {
            e.prior = (e.games.games as f64 / (n + 1.0)) as f32;
            continued.add(e.games);
        }
        if through.games == 0 {
            continue;
        }
        let left = GameCounts {
            games: through.games.saturating_sub(continued.games),
            scored: through.scored.saturating_sub(continued.scored),
            black_wins_x2: through
                .black_wins_x2
                .saturating_sub(continued.black_wins_x2),
        };
        let judged = if left.scored > 0 { left } else { through };
        let (win_loss, win_loss_error) = match judged.black_rate() {
            Some(black) => (
                1.0 - 2.0 * black,
                2.0 * (black * (1.0 - black) / judged.scored as f64).sqrt(),
            ),
            None => (0.0, -1.0),
        };
        // The games that left the book here, and at least one: the cost model divides by the visits, and
        // counting the games through the position again would count every game twice.
        let count = left.games.max(1) as f64;
        node.not_in_book = SearchValues {
            win_loss,
            score_mean: 0.0,
            sharp_score: 0.0,
            win_loss_error,
            score_error: -1.0,
            score_stdev: 0.0,
            max_policy: (left.games as f64 + 1.0) / (n + 1.0),
            weight: count,
            visits: count,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{BoardSize, Color, Move};
    use crate::records::tree::Outcome;

    fn line(size: BoardSize, text: &str) -> Vec<(Color, Move)> {
        Move::alternating(&Move::parse_list(text, size).unwrap())
    }

    /// Counts land on the moves, transpositions meet in one node that counts the games of both orders,
    /// and a node's win/loss is its games' result.
    #[test]
    fn games_become_counts_and_values() {
        let size = BoardSize::square(9).unwrap();
        let mut t = RecordTree::new(size);
        for _ in 0..3 {
            t.add_game(&line(size, "E5 C3 G7 G3"), Some(Outcome::BlackWin), 16);
        }
        t.add_game(&line(size, "E5 G3 G7 C3"), Some(Outcome::WhiteWin), 16);
        t.add_game(&line(size, "E5 C3 G7"), None, 16);
        let (book, report) = to_book(&t, Rules::tromp_taylor(), CostParams::default()).unwrap();
        assert_eq!(report.dropped, 0);
        assert!(report.transpositions >= 1, "{report:?}");
        let root = book.games_through(book.root());
        assert_eq!((root.games, root.scored, root.black_wins_x2), (5, 4, 6));
        let e5 = book
            .follow_line(&Move::parse_list("E5", size).unwrap())
            .unwrap();
        assert_eq!(book.games_through(e5.id).games, 5);
        let end = book
            .follow_line(&Move::parse_list("E5 C3 G7 G3", size).unwrap())
            .unwrap();
        let other = book
            .follow_line(&Move::parse_list("E5 G3 G7 C3", size).unwrap())
            .unwrap();
        assert_eq!(end.id, other.id, "the two orders transpose");
        let g = book.games_through(end.id);
        assert_eq!((g.games, g.scored, g.black_wins_x2), (4, 4, 6));
        let v = book.node(end.id).not_in_book;
        assert!((v.win_loss - (1.0 - 2.0 * 0.75)).abs() < 1e-12);
        assert_eq!(v.visits, 4.0);
        assert!(v.win_loss_error > 0.0);
        // One game left the book after E5 C3 G7 (it ended there); the subtree's visits are that game
        // and the transposed node's four (a transposition counts once per path, as in KataGo's books).
        let g7 = book
            .follow_line(&Move::parse_list("E5 C3 G7", size).unwrap())
            .unwrap();
        assert_eq!(book.node(g7.id).not_in_book.visits, 1.0);
        assert_eq!(book.node(g7.id).values.visits, 1.0 + 4.0);
    }

    #[test]
    fn an_empty_tree_is_refused() {
        let t = RecordTree::new(BoardSize::square(9).unwrap());
        assert!(to_book(&t, Rules::tromp_taylor(), CostParams::default()).is_err());
    }
}
