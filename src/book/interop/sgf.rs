//! SGF export of a book subtree (best lines first, other book moves as variations, values in comments).

use crate::book::dag::{Book, DagError, OrientedNode};
use crate::book::view::node_table;
use crate::go::{Color, Move};
use std::collections::HashSet;
use std::fmt::Write as _;

/// Most nodes written into one SGF (a DAG can unfold into far more lines than nodes).
const MAX_SGF_NODES: usize = 200_000;

fn comment(book: &Book, view: OrientedNode) -> String {
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
pub fn export(book: &Book, view: OrientedNode) -> Result<String, DagError> {
    export_scoped(book, view, true)
}

/// The line from the root to `view` alone, with Black's values in the comment of every position on it.
pub fn export_line(book: &Book, view: OrientedNode) -> Result<String, DagError> {
    export_scoped(book, view, false)
}

fn export_scoped(book: &Book, view: OrientedNode, whole_subtree: bool) -> Result<String, DagError> {
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
        let mut v = OrientedNode {
            id: book.root(),
            to_view: crate::go::Symmetry::IDENTITY,
        };
        for &mv in &line {
            v = book.follow(v, mv)?;
        }
        v.to_view.inverse().then(view.to_view)
    };
    let mut at = OrientedNode {
        id: book.root(),
        to_view: crate::go::Symmetry::IDENTITY,
    };
    for &mv in &line {
        if !whole_subtree {
            let _ = write!(out, "C[{}]", comment(book, at));
        }
        at = book.follow(at, mv)?;
        let shown = to_view.apply_move(size, mv);
        let _ = write!(
            out,
            ";{}[{}]",
            color_letter(game.to_move()),
            sgf_move(shown)
        );
        let _ = game.play_tolerant(game.to_move(), mv);
    }
    if whole_subtree {
        let mut written = HashSet::new();
        let mut count = 0;
        subtree(book, view, &mut out, &mut written, &mut count);
    } else {
        let _ = write!(out, "C[{}]", comment(book, view));
    }
    out.push_str(")\n");
    Ok(out)
}

fn subtree(
    book: &Book,
    view: OrientedNode,
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
    let children: Vec<(Move, OrientedNode)> = table
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

/// A line of a game record that stops before its end: the move that could not be played from the book's
/// root, and why. The moves before it are imported; nothing after it is.
#[derive(Debug, Clone, PartialEq)]
pub struct LineCut {
    /// The move's number along its line (1 is the first move).
    pub number: usize,
    /// The move as `B D4`.
    pub mv: String,
    pub reason: String,
}

/// What [`import_lines`] did.
#[derive(Debug, Clone, Default)]
pub struct SgfImport {
    /// Nodes that are new: they have no values yet and must be searched (see `expand::evaluate`).
    pub new_nodes: Vec<crate::book::NodeId>,
    /// Every node the lines went through (to be written to the store).
    pub touched: Vec<crate::book::NodeId>,
    /// Lines that stop early, each at the place it stops (reported, never dropped in silence).
    pub cut: Vec<LineCut>,
}

/// Adds every line of the SGF trees to the book, move by move from the root (in the file's orientation,
/// transpositions and symmetric moves merged as usual). A line stops at its first move that cannot be
/// played here (illegal, out of turn, or after setup stones the book's root does not have); each such
/// stop is listed in [`SgfImport::cut`] with the move's number.
pub fn import_lines(book: &mut Book, path: &std::path::Path) -> Result<SgfImport, SgfImportError> {
    let games = crate::go::sgf::read_file(path)?;
    let mut out = SgfImport::default();
    for sgf in &games {
        if sgf.size != book.meta.size {
            return Err(SgfImportError::Size {
                file: path.display().to_string(),
                found: sgf.size.to_string(),
                expected: book.meta.size.to_string(),
            });
        }
        let root = OrientedNode {
            id: book.root(),
            to_view: crate::go::Symmetry::IDENTITY,
        };
        let mut stack = vec![(&sgf.root, root, book.meta.initial_game(), 0)];
        while let Some((node, view, game, number)) = stack.pop() {
            let Some((view, game, number)) = step(book, node, view, game, number, &mut out)? else {
                continue;
            };
            for child in node.children.iter().rev() {
                stack.push((child, view, game.clone(), number));
            }
        }
    }
    out.touched.sort();
    out.touched.dedup();
    Ok(out)
}

/// Plays `node`'s move (if any) into the book; `None` where the line stops (recorded in `out.cut`).
fn step(
    book: &mut Book,
    node: &crate::go::sgf::SgfNode,
    view: OrientedNode,
    mut game: crate::go::Game,
    number: usize,
    out: &mut SgfImport,
) -> Result<Option<(OrientedNode, crate::go::Game, usize)>, SgfImportError> {
    use crate::go::sgf::Property;
    let size = book.meta.size;
    let mv = node.get_move();
    let setup = node.props.iter().any(|p| matches!(p, Property::Setup(..)));
    let cut = |mv: String, reason: String| LineCut {
        number: number + 1,
        mv,
        reason,
    };
    let shown = |(color, mv): (Color, Move)| format!("{} {}", color_letter(color), mv.to_gtp(size));
    if setup {
        let at = mv.map(shown).unwrap_or_else(|| "setup".into());
        let reason =
            "the record adds or removes stones (AB/AW/AE); book lines start from the book's root"
                .into();
        out.cut.push(cut(at, reason));
        return Ok(None);
    }
    let Some((color, mv)) = mv else {
        return Ok(Some((view, game, number)));
    };
    let reason = if color != game.to_move() {
        let turn = match game.to_move() {
            Color::Black => "Black",
            Color::White => "White",
        };
        Some(format!("it is {turn}'s turn"))
    } else {
        game.clone().play(mv).err().map(|e| e.to_string())
    };
    if let Some(reason) = reason {
        out.cut.push(cut(shown((color, mv)), reason));
        return Ok(None);
    }
    let in_node = view.to_view.inverse().apply_move(size, mv);
    let node_game = book.game_at(view.id)?;
    // The move comes from a game record, not from a search; the engine that evaluates the new
    // positions is recorded for their values (`expand::evaluate`).
    let records = crate::engine::EngineId::new(crate::engine::EngineKind::Records);
    let by = book.register_engine(&records)?;
    let (child, is_new) =
        crate::book::expand::add_move(book, view.id, &node_game, in_node, 0.0, by)?;
    if is_new {
        out.new_nodes.push(child);
    }
    out.touched.extend([view.id, child]);
    let _ = game.play(mv);
    Ok(Some((book.follow(view, mv)?, game, number + 1)))
}
