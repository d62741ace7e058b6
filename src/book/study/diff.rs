//! Where two books of the same board and rules disagree: over the positions both hold (matched by
//! tengen's hash, so a KataGo book imported into tengen compares with one tengen grew), the best moves
//! differ, or the values differ by more than a threshold. Deepest disagreement first.

use super::super::dag::{Book, Edge, Node, NodeId};
use super::{line_text, ranked_edges};
use crate::go::{BookHash, Move};
use serde::Serialize;
use std::collections::{HashSet, VecDeque};

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(
        "the books differ in {what}: {a} against {b}; only books of one board and rules compare"
    )]
    Incompatible { what: String, a: String, b: String },
}

/// How far apart values may be before they count as a disagreement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffThresholds {
    /// On White's win/loss, −1..1 (0.1 is five points of win rate).
    pub win_loss: f64,
    /// On the score, in points.
    pub score: f64,
}

impl Default for DiffThresholds {
    fn default() -> DiffThresholds {
        DiffThresholds {
            win_loss: 0.1,
            score: 2.0,
        }
    }
}

/// One position where the books disagree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    pub hash: BookHash,
    /// The line from the root in the first book, GTP coordinates.
    pub line: String,
    pub depth: usize,
    /// Each book's best move, in the first book's line orientation, when both have moves here and they
    /// are not the same move.
    pub best: Option<(String, String)>,
    /// Black's win rate in each book.
    pub black_winrate: (f64, f64),
    /// Black's score in each book.
    pub black_score: (f64, f64),
    pub reasons: Vec<String>,
    #[serde(skip)]
    pub a: NodeId,
    #[serde(skip)]
    pub b: NodeId,
}

/// How many positions the walk compared, and the disagreements.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookDiff {
    pub common: usize,
    pub only_in_a: usize,
    pub disagreements: Vec<Disagreement>,
}

fn check_compatible(a: &Book, b: &Book) -> Result<(), DiffError> {
    let differ = |what: &str, x: String, y: String| DiffError::Incompatible {
        what: what.into(),
        a: x,
        b: y,
    };
    if a.meta.size != b.meta.size {
        return Err(differ(
            "board size",
            a.meta.size.to_string(),
            b.meta.size.to_string(),
        ));
    }
    if a.meta.rules != b.meta.rules {
        return Err(differ(
            "rules",
            a.meta.rules.to_string(),
            b.meta.rules.to_string(),
        ));
    }
    let setup = |m: &crate::book::BookMeta| (m.setup_black.clone(), m.setup_white.clone());
    if setup(&a.meta) != setup(&b.meta) || a.meta.first_player != b.meta.first_player {
        return Err(differ("starting position", "one".into(), "another".into()));
    }
    Ok(())
}

/// The images in tengen's canonical orientation of a node's move under the node's self-symmetries.
fn canonical_moves(book: &Book, node: &Node, mv: Move) -> Vec<Move> {
    let size = book.meta.size;
    node.self_symmetries
        .iter()
        .map(|s| node.to_canonical.apply_move(size, s.apply_move(size, mv)))
        .collect()
}

fn best_edge(book: &Book, id: NodeId) -> Option<&Edge> {
    ranked_edges(book, id).into_iter().next()
}

