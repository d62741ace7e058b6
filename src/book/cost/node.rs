//! One node's costs, term by term as KataGo's book computes them (`facts/katago-book.md` §5): the path
//! cost from its parents, each edge's cost, the cost of expanding one more move here, then the bonuses
//! that pull interesting nodes forward.

use super::{
    CostParams, NodeCost, apply_branch_mark, persp, pow3, pow7, soft_gain, utility, wl_pv_tanh,
};
use crate::book::dag::{Book, Node, NodeId, SearchValues};
use crate::book::marks::Marks;
use crate::book::values::{RecursiveValues, adjusted_score_error, adjusted_win_loss_error};
use crate::go::{Color, Move, Rules};

/// Recomputes a node's path cost (from its parents' edges), its edges' costs and its expansion cost.
pub fn recompute_node_cost(book: &mut Book, id: NodeId) {
    let marks = book.marks.get(&id).copied().unwrap_or_default();
    let c = path_cost(book, id, &marks);
    let terms = Terms::new(book, id, c);
    let mut edges = terms.edge_costs();
    let re_expandable =
        terms.node.can_re_expand && terms.p.visits <= terms.params.max_visits_for_re_expansion;
    let mut expansion = terms.expansion_cost(re_expandable, &mut edges.smallest_ucb_cost);
    let costs = &mut edges.costs;

    // Conflicting UCB costs mean the node is interesting: give some of it back.
    if edges.smallest_ucb_cost > 1e-100 {
        costs
            .iter_mut()
            .for_each(|x| *x -= 0.8 * edges.smallest_ucb_cost);
        expansion -= 0.8 * edges.smallest_ucb_cost;
    }
    terms.pull_toward_better(costs, &mut expansion);
    terms.uncertainty_bonuses(costs, &mut expansion);
    if terms.children.len() >= 2 {
        terms.visit_bonuses(costs, &mut expansion);
    }
    let c = terms.c;
    if c.expansion_is_wl_pv || re_expandable {
        let params = terms.params;
        let scale = expansion
            + (c.min_cost_from_root - c.min_cost_wl_pv).max(0.0) * params.bonus_for_wlpv_final_prop;
        if scale > 0.0 {
            expansion -= scale * wl_pv_tanh(params, terms.nib.win_loss);
        }
    }

    let params = terms.params;
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
    apply_branch_mark(book, id, &marks, &terms.children, costs, &mut expansion);

    let best_child = terms.best_child;
    drop(terms);
    let mut c = c;
    c.expansion_cost = expansion;
    let node = book.node_mut(id);
    node.cost = c;
    for (i, e) in node.edges.iter_mut().enumerate() {
        e.cost_from_root = edges.costs[i];
        e.biggest_wl_cost = edges.biggest_wl[i];
        e.is_wl_pv = best_child == Some(i);
    }
}

/// The cost of reaching the node: its cheapest parent edge, less the manual marks' bonuses.
fn path_cost(book: &Book, id: NodeId, marks: &Marks) -> NodeCost {
    let node = book.node(id);
    let mut c = node.cost;
    if id == book.root() {
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
        let params = &book.params;
        let enough_adjusted = 0.5 * required / (required / params.visits_scale).powf(0.1).max(1.0);
        if node.values.visits < required || node.values.adjusted_visits < enough_adjusted {
            c.min_cost_from_root -= 500.0;
        }
    }
    if c.min_cost_from_root < c.min_cost_wl_pv {
        c.min_cost_wl_pv = c.min_cost_from_root;
    }
    c
}

/// The edges' costs before the bonuses, and the smallest UCB loss among them.
struct EdgeCosts {
    costs: Vec<f64>,
    biggest_wl: Vec<f64>,
    smallest_ucb_cost: f64,
}

/// What every cost term reads: the node's values, its children's, and the parameters.
struct Terms<'a> {
    params: &'a CostParams,
    rules: &'a Rules,
    node: &'a Node,
    to_move: Color,
    white: bool,
    p: RecursiveValues,
    nib: SearchValues,
    children: Vec<RecursiveValues>,
    priors: Vec<f64>,
    c: NodeCost,
    /// The win/loss PV: the best child, or `None` when the moves not in the book beat them all.
    best_child: Option<usize>,
    best_wl_persp: f64,
    own_wl: f64,
    pass_policy: f64,
    pass_utility: f64,
}

