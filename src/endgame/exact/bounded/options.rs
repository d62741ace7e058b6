//! A node's options on their way to its thermograph: each solved exactly, or bounded by the opponent's
//! answers until its bound can no longer reach the scaffold of the solved ones (then it is never searched).

use super::frame::Frame;
use super::node::{ThermoBranch, ThermoNode};
use super::proof::{Goal, PROOF_POSITIONS};
use super::{BoundedSearch, Fixed, Solved, value};
use crate::endgame::cgt::{Rational, Thermograph, Wall};
use crate::endgame::exact::Candidate;
use crate::endgame::exact::line::Dependencies;
use crate::go::{Color, Point};
use std::sync::Arc;

/// An option on its way: solved exactly, bounded by answers, or not looked at yet.
pub(super) enum Status {
    Exact(ThermoBranch),
    /// Bounded by the answers already in the table and, once `answered`, by the first answer in move
    /// order, solved for the purpose.
    Bound {
        wall: Wall,
        answered: bool,
    },
    Open,
    /// Solved and moved into the node's branches.
    Taken,
}

pub(super) struct Option_ {
    pub color: Color,
    pub candidate: Candidate,
    pub status: Status,
    /// The opponent's first answer in move order (not a ko capture, not a repetition), once probed.
    pub first_answer: Option<Point>,
    /// Bounds proved on the option's stops (Left's from above, Right's from below), in the node's
    /// frame.
    pub proved: Vec<Goal>,
    /// Goals a proof failed to reach (not tried again).
    pub failed: Vec<Goal>,
}

/// How many proofs an option gets (the bounds it needs change as other options are solved).
const MAX_PROOFS: usize = 3;

/// What looking at an option's position gave: its exact node, or a bound on its taxed wall from the
/// answers already in the table (`None`: none is) and the first answer to solve.
enum Probe {
    Exact(Solved),
    Known(Option<Wall>, Point),
    Nothing,
}

