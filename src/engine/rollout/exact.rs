//! Exact values of tiny positions (issue #5): alpha-beta over bitboards with a transposition table, for
//! boards of at most 25 points under superko rules.
//!
//! Light playouts misjudge the capturing races of a 4x4 board by points, and an opening book takes its
//! frontier's values from short searches of such positions. Where a position has few empty points the
//! game tree below it may be small enough to search exactly, so that a tree leaf could take the proven
//! score instead of a playout and a small root could report proven values for its moves. Wired in at the
//! root only ([`root_values`], at most `root::ROOT_MAX_EMPTY` empty points): a 4x4 ending of 7 empty points
//! still costs about 570,000 nodes (0.3 s), far too slow for a leaf (docs/rollout.md).
//!
//! Static safety ([`safety`]) bounds every position without a pending pass by the pass-alive areas of
//! both sides (a position they cover is a leaf with its exact count), moves inside those areas are not
//! searched, and a finished game is counted with the stones inside them taken off.
//!
//! Rules: Tromp-Taylor area scoring after two passes, the query's superko (positional or situational)
//! against the game's history, the tree's path and the solver's own line. Suicide is not searched (as in
//! the tree), nor is filling a one-point eye all of whose neighbours are one own chain: it only takes
//! that chain a liberty and gains no point; its only conceivable use, changing the board to dodge a
//! superko ban, is given up (the tree leaves own eyes out too). Simple-ko rules are not solved: their
//! games need not end.
//!
//! Long lines: superko makes every game finite but not short, so lines are cut at a depth (16, 32, 64
//! moves in turn). A cut line gets the worst score for Black in one search and the best in a second:
//! the two results bound the true value, and where they meet (or no line was cut) it is exact. A
//! result a cut touched is stored only as the bound it is (a lower bound for the player the cut value
//! was worst for).
//!
//! Graph-history interaction: a result that a superko ban decided depends on how the position was
//! reached. Each search returns the shallowest line position a ban in its subtree referred to (the
//! game's history and the tree's path count as "above everything"); a node stores its result only when
//! no ban reached above it, so a ko fight's results are kept at the node where the fight starts and never
//! below it. The converse case, a stored subtree reached again along a line one of whose earlier
//! positions it would repeat (there that move is banned), is guarded by [`guard`]: each entry keeps a
//! superset test of the positions searched below it and is used only where no earlier position of the
//! solver's line passes it. The game's history and the tree's path are the same for every line of one
//! solve, and every solve starts with an empty table.

mod bits;
#[cfg(test)]
mod effort;
mod guard;
mod root;
mod safety;
use bits::{Geometry, Position};
#[cfg(test)]
pub use effort::Effort;
use guard::Reach;
pub use root::{root_budget, root_is_tiny, root_values};

use crate::go::{Board, BoardSize, Color, KoRule, Move, Rules, zobrist};
use foldhash::fast::FixedState;
use std::collections::HashMap;

/// The largest board the solver takes (one bit per point in a `u32`).
pub const MAX_AREA: usize = 25;
/// The depths at which lines are cut, tried in turn (superko makes every game finite, but not short).
const CUTS: [usize; 3] = [16, 32, 64];
/// The positions before the solver's line: the game's (sorted) and the tree's path, both as superko
/// keys, and the most stones any of them had.
pub struct Outside<'a> {
    pub history: &'a [u128],
    pub path: &'a [u128],
    pub max_stones: usize,
}

/// A position on the solver's line as the search sees it: the stones, who moves, the passes just played,
/// and the most stones any position before it has held (one with more, reached without a capture,
/// repeats none).
#[derive(Debug, Clone, Copy)]
struct Node {
    pos: Position,
    color: Color,
    passes: u8,
    max_stones: usize,
}

/// What the table knows of a position: bounds on its value for the player to move, and the best move.
#[derive(Debug, Clone, Copy)]
struct Entry {
    lower: i8,
    upper: i8,
    best: u8,
    /// The positions searched below it, used only on lines none of whose positions it may hold.
    reach: Reach,
}

