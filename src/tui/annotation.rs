//! A game annotated against the open book, the workbench's side of `tengen book annotate`: for each move,
//! whether it is in the book, what the book prefers, and how much the move loses by the book's values.
//!
//! It works on the [`BookView`] the app holds (the book itself lives with the jobs), with the same rules as
//! [`crate::records::annotate`]: the book's best move is the one best for the mover by Black's win rate, a
//! move outside the book is valued by the node's "other moves" row, and the notes stop after the move that
//! leaves the book. The game arrives as the text of its file in an action, so a replay annotates it again.

use super::app::Step;
use crate::book::view::{BookView, EdgeView, NodeView};
use crate::go::sgf::{self, Property};
use crate::go::{Color, Move, Symmetry};
use std::path::Path;

/// What the book says about one move of the game.
#[derive(Debug, Clone, PartialEq)]
pub struct GameNote {
    pub color: Color,
    /// The move played, in the root's orientation (the game's own, since a game starts at the root).
    pub played: Move,
    pub in_book: bool,
    /// The book's best move here, in the root's orientation; `None` when the node has no book move.
    pub book_best: Option<Move>,
    /// Black's win rate and score after the book's best move and after the played move.
    pub best_winrate: f64,
    pub best_score: f64,
    pub played_winrate: f64,
    pub played_score: f64,
    /// What the move gave away, from the mover's point of view (never negative).
    pub score_loss: f64,
    pub winrate_loss: f64,
}

/// A loaded game and where the user is in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The file, as the user typed it.
    pub path: String,
    /// The game's main line.
    pub moves: Vec<(Color, Move)>,
    /// One note per move while the game stays in the book, then one for the move that leaves it.
    pub notes: Vec<GameNote>,
    /// Moves of the game played so far on the board (0 = the root).
    pub at: usize,
}

impl Annotation {
    /// Moves at the start of the game that the book holds: the board can follow the game this far.
    pub fn book_moves(&self) -> usize {
        self.notes.iter().take_while(|n| n.in_book).count()
    }

    /// The move number (1-based) that left the book, if the game did.
    pub fn left_book_at(&self) -> Option<usize> {
        self.notes.iter().position(|n| !n.in_book).map(|i| i + 1)
    }

    /// The moves to walk in the book for the current place in the game.
    pub fn book_line(&self) -> Vec<Move> {
        self.moves
            .iter()
            .take(self.at.min(self.book_moves()))
            .map(|&(_, m)| m)
            .collect()
    }
}

/// Reads the game in `text` (SGF; its main line) and annotates it against `book`.
pub fn load(book: &BookView, path: &str, text: &str) -> Result<Annotation, String> {
    let game = sgf::parse_str(text, Path::new(path))
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .ok_or_else(|| format!("{path}: no game in the file"))?;
    if game.size != book.size {
        return Err(format!(
            "{path}: the game is on {}, the book on {}",
            game.size, book.size
        ));
    }
    let line = game.main_line();
    if line
        .iter()
        .any(|n| n.props.iter().any(|p| matches!(p, Property::Setup(..))))
    {
        return Err(format!(
            "{path}: the game starts from setup stones; a book starts from the empty board"
        ));
    }
    if !book.initial.black.is_empty() || !book.initial.white.is_empty() {
        return Err(format!(
            "{path}: this book starts from setup stones, a game record from the empty board"
        ));
    }
    let moves: Vec<(Color, Move)> = line.iter().filter_map(|n| n.get_move()).collect();
    let notes = annotate(book, &moves);
    Ok(Annotation {
        path: path.to_string(),
        moves,
        notes,
        at: 0,
    })
}

/// The notes for `moves` (root orientation) walked from the book's root.
pub fn annotate(book: &BookView, moves: &[(Color, Move)]) -> Vec<GameNote> {
    let mut notes = Vec::new();
    let mut step = Step {
        node: book.root,
        to_root: Symmetry::IDENTITY,
        mv: None,
    };
    for &(color, played) in moves {
        let Some(node) = book.node(step.node) else {
            break;
        };
        // A record may let one colour move twice; the book's positions cannot follow that.
        if color != node.to_move {
            break;
        }
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        // The first of equally good moves, as the moves pane lists them.
        let best = node.edges.iter().reduce(|best, e| {
            if sign * e.values.winrate > sign * best.values.winrate {
                e
            } else {
                best
            }
        });
        let next = follow(book, &step, played);
        let played_values = match (&next, &node.other) {
            (Some((_, edge)), _) => edge.values,
            (None, Some(other)) => other.values,
            // Neither a book move nor values for the others: the book has nothing to say.
            (None, None) => break,
        };
        let best_values = best.map_or(played_values, |b| b.values);
        notes.push(GameNote {
            color,
            played,
            in_book: next.is_some(),
            book_best: best.map(|b| step.to_root.apply_move(book.size, b.mv)),
            best_winrate: best_values.winrate,
            best_score: best_values.score,
            played_winrate: played_values.winrate,
            played_score: played_values.score,
            // `+ 0.0` turns a negative zero into zero for display.
            score_loss: (sign * (best_values.score - played_values.score)).max(0.0) + 0.0,
            winrate_loss: (sign * (best_values.winrate - played_values.winrate)).max(0.0) + 0.0,
        });
        match next {
            Some((child, _)) => step = child,
            None => break,
        }
    }
    notes
}

/// The step after playing `mv` (root orientation) at `step`, with the book move it is an image of.
pub fn follow<'a>(book: &'a BookView, step: &Step, mv: Move) -> Option<(Step, &'a EdgeView)> {
    let node: &NodeView = book.node(step.node)?;
    let in_node = step.to_root.inverse().apply_move(book.size, mv);
    for edge in &node.edges {
        for &t in &node.self_symmetries {
            if t.apply_move(book.size, edge.mv) == in_node {
                let to_root = edge.to_child.inverse().then(t).then(step.to_root);
                let next = Step {
                    node: edge.child,
                    to_root,
                    mv: Some(mv),
                };
                return Some((next, edge));
            }
        }
    }
    None
}
