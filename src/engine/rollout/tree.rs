//! One search tree: UCT with RAVE (all-moves-as-first) over the root position, light playouts below it.
//!
//! The tree is an arena of nodes ([`Nodes`], one array per statistic); a node's children sit side by side. Moves in the tree are checked under
//! the query's full rules (superko against the game's history and the path), while playouts use simple ko
//! only. Each node's statistics are from the point of view of the player who made its move.

use super::nodes::{FirstOwner, Nodes, OWNER_SLOTS, PASS};
use super::playout::{area_count, area_score, count_stone_balance, light_playout, stone_balance};
use crate::go::board::{Cell, neighbours};
use crate::go::coord::GRID;
use crate::go::playout::FastRng;
use crate::go::zobrist;
use crate::go::{Board, Color, KoRule, Move, Point, Rules};
use std::sync::Arc;

/// Tuning constants (from the MoGo/Fuego tradition, checked on 5x5–9x9).
#[derive(Debug, Clone, Copy)]
pub struct SearchParams {
    /// UCT exploration constant.
    pub exploration: f64,
    /// Number of visits at which RAVE and the real mean weigh the same (Gelly and Silver's `k`-style
    /// equivalence parameter).
    pub rave_equivalence: f64,
    /// A leaf becomes a tree node after this many visits; before that only its playouts count. (4 halves
    /// the tree and helps a busy machine's caches, but its shallower tree lengthens the playouts: about 3%
    /// fewer playouts per second on a quiet one; docs/research/rollout-tree-speed.md.)
    pub expand_after: u32,
    /// Weight of the score in the value a node is selected by, beside a win's weight of 1. A little score
    /// keeps the search informative when every move wins or every move loses, e.g. 5x5 at komi 24.
    pub score_weight: f64,
    /// Weight of the score measured around the search's own current estimate (KataGo's dynamic score
    /// utility): a point more or less matters as much in a decided position as in a close one, so the tree
    /// concentrates on the moves that keep the most points and its mean score approaches the minimax.
    pub dynamic_score_weight: f64,
    /// Nodes in the arena beyond which the tree stops growing (memory bound).
    pub max_nodes: usize,
}

impl Default for SearchParams {
    fn default() -> SearchParams {
        SearchParams {
            exploration: 0.25,
            rave_equivalence: 2000.0,
            expand_after: 2,
            score_weight: 0.1,
            dynamic_score_weight: 0.3,
            max_nodes: 2_000_000,
        }
    }
}

/// The statistics reported for a root move, beside the ones selection needs.
#[derive(Debug, Clone, Copy, Default)]
struct RootSums {
    /// Sum of wins (draws count half), mover's view.
    win_sum: f64,
    /// Sums of Black's final score and its square.
    score_sum: f64,
    score_sq_sum: f64,
}

/// The root position, shared by every tree of one search.
#[derive(Debug)]
pub struct RootPosition {
    pub board: Board,
    pub to_move: Color,
    pub consecutive_passes: u8,
    pub rules: Rules,
    /// Superko keys of every position of the game so far, sorted (empty under simple ko).
    pub history: Vec<u128>,
    /// The most stones any position of the game so far had: a move that captures nothing makes a position
    /// with more stones than that, which cannot repeat one of them, and needs no lookup.
    pub max_stones: usize,
    /// Root moves the search may not play.
    pub avoid: Vec<Move>,
}

impl RootPosition {
    /// The key superko compares: the stones, and under situational superko the player to move too.
    pub fn superko_key(rules: Rules, board: &Board, to_move: Color) -> u128 {
        match (rules.ko, to_move) {
            (KoRule::Situational, Color::White) => {
                board.stone_hash() ^ zobrist::MISC[zobrist::WHITE_TO_MOVE]
            }
            _ => board.stone_hash(),
        }
    }
}