/// The move code of a pass (bits are 0..25).
const PASS_CODE: u8 = u8::MAX;
/// The shallowest position a superko ban in a subtree referred to: one before the solver's line
/// (`BEFORE`), the line position at index `i` (`i + 1`), or none (`NO_REF`). A node at depth `d` may
/// store a result whose reference is > `d`.
const BEFORE: usize = 0;
const NO_REF: usize = usize::MAX;

/// What a result depends on beyond its subtree: the superko history, and whether a line was cut.
#[derive(Debug, Clone, Copy)]
struct Depends {
    shallowest: usize,
    cut: bool,
    /// The positions searched below (see [`guard`]).
    reach: Reach,
}

impl Depends {
    const NOTHING: Depends = Depends {
        shallowest: NO_REF,
        cut: false,
        reach: Reach::NONE,
    };

    fn and(self, other: Depends) -> Depends {
        Depends {
            shallowest: self.shallowest.min(other.shallowest),
            cut: self.cut || other.cut,
            reach: self.reach.and(other.reach),
        }
    }
}
/// Beyond any score on 25 points.
const INFINITE: i32 = 100;

/// Which bounds of the true value a search result gives: with a line cut at the worst value for the
/// player to move, the result can only be too low, so it is a lower bound (and the other way round).
#[derive(Debug, Clone, Copy)]
enum Bounds {
    Both,
    Lower,
    Upper,
}

/// The search ran out of nodes: no value.
struct GaveUp;

/// The solver: a board shape, the rules' superko, and the table of the current solve.
pub struct Solver {
    geo: Geometry,
    ko: KoRule,
    table: HashMap<u64, Entry, FixedState>,
    /// Superko keys of the solver's line, the solved position first, and their stones.
    line: Vec<u128>,
    line_stones: Vec<[u32; 2]>,
    nodes: u64,
    budget: u64,
    /// The depth at which lines are cut, and the value (Black's) a cut line gets: the worst or the best
    /// possible, so that a search with cuts bounds the true value from below or from above.
    cut_depth: usize,
    cut_value: i32,
    /// The cuts tried in turn ([`CUTS`]; the `solver_effort` diagnostic tries others), and whether each
    /// starts with an empty table.
    cuts: &'static [usize],
    fresh_table_per_cut: bool,
    /// Where the nodes go (the `solver_effort` diagnostic).
    #[cfg(test)]
    effort: Effort,
}

impl Solver {
    /// A solver for `size` under `rules`, if the board is small enough and the rules have superko.
    pub fn new(size: BoardSize, rules: Rules) -> Option<Solver> {
        if rules.ko == KoRule::Simple {
            return None;
        }
        Some(Solver {
            geo: Geometry::new(size)?,
            ko: rules.ko,
            table: HashMap::with_hasher(FixedState::default()),
            line: Vec::with_capacity(CUTS[CUTS.len() - 1] + 2),
            line_stones: Vec::with_capacity(CUTS[CUTS.len() - 1] + 2),
            nodes: 0,
            budget: 0,
            cut_depth: 0,
            cut_value: 0,
            cuts: &CUTS,
            fresh_table_per_cut: false,
            #[cfg(test)]
            effort: Effort::default(),
        })
    }

    /// Nodes searched so far, over every solve.
    #[cfg(test)]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The solver with other cuts (iterative deepening, for the `solver_effort` diagnostic).
    #[cfg(test)]
    pub fn with_cuts(mut self, cuts: &'static [usize], fresh_table_per_cut: bool) -> Solver {
        self.line = Vec::with_capacity(cuts[cuts.len() - 1] + 2);
        self.line_stones = Vec::with_capacity(self.line.capacity());
        self.cuts = cuts;
        self.fresh_table_per_cut = fresh_table_per_cut;
        self
    }

    /// Where the nodes went, over every solve.
    #[cfg(test)]
    pub fn effort(&self) -> &Effort {
        &self.effort
    }

