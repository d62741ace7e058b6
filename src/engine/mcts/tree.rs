//! The search tree and PUCT as KataGo does it: the exploration constant grows with the log of the
//! parent's visits and with the spread of its utility, unvisited children get a blend of the parent's own
//! evaluation and its average minus a reduction ("first-play urgency"), descents in flight (when a search
//! batches leaves) carry a virtual loss so that one batch spreads over different leaves, and the final
//! move is chosen by a lower confidence bound among the well-visited moves.
//!
//! Every value is stored from White's point of view (as KataGo stores them) and turned towards the player
//! choosing at each node.

use crate::go::{Color, Move};

/// Search constants; defaults are KataGo's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchParams {
    pub cpuct_exploration: f64,
    pub cpuct_exploration_log: f64,
    pub cpuct_exploration_base: f64,
    /// Exploration grows with the spread of the parent's utility, around this prior spread.
    pub cpuct_utility_stdev_prior: f64,
    pub cpuct_utility_stdev_prior_weight: f64,
    pub cpuct_utility_stdev_scale: f64,
    pub fpu_reduction_max: f64,
    pub root_fpu_reduction_max: f64,
    /// Unvisited children start from a blend of the parent's own evaluation and its average, the
    /// average weighing (visited policy)^this.
    pub fpu_parent_weight_pow: f64,
    /// Standard deviations below the mean for the final choice.
    pub lcb_stdevs: f64,
    /// Only moves with at least this share of the most-visited move's visits compete by LCB.
    pub min_visit_prop_for_lcb: f64,
    /// Weight of the score in the utility, around 0 and around the root's expected score.
    pub static_score_utility_factor: f64,
    pub dynamic_score_utility_factor: f64,
    /// Leaves gathered per network call (each carrying a virtual loss).
    pub batch_size: usize,
    /// Whether a thread gathers its next batch while the last one is evaluated (two in flight). Faster,
    /// but every leaf in flight is a descent chosen without its predecessors' results.
    pub pipelined: bool,
    /// Search threads per search. One thread is deterministic; more interleave their descents (each
    /// leaves a virtual loss) and vary a little from run to run.
    pub threads: usize,
    /// Average the root's network output over the board's symmetries.
    pub root_symmetries: bool,
    /// Evaluate each leaf under a symmetry of the board picked by its position (KataGo's `nnRandomize`).
    pub leaf_symmetries: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            cpuct_exploration: 1.0,
            cpuct_exploration_log: 0.45,
            cpuct_exploration_base: 500.0,
            cpuct_utility_stdev_prior: 0.4,
            cpuct_utility_stdev_prior_weight: 2.0,
            cpuct_utility_stdev_scale: 0.85,
            fpu_reduction_max: 0.2,
            root_fpu_reduction_max: 0.1,
            fpu_parent_weight_pow: 2.0,
            lcb_stdevs: 5.0,
            min_visit_prop_for_lcb: 0.15,
            static_score_utility_factor: 0.1,
            dynamic_score_utility_factor: 0.3,
            batch_size: 1,
            pipelined: false,
            threads: 1,
            root_symmetries: true,
            leaf_symmetries: true,
        }
    }
}

pub type NodeId = u32;

/// A move out of a node, with its prior and the child node once visited.
#[derive(Debug, Clone)]
pub struct Edge {
    pub mv: Move,
    pub prior: f32,
    pub child: Option<NodeId>,
}

/// Statistics of one node; sums are over every evaluation backed up through it, White's view.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// The player to move at this node.
    pub to_move: Option<Color>,
    pub edges: Vec<Edge>,
    pub expanded: bool,
    /// A leaf whose evaluation is on its way.
    pub pending: bool,
    pub visits: u64,
    /// The utility of the node's own evaluation (White's view).
    pub nn_utility: f64,
    pub virtual_losses: u32,
    pub utility_sum: f64,
    pub utility_sq_sum: f64,
    /// White's win chance (no result counting half).
    pub win_sum: f64,
    pub lead_sum: f64,
    pub score_mean_sum: f64,
    /// Sum of stdev² + mean², to recover the score's spread.
    pub score_sq_sum: f64,
}

impl Node {
    pub fn mean_utility(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.utility_sum / self.visits as f64
        }
    }
}

/// One evaluation's values, White's view, as they are backed up.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub utility: f64,
    pub win: f64,
    pub lead: f64,
    pub score_mean: f64,
    pub score_sq: f64,
}

