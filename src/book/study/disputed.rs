//! Refutation candidates: positions where the book's choice could be wrong. The best move's value rests
//! on few visits; or its win/loss interval (LCB..UCB) overlaps the second move's, so the second could be
//! the better; or the score and the sharp score disagree (KataGo's `bonusPerSharpScoreDiscrepancy` idea).

use super::super::dag::{Book, NodeId};
use super::{gtp_line, ranked_edges};
use crate::go::{BookHash, Color};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DisputedThresholds {
    /// The best move's subtree has fewer visits than this.
    pub min_visits: f64,
    /// |sharp score − score| above this many points.
    pub sharp_gap: f64,
}

impl Default for DisputedThresholds {
    fn default() -> DisputedThresholds {
        DisputedThresholds {
            min_visits: 100.0,
            sharp_gap: 2.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disputed {
    pub hash: BookHash,
    pub line: String,
    pub depth: usize,
    pub best: String,
    pub reasons: Vec<String>,
    #[serde(skip)]
    pub id: NodeId,
}

/// Every node with moves that meets one of the criteria, shallowest first.
pub fn disputed(book: &Book, t: DisputedThresholds) -> Vec<Disputed> {
    let size = book.meta.size;
    let mut out = Vec::new();
    for (id, node) in book.nodes() {
        let ranked = ranked_edges(book, id);
        let Some(best) = ranked.first() else {
            continue;
        };
        let bv = &book.node(best.child).values;
        let mut reasons = Vec::new();
        if bv.visits < t.min_visits {
            reasons.push(format!("best move on {:.0} visits", bv.visits));
        }
        if let Some(second) = ranked.get(1) {
            let sv = &book.node(second.child).values;
            // For White (who maximises) the best's pessimistic end is its LCB; for Black its UCB.
            let straddles = match node.to_move {
                Color::White => bv.win_loss_lcb < sv.win_loss_ucb,
                Color::Black => bv.win_loss_ucb > sv.win_loss_lcb,
            };
            let has_interval =
                bv.win_loss_ucb > bv.win_loss_lcb || sv.win_loss_ucb > sv.win_loss_lcb;
            if straddles && has_interval {
                reasons.push(format!(
                    "win/loss interval overlaps {}'s",
                    second.mv.to_gtp(size)
                ));
            }
        }
        let v = &node.values;
        if (v.sharp_score - v.score_mean).abs() > t.sharp_gap {
            reasons.push(format!(
                "sharp score {:+.1} against score {:+.1}",
                -v.sharp_score, -v.score_mean
            ));
        }
        if reasons.is_empty() {
            continue;
        }
        let Ok((moves, sym)) = book.line_to(id) else {
            continue;
        };
        let line = gtp_line(book, &moves);
        out.push(Disputed {
            hash: node.hash,
            line,
            depth: moves.len(),
            best: sym.inverse().apply_move(size, best.mv).to_gtp(size),
            reasons,
            id,
        });
    }
    out.sort_by(|a, b| a.depth.cmp(&b.depth).then(a.line.cmp(&b.line)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::reference_book;

    /// Every listed node meets a criterion and its line leads back to it; a node whose best move gets
    /// fewer visits than the threshold is listed, and with a threshold of none it is not.
    #[test]
    fn disputed_nodes_of_the_katago_book() {
        let book = reference_book();
        let all = disputed(&book, DisputedThresholds::default());
        assert!(!all.is_empty());
        for d in &all {
            assert!(!d.reasons.is_empty());
            let moves = crate::go::Move::parse_list(&d.line, book.meta.size).unwrap();
            assert_eq!(book.follow_line(&moves).unwrap().id, d.id, "{}", d.line);
        }
        let root = book.root();
        let best = ranked_edges(&book, root)[0];
        let visits = book.node(best.child).values.visits;
        let strict = DisputedThresholds {
            min_visits: visits + 1.0,
            sharp_gap: f64::INFINITY,
        };
        let listed = disputed(&book, strict);
        let at_root = listed
            .iter()
            .find(|d| d.id == root)
            .expect("the root is listed");
        assert!(at_root.reasons[0].contains("visits"), "{at_root:?}");
        let none = DisputedThresholds {
            min_visits: 0.0,
            sharp_gap: f64::INFINITY,
        };
        let loose = disputed(&book, none);
        assert!(loose.len() < listed.len());
        assert!(
            loose
                .iter()
                .all(|d| d.reasons.iter().all(|r| r.contains("interval")))
        );
    }
}
