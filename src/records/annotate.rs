//! Annotating a game against a book: where the game left the book, what the book prefers at each move, and
//! how much each move loses by the book's values (the way MoGo's book "commented" professional games).

use crate::book::{Book, OrientedNode, node_table};
use crate::go::sgf::{Property, SgfGame, SgfNode};
use crate::go::{Color, Move, Symmetry};

/// What the book says about one move of the game.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MoveNote {
    /// 1 for the first move.
    pub number: usize,
    pub color: Color,
    #[serde(skip)]
    pub played: Move,
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
    pub fn comment(&self, book: &Book) -> String {
        let size = book.meta.size;
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
}

/// Notes for the game's main-line moves while it stays in the book, and for the move that leaves it.
pub fn annotate(book: &Book, game: &SgfGame) -> Result<Vec<MoveNote>, AnnotateError> {
    if game.size != book.meta.size {
        return Err(AnnotateError::SizeMismatch {
            game: game.size.to_string(),
            book: book.meta.size.to_string(),
        });
    }
    let line = game.main_line();
    if line
        .iter()
        .any(|n| n.props.iter().any(|p| matches!(p, Property::Setup(..))))
    {
        return Err(AnnotateError::HasSetup);
    }
    let mut notes = Vec::new();
    let mut view = OrientedNode {
        id: book.root(),
        to_view: Symmetry::IDENTITY,
    };
    for (color, played) in line.iter().filter_map(|n| n.get_move()) {
        let table = node_table(book, view);
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        let moves: Vec<_> = table.rows.iter().filter(|r| !r.is_other).collect();
        // KataGo's page order is by its sorting value; the mover's best by the book's own values.
        let best = moves
            .iter()
            .max_by(|a, b| (sign * a.black_winrate).total_cmp(&(sign * b.black_winrate)));
        let played_row = moves.iter().find(|r| r.moves.contains(&played));
        let other = table.rows.iter().find(|r| r.is_other);
        let Some(reference) = played_row.copied().or(other) else {
            break;
        };
        let (best_wr, best_score) = best
            .map_or((reference.black_winrate, reference.black_score), |b| {
                (b.black_winrate, b.black_score)
            });
        notes.push(MoveNote {
            number: notes.len() + 1,
            color,
            played,
            book_best: best.and_then(|b| b.moves.first().copied()),
            in_book: played_row.is_some(),
            best_black_winrate: best_wr,
            best_black_score: best_score,
            played_black_winrate: reference.black_winrate,
            played_black_score: reference.black_score,
            // `+ 0.0` turns a negative zero into zero for display.
            score_loss: (sign * (best_score - reference.black_score)).max(0.0) + 0.0,
            winrate_loss: (sign * (best_wr - reference.black_winrate)).max(0.0) + 0.0,
        });
        match played_row.and_then(|r| r.child) {
            Some(child) => view = child,
            None => break,
        }
    }
    Ok(notes)
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
                let text = note.comment(book);
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