    fn superko_key(&self, hash: u128, to_move: Color) -> u128 {
        match (self.ko, to_move) {
            (KoRule::Situational, Color::White) => hash ^ zobrist::MISC[zobrist::WHITE_TO_MOVE],
            _ => hash,
        }
    }

    fn table_key(pos: &Position, to_move: Color, passes: u8) -> u64 {
        u64::from(pos.stones[0])
            | u64::from(pos.stones[1]) << 25
            | (to_move.index() as u64) << 50
            | u64::from(passes) << 51
    }

    /// Black's area minus White's after best play from `board` (`to_move` to play, `passes` passes just
    /// made), or `None` when `budget` nodes do not settle it.
    #[cfg(test)]
    pub fn solve(
        &mut self,
        board: &Board,
        to_move: Color,
        passes: u8,
        outside: &Outside,
        budget: u64,
    ) -> Option<i32> {
        let pos = Position::of(board, &self.geo);
        self.budget = self.nodes + budget;
        self.table.clear();
        self.clear_line();
        self.push_line(&pos, to_move);
        let node = Node {
            pos,
            color: to_move,
            passes,
            max_stones: outside.max_stones,
        };
        self.settle(outside, node)
    }

    /// Black's area minus White's at the end of the solver's line (whose key is its last), searched with
    /// deeper and deeper cuts until a search meets no cut, or the lower and upper bounds meet.
    fn settle(&mut self, outside: &Outside, node: Node) -> Option<i32> {
        let full = self.geo.area as i32 + 1;
        let area = self.geo.area as i32;
        #[cfg(test)]
        {
            self.effort.root_depth = self.line.len() - 1;
        }
        for &cut in self.cuts {
            if self.fresh_table_per_cut {
                self.table.clear();
            }
            self.cut_depth = self.line.len() - 1 + cut;
            self.cut_value = -area;
            #[cfg(test)]
            let before = self.nodes;
            let (low, depends) = self.search(outside, node, -full, full).ok()?;
            #[cfg(test)]
            self.effort.searches.push((cut, -area, self.nodes - before));
            if !depends.cut {
                return Some(low * node.color.sign());
            }
            self.cut_value = area;
            #[cfg(test)]
            let before = self.nodes;
            let (high, _) = self.search(outside, node, -full, full).ok()?;
            #[cfg(test)]
            self.effort.searches.push((cut, area, self.nodes - before));
            if high == low {
                return Some(low * node.color.sign());
            }
        }
        None
    }

    /// Black's area minus White's after each of `moves` from `board` and best play on, or `None` when
    /// `budget` nodes do not settle them all (or a move is a suicide, which the solver does not play).
    pub fn solve_moves(
        &mut self,
        board: &Board,
        to_move: Color,
        passes: u8,
        outside: &Outside,
        moves: &[Move],
        budget: u64,
    ) -> Option<Vec<i32>> {
        let pos = Position::of(board, &self.geo);
        self.budget = self.nodes + budget;
        let opponent = to_move.opponent();
        let mut values = Vec::with_capacity(moves.len());
        for &mv in moves {
            let (next, next_passes) = match mv {
                Move::Pass => (pos, passes + 1),
                Move::Play(p) => {
                    let bit = p.y() * self.geo.width + p.x();
                    (pos.play(&self.geo, to_move, bit)?.0, 0)
                }
            };
            self.clear_line();
            self.push_line(&pos, to_move);
            self.push_line(&next, opponent);
            let node = Node {
                pos: next,
                color: opponent,
                passes: next_passes,
                max_stones: outside.max_stones.max(next.stone_count()),
            };
            values.push(self.settle(outside, node)?);
        }
        Some(values)
    }

