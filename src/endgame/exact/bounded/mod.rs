//! The temperature-bounded exact search: the exact thermograph of a region (mean, temperature, walls,
//! best moves, sente or gote) without its canonical game, searching only the options that can still
//! shape the thermograph.
//!
//! Approach (bounded thermograph walls, `docs/endgame.md`): a node's thermograph below its temperature
//! is Left's scaffold `max RW(G^L)(t) − t` against Right's `min LW(G^R)(t) + t`. The search solves the
//! first option of each colour (moves ordered by cheap Go heuristics); their scaffolds meet at `T`. A
//! Left option's taxed wall is at most its right stop and at most its left stop less t (mirror for
//! Right), so an option whose stops are proved (`proof.rs`, an AND/OR search much cheaper than a
//! thermograph) to keep it under the solved scaffold on `[0, T]` cannot move the first meeting and is
//! not searched further; an option no proof settles is bounded by an answer solved exactly (`RW(G^L)(t)
//! ≤ LW(G^LR)(t) + t`), and at last solved. A node that is a number is read from its options' best
//! stops, so there an option whose stop stays strictly beyond the best stop is not searched further.
//!
//! Everything else is the canonical solver's model (`super`): the same moves and captured-space rule, the
//! same settled and finished leaves, prisoners counted per node, the placid-ko rule (the colours whose
//! best mean it reads, at a node with a ko capture or reached by one, have every option searched),
//! one-sided nodes as numbers, a cold node as it stands, no repetition of a position on the line and no table
//! entry for a result that depends on the line. The transposition table is keyed by the stones, the ko
//! ban and the sealed captured space.

mod frame;
mod node;
mod options;
mod order;
mod proof;
mod settled;
mod stats;
mod value;

use super::line::{Dependencies, LineKey};
use super::{
    Candidate, KoContext, PROGRESS_EVERY, Progress, Search, SolveError, State, TableKey,
    best_mean_of,
};
use crate::endgame::cgt::fast_hash::{FastMap, fast_map};
use crate::endgame::cgt::{Kind, Rational, Thermograph};
use crate::endgame::local::{Settlement, finished_count};
use crate::endgame::region::Region;
use crate::go::{Board, Color, Point, Scoring};
pub use node::{ThermoBranch, ThermoNode};
use options::{Option_, Status, split};
use stats::NodeKind;
use std::sync::Arc;

/// How many positions the bounded search may visit by default before it gives up. A million finishes 19
/// of 20 generated regions of 9–12 empty points where 200,000 finished 11 (`examples/exact_reach.rs`,
/// `docs/research/exact-solver-give-ups.md`), at about 0.6 GB and half a minute for a give-up.
pub const DEFAULT_BUDGET: usize = 1_000_000;

/// The bounded search's answer for a position.
#[derive(Clone, Debug)]
pub struct Bounded {
    pub root: Arc<ThermoNode>,
    pub kind: Kind,
    /// Positions searched.
    pub positions: usize,
    /// Options left unsearched because their bound could not reach the walls, over the whole search.
    pub pruned: usize,
}

impl Bounded {
    pub fn thermograph(&self) -> &Thermograph {
        &self.root.thermograph
    }

    pub fn temperature(&self) -> Rational {
        self.root.thermograph.temperature
    }

    pub fn mean(&self) -> Rational {
        self.root.thermograph.mean
    }

    /// The move value in the problem set's convention: twice the territory temperature (0 when settled).
    pub fn value(&self) -> Rational {
        crate::endgame::cgt::move_value(self.temperature())
    }

    pub fn best_moves(&self, color: Color) -> Vec<Point> {
        self.root.best(color).iter().map(|b| b.point).collect()
    }
}

/// Solves the thermograph of `region` on `board` within `max_positions` positions, counting them in
/// `progress` as it goes.
pub fn solve_bounded(
    board: &Board,
    region: &Region,
    scoring: Scoring,
    max_positions: usize,
    progress: &Progress,
) -> Result<Bounded, SolveError> {
    let start = super::starting_board(board, region)?;
    let mut search = BoundedSearch::new(region, scoring, max_positions, progress);
    progress.start(max_positions);
    let root = search.node(&start, State::default(), None, 0).node;
    progress.searched_up_to(search.visited.min(max_positions));
    if let Some(stats) = &search.stats {
        eprintln!("{}", stats.report(search.visited));
        eprintln!("  {}", search.table_sizes());
    }
    if search.spent {
        return Err(SolveError::Budget {
            limit: max_positions,
        });
    }
    let kind = classify(&root);
    Ok(Bounded {
        root,
        kind,
        positions: search.visited,
        pruned: search.pruned,
    })
}