/// Statistics of one root move, as this tree has them.
#[derive(Debug, Clone)]
pub struct RootMoveStats {
    pub mv: Move,
    pub mover: Color,
    pub visits: u64,
    pub win_sum: f64,
    pub score_sum: f64,
    pub score_sq_sum: f64,
    pub pv: Vec<Move>,
}

/// Ownership accumulated over the playouts: per row-major point, Black owned minus White owned.
pub type OwnershipSums = Vec<f64>;

pub struct Tree {
    root: Arc<RootPosition>,
    params: SearchParams,
    nodes: Nodes,
    /// Reported statistics of the root's children, in the order of the children.
    root_sums: Vec<RootSums>,
    rng: FastRng,
    /// Reused per iteration: who first played each point after the node being backed up.
    first_owner: FirstOwner,
    played: Vec<(Color, Point)>,
    path: Vec<u32>,
    /// Reused per iteration: superko keys of the positions along the path.
    path_keys: Vec<u128>,
    /// Black's stones minus White's at the root: with the moves and captures of a playout it gives the
    /// final stones without a pass over the board.
    root_stone_balance: i32,
    /// Playouts so far and the sum of their scores: the centre of the dynamic score utility.
    playouts: f64,
    score_total: f64,
    ownership: Option<OwnershipSums>,
    /// Reused per iteration: the board the iteration plays on, refilled from the root's (see
    /// [`Board::copy_from`]) instead of cloned.
    scratch: Option<Box<Board>>,
    /// Reused per expansion: the points of the new children.
    new_children: Vec<u16>,
}

/// Stones on the board (what the superko filter compares).
fn stone_count(board: &Board) -> usize {
    board.size().area() - board.empty_count()
}

/// Whether `color` playing at `p` captures a chain.
fn captures_any(board: &Board, color: Color, p: Point) -> bool {
    let enemy = Cell::stone(color.opponent());
    neighbours(p)
        .iter()
        .any(|&n| board.cell(n) == enemy && board.in_atari(n))
}

/// Black's value of a playout in [0, 1]: the win first, then the score, linear over the board and around
/// `centre` on a scale of the board's side (KataGo's static and dynamic score utilities).
fn playout_value(
    p: &SearchParams,
    black_win: f64,
    black_score: f64,
    area: f64,
    centre: f64,
) -> f64 {
    let linear = 0.5 + 0.5 * (black_score / area).clamp(-1.0, 1.0);
    let scale = 0.75 * area.sqrt();
    let dynamic = 0.5 + ((black_score - centre) / scale).atan() / std::f64::consts::PI;
    (black_win + p.score_weight * linear + p.dynamic_score_weight * dynamic)
        / (1.0 + p.score_weight + p.dynamic_score_weight)
}

impl Tree {
    pub fn new(root: Arc<RootPosition>, params: SearchParams, seed: u64, ownership: bool) -> Tree {
        let area = root.board.size().area();
        let root_stone_balance = count_stone_balance(&root.board);
        let mut tree = Tree {
            nodes: Nodes::with_root(params.max_nodes),
            root_sums: Vec::new(),
            root,
            params,
            rng: FastRng::new(seed),
            first_owner: [0; OWNER_SLOTS],
            played: Vec::with_capacity(4 * area),
            path: Vec::with_capacity(64),
            path_keys: Vec::with_capacity(64),
            root_stone_balance,
            playouts: 0.0,
            score_total: 0.0,
            ownership: ownership.then(|| vec![0.0; area]),
            scratch: None,
            new_children: Vec::with_capacity(GRID),
        };
        let max_stones = tree.root.max_stones;
        tree.expand(
            0,
            &tree.root.board.clone(),
            tree.root.to_move,
            &[],
            max_stones,
        );
        tree.root_sums = vec![RootSums::default(); tree.nodes.children(0).len()];
        tree
    }

    /// The legal root moves this search considers (avoided moves excluded).
    pub fn root_moves(&self) -> Vec<Move> {
        self.nodes.children(0).map(|c| self.nodes.mv(c)).collect()
    }

