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
