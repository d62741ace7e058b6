//! Proofs of bounds on stops: an AND/OR search that shows, say, `RS(G) ≤ c` without solving `G`'s
//! thermograph, so that an option whose stop cannot reach the node's walls is left unsearched cheaply.
//!
//! The rules follow the solver's model (`value()`), with `lo = max RS(G^L)` over Left's options and
//! `hi = min LS(G^R)` over Right's. A node with options of both colours is hot (`LS = lo`, `RS = hi`) or
//! a number `x` with `lo ≤ x ≤ hi` (the simplest number between, or the count as it stands, which the
//! rule only takes strictly between). So:
//! - `RS ≤ c` ⇐ some Right option has `LS ≤ c`; `LS ≥ c` ⇐ some Left option has `RS ≥ c`;
//! - `LS ≤ c` ⇐ every Left option has `RS ≤ c` and some Right option `LS ≤ c`; mirror for `RS ≥ c`.
//!
//! A one-sided node is its colour's best mean `± leisure`, and a mean lies between the stops: Left's
//! `v ≥ c` ⇐ some option's `RS ≥ c − leisure`, `v ≤ c` ⇐ every option's `LS ≤ c − leisure`; mirror for
//! Right. Leaves and positions the table knows are exact. A ko capture's value needs the placid-ko rule's
//! resolution, so an "every option" of a colour with a ko capture is not proved; an "some option" uses
//! the other moves (the ko capture only adds an option). A proof that dropped a move repeating the line
//! depends on the line and is not stored.

use super::node::ThermoNode;
use super::{BoundedSearch, Moves, State, value};
use crate::endgame::cgt::Rational;
use crate::endgame::exact::line::Dependencies;
use crate::go::{Board, Color, Point};
use std::sync::Arc;

/// How many positions one proof may visit before it is abandoned (the option is then bounded the
/// exact way).
pub(super) const PROOF_POSITIONS: usize = 2_000;

/// Which stop: Left's (Black moves first) or Right's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Stop {
    Left,
    Right,
}

/// A bound on a value: at most `c` (`upper`) or at least `c`, strictly or not.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Bound {
    pub c: Rational,
    pub upper: bool,
    pub strict: bool,
}

impl Bound {
    pub fn holds(self, x: Rational) -> bool {
        match (self.upper, self.strict) {
            (true, false) => x <= self.c,
            (true, true) => x < self.c,
            (false, false) => x >= self.c,
            (false, true) => x > self.c,
        }
    }

    /// Whether `self`, once proved, proves `other` too.
    pub fn implies(self, other: Bound) -> bool {
        if self.upper != other.upper {
            return false;
        }
        let tighter = if self.upper {
            self.c < other.c
        } else {
            self.c > other.c
        };
        tighter || (self.c == other.c && (self.strict || !other.strict))
    }

    /// The bound on a part worth `d` less than the whole (a child without the prisoners its move took).
    pub fn shifted(self, d: Rational) -> Bound {
        Bound {
            c: self.c + d,
            ..self
        }
    }
}

/// A bound to prove on one stop of a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Goal {
    pub stop: Stop,
    pub bound: Bound,
}

/// The tightest bounds proved on a position's stops, independently of the line: Left's stop from above
/// and from below, then Right's.
#[derive(Default, Clone, Copy)]
pub(super) struct Proved([Option<Bound>; 4]);

impl Proved {
    fn slot(goal: Goal) -> usize {
        2 * usize::from(goal.stop == Stop::Right) + usize::from(!goal.bound.upper)
    }

    fn proves(&self, goal: Goal) -> bool {
        self.0[Self::slot(goal)].is_some_and(|b| b.implies(goal.bound))
    }

    fn add(&mut self, goal: Goal) {
        let slot = &mut self.0[Self::slot(goal)];
        if !slot.is_some_and(|b| b.implies(goal.bound)) {
            *slot = Some(goal.bound);
        }
    }
}

/// The weakest bounds a proof failed on at a position (with positions to spare): a goal at least as
/// strong is not tried there again. A later proof might succeed with more of the table known, so this
/// only saves work; it never proves anything.
#[derive(Default, Clone, Copy)]
pub(super) struct Failed([Option<Bound>; 4]);

impl Failed {
    fn fails(&self, goal: Goal) -> bool {
        self.0[Proved::slot(goal)].is_some_and(|b| goal.bound.implies(b))
    }

    fn add(&mut self, goal: Goal) {
        let slot = &mut self.0[Proved::slot(goal)];
        if !slot.is_some_and(|b| goal.bound.implies(b)) {
            *slot = Some(goal.bound);
        }
    }
}

