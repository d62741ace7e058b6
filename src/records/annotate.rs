//! Annotating a game against a book: where the game left the book, what the book prefers at each move, and
//! how much each move loses by the book's values (the way MoGo's book "commented" professional games).
//! One walk serves `tengen book annotate` (on the book) and the workbench (on the view it holds).
//!
//! The book's best move is the first of those best for the mover by Black's win rate, a move outside the
//! book is valued by the node's "other moves" row, and the notes stop after the move that leaves the book.

use crate::book::view::{NodeView, node_view};
use crate::book::{Book, NodeId};
use crate::go::sgf::{Property, SgfGame, SgfNode};
use crate::go::{BoardSize, Color, Move, Symmetry};

/// What the book says about one move of the game.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MoveNote {
    /// 1 for the first move.
    pub number: usize,
    pub color: Color,
    /// The move played, in the root's orientation (the game's own, since a game starts at the root).
    #[serde(skip)]
    pub played: Move,
    /// The book's best move here, in the root's orientation; `None` when the node has no book move.
    #[serde(skip)]
    pub book_best: Option<Move>,
    /// Whether the played move is in the book.
    pub in_book: bool,
    /// Black's winrate and score after the book's best move.
    pub best_black_winrate: f64,
    pub best_black_score: f64,
    /// Black's winrate and score after the played move, by the book (the "other moves" row when the move
    /// left the book).
    pub played_black_winrate: f64,
    pub played_black_score: f64,
    /// What the move gave away, from the mover's point of view (never negative).
    pub score_loss: f64,
    pub winrate_loss: f64,
}

impl MoveNote {
    /// The comment written into the SGF for this move.
    pub fn comment(&self, size: BoardSize) -> String {
        let best = self
            .book_best
            .map_or("none".to_string(), |m| m.to_gtp(size));
        let head = if self.in_book {
            format!("Book: {} is in the book.", self.played.to_gtp(size))
        } else {
            format!("Book: {} leaves the book here.", self.played.to_gtp(size))
        };
        format!(
            "{head} The book prefers {best} (Black {:.1}%, {:+.1}); this move: Black {:.1}%, {:+.1}; it loses {:.1} points and {:.1}% for {}.",
            self.best_black_winrate * 100.0,
            self.best_black_score,
            self.played_black_winrate * 100.0,
            self.played_black_score,
            self.score_loss,
            self.winrate_loss * 100.0,
            if self.color == Color::Black {
                "Black"
            } else {
                "White"
            },
        )
    }
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum AnnotateError {
    #[error("the game is on {game}, the book on {book}")]
    SizeMismatch { game: String, book: String },
    #[error("the game starts from setup stones; a book starts from the empty board")]
    HasSetup,
    #[error("this book starts from setup stones, a game record from the empty board")]
    BookHasSetup,
}

/// The game's main-line moves, if a book of `size` (starting from setup stones or not) can follow them.
pub fn main_line(
    game: &SgfGame,
    size: BoardSize,
    book_has_setup: bool,
) -> Result<Vec<(Color, Move)>, AnnotateError> {
    if game.size != size {
        return Err(AnnotateError::SizeMismatch {
            game: game.size.to_string(),
            book: size.to_string(),
        });
    }
    let line = game.main_line();
    if line
        .iter()
        .any(|n| n.props.iter().any(|p| matches!(p, Property::Setup(..))))
    {
        return Err(AnnotateError::HasSetup);
    }
    if book_has_setup {
        return Err(AnnotateError::BookHasSetup);
    }
    Ok(line.iter().filter_map(|n| n.get_move()).collect())
}

/// Notes for the game's main-line moves while it stays in the book, and for the move that leaves it.
pub fn annotate(book: &Book, game: &SgfGame) -> Result<Vec<MoveNote>, AnnotateError> {
    let meta = &book.meta;
    let book_has_setup = !meta.setup_black.is_empty() || !meta.setup_white.is_empty();
    let moves = main_line(game, meta.size, book_has_setup)?;
    Ok(annotate_moves(
        book.root(),
        book.meta.size,
        |id| Some(node_view(book, id)),
        &moves,
    ))
}

/// The notes for `moves` (root orientation) walked from `root`, with `node_at` giving each position.
pub fn annotate_moves(
    root: NodeId,
    size: BoardSize,
    node_at: impl Fn(NodeId) -> Option<NodeView>,
    moves: &[(Color, Move)],
) -> Vec<MoveNote> {
    let mut notes = Vec::new();
    let (mut at, mut to_root) = (root, Symmetry::IDENTITY);
    for &(color, played) in moves {
        let Some(node) = node_at(at) else {
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
        let next = node.follow(size, to_root, played);
        let played_values = match (&next, &node.other) {
            (Some((edge, _)), _) => edge.values,
            (None, Some(other)) => other.values,
            // Neither a book move nor values for the others: the book has nothing to say.
            (None, None) => break,
        };
        let best_values = best.map_or(played_values, |b| b.values);
        notes.push(MoveNote {
            number: notes.len() + 1,
            color,
            played,
            in_book: next.is_some(),
            book_best: best.map(|b| to_root.apply_move(size, b.mv)),
            best_black_winrate: best_values.winrate,
            best_black_score: best_values.score,
            played_black_winrate: played_values.winrate,
            played_black_score: played_values.score,
            // `+ 0.0` turns a negative zero into zero for display.
            score_loss: (sign * (best_values.score - played_values.score)).max(0.0) + 0.0,
            winrate_loss: (sign * (best_values.winrate - played_values.winrate)).max(0.0) + 0.0,
        });
        match next {
            Some((edge, child_to_root)) => (at, to_root) = (edge.child, child_to_root),
            None => break,
        }
    }
    notes
}

/// The game with each note appended to its move's comment.
pub fn write_comments(book: &Book, game: &SgfGame, notes: &[MoveNote]) -> SgfGame {
    let mut out = game.clone();
    let mut number = 0;
    let mut node: &mut SgfNode = &mut out.root;
    loop {
        if node.get_move().is_some() {
            number += 1;
            if let Some(note) = notes.iter().find(|n| n.number == number) {
                let text = note.comment(book.meta.size);
                match node.props.iter_mut().find_map(|p| match p {
                    Property::Comment(c) => Some(c),
                    _ => None,
                }) {
                    Some(c) => {
                        c.push_str("\n\n");
                        c.push_str(&text);
                    }
                    None => node.props.push(Property::Comment(text)),
                }
            }
        }
        if node.children.is_empty() || number >= notes.len() {
            return out;
        }
        node = &mut node.children[0];
    }
}
