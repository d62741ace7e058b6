//! KataGo's book cost model (`facts/katago-book.md` §5–6): the cost of each edge from the root, the cost
//! of expanding a node's "other moves", every bonus, and the choice of the K cheapest nodes with the
//! growing K. Parameter names are KataGo's (the serde names are its config keys); the defaults are its
//! example 7x7 config (`genbook7tt.cfg`).

use super::dag::{Book, NodeId};
use super::marks::Marks;
use super::values::{RecursiveValues, sorting_value};
use crate::go::Color;
use serde::{Deserialize, Serialize};

/// The cost parameters, named as KataGo's `BookParams` config keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CostParams {
    #[serde(rename = "errorFactor")]
    pub error_factor: f64,
    #[serde(rename = "costPerMove")]
    pub cost_per_move: f64,
    #[serde(rename = "costPerUCBWinLossLoss")]
    pub cost_per_ucb_win_loss_loss: f64,
    #[serde(rename = "costPerUCBWinLossLossPow3")]
    pub cost_per_ucb_win_loss_loss_pow3: f64,
    #[serde(rename = "costPerUCBWinLossLossPow7")]
    pub cost_per_ucb_win_loss_loss_pow7: f64,
    #[serde(rename = "costPerUCBScoreLoss")]
    pub cost_per_ucb_score_loss: f64,
    #[serde(rename = "costPerLogPolicy")]
    pub cost_per_log_policy: f64,
    #[serde(rename = "costPerMovesExpanded")]
    pub cost_per_moves_expanded: f64,
    #[serde(rename = "costPerSquaredMovesExpanded")]
    pub cost_per_squared_moves_expanded: f64,
    #[serde(rename = "costWhenPassFavored")]
    pub cost_when_pass_favored: f64,
    #[serde(rename = "bonusPerWinLossError")]
    pub bonus_per_win_loss_error: f64,
    #[serde(rename = "bonusPerScoreError")]
    pub bonus_per_score_error: f64,
    #[serde(rename = "bonusPerSharpScoreDiscrepancy")]
    pub bonus_per_sharp_score_discrepancy: f64,
    #[serde(rename = "bonusPerExcessUnexpandedPolicy")]
    pub bonus_per_excess_unexpanded_policy: f64,
    #[serde(rename = "bonusPerUnexpandedBestWinLoss")]
    pub bonus_per_unexpanded_best_win_loss: f64,
    #[serde(rename = "bonusForWLPV1")]
    pub bonus_for_wlpv1: f64,
    #[serde(rename = "bonusForWLPV2")]
    pub bonus_for_wlpv2: f64,
    #[serde(rename = "bonusForWLPVFinalProp")]
    pub bonus_for_wlpv_final_prop: f64,
    #[serde(rename = "bonusForBiggestWLCost")]
    pub bonus_for_biggest_wl_cost: f64,
    #[serde(rename = "bonusBehindInVisitsScale")]
    pub bonus_behind_in_visits_scale: f64,
    #[serde(rename = "scoreLossCap")]
    pub score_loss_cap: f64,
    #[serde(rename = "earlyBookCostReductionFactor")]
    pub early_book_cost_reduction_factor: f64,
    #[serde(rename = "earlyBookCostReductionLambda")]
    pub early_book_cost_reduction_lambda: f64,
    #[serde(rename = "utilityPerScore")]
    pub utility_per_score: f64,
    #[serde(rename = "policyBoostSoftUtilityScale")]
    pub policy_boost_soft_utility_scale: f64,
    #[serde(rename = "utilityPerPolicyForSorting")]
    pub utility_per_policy_for_sorting: f64,
    #[serde(rename = "adjustedVisitsWLScale")]
    pub adjusted_visits_wl_scale: f64,
    #[serde(rename = "maxVisitsForReExpansion")]
    pub max_visits_for_re_expansion: f64,
    #[serde(rename = "visitsScale")]
    pub visits_scale: f64,
    #[serde(rename = "visitsScaleLeaves")]
    pub visits_scale_leaves: f64,
    #[serde(rename = "sharpScoreOutlierCap")]
    pub sharp_score_outlier_cap: f64,
}