#[derive(Clone)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub params: SearchParams,
}

/// +1 when White chooses, -1 when Black does: turns White's values into the chooser's.
pub fn sign(color: Color) -> f64 {
    if color == Color::White { 1.0 } else { -1.0 }
}

impl Tree {
    pub fn new(params: SearchParams, root_to_move: Color) -> Tree {
        let root = Node {
            to_move: Some(root_to_move),
            ..Node::default()
        };
        Tree {
            nodes: vec![root],
            params,
        }
    }

    pub const ROOT: NodeId = 0;

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// The exploration constant at a parent whose children have `visits` in total.
    fn cpuct(&self, visits: f64) -> f64 {
        let p = &self.params;
        p.cpuct_exploration
            + p.cpuct_exploration_log
                * ((visits + p.cpuct_exploration_base) / p.cpuct_exploration_base).ln()
    }

    /// How much wider than usual to explore below a node whose utility varies more than the prior spread
    /// (KataGo's factor, with the prior counting as a few visits).
    fn utility_stdev_factor(&self, node: &Node) -> f64 {
        let p = &self.params;
        let n = node.visits as f64;
        let stdev = if n <= 1.0 {
            p.cpuct_utility_stdev_prior
        } else {
            let mean = node.utility_sum / n;
            let mean_sq = (node.utility_sq_sum / n).max(mean * mean);
            let prior_var = p.cpuct_utility_stdev_prior * p.cpuct_utility_stdev_prior;
            let w = p.cpuct_utility_stdev_prior_weight;
            (((mean * mean + prior_var) * w + mean_sq * n) / (w + n - 1.0) - mean * mean)
                .max(0.0)
                .sqrt()
        };
        1.0 + p.cpuct_utility_stdev_scale * (stdev / p.cpuct_utility_stdev_prior - 1.0)
    }

    /// The value an unvisited child of `id` starts with, for the player choosing there: the parent's own
    /// evaluation while little of its policy has been tried, its search average as more is, less a
    /// reduction that grows with the policy tried (KataGo's FPU).
    fn first_play_urgency(&self, id: NodeId, visited_prior: f64) -> f64 {
        let node = self.node(id);
        let chooser = node.to_move.map_or(1.0, sign);
        let reduction = if id == Tree::ROOT {
            self.params.root_fpu_reduction_max
        } else {
            self.params.fpu_reduction_max
        };
        let average_weight = visited_prior
            .powf(self.params.fpu_parent_weight_pow)
            .min(1.0);
        let parent =
            average_weight * node.mean_utility() + (1.0 - average_weight) * node.nn_utility;
        chooser * parent - reduction * visited_prior.sqrt()
    }

    /// The edge PUCT picks at `id`, if the node has any.
    pub fn select_edge(&self, id: NodeId) -> Option<usize> {
        let node = self.node(id);
        let chooser = sign(node.to_move?);
        let mut child_visits = 0.0;
        let mut visited_prior = 0.0;
        for e in &node.edges {
            if let Some(c) = e.child {
                let c = self.node(c);
                let n = c.visits as f64 + c.virtual_losses as f64;
                child_visits += n;
                if n > 0.0 {
                    visited_prior += e.prior as f64;
                }
            }
        }
        let fpu = self.first_play_urgency(id, visited_prior);
        let explore_scale = self.cpuct(child_visits)
            * (child_visits + 0.01).sqrt()
            * self.utility_stdev_factor(node);
        let mut best = None;
        let mut best_value = f64::NEG_INFINITY;
        for (i, e) in node.edges.iter().enumerate() {
            let (n, q) = match e.child.map(|c| self.node(c)) {
                Some(c) if c.visits + c.virtual_losses as u64 > 0 => {
                    let n = c.visits as f64 + c.virtual_losses as f64;
                    // A virtual loss counts as a lost game for the chooser.
                    let q = (chooser * c.utility_sum - c.virtual_losses as f64) / n;
                    (n, q)
                }
                _ => (0.0, fpu),
            };
            let value = q + explore_scale * e.prior as f64 / (1.0 + n);
            if value > best_value {
                best_value = value;
                best = Some(i);
            }
        }
        best
    }