impl BoundedSearch<'_> {
    /// Solves every option not solved yet.
    pub(super) fn solve_open(
        &mut self,
        options: &mut [Option_],
        depth: usize,
        depends: &mut Dependencies,
    ) {
        for option in options.iter_mut() {
            if matches!(option.status, Status::Bound { .. } | Status::Open) {
                option.status = Status::Exact(self.solve_option(option, depth, depends));
            }
        }
    }

    /// Solves every option of `color` not solved yet.
    pub(super) fn solve_color(
        &mut self,
        options: &mut [Option_],
        color: Color,
        depth: usize,
        depends: &mut Dependencies,
    ) {
        for option in options.iter_mut().filter(|o| o.color == color) {
            if matches!(option.status, Status::Bound { .. } | Status::Open) {
                option.status = Status::Exact(self.solve_option(option, depth, depends));
            }
        }
    }

    fn solve_option(
        &mut self,
        option: &Option_,
        depth: usize,
        depends: &mut Dependencies,
    ) -> ThermoBranch {
        let c = &option.candidate;
        let solved = self.node(&c.board, c.state, None, depth + 1);
        depends.merge(&solved.depends);
        ThermoBranch::to(c.point, solved.node, c.gain, false)
    }

    /// Solves the first option of each colour that has none solved (in `options` or `fixed`). Then,
    /// while some other option can still change the node's value, works on that option: first a proof
    /// that its stop facing the opponent cannot reach the walls (`proof.rs`); when that fails, the
    /// exact way: the answers the table knows, the first answer solved, and at last the option itself.
    pub(super) fn bound_options(
        &mut self,
        options: &mut [Option_],
        fixed: &Fixed,
        depth: usize,
        depends: &mut Dependencies,
    ) {
        for (color, extra) in [(Color::Black, &fixed.0), (Color::White, &fixed.1)] {
            let solved = options
                .iter()
                .any(|o| o.color == color && matches!(o.status, Status::Exact(_)));
            if solved || !extra.is_empty() {
                continue;
            }
            if let Some(i) = options.iter().position(|o| o.color == color) {
                options[i].status = Status::Exact(self.solve_option(&options[i], depth, depends));
            }
        }
        // The solved options' scaffolds, updated when an option is solved; options before `from` were
        // found unable to change the value under them.
        let Some(mut frame) = Frame::of(options, fixed) else {
            return;
        };
        let mut from = 0;
        while !self.spent {
            let Some((i, needs)) = frame.next_to_solve(options, from) else {
                break;
            };
            from = i;
            let option = &options[i];
            let tried = option.proved.len() + option.failed.len();
            let next = needs.into_iter().find(|g| !option.failed.contains(g));
            if let (Some(goal), true) = (next, tried < MAX_PROOFS) {
                if self.refute(&options[i], goal, depth, depends) {
                    options[i].proved.push(goal);
                } else {
                    options[i].failed.push(goal);
                }
                continue;
            }
            let status = std::mem::replace(&mut options[i].status, Status::Taken);
            options[i].status = match (status, options[i].first_answer) {
                (Status::Open, _) => self.look_at(&mut options[i], depth, depends),
                (
                    Status::Bound {
                        wall,
                        answered: false,
                    },
                    Some(first),
                ) => {
                    let bound = self.answer(&options[i], first, depth, depends);
                    Status::Bound {
                        wall: combine(&wall, &bound, options[i].color),
                        answered: true,
                    }
                }
                _ => Status::Exact(self.solve_option(&options[i], depth, depends)),
            };
            if let Status::Exact(branch) = &options[i].status {
                frame = frame.with(&branch.view(), options[i].color);
                from = 0;
            }
        }
    }

    /// An option's status once its position is looked at: exact when the position is a leaf or known,
    /// bounded by the answers the table knows, or (no answer) solved.
    fn look_at(
        &mut self,
        option: &mut Option_,
        depth: usize,
        depends: &mut Dependencies,
    ) -> Status {
        match self.probe(option, depth, depends) {
            Probe::Exact(solved) => {
                depends.merge(&solved.depends);
                let c = &option.candidate;
                Status::Exact(ThermoBranch::to(c.point, solved.node, c.gain, false))
            }
            Probe::Known(known, first) => {
                option.first_answer = Some(first);
                let wall = known.unwrap_or_else(|| value::unbounded(option.color));
                Status::Bound {
                    wall,
                    answered: false,
                }
            }
            Probe::Nothing => Status::Exact(self.solve_option(option, depth, depends)),
        }
    }

    /// Tries to prove `need` (in the node's frame) on one of `option`'s stops.
    fn refute(
        &mut self,
        option: &Option_,
        need: Goal,
        depth: usize,
        depends: &mut Dependencies,
    ) -> bool {
        let c = &option.candidate;
        let goal = Goal {
            stop: need.stop,
            bound: need.bound.shifted(-Rational::integer(c.gain)),
        };
        self.proof_left = PROOF_POSITIONS;
        let mut own = Dependencies::default();
        let before = self.visited;
        let proved = self.prove(&c.board, c.state, depth + 1, goal, &mut own);
        let key = (c.board.stone_hash(), c.state);
        if self.visited > before && !self.table.contains_key(&key) {
            // The proof looked at the option's position, as a probe does: solving it later does not
            // count it again.
            self.probed.insert(key, ());
        }
        if proved {
            depends.merge(&own);
        }
        let used = PROOF_POSITIONS - self.proof_left;
        if let Some(stats) = &mut self.stats {
            stats.proof(proved, used);
        }
        proved
    }

    /// Looks at an option's position: a leaf or a known position is exact; otherwise the opponent's
    /// answers (not ko captures, whose value needs the whole node) that the table knows bound the
    /// option's taxed wall, and the first answer in move order is named for solving.
    fn probe(&mut self, option: &Option_, depth: usize, depends: &mut Dependencies) -> Probe {
        if self.spent {
            return Probe::Nothing;
        }
        let c = &option.candidate;
        let key = (c.board.stone_hash(), c.state);
        if let Some(node) = self.table.get(&key) {
            return Probe::Exact(Solved::free(node.clone()));
        }
        // A proof that failed on this option counted its position already.
        if !self.probed.contains_key(&key) {
            if !self.count() {
                return Probe::Nothing;
            }
            self.probed.insert(key, ());
        }
        if let Some(stats) = &mut self.stats {
            stats.probe();
        }
        let settlement = self
            .settlements
            .of(&c.board, self.rules.region, &c.state.sealed);
        if let Some(value) = self.leaf(&c.board, &settlement) {
            let node = Arc::new(ThermoNode::leaf(value));
            self.table.insert(key, node.clone());
            return Probe::Exact(Solved::free(node));
        }
        let here = c.state.line_key(&c.board);
        self.path.insert(here, depth + 1);
        let mut repeats = Dependencies::default();
        let (answers, _) = self.candidates(
            &c.board,
            &settlement,
            c.state,
            &[option.color.opponent()],
            &mut repeats,
        );
        self.path.remove(&here);
        depends.merge(&repeats.above(depth + 1));
        let Some(first) = answers.first().map(|(_, a)| a.point) else {
            return Probe::Nothing;
        };
        let known = answers
            .iter()
            .filter_map(|(_, a)| {
                let node = self.table.get(&(a.board.stone_hash(), a.state))?;
                Some(answer_wall(&node.thermograph, option, a))
            })
            .reduce(|a, b| combine(&a, &b, option.color));
        Probe::Known(known, first)
    }

    /// Solves the answer at `point` to `option` and returns the bound it gives the option's taxed wall.
    fn answer(
        &mut self,
        option: &Option_,
        point: Point,
        depth: usize,
        depends: &mut Dependencies,
    ) -> Wall {
        let c = &option.candidate;
        let here = c.state.line_key(&c.board);
        self.path.insert(here, depth + 1);
        let answerer = option.color.opponent();
        let wall = match self.rules.play(&c.board, c.state, answerer, point) {
            Some(a) => {
                let solved = self.node(&a.board, a.state, None, depth + 2);
                depends.merge(&solved.depends.above(depth + 1));
                answer_wall(&solved.node.thermograph, option, &a)
            }
            // Not reached: the point was a legal answer when probed.
            None => value::unbounded(option.color),
        };
        self.path.remove(&here);
        wall
    }
}