impl Default for CostParams {
    /// KataGo's example 7x7 config; `visitsScale`/`visitsScaleLeaves` follow its fallbacks for 400 visits
    /// per search and 200 for leaves, the settings of the reference book in `shared/data/katabook`.
    fn default() -> CostParams {
        CostParams {
            error_factor: 1.5,
            cost_per_move: 0.45,
            cost_per_ucb_win_loss_loss: 4.5,
            cost_per_ucb_win_loss_loss_pow3: 0.75,
            cost_per_ucb_win_loss_loss_pow7: 0.75,
            cost_per_ucb_score_loss: 0.75,
            cost_per_log_policy: 0.75,
            cost_per_moves_expanded: 0.25,
            cost_per_squared_moves_expanded: 0.05,
            cost_when_pass_favored: 3.5,
            bonus_per_win_loss_error: 1.0,
            bonus_per_score_error: 0.03,
            bonus_per_sharp_score_discrepancy: 0.15,
            bonus_per_excess_unexpanded_policy: 2.0,
            bonus_per_unexpanded_best_win_loss: 1.5,
            bonus_for_wlpv1: 0.03,
            bonus_for_wlpv2: 0.15,
            bonus_for_wlpv_final_prop: 0.5,
            bonus_for_biggest_wl_cost: 0.2,
            bonus_behind_in_visits_scale: 0.0,
            score_loss_cap: 3.0,
            early_book_cost_reduction_factor: 0.0,
            early_book_cost_reduction_lambda: 0.5,
            utility_per_score: 0.1,
            policy_boost_soft_utility_scale: 0.04,
            utility_per_policy_for_sorting: 0.02,
            adjusted_visits_wl_scale: 0.05,
            max_visits_for_re_expansion: 0.0,
            visits_scale: 200.0,
            visits_scale_leaves: 200.0,
            sharp_score_outlier_cap: 10000.0,
        }
    }
}

/// Per-node cost bookkeeping, filled by [`recompute_node_cost`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NodeCost {
    pub min_depth: u32,
    pub min_cost_from_root: f64,
    pub expansion_cost: f64,
    pub min_cost_wl_pv: f64,
    pub expansion_is_wl_pv: bool,
    pub biggest_wl_cost: f64,
    /// Index into `parents` of the cheapest parent.
    pub best_parent: u32,
}

impl Default for NodeCost {
    fn default() -> NodeCost {
        NodeCost {
            min_depth: 0,
            min_cost_from_root: 0.0,
            expansion_cost: 0.0,
            min_cost_wl_pv: 0.0,
            expansion_is_wl_pv: false,
            biggest_wl_cost: 0.0,
            best_parent: 0,
        }
    }
}

impl NodeCost {
    /// What selection ranks nodes by.
    pub fn total(&self) -> f64 {
        self.min_cost_from_root + self.expansion_cost
    }
}

fn pow3(x: f64) -> f64 {
    x * x * x
}

fn pow7(x: f64) -> f64 {
    let c = x * x * x;
    c * c * x
}

fn utility(params: &CostParams, v: &RecursiveValues) -> f64 {
    v.win_loss + v.score_mean * params.utility_per_score
}

/// A soft 0..1 step of a utility gain, on the scale `policyBoostSoftUtilityScale`.
fn soft_gain(params: &CostParams, gain: f64) -> f64 {
    2.0 / (1.0 + (-gain / params.policy_boost_soft_utility_scale).exp()) - 1.0
}

/// The side to move's win/loss from White's-view `wl`.
fn persp(to_move: Color, wl: f64) -> f64 {
    if to_move == Color::White { wl } else { -wl }
}

/// The tanh factor of the WL-PV bonus: largest near an even position and near 25%/75%.
fn wl_pv_tanh(params: &CostParams, wl: f64) -> f64 {
    let f1 = (1.0 - wl * wl).max(0.0);
    let f2 = 4.0 * (0.25 - (0.5 - wl.abs()).powi(2)).max(0.0);
    (f1 * params.bonus_for_wlpv1 + f2 * params.bonus_for_wlpv2).tanh()
}

/// BRANCH k: fewer than k children makes expanding cheap; otherwise the most promising children that
/// have not been searched beyond re-expansion get pushed until k of them have.
fn apply_branch_mark(
    book: &Book,
    id: NodeId,
    marks: &Marks,
    children: &[RecursiveValues],
    costs: &mut [f64],
    expansion: &mut f64,
) {
    let required = marks.branch as usize;
    if required == 0 {
        return;
    }
    if children.len() < required {
        *expansion -= 700.0;
        return;
    }
    let limit = book.params.max_visits_for_re_expansion;
    let enough = children.iter().filter(|c| c.visits > limit).count();
    if enough >= required {
        return;
    }
    let node = book.node(id);
    let mut order: Vec<usize> = (0..children.len()).collect();
    let value = |i: usize| {
        sorting_value(
            &book.params,
            node.to_move,
            &children[i],
            node.edges[i].prior as f64,
        )
    };
    order.sort_by(|&a, &b| value(b).total_cmp(&value(a)));
    let mut bonused = 0;
    for i in order {
        if bonused + enough >= required {
            break;
        }
        if children[i].visits <= limit {
            bonused += 1;
            costs[i] -= 200.0;
        }
    }
}