/// Settled, tepid, gote, sente or double sente from the root's thermograph and its best options'
/// temperatures (as `cgt::classify`), or ko when a best line goes through a ko capture.
fn classify(root: &ThermoNode) -> Kind {
    let t = root.thermograph.temperature;
    if root.is_number() {
        return Kind::Settled;
    }
    if t <= Rational::ZERO {
        return Kind::Tepid;
    }
    let ko = [Color::Black, Color::White].iter().any(|&c| {
        root.best(c).iter().any(|b| {
            b.ko || b.child.as_ref().is_some_and(|n| {
                [Color::Black, Color::White]
                    .iter()
                    .any(|&d| n.branches(d).iter().any(|x| x.ko && x.child.is_none()))
            })
        })
    });
    if ko {
        return Kind::Ko;
    }
    let hotter = |color| {
        root.best(color)
            .first()
            .is_some_and(|b| b.view().temperature > t)
    };
    match (hotter(Color::Black), hotter(Color::White)) {
        (true, true) => Kind::DoubleSente,
        (true, false) => Kind::Sente(Color::Black),
        (false, true) => Kind::Sente(Color::White),
        (false, false) => Kind::Gote,
    }
}

struct BoundedSearch<'a> {
    /// The canonical solver's move rules (moves, captured space, leisure).
    rules: Search<'a>,
    table: FastMap<TableKey, Arc<ThermoNode>>,
    path: FastMap<LineKey, usize>,
    /// Positions counted when an option was probed and not solved yet: solving them later does not
    /// count them again.
    probed: FastMap<TableKey, ()>,
    /// Bounds proved on positions' stops (`proof.rs`), for results that do not depend on the line.
    proved: FastMap<TableKey, proof::Proved>,
    /// Bounds proofs failed on, not tried again (`proof.rs`).
    failed: FastMap<TableKey, proof::Failed>,
    /// Positions the current proof may still visit.
    proof_left: usize,
    /// By depth, Black's and White's move that last decided a proof there (`proof.rs`).
    killers: Vec<[Option<Point>; 2]>,
    visited: usize,
    max_positions: usize,
    /// Set when a position past the budget was asked for: the search then unwinds without looking at
    /// another position and gives up.
    spent: bool,
    progress: &'a Progress,
    pruned: usize,
    /// Where the positions go, when `TENGEN_SOLVER_STATS` asks.
    stats: Option<stats::Stats>,
    settlements: settled::Settlements,
}

/// Moves with their colours and the positions they lead to.
type Moves = Vec<(Color, Candidate)>;

/// Branches solved apart from the bounded options (ko captures, a retake valued by the ko rule):
/// Black's and White's.
type Fixed = (Vec<ThermoBranch>, Vec<ThermoBranch>);

/// Which colours' options (Black's, White's) must all be solved because the placid-ko rule reads their
/// best mean: the opponent of a colour with a ko capture here (the capture's resolution), and the taker
/// of the ko that reached this node (the retake's value).
fn means_needed(kos: &[(Color, Candidate)], state: State, ko: Option<KoContext>) -> [bool; 2] {
    let mut need = [false, false];
    let index = |c: Color| usize::from(c == Color::White);
    for (color, _) in kos {
        need[index(color.opponent())] = true;
    }
    if let (Some((_, banned)), Some(_)) = (state.ban, ko) {
        need[index(banned.opponent())] = true;
    }
    need
}

type Solved = super::line::Solved<ThermoNode>;

impl<'a> BoundedSearch<'a> {
    fn new(
        region: &'a Region,
        scoring: Scoring,
        max_positions: usize,
        progress: &'a Progress,
    ) -> BoundedSearch<'a> {
        BoundedSearch {
            rules: Search::new(region, scoring == Scoring::Area, max_positions),
            table: fast_map(),
            path: fast_map(),
            probed: fast_map(),
            proved: fast_map(),
            failed: fast_map(),
            proof_left: 0,
            killers: Vec::new(),
            visited: 0,
            max_positions,
            spent: false,
            progress,
            pruned: 0,
            stats: stats::Stats::from_env(),
            settlements: settled::Settlements::new(),
        }
    }
}