    pub fn root_visits(&self) -> u64 {
        self.nodes.visits(0) as u64
    }

    /// Who made the move leading to the node at `depth` on the path (the root's "mover" is the player
    /// who is not to move).
    fn mover_at(&self, depth: usize) -> Color {
        if depth % 2 == 1 {
            self.root.to_move
        } else {
            self.root.to_move.opponent()
        }
    }

    /// One iteration: descend by UCT-RAVE, grow the tree by one node, play out, back up.
    pub fn iterate(&mut self) {
        // Copies, not a clone of the `Arc`: its count is shared by every thread's tree, and touching it
        // twice per iteration would bounce its cache line between the cores.
        let rules = self.root.rules;
        let mut board = match self.scratch.take() {
            Some(mut board) => {
                board.copy_from(&self.root.board);
                board
            }
            None => Box::new(self.root.board.clone()),
        };
        let mut color = self.root.to_move;
        let mut passes = self.root.consecutive_passes;
        let mut max_stones = self.root.max_stones;
        let mut keys = std::mem::take(&mut self.path_keys);
        keys.clear();
        let mut last: Option<Point> = None;
        self.played.clear();
        self.path.clear();
        self.path.push(0);
        let mut node = 0usize;
        let mut finished = passes >= 2;
        let mut expanded = self.nodes.is_expanded(node);
        while !finished {
            if !expanded {
                let grow = self.nodes.visits(node) >= self.params.expand_after
                    && self.nodes.count() < self.params.max_nodes;
                if !grow {
                    break;
                }
                self.expand(node, &board, color, &keys, max_stones);
            }
            if self.nodes.children(node).is_empty() {
                break;
            }
            let child = self.nodes.select(node, &self.params);
            // Read before the board move, whose work hides this likely cache miss.
            expanded = self.nodes.is_expanded(child);
            // Far down the tree the child's children are not in the cache: their loads overlap the board
            // move instead of stalling the next selection.
            self.nodes.prefetch_children(child);
            match self.nodes.mv(child) {
                Move::Play(p) => {
                    board.place(color, p);
                    self.played.push((color, p));
                    passes = 0;
                    last = Some(p);
                }
                Move::Pass => {
                    board.clear_ko();
                    passes += 1;
                    last = None;
                }
            }
            color = color.opponent();
            if rules.ko != KoRule::Simple {
                keys.push(RootPosition::superko_key(rules, &board, color));
                max_stones = max_stones.max(stone_count(&board));
            }
            self.path.push(child as u32);
            node = child;
            finished = passes >= 2;
        }
        self.path_keys = keys;
        if !finished {
            let cap = 3 * board.size().area();
            light_playout(
                &mut board,
                color,
                last,
                &mut self.rng,
                cap,
                &mut self.played,
            );
        }
        let black_area = match &mut self.ownership {
            Some(sums) => {
                let mut owner = [None; GRID];
                let area = area_count(&board, &mut owner);
                for (i, p) in board.size().points().enumerate() {
                    sums[i] += owner[p.index()].map_or(0.0, |c| c.sign() as f64);
                }
                area
            }
            None => {
                let stones = stone_balance(
                    &self.root.board,
                    self.root_stone_balance,
                    &self.played,
                    &board,
                );
                area_score(&board, stones)
            }
        };
        let black_score = black_area as f64 - rules.komi.value();
        self.back_up(black_score, board.size().area() as f64);
        self.scratch = Some(board);
    }

