//! Backing values up the book: each node's recursive values are a per-statistic minimax over its own
//! "not in book" values and its children's recursive values (White maximises, Black minimises, each
//! statistic on its own, so a node's LCB is the best LCB of any option), plus adjusted visits that discount
//! weaker moves which got far more visits than better ones. KataGo's rules, `facts/katago-book.md` §4.
//!
//! Recomputation is incremental: only the ancestors of what changed are recomputed, children first.

use super::cost::CostParams;
use super::dag::{Book, NodeId, SearchValues};
use crate::go::{Color, Rules};
use std::collections::HashSet;

/// Values backed up from the whole subtree, White's point of view. KataGo also backs up a "final score"
/// interval (mean ± errorFactor·stdev) that nothing reads; it is left out to keep big books small.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct RecursiveValues {
    pub win_loss: f64,
    pub score_mean: f64,
    pub sharp_score: f64,
    pub win_loss_lcb: f64,
    pub win_loss_ucb: f64,
    pub score_lcb: f64,
    pub score_ucb: f64,
    pub weight: f64,
    /// Visits summed over the subtree; transpositions count once per path.
    pub visits: f64,
    pub adjusted_visits: f64,
}

/// Whether a game under these rules can only end with an integer score (integer komi, no button).
pub fn result_is_integer(rules: &Rules) -> bool {
    rules.komi.halves() % 2 == 0 && !rules.has_button
}

/// The win/loss error as the cost model uses it: unknown (negative) counts as none.
pub fn adjusted_win_loss_error(v: &SearchValues) -> f64 {
    v.win_loss_error.max(0.0)
}

/// The score error, capped by the score's own spread. With integer results KataGo's score variance is
/// too high by 0.25 (half-point blurring), so that is taken off, keeping at least 5% of the variance.
pub fn adjusted_score_error(v: &SearchValues, rules: &Rules) -> f64 {
    if v.score_error < 0.0 {
        return 0.0;
    }
    if result_is_integer(rules) {
        let variance = v.score_stdev * v.score_stdev;
        let adjusted = (variance - 0.25).max(variance * 0.05);
        adjusted.sqrt().min(v.score_error)
    } else {
        v.score_stdev.min(v.score_error)
    }
}

/// A node's own "not in book" values turned into a recursive-values record (before the minimax), with
/// the sharp score clamped to the outlier cap.
pub fn own_values(v: &SearchValues, params: &CostParams, rules: &Rules) -> RecursiveValues {
    let score_error = adjusted_score_error(v, rules);
    let wl_error = adjusted_win_loss_error(v);
    let f = params.error_factor;
    let mut score_lcb = v.score_mean - f * score_error;
    let mut score_ucb = v.score_mean + f * score_error;
    // Only a net with error heads widens the interval to the sharp score.
    if score_error > 0.0 {
        score_ucb = score_ucb.max(v.sharp_score);
        score_lcb = score_lcb.min(v.sharp_score);
    }
    let cap = params.sharp_score_outlier_cap;
    let sharp = v.sharp_score.clamp(v.score_mean - cap, v.score_mean + cap);
    RecursiveValues {
        win_loss: v.win_loss,
        score_mean: v.score_mean,
        sharp_score: sharp,
        win_loss_lcb: v.win_loss - f * wl_error,
        win_loss_ucb: v.win_loss + f * wl_error,
        score_lcb,
        score_ucb,
        weight: v.weight,
        visits: v.visits,
        adjusted_visits: v.visits,
    }
}

/// Keeps the score from contradicting the win/loss too much when ranking moves.
fn clamp_score_for_sorting(score: f64, win_loss: f64) -> f64 {
    let wl = win_loss.clamp(-1.0, 1.0);
    let lower = (wl - 1.0) / (wl + 1.0 + 0.0001) * 2.0;
    let upper = -(-wl - 1.0) / (-wl + 1.0 + 0.0001) * 2.0;
    score.min(upper).max(lower)
}

/// The value KataGo's pages sort moves by (higher is better for the player to move): win/loss, the score
/// (mostly mean and sharp, a quarter the pessimistic bound), and a little prior.
pub fn sorting_value(params: &CostParams, to_move: Color, v: &RecursiveValues, prior: f64) -> f64 {
    let pla = if to_move == Color::White { 1.0 } else { -1.0 };
    let score = 0.5 * (v.sharp_score + v.score_mean);
    let bound = 0.5 * (pla + 1.0) * v.score_lcb + 0.5 * (1.0 - pla) * v.score_ucb;
    pla * (v.win_loss
        + clamp_score_for_sorting(score, v.win_loss) * params.utility_per_score * 0.75)
        + pla * clamp_score_for_sorting(bound, v.win_loss) * 0.25 * params.utility_per_score
        + params.utility_per_policy_for_sorting
            * (0.75 * prior + 0.5 * (prior + 0.0001).log10() / 4.0)
            * (1.0 + v.win_loss * v.win_loss)
}