impl BoundedSearch<'_> {
    /// Tries to prove `goal` on the position reached at `depth` within the proof's positions left
    /// (`proof_left`, counted in the search's budget too). `false` when it could not, which proves
    /// nothing; the line positions a proof depends on go to `depends`.
    pub(super) fn prove(
        &mut self,
        board: &Board,
        state: State,
        depth: usize,
        goal: Goal,
        depends: &mut Dependencies,
    ) -> bool {
        if self.spent {
            self.proof_left = 0;
            return false;
        }
        let key = (board.stone_hash(), state);
        if let Some(node) = self.table.get(&key) {
            let th = &node.thermograph;
            let stop = match goal.stop {
                Stop::Left => value::left_stop(th),
                Stop::Right => value::right_stop(th),
            };
            return goal.bound.holds(stop);
        }
        if self.proved.get(&key).is_some_and(|p| p.proves(goal)) {
            return true;
        }
        if self.failed.get(&key).is_some_and(|f| f.fails(goal)) {
            return false;
        }
        if self.proof_left == 0 || !self.count() {
            self.proof_left = 0;
            return false;
        }
        self.proof_left -= 1;
        if let Some(stats) = &mut self.stats {
            stats.proof_position();
        }
        let settlement = self.settlements.of(board, self.rules.region, &state.sealed);
        if let Some(value) = self.leaf(board, &settlement) {
            self.table.insert(key, Arc::new(ThermoNode::leaf(value)));
            return goal.bound.holds(value);
        }
        let here = state.line_key(board);
        self.path.insert(here, depth);
        let mut own = Dependencies::default();
        let (plain, kos) = self.candidates(
            board,
            &settlement,
            state,
            &[Color::Black, Color::White],
            &mut own,
        );
        let count = (plain.is_empty() && kos.is_empty())
            .then(|| Rational::integer(settlement.count(board, self.region(), self.rules.area)));
        let proved = self.by_rules(&plain, &kos, depth, goal, count, &mut own);
        self.path.remove(&here);
        let own = own.above(depth);
        if proved {
            if own.is_empty() {
                self.proved.entry(key).or_default().add(goal);
            }
            depends.merge(&own);
        } else if self.proof_left > 0 {
            self.failed.entry(key).or_default().add(goal);
        }
        proved
    }

    /// The rules of the module's documentation at an expanded position.
    fn by_rules(
        &mut self,
        plain: &Moves,
        kos: &Moves,
        depth: usize,
        goal: Goal,
        count: Option<Rational>,
        depends: &mut Dependencies,
    ) -> bool {
        let ko = |c: Color| kos.iter().any(|(d, _)| *d == c);
        let has = |c: Color| ko(c) || plain.iter().any(|(d, _)| *d == c);
        let b = goal.bound;
        let leisure = self.rules.leisure();
        let (black, white) = (Color::Black, Color::White);
        match (has(black), has(white)) {
            (false, false) => count.is_some_and(|x| b.holds(x)),
            (true, true) => match (goal.stop, b.upper) {
                (Stop::Left, true) => {
                    !ko(black)
                        && self.every(plain, black, Stop::Right, b, depth, depends)
                        && self.some(plain, white, Stop::Left, b, depth, depends)
                }
                (Stop::Left, false) => self.some(plain, black, Stop::Right, b, depth, depends),
                (Stop::Right, true) => self.some(plain, white, Stop::Left, b, depth, depends),
                (Stop::Right, false) => {
                    !ko(white)
                        && self.every(plain, white, Stop::Left, b, depth, depends)
                        && self.some(plain, black, Stop::Right, b, depth, depends)
                }
            },
            (true, false) => {
                let b = b.shifted(-leisure);
                if b.upper {
                    !ko(black) && self.every(plain, black, Stop::Left, b, depth, depends)
                } else {
                    self.some(plain, black, Stop::Right, b, depth, depends)
                }
            }
            (false, true) => {
                let b = b.shifted(leisure);
                if b.upper {
                    self.some(plain, white, Stop::Left, b, depth, depends)
                } else {
                    !ko(white) && self.every(plain, white, Stop::Right, b, depth, depends)
                }
            }
        }
    }

    /// `color`'s options (positions the tables know first, then the move that last decided a proof of
    /// `color` at this depth), each with its goal in its own frame.
    pub(super) fn goals(
        &self,
        moves: &Moves,
        color: Color,
        stop: Stop,
        bound: Bound,
        depth: usize,
    ) -> Vec<(usize, Goal)> {
        let killer = self.killers.get(depth).and_then(|k| k[color.index()]);
        let mut goals: Vec<(usize, Goal)> = moves
            .iter()
            .enumerate()
            .filter(|(_, (c, _))| *c == color)
            .map(|(i, (_, m))| {
                let bound = bound.shifted(-Rational::integer(m.gain));
                (i, Goal { stop, bound })
            })
            .collect();
        goals.sort_by_key(|(i, _)| {
            let m = &moves[*i].1;
            let key = (m.board.stone_hash(), m.state);
            let known = self.table.contains_key(&key) || self.proved.contains_key(&key);
            (!known, Some(m.point) != killer)
        });
        goals
    }

    /// Some option of `color` has its `stop` within `bound`.
    fn some(
        &mut self,
        moves: &Moves,
        color: Color,
        stop: Stop,
        bound: Bound,
        depth: usize,
        depends: &mut Dependencies,
    ) -> bool {
        for (i, goal) in self.goals(moves, color, stop, bound, depth) {
            let m = &moves[i].1;
            if self.prove(&m.board, m.state, depth + 1, goal, depends) {
                self.remember_killer(depth, color, m.point);
                return true;
            }
            if self.proof_left == 0 {
                return false;
            }
        }
        false
    }

    /// `point` decided a proof for `color` at `depth`: tried first there next time.
    pub(super) fn remember_killer(&mut self, depth: usize, color: Color, point: Point) {
        if self.killers.len() <= depth {
            self.killers.resize(depth + 1, [None, None]);
        }
        self.killers[depth][color.index()] = Some(point);
    }

    /// Every option of `color` has its `stop` within `bound`.
    fn every(
        &mut self,
        moves: &Moves,
        color: Color,
        stop: Stop,
        bound: Bound,
        depth: usize,
        depends: &mut Dependencies,
    ) -> bool {
        for (i, goal) in self.goals(moves, color, stop, bound, depth) {
            let m = &moves[i].1;
            if !self.prove(&m.board, m.state, depth + 1, goal, depends) {
                if self.proof_left > 0 {
                    self.remember_killer(depth, color, m.point);
                }
                return false;
            }
        }
        true
    }
}