    /// Adds the legal children of `node`: every point the rules allow except suicides (own one-point eyes
    /// are left out below the root, where filling one is never the only sensible move), and pass.
    /// `max_stones` is the most stones of any position in the game or on the path (see [`Tree::repeats`]).
    fn expand(
        &mut self,
        node: usize,
        board: &Board,
        color: Color,
        path_keys: &[u128],
        max_stones: usize,
    ) {
        let is_root = node == 0;
        let rules = self.root.rules;
        let mut children = std::mem::take(&mut self.new_children);
        children.clear();
        // A move that captures nothing (and is no suicide) adds a stone: when no position so far had that
        // many, it repeats none, and the superko lookup is skipped (see [`Tree::repeats`]).
        let plain_moves_are_new = stone_count(board) + 1 > max_stones;
        // Row-major order (the order of the padded-grid indices): the children's order breaks ties in
        // selection, so it is kept fixed.
        for p in board.size().points() {
            if board.cell(p) != Cell::Empty {
                continue;
            }
            // Suicide (legal under Tromp-Taylor for several stones) is never searched: it only gives the
            // opponent points, and engines such as GNU Go refuse it. On an empty point `Board::check`
            // comes down to these two tests.
            if board.ko_point() == Some(p) || !board.has_liberty_after(color, p) {
                continue;
            }
            if !is_root && board.is_eye(color, p) {
                continue;
            }
            if is_root && self.root.avoid.contains(&Move::Play(p)) {
                continue;
            }
            let may_repeat = !plain_moves_are_new || captures_any(board, color, p);
            if rules.ko != KoRule::Simple
                && may_repeat
                && self.repeats(board, color, p, path_keys, max_stones)
            {
                continue;
            }
            children.push(p.index() as u16);
        }
        if !(is_root && self.root.avoid.contains(&Move::Pass)) {
            children.push(PASS);
        }
        if is_root && children.is_empty() && rules.multi_stone_suicide {
            // Everything else is banned (a book asking about its last moves): the suicides the rules allow
            // are the only legal moves left, so they are searched after all.
            for &i in board.empty_points() {
                let p = Point::from_index(i as usize);
                let allowed = board.check(color, p, true).is_ok()
                    && !self.root.avoid.contains(&Move::Play(p));
                if allowed
                    && !(rules.ko != KoRule::Simple
                        && self.repeats(board, color, p, path_keys, max_stones))
                {
                    children.push(p.index() as u16);
                }
            }
        }
        let first = self.nodes.push_all(&children);
        self.nodes.set_children(node, first, children.len());
        self.new_children = children;
    }

    /// Whether playing `p` recreates a position of the game or of the path (superko). A move that
    /// captures nothing adds a stone, so when no earlier position had that many (`max_stones`), nothing
    /// needs looking up: the common case, which keeps superko off the expansion's profile.
    fn repeats(
        &self,
        board: &Board,
        color: Color,
        p: Point,
        path_keys: &[u128],
        max_stones: usize,
    ) -> bool {
        let captures = captures_any(board, color, p);
        let suicide = !board.has_liberty_after(color, p);
        // Without captures or suicide the new board is the old one plus a stone: hash it directly.
        let key = if captures || suicide {
            let mut after = board.clone();
            after.place(color, p);
            RootPosition::superko_key(self.root.rules, &after, color.opponent())
        } else {
            if stone_count(board) + 1 > max_stones {
                return false;
            }
            let stones = board.stone_hash() ^ zobrist::STONE[color.index()][p.index()];
            match (self.root.rules.ko, color.opponent()) {
                (KoRule::Situational, Color::White) => {
                    stones ^ zobrist::MISC[zobrist::WHITE_TO_MOVE]
                }
                _ => stones,
            }
        };
        self.root.history.binary_search(&key).is_ok() || path_keys.contains(&key)
    }

    /// Black's value of one playout for selection, centred on the playouts before it.
    fn selection_value(&mut self, black_win: f64, black_score: f64, area: f64) -> f64 {
        let centre = if self.playouts > 0.0 {
            self.score_total / self.playouts
        } else {
            black_score
        };
        self.playouts += 1.0;
        self.score_total += black_score;
        playout_value(&self.params, black_win, black_score, area, centre)
    }

