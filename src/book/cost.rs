//! KataGo's book cost model (`facts/katago-book.md` §5–6): the cost of each edge from the root, the cost
//! of expanding a node's "other moves", every bonus, and the choice of the K cheapest nodes with the
//! growing K. Parameter names are KataGo's (the serde names are its config keys); the defaults are its
//! example 7x7 config (`genbook7tt.cfg`).

use super::dag::{Book, NodeId};
use super::marks::Marks;
use super::values::{
    RecursiveValues, adjusted_score_error, adjusted_win_loss_error, sorting_value,
};
use crate::go::{Color, Move};
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

/// Recomputes a node's path cost (from its parents' edges), its edges' costs and its expansion cost.
pub fn recompute_node_cost(book: &mut Book, id: NodeId) {
    let params = book.params.clone();
    let marks = book.marks.get(&id).copied().unwrap_or_default();
    let root = book.root();
    let node = book.node(id);
    let to_move = node.to_move;
    let white = to_move == Color::White;
    let mut c = node.cost;

    // Path cost: the cheapest parent edge.
    if id == root {
        c.min_depth = 0;
        c.min_cost_from_root = 0.0;
        c.min_cost_wl_pv = 0.0;
        c.biggest_wl_cost = 0.0;
    } else {
        let mut min_depth = u32::MAX;
        let mut min_cost = 1e100;
        let mut min_cost_wl_pv = 1e100;
        let mut biggest = 1e100;
        let mut best_parent = 0;
        for (i, link) in node.parents.iter().enumerate() {
            let parent = book.node(link.parent);
            let Some(edge) = parent.edge_for(link.mv) else {
                continue;
            };
            if edge.cost_from_root < min_cost {
                min_cost = edge.cost_from_root;
                biggest = edge.biggest_wl_cost;
                best_parent = i as u32;
            }
            if edge.is_wl_pv && parent.cost.min_cost_wl_pv < min_cost_wl_pv {
                min_cost_wl_pv = parent.cost.min_cost_wl_pv;
            }
            min_depth = min_depth.min(parent.cost.min_depth.saturating_add(1));
        }
        c.min_depth = min_depth;
        c.min_cost_from_root = min_cost;
        c.min_cost_wl_pv = min_cost_wl_pv;
        c.biggest_wl_cost = biggest;
        c.best_parent = best_parent;
    }
    c.min_cost_from_root -= marks.bonus;
    if marks.visits > 0.0 {
        let required = marks.visits;
        let enough_adjusted = 0.5 * required / (required / params.visits_scale).powf(0.1).max(1.0);
        if node.values.visits < required || node.values.adjusted_visits < enough_adjusted {
            c.min_cost_from_root -= 500.0;
        }
    }
    if c.min_cost_from_root < c.min_cost_wl_pv {
        c.min_cost_wl_pv = c.min_cost_from_root;
    }

    let p = node.values;
    let nib = node.not_in_book;
    let children: Vec<RecursiveValues> = node
        .edges
        .iter()
        .map(|e| book.node(e.child).values)
        .collect();
    let priors: Vec<f64> = node.edges.iter().map(|e| e.prior as f64).collect();
    let mut costs: Vec<f64> = vec![0.0; children.len()];
    let mut biggest_wl: Vec<f64> = vec![0.0; children.len()];

    // The win/loss PV: the best child, or the remainder when it beats them all.
    let mut best_wl_persp = -1e100;
    let mut best_child: Option<usize> = None;
    for (i, ch) in children.iter().enumerate() {
        let w = persp(to_move, ch.win_loss);
        if w > best_wl_persp {
            best_wl_persp = w;
            best_child = Some(i);
        }
    }
    let own_wl = persp(to_move, nib.win_loss);
    if own_wl > best_wl_persp {
        best_wl_persp = own_wl;
        best_child = None;
    }
    c.expansion_is_wl_pv = best_child.is_none();
    let best_win_loss = persp(to_move, best_wl_persp);

    let boost = |log_policy: f64, own_utility: f64, policy: f64| -> f64 {
        let mut boosted = log_policy;
        for (j, other) in children.iter().enumerate() {
            if priors[j] <= policy {
                continue;
            }
            let other_u = utility(&params, other);
            let gain = if white {
                own_utility - other_u
            } else {
                other_u - own_utility
            };
            if gain <= 0.0 {
                continue;
            }
            let factor = 0.1 + 0.9 * soft_gain(&params, gain);
            let other_log = (priors[j] + 1e-100).ln();
            boosted = boosted.max(log_policy + factor * (other_log - log_policy));
        }
        boosted
    };

    let pass_index = node.edges.iter().position(|e| e.mv == Move::Pass);
    let (pass_policy, pass_utility) = match pass_index {
        Some(i) => (priors[i], utility(&params, &children[i])),
        None => (0.0, if white { -1e100 } else { 1e100 }),
    };
    let pass_favored = |policy: f64, u: f64| {
        pass_policy > 0.15
            && pass_policy > policy * 0.8
            && ((white && pass_utility > u - 0.02) || (!white && pass_utility < u + 0.02))
    };
    let wl_cost = |parent: &RecursiveValues, wl_lcb: f64, wl_ucb: f64| -> f64 {
        let (loss, loss3, loss7) = if white {
            (
                parent.win_loss_ucb - wl_ucb,
                pow3(parent.win_loss_ucb) - pow3(wl_ucb),
                pow7(parent.win_loss_ucb) - pow7(wl_ucb),
            )
        } else {
            (
                wl_lcb - parent.win_loss_lcb,
                pow3(wl_lcb) - pow3(parent.win_loss_lcb),
                pow7(wl_lcb) - pow7(parent.win_loss_lcb),
            )
        };
        let mut cost = loss * params.cost_per_ucb_win_loss_loss
            + loss3 * params.cost_per_ucb_win_loss_loss_pow3
            + loss7 * params.cost_per_ucb_win_loss_loss_pow7;
        if cost > c.biggest_wl_cost {
            cost -= params.bonus_for_biggest_wl_cost * (cost - c.biggest_wl_cost);
        }
        cost
    };
    let score_cost = |score_lcb: f64, score_ucb: f64| -> f64 {
        let loss = if white {
            p.score_ucb - score_ucb
        } else {
            score_lcb - p.score_lcb
        };
        loss.min(params.score_loss_cap) * params.cost_per_ucb_score_loss
    };

    let mut smallest_ucb_cost = 1e100;
    for (i, ch) in children.iter().enumerate() {
        let from_wl = wl_cost(&p, ch.win_loss_lcb, ch.win_loss_ucb);
        let from_ucb = from_wl + score_cost(ch.score_lcb, ch.score_ucb);
        let u = utility(&params, ch);
        let boosted = boost((priors[i] + 1e-100).ln(), u, priors[i]);
        costs[i] = c.min_cost_from_root + params.cost_per_move + from_ucb
            - boosted * params.cost_per_log_policy
            + if pass_favored(priors[i], u) {
                params.cost_when_pass_favored
            } else {
                0.0
            };
        biggest_wl[i] = c.biggest_wl_cost.max(from_wl);
        smallest_ucb_cost = f64::min(smallest_ucb_cost, from_ucb);
    }

    let re_expandable = node.can_re_expand && p.visits <= params.max_visits_for_re_expansion;
    let mut expansion;
    if !node.can_expand {
        expansion = 1e100;
    } else if re_expandable {
        let m = p.visits / params.max_visits_for_re_expansion.max(1.0);
        expansion =
            m * params.cost_per_moves_expanded + m * m * params.cost_per_squared_moves_expanded;
        smallest_ucb_cost = 0.0;
    } else {
        let score_error = adjusted_score_error(&nib, &book.meta.rules);
        let wl_error = adjusted_win_loss_error(&nib);
        let f = params.error_factor;
        let from_wl = wl_cost(&p, nib.win_loss - f * wl_error, nib.win_loss + f * wl_error);
        let from_ucb = from_wl
            + score_cost(
                nib.score_mean - f * score_error,
                nib.score_mean + f * score_error,
            );
        let policy = nib.max_policy;
        let own_u = nib.win_loss + nib.score_mean * params.utility_per_score;
        let boosted = boost((policy + 1e-100).ln(), own_u, policy);
        let mut moves_expanded = children.len() as f64;
        let mut cap = 0.5;
        for ch in &children {
            if cap >= moves_expanded {
                break;
            }
            let other_u = utility(&params, ch);
            let gain = if white {
                own_u - other_u
            } else {
                other_u - own_u
            };
            let not_counted = if gain <= 0.0 {
                0.0
            } else {
                soft_gain(&params, gain)
            };
            cap += 1.5 * (1.0 - not_counted);
        }
        moves_expanded = moves_expanded.min(cap).min(1.0 / (policy + 1e-30));
        expansion = params.cost_per_move + from_ucb - boosted * params.cost_per_log_policy
            + moves_expanded * params.cost_per_moves_expanded
            + moves_expanded * moves_expanded * params.cost_per_squared_moves_expanded
            + if pass_favored(policy, own_u) {
                params.cost_when_pass_favored
            } else {
                0.0
            };
        smallest_ucb_cost = f64::min(smallest_ucb_cost, from_ucb);
    }

    // Conflicting UCB costs mean the node is interesting: give some of it back.
    if smallest_ucb_cost > 1e-100 {
        costs.iter_mut().for_each(|x| *x -= 0.8 * smallest_ucb_cost);
        expansion -= 0.8 * smallest_ucb_cost;
    }

    // A move clearly better in plain win/loss than a cheaper sibling moves 70% toward that cost.
    let before = costs.clone();
    for (i, ch) in children.iter().enumerate() {
        let wl = persp(to_move, ch.win_loss);
        let mut best_other = before[i];
        for (j, other) in children.iter().enumerate() {
            if before[j] < best_other && wl > persp(to_move, other.win_loss) + 0.03 {
                best_other = before[j];
            }
        }
        if best_other < costs[i] {
            costs[i] += 0.7 * (best_other - costs[i]);
        }
    }
    {
        let mut best_other = expansion + c.min_cost_from_root;
        for (j, other) in children.iter().enumerate() {
            if costs[j] < best_other && own_wl > persp(to_move, other.win_loss) + 0.03 {
                best_other = costs[j];
            }
        }
        if best_other - c.min_cost_from_root < expansion {
            expansion += 0.7 * (best_other - c.min_cost_from_root - expansion);
        }
    }

    // Uncertainty bonuses on edges, at most 3/4 of the edge's own cost; then the WL-PV bonus.
    for (i, ch) in children.iter().enumerate() {
        let wl_err = (ch.win_loss_ucb - ch.win_loss_lcb).abs() / params.error_factor / 2.0;
        let score_err = (ch.score_ucb - ch.score_lcb).abs() / params.error_factor / 2.0;
        let sharp = (ch.sharp_score - ch.score_mean).abs();
        let bonus = (params.bonus_per_win_loss_error * wl_err
            + params.bonus_per_score_error * score_err
            + params.bonus_per_sharp_score_discrepancy * sharp)
            .min((costs[i] - c.min_cost_from_root) * 0.75);
        costs[i] -= bonus;
        if best_child == Some(i) {
            let scale =
                (costs[i] - c.min_cost_from_root) * (1.0 - params.bonus_for_wlpv_final_prop);
            if scale > 0.0 {
                costs[i] -= scale * wl_pv_tanh(&params, ch.win_loss);
            }
        }
    }
    {
        let wl_err = adjusted_win_loss_error(&nib);
        let score_err = adjusted_score_error(&nib, &book.meta.rules);
        let sharp = (nib.sharp_score - nib.score_mean).abs();
        let n = children.len() as f64;
        let excess = if n > 0.0 && nib.max_policy > 1.0 / n {
            nib.max_policy - 1.0 / n
        } else {
            0.0
        };
        let mut bonus = (params.bonus_per_win_loss_error * wl_err
            + params.bonus_per_score_error * score_err
            + params.bonus_per_sharp_score_discrepancy * sharp.min(1.0)
            + params.bonus_per_excess_unexpanded_policy * excess)
            .min(expansion * 0.75);
        bonus += params.bonus_per_sharp_score_discrepancy * (sharp - 1.0).max(0.0);
        expansion -= bonus;

        const BEST_WIN_LOSS_OFFSET: f64 = 0.02;
        let visits_factor = |best: f64, total: f64| {
            let scale = params.visits_scale.max(1.0);
            0.5 * ((best / scale).sqrt().min(1.0) + (total / scale).sqrt().min(1.0))
        };
        // The remainder beats every child: expand it.
        let mut best_other: Option<(f64, f64)> = None;
        let mut total_other = 0.0;
        for ch in &children {
            let w = persp(to_move, ch.win_loss);
            if best_other.is_none_or(|(b, _)| w > b) {
                best_other = Some((w, ch.visits));
            }
            total_other += ch.visits;
        }
        if let Some((b, bv)) = best_other
            && own_wl > b
        {
            expansion -= params.bonus_per_unexpanded_best_win_loss
                * (own_wl - b + BEST_WIN_LOSS_OFFSET)
                * visits_factor(bv, total_other);
        }
        if children.len() >= 2 {
            // A best child that is still re-expandable and has fewer visits than the runner-up.
            if let Some(bi) = best_child
                && children[bi].visits <= params.max_visits_for_re_expansion
            {
                let mut runner: Option<(f64, f64)> = None;
                let mut total = 0.0;
                for (j, ch) in children.iter().enumerate() {
                    if node.edges[j].child == node.edges[bi].child {
                        continue;
                    }
                    let w = persp(to_move, ch.win_loss);
                    if runner.is_none_or(|(b, _)| w > b) {
                        runner = Some((w, ch.visits));
                    }
                    total += ch.visits;
                }
                if let Some((rw, rv)) = runner
                    && best_wl_persp > rw
                    && children[bi].visits < rv
                {
                    let scale = params.visits_scale.max(1.0);
                    let factor =
                        visits_factor(rv, total) - (children[bi].visits / scale).sqrt().min(1.0);
                    costs[bi] -= 0.75
                        * params.bonus_per_unexpanded_best_win_loss
                        * (best_wl_persp - rw + BEST_WIN_LOSS_OFFSET)
                        * factor;
                }
            }
            // Far fewer visits than a sibling that is not much better.
            let behind = |child_wl: f64, adjusted: f64| -> f64 {
                let mut max_bonus: f64 = 0.0;
                for other in &children {
                    let ov = other.adjusted_visits;
                    if ov <= 30.0 * adjusted {
                        continue;
                    }
                    let gain = if white {
                        child_wl - other.win_loss
                    } else {
                        other.win_loss - child_wl
                    };
                    if gain <= -params.policy_boost_soft_utility_scale {
                        continue;
                    }
                    let mut b = (ov / (30.0 * adjusted)).log10()
                        - 0.5
                            * (adjusted.max(params.visits_scale_leaves)
                                / params.visits_scale_leaves)
                                .log10();
                    if gain < 0.0 {
                        let f = (gain + params.policy_boost_soft_utility_scale)
                            / (params.policy_boost_soft_utility_scale + 1e-10);
                        b *= f * f;
                    }
                    max_bonus = max_bonus.max(b);
                }
                if max_bonus <= 0.0 {
                    return 0.0;
                }
                let gain_over_best = (if white {
                    child_wl - best_win_loss
                } else {
                    best_win_loss - child_wl
                })
                .min(0.0);
                let losing = (if white {
                    child_wl + 1.0
                } else {
                    1.0 - child_wl
                })
                .min(1.0);
                max_bonus
                    * (gain_over_best / (2.0 * params.policy_boost_soft_utility_scale)).exp()
                    * losing
            };
            let scale = params.bonus_behind_in_visits_scale;
            for (i, ch) in children.iter().enumerate() {
                costs[i] -= scale * behind(ch.win_loss, ch.adjusted_visits);
            }
            expansion -= scale * behind(nib.win_loss, nib.visits);
        }
    }

    if c.expansion_is_wl_pv || re_expandable {
        let scale = expansion
            + (c.min_cost_from_root - c.min_cost_wl_pv).max(0.0) * params.bonus_for_wlpv_final_prop;
        if scale > 0.0 {
            expansion -= scale * wl_pv_tanh(&params, nib.win_loss);
        }
    }

    let depth_factor = 1.0
        - params.early_book_cost_reduction_factor
            * params
                .early_book_cost_reduction_lambda
                .powi(c.min_depth.min(1 << 20) as i32);
    for x in costs.iter_mut() {
        *x = c.min_cost_from_root + (*x - c.min_cost_from_root) * depth_factor;
    }
    expansion *= depth_factor;

    expansion -= marks.expand;
    apply_branch_mark(book, id, &marks, &children, &mut costs, &mut expansion);

    c.expansion_cost = expansion;
    let node = book.node_mut(id);
    node.cost = c;
    for (i, e) in node.edges.iter_mut().enumerate() {
        e.cost_from_root = costs[i];
        e.biggest_wl_cost = biggest_wl[i];
        e.is_wl_pv = best_child == Some(i);
    }
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
/// actually moved; the rest of the book keeps its costs. Returns how many nodes were recomputed.
pub fn recompute_costs_from(book: &mut Book, changed: &std::collections::HashSet<NodeId>) -> usize {
    // Topological order of the affected region: parents first by min depth, then id, is enough because a
    // node's cost depends only on its parents' edges and its own and children's values.
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u32, NodeId)>> = changed
        .iter()
        .map(|&id| std::cmp::Reverse((book.node(id).cost.min_depth, id)))
        .collect();
    let mut queued: std::collections::HashSet<NodeId> = changed.clone();
    let mut count = 0;
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
        count += 1;
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
    count
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

#[cfg(test)]
mod tests;