/// The bound an answer's thermograph gives its option's taxed wall, in the node's frame: Left's option
/// `RW(G^L)(t) − t ≤ LW(G^LR)(t)`, Right's `LW(G^R)(t) + t ≥ RW(G^RL)(t)`.
fn answer_wall(th: &Thermograph, option: &Option_, answer: &Candidate) -> Wall {
    let shift = Rational::integer(answer.gain + option.candidate.gain);
    match option.color {
        Color::Black => th.left.shifted(shift),
        Color::White => th.right.shifted(shift),
    }
}

/// The tighter of two bounds on an option of `color` (Left's from above, Right's from below).
pub(super) fn combine(a: &Wall, b: &Wall, color: Color) -> Wall {
    a.combine(b, color == Color::White)
}

/// Takes the solved options out of `options`, by colour, with the number of options left unsolved.
pub(super) fn split(options: &mut [Option_]) -> (Vec<ThermoBranch>, Vec<ThermoBranch>, usize) {
    let (mut black, mut white, mut left) = (Vec::new(), Vec::new(), 0);
    for option in options.iter_mut() {
        match std::mem::replace(&mut option.status, Status::Taken) {
            Status::Exact(b) => match option.color {
                Color::Black => black.push(b),
                Color::White => white.push(b),
            },
            Status::Taken => {}
            other => {
                option.status = other;
                left += 1;
            }
        }
    }
    (black, white, left)
}
