//! SGF export of a book subtree (best lines first, other book moves as variations, values in comments).

use crate::book::dag::{Book, DagError, NodeView};
use crate::book::view::node_table;
use crate::go::{Color, Move};
use std::collections::HashSet;
use std::fmt::Write as _;

/// Most nodes written into one SGF (a DAG can unfold into far more lines than nodes).
const MAX_SGF_NODES: usize = 200_000;

fn comment(book: &Book, view: NodeView) -> String {
    let t = node_table(book, view);
    let mut c = format!(
        "Black {:.1}% {:+.2}, visits {:.0}",
        t.black_winrate * 100.0,
        t.black_score,
        t.visits
    );
    if let Some(m) = t.marks {
        let _ = write!(c, ", marks {}", m.label());
    }
    c.replace(']', "\\]")
}

fn color_letter(c: Color) -> char {
    if c == Color::Black { 'B' } else { 'W' }
}

fn sgf_move(mv: Move) -> String {
    match mv {
        Move::Pass => String::new(),
        Move::Play(p) => p.to_sgf(),
    }
}

/// The subtree at `view` as SGF: the moves from the root to it, then the best line as the main line and
/// every other book move as a variation, Black's values in the comments. Each node is unfolded once; a
/// transposition back into a written node is noted in the comment.
pub fn export(book: &Book, view: NodeView) -> Result<String, DagError> {
    let size = book.meta.size;
    let rules = book.meta.rules;
    let mut out = format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[tengen]SZ[{}]KM[{}]RU[{}]",
        if size.is_square() {
            size.width().to_string()
        } else {
            format!("{}:{}", size.width(), size.height())
        },
        rules.komi,
        rules.to_compact()
    );
    for (tag, pts) in [
        ("AB", &book.meta.setup_black),
        ("AW", &book.meta.setup_white),
    ] {
        if !pts.is_empty() {
            out.push_str(tag);
            for p in pts.iter() {
                let _ = write!(out, "[{}]", p.to_sgf());
            }
        }
    }
    let (line, _) = book.line_to(view.id)?;
    let mut game = book.meta.initial_game();
    // The line is in the root's orientation; the subtree is drawn in the view's, so map the line too.
    let to_view = {
        let mut v = NodeView {
            id: book.root(),
            to_view: crate::go::Symmetry::IDENTITY,
        };
        for &mv in &line {
            v = book.follow(v, mv)?;
        }
        v.to_view.inverse().then(view.to_view)
    };
    for &mv in &line {
        let shown = to_view.apply_move(size, mv);
        let _ = write!(
            out,
            ";{}[{}]",
            color_letter(game.to_move()),
            sgf_move(shown)
        );
        let _ = game.play_tolerant(game.to_move(), mv);
    }
    let mut written = HashSet::new();
    let mut count = 0;
    subtree(book, view, &mut out, &mut written, &mut count);
    out.push_str(")\n");
    Ok(out)
}

fn subtree(
    book: &Book,
    view: NodeView,
    out: &mut String,
    written: &mut HashSet<crate::book::NodeId>,
    count: &mut usize,
) {
    let _ = write!(out, "C[{}]", comment(book, view));
    if !written.insert(view.id) || *count >= MAX_SGF_NODES {
        if !book.node(view.id).edges.is_empty() {
            out.truncate(out.len() - 1);
            out.push_str(" (continues elsewhere in this file)]");
        }
        return;
    }
    let table = node_table(book, view);
    let color = color_letter(book.node(view.id).to_move);
    let children: Vec<(Move, NodeView)> = table
        .rows
        .iter()
        .filter(|r| !r.is_other)
        .filter_map(|r| Some((r.moves[0], r.child?)))
        .collect();
    let many = children.len() > 1;
    for (mv, child) in children {
        *count += 1;
        if many {
            out.push('(');
        }
        let _ = write!(out, ";{color}[{}]", sgf_move(mv));
        subtree(book, child, out, written, count);
        if many {
            out.push(')');
        }
    }
}

/// Why lines could not be taken from an SGF file.
#[derive(Debug, thiserror::Error)]
pub enum SgfImportError {
    #[error("{0}")]
    Sgf(#[from] crate::go::sgf::SgfError),
    #[error("{file}: the game is {found}, the book is {expected}")]
    Size {
        file: String,
        found: String,
        expected: String,
    },
    #[error(transparent)]
    Dag(#[from] DagError),
}

/// Adds every line of the SGF trees to the book, move by move from the root (in the file's orientation,
/// transpositions and symmetric moves merged as usual). Returns the nodes that are new: they have no
/// values yet and must be searched (see `expand::evaluate`), and every node the lines went through (to be
/// written to the store). A line stops at its first move that is not legal here.
pub fn import_lines(
    book: &mut Book,
    path: &std::path::Path,
) -> Result<(Vec<crate::book::NodeId>, Vec<crate::book::NodeId>), SgfImportError> {
    let games = crate::go::sgf::read_file(path)?;
    let mut new_nodes = Vec::new();
    let mut touched = Vec::new();
    for sgf in &games {
        if sgf.size != book.meta.size {
            return Err(SgfImportError::Size {
                file: path.display().to_string(),
                found: sgf.size.to_string(),
                expected: book.meta.size.to_string(),
            });
        }
        let root = NodeView {
            id: book.root(),
            to_view: crate::go::Symmetry::IDENTITY,
        };
        walk(
            book,
            &sgf.root,
            root,
            book.meta.initial_game(),
            &mut new_nodes,
            &mut touched,
        )?;
    }
    touched.sort();
    touched.dedup();
    Ok((new_nodes, touched))
}

fn walk(
    book: &mut Book,
    node: &crate::go::sgf::SgfNode,
    mut view: NodeView,
    mut game: crate::go::Game,
    new_nodes: &mut Vec<crate::book::NodeId>,
    touched: &mut Vec<crate::book::NodeId>,
) -> Result<(), SgfImportError> {
    if let Some((color, mv)) = node.get_move() {
        if color != game.to_move() || game.clone().play(mv).is_err() {
            return Ok(());
        }
        let size = book.meta.size;
        let in_node = view.to_view.inverse().apply_move(size, mv);
        let node_game = book.game_at(view.id)?;
        let (child, is_new) =
            crate::book::expand::add_move(book, view.id, &node_game, in_node, 0.0)?;
        if is_new {
            new_nodes.push(child);
        }
        touched.extend([view.id, child]);
        let _ = game.play(mv);
        view = book.follow(view, mv)?;
    }
    for child in &node.children {
        walk(book, child, view, game.clone(), new_nodes, touched)?;
    }
    Ok(())
}