/// Walks the positions of `a` from the root and compares each one `b` also holds.
pub fn diff(a: &Book, b: &Book, t: DiffThresholds) -> Result<BookDiff, DiffError> {
    check_compatible(a, b)?;
    let size = a.meta.size;
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([a.root()]);
    seen.insert(a.root());
    let (mut common, mut only_in_a) = (0, 0);
    let mut out = Vec::new();
    while let Some(ia) = queue.pop_front() {
        let na = a.node(ia);
        for e in na.edges.iter() {
            if seen.insert(e.child) {
                queue.push_back(e.child);
            }
        }
        let Some(ib) = b.find(&na.hash) else {
            only_in_a += 1;
            continue;
        };
        common += 1;
        let nb = b.node(ib);
        let (va, vb) = (&na.values, &nb.values);
        let mut reasons = Vec::new();
        let mut best = None;
        if let (Some(ea), Some(eb)) = (best_edge(a, ia), best_edge(b, ib)) {
            let theirs = nb.to_canonical.apply_move(size, eb.mv);
            if !canonical_moves(a, na, ea.mv).contains(&theirs) {
                // B's move in A's node space, then as A's line shows it.
                let in_a = na.to_canonical.inverse().apply_move(size, theirs);
                let to_line = a.line_to(ia).ok();
                let show = |m: Move| match to_line {
                    Some((_, root_to_node)) => root_to_node.inverse().apply_move(size, m),
                    None => m,
                };
                best = Some((show(ea.mv).to_gtp(size), show(in_a).to_gtp(size)));
                reasons.push("best move".to_string());
            }
        }
        if (va.win_loss - vb.win_loss).abs() > t.win_loss {
            reasons.push(format!("win/loss {:+.3}", vb.win_loss - va.win_loss));
        }
        let score = |v: &crate::book::RecursiveValues| 0.5 * (v.score_mean + v.sharp_score);
        if (score(va) - score(vb)).abs() > t.score {
            reasons.push(format!("score {:+.2}", score(vb) - score(va)));
        }
        if reasons.is_empty() {
            continue;
        }
        let Some((moves, line)) = line_text(a, ia) else {
            continue;
        };
        out.push(Disagreement {
            hash: na.hash,
            line,
            depth: moves.len(),
            best,
            black_winrate: ((1.0 - va.win_loss) / 2.0, (1.0 - vb.win_loss) / 2.0),
            black_score: (-score(va), -score(vb)),
            reasons,
            a: ia,
            b: ib,
        });
    }
    out.sort_by(|x, y| y.depth.cmp(&x.depth).then(x.line.cmp(&y.line)));
    Ok(BookDiff {
        common,
        only_in_a,
        disagreements: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::reference_book;

    #[test]
    fn a_book_agrees_with_itself() {
        let a = reference_book();
        let d = diff(&a, &a.clone(), DiffThresholds::default()).unwrap();
        assert_eq!(d.common, 146);
        assert_eq!(d.only_in_a, 0);
        assert!(d.disagreements.is_empty(), "{:?}", d.disagreements);
    }

    /// A planted disagreement: in the second book the worst move (to a leaf) of a deep node with several
    /// moves becomes a winning one. The diff names that node, with both best moves, and nothing deeper.
    #[test]
    fn a_planted_disagreement_is_found() {
        let a = reference_book();
        let mut b = a.clone();
        let (planted, _) = a
            .nodes()
            .filter(|&(id, n)| {
                let worst = ranked_edges(&a, id).last().map(|e| e.child);
                n.edges.len() >= 2 && worst.is_some_and(|c| a.node(c).edges.is_empty())
            })
            .filter_map(|(id, _)| Some((id, line_text(&a, id)?.0.len())))
            .max_by_key(|&(id, depth)| (depth, std::cmp::Reverse(id)))
            .unwrap();
        let worst = *ranked_edges(&a, planted).last().unwrap();
        let best_before = ranked_edges(&a, planted)[0].mv;
        let white = a.node(planted).to_move == crate::go::Color::White;
        let child = b.node_mut(worst.child);
        child.not_in_book.win_loss = if white { 1.0 } else { -1.0 };
        child.not_in_book.visits *= 10.0;
        let changed = worst.child;
        crate::book::recompute_after_change(&mut b, &[changed]);
        assert_eq!(ranked_edges(&b, planted)[0].mv, worst.mv, "the plant took");

        let d = diff(&a, &b, DiffThresholds::default()).unwrap();
        let found = d
            .disagreements
            .iter()
            .find(|x| x.a == planted)
            .expect("the planted node is listed");
        assert!(found.reasons.iter().any(|r| r == "best move"), "{found:?}");
        let (ours, theirs) = found.best.clone().unwrap();
        assert_ne!(ours, theirs);
        assert_eq!(ours, {
            let (_, sym) = a.line_to(planted).unwrap();
            sym.inverse()
                .apply_move(a.meta.size, best_before)
                .to_gtp(a.meta.size)
        });
        assert!(
            d.disagreements.windows(2).all(|w| w[0].depth >= w[1].depth),
            "deepest first"
        );
        let (moves, _) = line_text(&a, planted).unwrap();
        assert_eq!(a.follow_line(&moves).unwrap().id, planted);
        assert!(d.disagreements.iter().all(|x| x.depth <= moves.len() + 1));
    }

    #[test]
    fn books_of_other_rules_do_not_compare() {
        let a = reference_book();
        let mut b = a.clone();
        b.meta.rules.komi = crate::go::Komi::from_f64(7.5).unwrap();
        assert!(diff(&a, &b, DiffThresholds::default()).is_err());
    }
}