/// Adjusted visits of a node: options sorted worst to best, a geometric moving average of their visits
/// caps each one, and from the best down each option counts at most 4× the lowest cap so far plus
/// `visitsScale`.
fn adjusted_visits(book: &Book, id: NodeId, own: &RecursiveValues) -> f64 {
    let node = book.node(id);
    let params = &book.params;
    let mut items: Vec<(f64, f64)> = node
        .edges
        .iter()
        .map(|e| {
            let c = &book.node(e.child).values;
            (
                sorting_value(params, node.to_move, c, e.prior as f64),
                c.adjusted_visits,
            )
        })
        .collect();
    items.push((
        sorting_value(params, node.to_move, own, node.not_in_book.max_policy),
        own.visits,
    ));
    // A stable sort keeps KataGo's order for ties (children in move order, then the remainder).
    items.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut wsum = 0.0;
    let mut wvsum = 0.0;
    let mut prev = -1e100;
    let mut caps = Vec::with_capacity(items.len());
    for &(value, visits) in &items {
        let factor = (-(value - prev)).exp();
        prev = value;
        wsum = wsum * factor + 1.0;
        wvsum = wvsum * factor + (1.0 + params.visits_scale * 0.05 + visits).ln();
        caps.push((wvsum / wsum).exp().max(visits));
    }
    let mut total = 0.0;
    let mut lowest_cap = 1e100f64;
    for (i, &(_, visits)) in items.iter().enumerate().rev() {
        lowest_cap = lowest_cap.min(caps[i]);
        total += (4.0 * lowest_cap + params.visits_scale).min(visits);
    }
    total
}

/// Recomputes one node's recursive values from its own values and its children's.
pub fn recompute_node(book: &mut Book, id: NodeId) {
    let node = book.node(id);
    let mut v = own_values(&node.not_in_book, &book.params, &book.meta.rules);
    v.adjusted_visits = adjusted_visits(book, id, &v);
    let white = node.to_move == Color::White;
    let pick = |a: f64, b: f64| if white { a.max(b) } else { a.min(b) };
    for e in &node.edges {
        let c = &book.node(e.child).values;
        v.win_loss = pick(v.win_loss, c.win_loss);
        v.score_mean = pick(v.score_mean, c.score_mean);
        v.sharp_score = pick(v.sharp_score, c.sharp_score);
        v.win_loss_lcb = pick(v.win_loss_lcb, c.win_loss_lcb);
        v.score_lcb = pick(v.score_lcb, c.score_lcb);
        v.win_loss_ucb = pick(v.win_loss_ucb, c.win_loss_ucb);
        v.score_ucb = pick(v.score_ucb, c.score_ucb);
        v.weight += c.weight;
        v.visits += c.visits;
    }
    book.node_mut(id).values = v;
}

/// Post-order (children before parents) over the nodes reachable from `starts` inside `allowed` (all
/// nodes when `None`). Cycles, possible in principle through superko-free repetitions, are broken
/// arbitrarily by the visited set, as KataGo does.
fn post_order(book: &Book, starts: &[NodeId], allowed: Option<&HashSet<NodeId>>) -> Vec<NodeId> {
    let mut visited = vec![false; book.len()];
    let mut order = Vec::new();
    let mut stack: Vec<(NodeId, usize)> = Vec::new();
    for &start in starts {
        if visited[start.index()] {
            continue;
        }
        visited[start.index()] = true;
        stack.push((start, 0));
        while let Some(&mut (id, ref mut next)) = stack.last_mut() {
            let edges = &book.node(id).edges;
            if *next < edges.len() {
                let child = edges[*next].child;
                *next += 1;
                let inside = allowed.is_none_or(|a| a.contains(&child));
                if inside && !visited[child.index()] {
                    visited[child.index()] = true;
                    stack.push((child, 0));
                }
            } else {
                order.push(id);
                stack.pop();
            }
        }
    }
    order
}

/// Recomputes every node's values (as after loading a book).
pub fn recompute_all(book: &mut Book) {
    let mut starts = vec![book.root()];
    // Nodes not reachable from the root (never expected) are still given values.
    starts.extend((0..book.len() as u32).map(NodeId));
    for id in post_order(book, &starts, None) {
        recompute_node(book, id);
    }
}

/// The changed nodes and all their ancestors.
pub fn dirty_ancestors(book: &Book, changed: &[NodeId]) -> HashSet<NodeId> {
    let mut dirty: HashSet<NodeId> = HashSet::new();
    let mut stack: Vec<NodeId> = changed.to_vec();
    while let Some(id) = stack.pop() {
        if dirty.insert(id) {
            stack.extend(book.node(id).parents.iter().map(|p| p.parent));
        }
    }
    dirty
}

/// Recomputes the values of the changed nodes and their ancestors only; returns the recomputed set.
pub fn recompute_from(book: &mut Book, changed: &[NodeId]) -> HashSet<NodeId> {
    let dirty = dirty_ancestors(book, changed);
    let mut starts: Vec<NodeId> = dirty.iter().copied().collect();
    starts.sort();
    for id in post_order(book, &starts, Some(&dirty)) {
        recompute_node(book, id);
    }
    dirty
}