/// Nodes ordered parents before children (a node after all of its parents, cycles broken arbitrarily),
/// restricted to those reachable from `starts`.
fn parents_first(book: &Book, starts: &[NodeId]) -> Vec<NodeId> {
    let n = book.len();
    let mut reachable = vec![false; n];
    let mut stack: Vec<NodeId> = starts.to_vec();
    for s in starts {
        reachable[s.index()] = true;
    }
    while let Some(id) = stack.pop() {
        for e in &book.node(id).edges {
            if !reachable[e.child.index()] {
                reachable[e.child.index()] = true;
                stack.push(e.child);
            }
        }
    }
    let mut pending: Vec<u32> = vec![0; n];
    for (id, node) in book.nodes() {
        if reachable[id.index()] {
            pending[id.index()] = node
                .parents
                .iter()
                .filter(|p| reachable[p.parent.index()])
                .count() as u32;
        }
    }
    let mut order = Vec::new();
    let mut done = vec![false; n];
    let mut queue: std::collections::VecDeque<NodeId> = starts
        .iter()
        .copied()
        .filter(|s| pending[s.index()] == 0)
        .collect();
    loop {
        while let Some(id) = queue.pop_front() {
            if done[id.index()] {
                continue;
            }
            done[id.index()] = true;
            order.push(id);
            for e in &book.node(id).edges {
                let c = e.child.index();
                pending[c] = pending[c].saturating_sub(1);
                if pending[c] == 0 && !done[c] {
                    queue.push_back(e.child);
                }
            }
        }
        // A cycle leaves nodes waiting: release the first one still pending.
        match (0..n).find(|&i| reachable[i] && !done[i]) {
            Some(i) => queue.push_back(NodeId(i as u32)),
            None => break,
        }
    }
    order
}

/// Recomputes the costs of the whole book, parents first (as after loading).
pub fn recompute_all_costs(book: &mut Book) {
    let root = book.root();
    for id in parents_first(book, &[root]) {
        recompute_node_cost(book, id);
    }
}

/// Costs move by less than this are not propagated: they cannot change which nodes are cheapest.
const COST_TOLERANCE: f64 = 1e-9;

/// Recomputes the costs of the nodes whose values changed and of every descendant whose incoming cost
/// actually moved; the rest of the book keeps its costs. Returns the nodes recomputed, parents first.
pub fn recompute_costs_from(
    book: &mut Book,
    changed: &std::collections::HashSet<NodeId>,
) -> Vec<NodeId> {
    // Topological order of the affected region: parents first by min depth, then id, is enough because a
    // node's cost depends only on its parents' edges and its own and children's values.
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u32, NodeId)>> = changed
        .iter()
        .map(|&id| std::cmp::Reverse((book.node(id).cost.min_depth, id)))
        .collect();
    let mut queued: std::collections::HashSet<NodeId> = changed.clone();
    let mut recomputed = Vec::new();
    while let Some(std::cmp::Reverse((_, id))) = heap.pop() {
        queued.remove(&id);
        let before: Vec<(f64, f64, bool)> = book
            .node(id)
            .edges
            .iter()
            .map(|e| (e.cost_from_root, e.biggest_wl_cost, e.is_wl_pv))
            .collect();
        let before_wl_pv = book.node(id).cost.min_cost_wl_pv;
        recompute_node_cost(book, id);
        recomputed.push(id);
        let node = book.node(id);
        let wl_pv_moved = (node.cost.min_cost_wl_pv - before_wl_pv).abs() > COST_TOLERANCE;
        let mut push = Vec::new();
        for (i, e) in node.edges.iter().enumerate() {
            let moved = before.get(i).is_none_or(|&(cost, big, pv)| {
                (cost - e.cost_from_root).abs() > COST_TOLERANCE
                    || (big - e.biggest_wl_cost).abs() > COST_TOLERANCE
                    || pv != e.is_wl_pv
            });
            if moved || wl_pv_moved {
                push.push(e.child);
            }
        }
        for child in push {
            if queued.insert(child) {
                // A child is at least one ply deeper than this parent.
                heap.push(std::cmp::Reverse((book.node(id).cost.min_depth + 1, child)));
            }
        }
    }
    recomputed
}

/// KataGo's growing batch: 1, 3, 5, … nodes per iteration, up to `max`.
pub fn batch_size(iteration: u64, max: usize) -> usize {
    let i = iteration as usize;
    (1 + 2 * i + i * i / 25).min(max).max(1)
}

/// The `k` expandable nodes with the smallest path cost plus expansion cost.
pub fn cheapest(book: &Book, k: usize) -> Vec<NodeId> {
    let mut all: Vec<(f64, NodeId)> = book
        .nodes()
        .filter(|(_, n)| n.can_expand && n.cost.expansion_cost < 1e99)
        .map(|(id, n)| (n.cost.total(), id))
        .collect();
    let k = k.min(all.len());
    if k == 0 {
        return Vec::new();
    }
    all.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.truncate(k);
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.into_iter().map(|(_, id)| id).collect()
}

mod node;
#[cfg(test)]
mod tests;

pub use node::recompute_node_cost;
