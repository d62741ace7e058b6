//! A game annotated against the open book, the workbench's side of `tengen book annotate`: for each move,
//! whether it is in the book, what the book prefers, and how much the move loses by the book's values.
//!
//! It walks the [`BookView`] the app holds (the book itself lives with the jobs) with
//! [`crate::records::annotate`]'s rules. The game arrives as the text of its file in an action, so a
//! replay annotates it again.

use super::app::Step;
use crate::book::view::{BookView, EdgeView, NodeView};
use crate::go::sgf;
use crate::go::{Color, Move};
use crate::records::annotate::{MoveNote, annotate_moves, main_line};
use std::path::Path;

/// A loaded game and where the user is in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The file, as the user typed it.
    pub path: String,
    /// The game's main line.
    pub moves: Vec<(Color, Move)>,
    /// One note per move while the game stays in the book, then one for the move that leaves it.
    pub notes: Vec<MoveNote>,
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
    let book_has_setup = !book.initial.black.is_empty() || !book.initial.white.is_empty();
    let moves = main_line(&game, book.size, book_has_setup).map_err(|e| format!("{path}: {e}"))?;
    let notes = annotate(book, &moves);
    Ok(Annotation {
        path: path.to_string(),
        moves,
        notes,
        at: 0,
    })
}

/// The notes for `moves` (root orientation) walked from the book's root.
pub fn annotate(book: &BookView, moves: &[(Color, Move)]) -> Vec<MoveNote> {
    annotate_moves(book.root, book.size, |id| book.node(id).cloned(), moves)
}

/// The step after playing `mv` (root orientation) at `step`, with the book move it is an image of.
pub fn follow<'a>(book: &'a BookView, step: &Step, mv: Move) -> Option<(Step, &'a EdgeView)> {
    let node: &NodeView = book.node(step.node)?;
    let (edge, to_root) = node.follow(book.size, step.to_root, mv)?;
    let next = Step {
        node: edge.child,
        to_root,
        mv: Some(mv),
    };
    Some((next, edge))
}