    fn back_up(&mut self, black_score: f64, area: f64) {
        let black_win = if black_score > 0.0 {
            1.0
        } else if black_score < 0.0 {
            0.0
        } else {
            0.5
        };
        let black_value = self.selection_value(black_win, black_score, area);
        let view = |c: Color, x: f64| if c == Color::Black { x } else { 1.0 - x };

        // AMAF: walk from the end of the playout back to the root, remembering who played each point
        // first after each node; a child whose move its mover played first there shares the result.
        self.first_owner.fill(0);
        let tree_moves = self.path.len() - 1;
        // The stones of the tree part of `played` are interleaved with passes, which `played` omits;
        // walk the path's own moves for the tree part instead.
        let tree_stones = self.path[1..]
            .iter()
            .filter(|&&i| self.nodes.point(i as usize) != PASS)
            .count();
        for &(c, p) in self.played[tree_stones..].iter().rev() {
            self.first_owner[p.index()] = 1 + c.index() as u8;
        }
        for depth in (0..=tree_moves).rev() {
            let id = self.path[depth] as usize;
            // The children's mover, who made the move below this node.
            let mover = self.mover_at(depth + 1);
            if depth < tree_moves {
                let point = self.nodes.point(self.path[depth + 1] as usize);
                if point != PASS {
                    self.first_owner[point as usize] = 1 + mover.index() as u8;
                }
            }
            // Siblings share their mover, so the mark to look for and the value are the same for all.
            let mark = 1 + mover.index() as u8;
            let value = view(mover, black_value);
            self.nodes.share_amaf(id, &self.first_owner, mark, value);
            self.nodes
                .record_visit(id, view(self.mover_at(depth), black_value));
        }
        if let Some(&child) = self.path.get(1) {
            let mover = self.mover_at(1);
            let s = &mut self.root_sums[child as usize - self.nodes.children(0).start];
            s.win_sum += view(mover, black_win);
            s.score_sum += black_score;
            s.score_sq_sum += black_score * black_score;
        }
    }

    /// The root moves with their statistics and principal variations.
    pub fn root_stats(&self) -> Vec<RootMoveStats> {
        let mover = self.root.to_move;
        self.nodes
            .children(0)
            .zip(&self.root_sums)
            .map(|(c, s)| RootMoveStats {
                mv: self.nodes.mv(c),
                mover,
                visits: self.nodes.visits(c) as u64,
                win_sum: s.win_sum,
                score_sum: s.score_sum,
                score_sq_sum: s.score_sq_sum,
                pv: self.principal_variation(c),
            })
            .collect()
    }

    /// The most visited line from `id` down, starting with `id`'s move.
    fn principal_variation(&self, mut id: usize) -> Vec<Move> {
        let mut pv = vec![self.nodes.mv(id)];
        while self.nodes.is_expanded(id) && pv.len() < 30 {
            let Some(best) = self.nodes.most_visited_child(id) else {
                break;
            };
            pv.push(self.nodes.mv(best));
            id = best;
        }
        pv
    }

    /// Ownership sums over this tree's playouts, if asked for.
    pub fn ownership_sums(&self) -> Option<&OwnershipSums> {
        self.ownership.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::{SearchParams, playout_value};

    #[test]
    fn a_win_outweighs_any_score_and_more_points_are_worth_more() {
        let p = SearchParams::default();
        let area = 49.0;
        let worst_win = playout_value(&p, 1.0, -49.0, area, 49.0);
        let best_loss = playout_value(&p, 0.0, 49.0, area, -49.0);
        assert!(worst_win > best_loss, "{worst_win} vs {best_loss}");
        // In a decided position (every playout a win) a point more still counts, most near the centre.
        let at = |score: f64| playout_value(&p, 1.0, score, area, 10.0);
        assert!(at(11.0) > at(10.0) && at(10.0) > at(9.0));
        assert!(at(11.0) - at(10.0) > at(41.0) - at(40.0));
        for score in [-49.0, 0.0, 49.0] {
            let v = playout_value(&p, 0.5, score, area, 0.0);
            assert!((0.0..=1.0).contains(&v), "{v}");
        }
    }
}