impl<'a> Terms<'a> {
    fn new(book: &'a Book, id: NodeId, mut c: NodeCost) -> Terms<'a> {
        let params = &book.params;
        let node = book.node(id);
        let to_move = node.to_move;
        let white = to_move == Color::White;
        let nib = node.not_in_book;
        let children: Vec<RecursiveValues> = node
            .edges
            .iter()
            .map(|e| book.node(e.child).values)
            .collect();
        let priors: Vec<f64> = node.edges.iter().map(|e| e.prior as f64).collect();
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
        let pass_index = node.edges.iter().position(|e| e.mv == Move::Pass);
        let (pass_policy, pass_utility) = match pass_index {
            Some(i) => (priors[i], utility(params, &children[i])),
            None => (0.0, if white { -1e100 } else { 1e100 }),
        };
        Terms {
            params,
            rules: &book.meta.rules,
            node,
            to_move,
            white,
            p: node.values,
            nib,
            children,
            priors,
            c,
            best_child,
            best_wl_persp,
            own_wl,
            pass_policy,
            pass_utility,
        }
    }

    /// The log policy raised toward that of any likelier sibling this move is better than.
    fn boost(&self, log_policy: f64, own_utility: f64, policy: f64) -> f64 {
        let mut boosted = log_policy;
        for (j, other) in self.children.iter().enumerate() {
            if self.priors[j] <= policy {
                continue;
            }
            let other_u = utility(self.params, other);
            let gain = if self.white {
                own_utility - other_u
            } else {
                other_u - own_utility
            };
            if gain <= 0.0 {
                continue;
            }
            let factor = 0.1 + 0.9 * soft_gain(self.params, gain);
            let other_log = (self.priors[j] + 1e-100).ln();
            boosted = boosted.max(log_policy + factor * (other_log - log_policy));
        }
        boosted
    }

    fn pass_favored(&self, policy: f64, u: f64) -> bool {
        self.pass_policy > 0.15
            && self.pass_policy > policy * 0.8
            && ((self.white && self.pass_utility > u - 0.02)
                || (!self.white && self.pass_utility < u + 0.02))
    }

    /// The cost of the win/loss a move gives up against the node's own bound.
    fn wl_cost(&self, wl_lcb: f64, wl_ucb: f64) -> f64 {
        let (params, parent) = (self.params, &self.p);
        let (loss, loss3, loss7) = if self.white {
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
        if cost > self.c.biggest_wl_cost {
            cost -= params.bonus_for_biggest_wl_cost * (cost - self.c.biggest_wl_cost);
        }
        cost
    }

    /// The cost of the score a move gives up against the node's own bound, capped.
    fn score_cost(&self, score_lcb: f64, score_ucb: f64) -> f64 {
        let loss = if self.white {
            self.p.score_ucb - score_ucb
        } else {
            score_lcb - self.p.score_lcb
        };
        loss.min(self.params.score_loss_cap) * self.params.cost_per_ucb_score_loss
    }

    fn pass_cost(&self, policy: f64, u: f64) -> f64 {
        if self.pass_favored(policy, u) {
            self.params.cost_when_pass_favored
        } else {
            0.0
        }
    }

    fn edge_costs(&self) -> EdgeCosts {
        let params = self.params;
        let n = self.children.len();
        let mut out = EdgeCosts {
            costs: vec![0.0; n],
            biggest_wl: vec![0.0; n],
            smallest_ucb_cost: 1e100,
        };
        for (i, ch) in self.children.iter().enumerate() {
            let from_wl = self.wl_cost(ch.win_loss_lcb, ch.win_loss_ucb);
            let from_ucb = from_wl + self.score_cost(ch.score_lcb, ch.score_ucb);
            let u = utility(params, ch);
            let boosted = self.boost((self.priors[i] + 1e-100).ln(), u, self.priors[i]);
            out.costs[i] = self.c.min_cost_from_root + params.cost_per_move + from_ucb
                - boosted * params.cost_per_log_policy
                + self.pass_cost(self.priors[i], u);
            out.biggest_wl[i] = self.c.biggest_wl_cost.max(from_wl);
            out.smallest_ucb_cost = f64::min(out.smallest_ucb_cost, from_ucb);
        }
        out
    }

    /// The cost of expanding one more move here (before bonuses); lowers `smallest_ucb_cost` by its own
    /// UCB loss.
    fn expansion_cost(&self, re_expandable: bool, smallest_ucb_cost: &mut f64) -> f64 {
        let params = self.params;
        let nib = &self.nib;
        if !self.node.can_expand {
            return 1e100;
        }
        if re_expandable {
            let m = self.p.visits / params.max_visits_for_re_expansion.max(1.0);
            *smallest_ucb_cost = 0.0;
            return m * params.cost_per_moves_expanded
                + m * m * params.cost_per_squared_moves_expanded;
        }
        let score_error = adjusted_score_error(nib, self.rules);
        let wl_error = adjusted_win_loss_error(nib);
        let f = params.error_factor;
        let from_wl = self.wl_cost(nib.win_loss - f * wl_error, nib.win_loss + f * wl_error);
        let from_ucb = from_wl
            + self.score_cost(
                nib.score_mean - f * score_error,
                nib.score_mean + f * score_error,
            );
        let policy = nib.max_policy;
        let own_u = nib.win_loss + nib.score_mean * params.utility_per_score;
        let boosted = self.boost((policy + 1e-100).ln(), own_u, policy);
        let moves_expanded = self.moves_expanded(own_u, policy);
        *smallest_ucb_cost = f64::min(*smallest_ucb_cost, from_ucb);
        params.cost_per_move + from_ucb - boosted * params.cost_per_log_policy
            + moves_expanded * params.cost_per_moves_expanded
            + moves_expanded * moves_expanded * params.cost_per_squared_moves_expanded
            + self.pass_cost(policy, own_u)
    }

    /// How many moves count as already expanded: children worse than the remainder count less.
    fn moves_expanded(&self, own_u: f64, policy: f64) -> f64 {
        let moves_expanded = self.children.len() as f64;
        let mut cap = 0.5;
        for ch in &self.children {
            if cap >= moves_expanded {
                break;
            }
            let other_u = utility(self.params, ch);
            let gain = if self.white {
                own_u - other_u
            } else {
                other_u - own_u
            };
            let not_counted = if gain <= 0.0 {
                0.0
            } else {
                soft_gain(self.params, gain)
            };
            cap += 1.5 * (1.0 - not_counted);
        }
        moves_expanded.min(cap).min(1.0 / (policy + 1e-30))
    }

    /// A move clearly better in plain win/loss than a cheaper sibling moves 70% toward that cost.
    fn pull_toward_better(&self, costs: &mut [f64], expansion: &mut f64) {
        let to_move = self.to_move;
        let before = costs.to_vec();
        for (i, ch) in self.children.iter().enumerate() {
            let wl = persp(to_move, ch.win_loss);
            let mut best_other = before[i];
            for (j, other) in self.children.iter().enumerate() {
                if before[j] < best_other && wl > persp(to_move, other.win_loss) + 0.03 {
                    best_other = before[j];
                }
            }
            if best_other < costs[i] {
                costs[i] += 0.7 * (best_other - costs[i]);
            }
        }
        let from_root = self.c.min_cost_from_root;
        let mut best_other = *expansion + from_root;
        for (j, other) in self.children.iter().enumerate() {
            if costs[j] < best_other && self.own_wl > persp(to_move, other.win_loss) + 0.03 {
                best_other = costs[j];
            }
        }
        if best_other - from_root < *expansion {
            *expansion += 0.7 * (best_other - from_root - *expansion);
        }
    }

    /// Bonuses for uncertain values (at most 3/4 of the cost they lower), and the WL-PV bonus of the
    /// best child.
    fn uncertainty_bonuses(&self, costs: &mut [f64], expansion: &mut f64) {
        let params = self.params;
        let from_root = self.c.min_cost_from_root;
        for (i, ch) in self.children.iter().enumerate() {
            let wl_err = (ch.win_loss_ucb - ch.win_loss_lcb).abs() / params.error_factor / 2.0;
            let score_err = (ch.score_ucb - ch.score_lcb).abs() / params.error_factor / 2.0;
            let sharp = (ch.sharp_score - ch.score_mean).abs();
            let bonus = (params.bonus_per_win_loss_error * wl_err
                + params.bonus_per_score_error * score_err
                + params.bonus_per_sharp_score_discrepancy * sharp)
                .min((costs[i] - from_root) * 0.75);
            costs[i] -= bonus;
            if self.best_child == Some(i) {
                let scale = (costs[i] - from_root) * (1.0 - params.bonus_for_wlpv_final_prop);
                if scale > 0.0 {
                    costs[i] -= scale * wl_pv_tanh(params, ch.win_loss);
                }
            }
        }
        let nib = &self.nib;
        let wl_err = adjusted_win_loss_error(nib);
        let score_err = adjusted_score_error(nib, self.rules);
        let sharp = (nib.sharp_score - nib.score_mean).abs();
        let n = self.children.len() as f64;
        let excess = if n > 0.0 && nib.max_policy > 1.0 / n {
            nib.max_policy - 1.0 / n
        } else {
            0.0
        };
        let mut bonus = (params.bonus_per_win_loss_error * wl_err
            + params.bonus_per_score_error * score_err
            + params.bonus_per_sharp_score_discrepancy * sharp.min(1.0)
            + params.bonus_per_excess_unexpanded_policy * excess)
            .min(*expansion * 0.75);
        bonus += params.bonus_per_sharp_score_discrepancy * (sharp - 1.0).max(0.0);
        *expansion -= bonus;
        self.unexpanded_best_bonus(expansion);
    }

    /// The moves not in the book beat every child: expand them.
    fn unexpanded_best_bonus(&self, expansion: &mut f64) {
        let mut best_other: Option<(f64, f64)> = None;
        let mut total_other = 0.0;
        for ch in &self.children {
            let w = persp(self.to_move, ch.win_loss);
            if best_other.is_none_or(|(b, _)| w > b) {
                best_other = Some((w, ch.visits));
            }
            total_other += ch.visits;
        }
        if let Some((b, bv)) = best_other
            && self.own_wl > b
        {
            *expansion -= self.params.bonus_per_unexpanded_best_win_loss
                * (self.own_wl - b + BEST_WIN_LOSS_OFFSET)
                * self.visits_factor(bv, total_other);
        }
    }

    fn visits_factor(&self, best: f64, total: f64) -> f64 {
        let scale = self.params.visits_scale.max(1.0);
        0.5 * ((best / scale).sqrt().min(1.0) + (total / scale).sqrt().min(1.0))
    }

    /// Bonuses for the best child when it has fewer visits than the runner-up, and for any move (or the
    /// remainder) far behind a sibling in visits without being much worse.
    fn visit_bonuses(&self, costs: &mut [f64], expansion: &mut f64) {
        let params = self.params;
        if let Some(bi) = self.best_child
            && self.children[bi].visits <= params.max_visits_for_re_expansion
        {
            let mut runner: Option<(f64, f64)> = None;
            let mut total = 0.0;
            for (j, ch) in self.children.iter().enumerate() {
                if self.node.edges[j].child == self.node.edges[bi].child {
                    continue;
                }
                let w = persp(self.to_move, ch.win_loss);
                if runner.is_none_or(|(b, _)| w > b) {
                    runner = Some((w, ch.visits));
                }
                total += ch.visits;
            }
            if let Some((rw, rv)) = runner
                && self.best_wl_persp > rw
                && self.children[bi].visits < rv
            {
                let scale = params.visits_scale.max(1.0);
                let factor = self.visits_factor(rv, total)
                    - (self.children[bi].visits / scale).sqrt().min(1.0);
                costs[bi] -= 0.75
                    * params.bonus_per_unexpanded_best_win_loss
                    * (self.best_wl_persp - rw + BEST_WIN_LOSS_OFFSET)
                    * factor;
            }
        }
        let scale = params.bonus_behind_in_visits_scale;
        for (i, ch) in self.children.iter().enumerate() {
            costs[i] -= scale * self.behind(ch.win_loss, ch.adjusted_visits);
        }
        *expansion -= scale * self.behind(self.nib.win_loss, self.nib.visits);
    }

    /// How far a move with `adjusted` visits lags a sibling with 30 times more that is not much better.
    fn behind(&self, child_wl: f64, adjusted: f64) -> f64 {
        let params = self.params;
        let white = self.white;
        let mut max_bonus: f64 = 0.0;
        for other in &self.children {
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
                    * (adjusted.max(params.visits_scale_leaves) / params.visits_scale_leaves)
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
        let best_win_loss = persp(self.to_move, self.best_wl_persp);
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
        max_bonus * (gain_over_best / (2.0 * params.policy_boost_soft_utility_scale)).exp() * losing
    }
}

/// Added to the win/loss gap of an unexpanded best move, so that a tie still earns a bonus.
const BEST_WIN_LOSS_OFFSET: f64 = 0.02;