    /// Negamax with alpha-beta: the value of `pos` for `color` (exact inside the window, a bound
    /// outside it), and the shallowest line position a superko ban below referred to (see the module).
    fn search(
        &mut self,
        outside: &Outside,
        node: Node,
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<(i32, Depends), GaveUp> {
        let Node {
            pos,
            color,
            passes,
            max_stones,
        } = node;
        if passes >= 2 {
            #[cfg(test)]
            {
                self.effort.finished += 1;
            }
            return Ok((
                pos.cleared(&self.geo).black_area(&self.geo) * color.sign(),
                Depends::NOTHING,
            ));
        }
        let depth = self.line.len() - 1;
        if depth >= self.cut_depth {
            let cut = Depends {
                cut: true,
                ..Depends::NOTHING
            };
            #[cfg(test)]
            {
                self.effort.cut_leaves += 1;
            }
            return Ok((self.cut_value * color.sign(), cut));
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(GaveUp);
        }
        #[cfg(test)]
        self.effort.count_node(depth - self.effort.root_depth);
        let safe = pos.safe_areas(&self.geo);
        if passes == 0 {
            // Each side keeps its safe area and the open points may go either way: the bounds give a
            // sure cut-off, or a narrower window.
            let [black_safe, white_safe] = safe.map(|a| a.count_ones() as i32);
            let open = self.geo.area as i32 - black_safe - white_safe;
            let decided = (black_safe - white_safe) * color.sign();
            let (low, high) = (decided - open, decided + open);
            if low == high || low >= beta || high <= alpha {
                #[cfg(test)]
                {
                    self.effort.bounded += 1;
                }
                let value = if high <= alpha { high } else { low };
                return Ok((value, Depends::NOTHING));
            }
            alpha = alpha.max(low);
            beta = beta.min(high);
        }
        let key = Solver::table_key(&pos, color, passes);
        let entry = self.table.get(&key).copied();
        let hint = entry.map(|e| e.best);
        if let Some(e) = entry.filter(|e| !self.line_may_recur(&e.reach)) {
            let (lower, upper) = (i32::from(e.lower), i32::from(e.upper));
            if lower >= beta || lower == upper || upper <= alpha {
                #[cfg(test)]
                {
                    self.effort.from_table += 1;
                }
                let value = if lower >= beta || lower == upper {
                    lower
                } else {
                    upper
                };
                let below = Depends {
                    reach: e.reach,
                    ..Depends::NOTHING
                };
                return Ok((value, below));
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        let window = (alpha, beta);
        let (children, count) = self.children(&pos, color, hint, safe[0] | safe[1]);
        let opponent = color.opponent();
        let mut best = (-INFINITE, PASS_CODE);
        let mut depends = Depends::NOTHING;
        for &(code, next, captured) in &children[..count] {
            let (next_passes, next_max) = if code == PASS_CODE {
                (passes + 1, max_stones)
            } else {
                let stones = next.stone_count();
                let next_key = self.superko_key(next.hash, opponent);
                let may_repeat = captured || stones <= max_stones;
                if may_repeat && let Some(referred) = self.repeats(outside, next_key) {
                    depends.shallowest = depends.shallowest.min(referred);
                    continue;
                }
                (0, max_stones.max(stones))
            };
            #[cfg(test)]
            self.effort
                .count_move(&self.geo, &next, color, code, captured);
            let next_key = self.superko_key(next.hash, opponent);
            self.line.push(next_key);
            self.line_stones.push(next.stones);
            let child = Node {
                pos: next,
                color: opponent,
                passes: next_passes,
                max_stones: next_max,
            };
            let found = self.search(outside, child, -beta, -alpha);
            self.line.pop();
            self.line_stones.pop();
            let (value, below) = found?;
            depends = depends.and(below);
            if code != PASS_CODE {
                // A pass is never banned: only moves' positions can meet another line's.
                depends.reach.add(&next, next_key);
            }
            if -value > best.0 {
                best = (-value, code);
            }
            alpha = alpha.max(-value);
            if alpha >= beta {
                break;
            }
        }
        if depends.shallowest > depth {
            // With a cut below, the value is a bound of the true one on the cut value's side only.
            let side = match depends.cut {
                false => Bounds::Both,
                true if self.cut_value * color.sign() < 0 => Bounds::Lower,
                true => Bounds::Upper,
            };
            self.store(key, best, window, side, depends.reach);
        }
        Ok((best.0, depends))
    }

    fn clear_line(&mut self) {
        self.line.clear();
        self.line_stones.clear();
    }

    fn push_line(&mut self, pos: &Position, to_move: Color) {
        self.line.push(self.superko_key(pos.hash, to_move));
        self.line_stones.push(pos.stones);
    }

    /// Whether a position of the solver's line before its last may be among the positions `reach`
    /// covers, so that a table entry searched along another line may not hold here (see [`guard`]).
    fn line_may_recur(&self, reach: &Reach) -> bool {
        let before = self.line.len() - 1;
        self.line[..before]
            .iter()
            .zip(&self.line_stones[..before])
            .any(|(&key, &stones)| reach.may_hold(stones, key))
    }

    /// Where the position with superko key `key` occurs before, as a reference (see [`BEFORE`]): the
    /// deepest place on the solver's line, else the game or the tree's path, else `None`.
    fn repeats(&self, outside: &Outside, key: u128) -> Option<usize> {
        if let Some(i) = self.line.iter().rposition(|&k| k == key) {
            return Some(i + 1);
        }
        let before = outside.path.contains(&key) || outside.history.binary_search(&key).is_ok();
        before.then_some(BEFORE)
    }

    /// Records what a search of the position found about its true value: an exact value inside the
    /// window, a bound outside it, kept to the side `side` allows.
    fn store(
        &mut self,
        key: u64,
        (value, best): (i32, u8),
        (alpha, beta): (i32, i32),
        side: Bounds,
        reach: Reach,
    ) {
        let entry = self.table.entry(key).or_insert(Entry {
            lower: -INFINITE as i8,
            upper: INFINITE as i8,
            best,
            reach: Reach::NONE,
        });
        // The bounds kept may come from either search: the entry holds where neither may repeat.
        entry.reach = entry.reach.and(reach);
        let v = value as i8;
        let (lower, upper) = match side {
            Bounds::Both => (value > alpha, value < beta),
            Bounds::Lower => (value > alpha, false),
            Bounds::Upper => (false, value < beta),
        };
        if lower && (value >= beta || upper) {
            entry.best = best;
        }
        if lower {
            entry.lower = entry.lower.max(v);
        }
        if upper {
            entry.upper = entry.upper.min(v);
        }
    }

    /// The legal moves (suicide aside; superko is checked by the caller) with their positions, best
    /// first: the table's move, pass (most lines then end soon), captures, other moves. Filling a
    /// one-point eye of a single own chain is left out (see the module).
    #[allow(clippy::type_complexity)]
    fn children(
        &self,
        pos: &Position,
        color: Color,
        hint: Option<u8>,
        settled: u32,
    ) -> ([(u8, Position, bool); MAX_AREA + 1], usize) {
        let geo = &self.geo;
        let mut ranked = [(0u8, 0u8, *pos, false); MAX_AREA + 1];
        let mut count = 0;
        let own = pos.stones[color.index()];
        let mut empty = geo.all & !pos.occupied() & !settled;
        while empty != 0 {
            let bit = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            let Some((next, captured)) = pos.play(geo, color, bit) else {
                continue;
            };
            let around = geo.neighbours(1 << bit);
            if around & !own == 0
                && geo.flood(own, around) == geo.flood(own, around & around.wrapping_neg())
            {
                // An eye of one own chain: filling it only takes that chain a liberty.
                continue;
            }
            let rank = match () {
                _ if hint == Some(bit as u8) => 0,
                _ if captured => 2,
                _ => 3,
            };
            ranked[count] = (rank, bit as u8, next, captured);
            count += 1;
        }
        let pass_rank = u8::from(hint != Some(PASS_CODE));
        ranked[count] = (pass_rank, PASS_CODE, *pos, false);
        count += 1;
        // A stable sort keeps row-major order within a rank: the search is the same every run.
        ranked[..count].sort_by_key(|r| r.0);
        let mut children = [(PASS_CODE, *pos, false); MAX_AREA + 1];
        for (slot, r) in children.iter_mut().zip(&ranked[..count]) {
            *slot = (r.1, r.2, r.3);
        }
        (children, count)
    }
}

#[cfg(test)]
mod tests;