    /// The child along edge `edge` of `id`, created on first use.
    pub fn child(&mut self, id: NodeId, edge: usize) -> NodeId {
        if let Some(c) = self.node(id).edges[edge].child {
            return c;
        }
        let to_move = self.node(id).to_move.map(Color::opponent);
        let new_id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            to_move,
            ..Node::default()
        });
        self.node_mut(id).edges[edge].child = Some(new_id);
        new_id
    }

    /// Adds a sample to every node of `path` and removes the virtual losses the descent left.
    pub fn backup(&mut self, path: &[NodeId], sample: Sample, had_virtual_loss: bool) {
        for &id in path {
            let n = self.node_mut(id);
            if had_virtual_loss && n.virtual_losses > 0 {
                n.virtual_losses -= 1;
            }
            n.visits += 1;
            n.utility_sum += sample.utility;
            n.utility_sq_sum += sample.utility * sample.utility;
            n.win_sum += sample.win;
            n.lead_sum += sample.lead;
            n.score_mean_sum += sample.score_mean;
            n.score_sq_sum += sample.score_sq;
        }
    }

    /// Takes a subtree's statistics out of the root, when its move leaves the search.
    pub fn subtract_from_root(&mut self, child: &Node) {
        let root = self.node_mut(Tree::ROOT);
        root.visits = root.visits.saturating_sub(child.visits);
        root.utility_sum -= child.utility_sum;
        root.utility_sq_sum -= child.utility_sq_sum;
        root.win_sum -= child.win_sum;
        root.lead_sum -= child.lead_sum;
        root.score_mean_sum -= child.score_mean_sum;
        root.score_sq_sum -= child.score_sq_sum;
    }

    /// The part of the tree below `id`, as a tree of its own rooted there.
    pub fn subtree(&self, id: NodeId) -> Tree {
        let mut nodes = vec![self.node(id).clone()];
        let mut next = 0;
        while next < nodes.len() {
            let children: Vec<(usize, NodeId)> = nodes[next]
                .edges
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.child.map(|c| (i, c)))
                .collect();
            for (i, child) in children {
                nodes[next].edges[i].child = Some(nodes.len() as NodeId);
                nodes.push(self.node(child).clone());
            }
            next += 1;
        }
        Tree {
            nodes,
            params: self.params,
        }
    }

    /// Roughly what the tree holds in memory.
    pub fn bytes(&self) -> usize {
        self.nodes
            .iter()
            .map(|n| std::mem::size_of::<Node>() + n.edges.capacity() * std::mem::size_of::<Edge>())
            .sum()
    }

    /// The root's edges in the order they are reported: the LCB choice first, then by visits.
    pub fn ranked_root_edges(&self) -> Vec<(usize, Option<f64>)> {
        let root = self.node(Tree::ROOT);
        let Some(to_move) = root.to_move else {
            return Vec::new();
        };
        let chooser = sign(to_move);
        let max_visits = root
            .edges
            .iter()
            .filter_map(|e| e.child)
            .map(|c| self.node(c).visits)
            .max()
            .unwrap_or(0);
        let mut ranked: Vec<(usize, u64, Option<f64>)> = root
            .edges
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let c = self.node(e.child?);
                if c.visits == 0 {
                    return None;
                }
                let n = c.visits as f64;
                let mean = chooser * c.utility_sum / n;
                let variance = (c.utility_sq_sum / n - mean * mean).max(0.0);
                // A prior spread of one unit keeps a handful of lucky visits from looking certain.
                let radius = self.params.lcb_stdevs * ((variance * n + 1.0) / (n + 1.0) / n).sqrt();
                let eligible =
                    c.visits as f64 >= self.params.min_visit_prop_for_lcb * max_visits as f64;
                Some((i, c.visits, eligible.then_some(mean - radius)))
            })
            .collect();
        ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
        if let Some(best) = ranked
            .iter()
            .enumerate()
            .filter_map(|(pos, r)| r.2.map(|l| (pos, l)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(pos, _)| pos)
        {
            let chosen = ranked.remove(best);
            ranked.insert(0, chosen);
        }
        ranked.into_iter().map(|(i, _, lcb)| (i, lcb)).collect()
    }

    /// The most visited line from `id`.
    pub fn principal_variation(&self, mut id: NodeId, max_len: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        while pv.len() < max_len {
            let node = self.node(id);
            let Some(edge) = node
                .edges
                .iter()
                .filter(|e| e.child.is_some_and(|c| self.node(c).visits > 0))
                .max_by_key(|e| e.child.map_or(0, |c| self.node(c).visits))
            else {
                break;
            };
            pv.push(edge.mv);
            id = edge.child.unwrap_or(id);
        }
        pv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_with_two_moves(prior_a: f32, prior_b: f32) -> Tree {
        let mut t = Tree::new(SearchParams::default(), Color::Black);
        let root = t.node_mut(Tree::ROOT);
        root.expanded = true;
        root.edges = vec![
            Edge {
                mv: Move::Play(crate::go::Point::new(0, 0)),
                prior: prior_a,
                child: None,
            },
            Edge {
                mv: Move::Play(crate::go::Point::new(1, 0)),
                prior: prior_b,
                child: None,
            },
        ];
        t.backup(
            &[Tree::ROOT],
            Sample {
                utility: 0.0,
                win: 0.5,
                lead: 0.0,
                score_mean: 0.0,
                score_sq: 0.0,
            },
            false,
        );
        t
    }

    #[test]
    fn the_higher_prior_is_tried_first_and_virtual_loss_moves_on() {
        let mut t = tree_with_two_moves(0.6, 0.4);
        assert_eq!(t.select_edge(Tree::ROOT), Some(0));
        let a = t.child(Tree::ROOT, 0);
        t.node_mut(a).virtual_losses = 1;
        assert_eq!(
            t.select_edge(Tree::ROOT),
            Some(1),
            "a pending loss sends the next descent elsewhere"
        );
    }

    #[test]
    fn first_play_urgency_moves_from_the_parents_evaluation_to_its_average() {
        let mut t = tree_with_two_moves(0.5, 0.5);
        // White's view: the root's own evaluation says +0.4, its search average -0.2 (visits below it).
        t.node_mut(Tree::ROOT).nn_utility = 0.4;
        t.node_mut(Tree::ROOT).utility_sum = -0.2;
        // Black chooses at the root, so sees -0.4 and +0.2.
        assert!((t.first_play_urgency(Tree::ROOT, 0.0) - -0.4).abs() < 1e-12);
        assert!((t.first_play_urgency(Tree::ROOT, 1.0) - (0.2 - 0.1)).abs() < 1e-12);
        let half = t.first_play_urgency(Tree::ROOT, 0.5);
        assert!(
            (half - (0.25 * 0.2 + 0.75 * -0.4 - 0.1 * 0.5f64.sqrt())).abs() < 1e-12,
            "{half}"
        );
    }

    #[test]
    fn exploration_widens_where_the_utility_varies() {
        let mut t = tree_with_two_moves(0.5, 0.5);
        let calm = t.utility_stdev_factor(t.node(Tree::ROOT));
        assert!(
            (calm - 1.0).abs() < 1e-12,
            "one visit: the prior spread, factor 1"
        );
        let root = t.node_mut(Tree::ROOT);
        root.visits = 40;
        root.utility_sum = 0.0;
        root.utility_sq_sum = 40.0 * 0.8 * 0.8;
        let volatile = t.utility_stdev_factor(t.node(Tree::ROOT));
        let root = t.node_mut(Tree::ROOT);
        root.utility_sq_sum = 40.0 * 0.05 * 0.05;
        let settled = t.utility_stdev_factor(t.node(Tree::ROOT));
        assert!(volatile > 1.5 && settled < 0.5, "{volatile} {settled}");
    }

    #[test]
    fn values_are_seen_from_the_chooser() {
        let mut t = tree_with_two_moves(0.5, 0.5);
        let a = t.child(Tree::ROOT, 0);
        let b = t.child(Tree::ROOT, 1);
        // White's utility +1 after A (bad for Black, who chooses), -1 after B.
        for _ in 0..3 {
            t.backup(
                &[a],
                Sample {
                    utility: 1.0,
                    win: 1.0,
                    lead: 5.0,
                    score_mean: 5.0,
                    score_sq: 25.0,
                },
                false,
            );
            t.backup(
                &[b],
                Sample {
                    utility: -1.0,
                    win: 0.0,
                    lead: -5.0,
                    score_mean: -5.0,
                    score_sq: 25.0,
                },
                false,
            );
        }
        assert_eq!(t.select_edge(Tree::ROOT), Some(1));
        assert_eq!(t.ranked_root_edges()[0].0, 1);
    }
}