impl BoundedSearch<'_> {
    fn region(&self) -> &Region {
        self.rules.region
    }

    /// The tables' entries, for the statistics: where the search's memory goes.
    fn table_sizes(&self) -> String {
        let branches: usize = self
            .table
            .values()
            .map(|n| n.branches(Color::Black).len() + n.branches(Color::White).len())
            .sum();
        let leaves = self.table.values().filter(|n| n.is_leaf()).count();
        format!(
            "table entries: {} solved ({} leaves, {} branches), {} proved, {} failed, {} probed",
            self.table.len(),
            leaves,
            branches,
            self.proved.len(),
            self.failed.len(),
            self.probed.len()
        )
    }

    /// Counts a position; `false` (and `spent` set) once the budget is spent.
    fn count(&mut self) -> bool {
        if self.spent || self.visited >= self.max_positions {
            self.spent = true;
            return false;
        }
        self.visited += 1;
        if self.visited.is_multiple_of(PROGRESS_EVERY) {
            self.progress.searched_up_to(self.visited);
        }
        true
    }

    /// The position's value when it is a leaf: settled, or finished in the course's sense.
    fn leaf(&self, board: &Board, settlement: &Settlement) -> Option<Rational> {
        let area = self.rules.area;
        if settlement.is_settled(board, self.region(), area) {
            Some(Rational::integer(settlement.count(
                board,
                self.region(),
                area,
            )))
        } else {
            finished_count(board, self.region(), settlement, area).map(Rational::integer)
        }
    }

    fn node(&mut self, board: &Board, state: State, ko: Option<KoContext>, depth: usize) -> Solved {
        if self.spent {
            // The search gives up: nothing below matters.
            return Solved::free(Arc::new(ThermoNode::leaf(Rational::ZERO)));
        }
        let key = (board.stone_hash(), state);
        if let Some(node) = self.table.get(&key) {
            return Solved::free(node.clone());
        }
        if self.probed.remove(&key).is_none() && !self.count() {
            return Solved::free(Arc::new(ThermoNode::leaf(Rational::ZERO)));
        }
        let settlement = self.settlements.of(board, self.rules.region, &state.sealed);
        if let Some(value) = self.leaf(board, &settlement) {
            let node = Arc::new(ThermoNode::leaf(value));
            self.table.insert(key, node.clone());
            return Solved::free(node);
        }
        self.expand(board, &settlement, state, ko, depth)
    }

    /// The candidates of both colours from a position, without moves that repeat a position of the line
    /// (their dependencies go to `depends`); ko captures apart.
    fn candidates(
        &self,
        board: &Board,
        settlement: &Settlement,
        state: State,
        colors: &[Color],
        depends: &mut Dependencies,
    ) -> (Moves, Moves) {
        let mut plain = Vec::new();
        let mut kos = Vec::new();
        for &color in colors {
            for point in self.rules.moves(board, settlement, state, color) {
                let Some(candidate) = self.rules.play(board, state, color, point) else {
                    continue;
                };
                if let Some(&at) = self.path.get(&candidate.state.line_key(&candidate.board)) {
                    depends.merge(&Dependencies::at(at));
                    continue;
                }
                if candidate.state.ban.is_some() {
                    kos.push((color, candidate));
                } else {
                    plain.push((color, candidate));
                }
            }
        }
        order::by_promise(board, &mut plain);
        (plain, kos)
    }

    fn expand(
        &mut self,
        board: &Board,
        settlement: &Settlement,
        state: State,
        ko: Option<KoContext>,
        depth: usize,
    ) -> Solved {
        let key = (board.stone_hash(), state);
        let here = state.line_key(board);
        self.path.insert(here, depth);
        let mut depends = Dependencies::default();
        let (plain, kos) = self.candidates(
            board,
            settlement,
            state,
            &[Color::Black, Color::White],
            &mut depends,
        );
        let both = [Color::Black, Color::White]
            .iter()
            .all(|&c| plain.iter().any(|(d, _)| *d == c));
        let mut options: Vec<Option_> = plain
            .into_iter()
            .map(|(color, candidate)| Option_ {
                color,
                candidate,
                status: Status::Open,
                first_answer: None,
                proved: Vec::new(),
                failed: Vec::new(),
            })
            .collect();
        let need = means_needed(&kos, state, ko);
        let kind = if !kos.is_empty() || ko.is_some() {
            Some(NodeKind::Ko)
        } else if !both {
            Some(NodeKind::OneSided)
        } else {
            None
        };
        let n_options = options.len() + kos.len();
        let visited = self.visited;
        let outermost = match (&mut self.stats, kind) {
            (Some(stats), Some(kind)) => {
                stats.enter(self.rules.region.empty_points(board).len());
                stats.kind(kind, n_options, visited)
            }
            _ => false,
        };
        let fixed = if both && !(need[0] && need[1]) {
            // The colours whose means the ko rule reads are solved in full; the other's options are
            // bounded against them and the ko branches.
            for (i, color) in [Color::Black, Color::White].into_iter().enumerate() {
                if need[i] {
                    self.solve_color(&mut options, color, depth, &mut depends);
                }
            }
            let fixed = self.ko_branches(kos, state, ko, depth, &options, &mut depends);
            self.bound_options(&mut options, &fixed, depth, &mut depends);
            fixed
        } else {
            self.solve_open(&mut options, depth, &mut depends);
            self.ko_branches(kos, state, ko, depth, &options, &mut depends)
        };
        let (mut black, mut white, pruned) = split(&mut options);
        black.extend(fixed.0);
        white.extend(fixed.1);
        let thermograph = self.value(board, settlement, &black, &white);
        self.pruned += pruned;
        if let (Some(stats), None) = (&mut self.stats, kind) {
            stats.enter(self.rules.region.empty_points(board).len());
            let k = if thermograph.temperature < Rational::ZERO {
                NodeKind::Number
            } else {
                NodeKind::Hot
            };
            stats.kind(k, n_options, 0);
            stats.close(k, 0);
        }
        self.path.remove(&here);
        let depends = depends.above(depth);
        let unsolved = options
            .iter()
            .filter(|o| matches!(o.status, Status::Bound { .. } | Status::Open));
        let node = Arc::new(ThermoNode::new(thermograph, black, white, unsolved.count()));
        if depends.is_empty() {
            self.table.insert(key, node.clone());
        }
        let visited = self.visited;
        if let Some(stats) = &mut self.stats {
            if let Some(d) = depends.deepest() {
                stats.unstored(depth - d);
            }
            if let (true, Some(k)) = (outermost, kind) {
                stats.close(k, visited);
            }
        }
        Solved { node, depends }
    }

    /// Solves the ko captures (with the other colour's best mean among its solved options as the
    /// resolution) and, at a node reached by a ko capture, values the banned retake by the placid-ko
    /// rule: the branches to add to Black's and White's options.
    fn ko_branches(
        &mut self,
        kos: Vec<(Color, Candidate)>,
        state: State,
        ko: Option<KoContext>,
        depth: usize,
        options: &[Option_],
        depends: &mut Dependencies,
    ) -> Fixed {
        let plain = |color: Color| {
            let means = options.iter().filter_map(|o| match &o.status {
                Status::Exact(b) if o.color == color => Some(b.mean()),
                _ => None,
            });
            best_mean_of(means, color)
        };
        let resolutions = (plain(Color::Black), plain(Color::White));
        let mut fixed: Fixed = (Vec::new(), Vec::new());
        for (color, candidate) in kos {
            let context = KoContext::of_capture(color, candidate.gain, resolutions);
            let solved = self.node(&candidate.board, candidate.state, context, depth + 1);
            depends.merge(&solved.depends);
            let branch = ThermoBranch::to(candidate.point, solved.node, candidate.gain, true);
            match color {
                Color::Black => fixed.0.push(branch),
                Color::White => fixed.1.push(branch),
            }
        }
        if let (Some((point, banned)), Some(context)) = (state.ban, ko) {
            let taker = banned.opponent();
            let own_kos = match taker {
                Color::Black => &fixed.0,
                Color::White => &fixed.1,
            };
            let own = [
                plain(taker),
                best_mean_of(own_kos.iter().map(|b| b.mean()), taker),
            ];
            if let Some(own) = best_mean_of(own.into_iter().flatten(), taker) {
                let open = (own + context.resolution + context.resolution) / Rational::integer(3);
                let branch = ThermoBranch::ko_rule(point, open);
                match banned {
                    Color::Black => fixed.0.push(branch),
                    Color::White => fixed.1.push(branch),
                }
            }
        }
        fixed
    }

    /// The node's thermograph from its options, with the canonical solver's rules: no move is the count
    /// as it stands, a one-sided node is its side's best result taken at leisure, and a cold node whose
    /// count lies strictly between the options counts as it stands.
    fn value(
        &self,
        board: &Board,
        settlement: &Settlement,
        black: &[ThermoBranch],
        white: &[ThermoBranch],
    ) -> Thermograph {
        let count = || Rational::integer(settlement.count(board, self.region(), self.rules.area));
        let leisure = self.rules.leisure();
        match (black.is_empty(), white.is_empty()) {
            (true, true) => Thermograph::number(count()),
            (false, true) => {
                let best = best_mean_of(black.iter().map(|b| b.mean()), Color::Black);
                Thermograph::number(best.unwrap_or(Rational::ZERO) + leisure)
            }
            (true, false) => {
                let best = best_mean_of(white.iter().map(|b| b.mean()), Color::White);
                Thermograph::number(best.unwrap_or(Rational::ZERO) - leisure)
            }
            (false, false) => {
                let b: Vec<_> = black.iter().map(ThermoBranch::view).collect();
                let w: Vec<_> = white.iter().map(ThermoBranch::view).collect();
                let th = value::thermograph_of(&b, &w);
                if value::is_number(&th) {
                    let c = count();
                    if value::strictly_between(c, &b, &w) {
                        return Thermograph::number(c);
                    }
                }
                th
            }
        }
    }
}

#[cfg(test)]
mod tests;
