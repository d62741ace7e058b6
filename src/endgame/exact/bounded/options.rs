//! A node's options on their way to its thermograph: each solved exactly, or bounded by the opponent's
//! answers until its bound can no longer reach the scaffold of the solved ones (then it is never searched).

use super::node::{ThermoBranch, ThermoNode};
use super::{BoundedSearch, Fixed, Solved, value};
use crate::endgame::cgt::{Rational, Thermograph, Wall};
use crate::endgame::exact::Candidate;
use crate::endgame::exact::line::Dependencies;
use crate::endgame::local::Settlement;
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
}

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

    /// Solves the first option of each colour that has none solved (in `options` or `fixed`) and bounds
    /// the others by their answers in the table and, where none is, by the first answer, solved. Then,
    /// while some bounded option can still change the node's value, that option's first answer is
    /// solved (if its bound did not have it yet) or the option itself.
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
        for option in options.iter_mut() {
            if !matches!(option.status, Status::Open) {
                continue;
            }
            option.status = match self.probe(option, depth, depends) {
                Probe::Exact(solved) => {
                    depends.merge(&solved.depends);
                    let c = &option.candidate;
                    Status::Exact(ThermoBranch::to(c.point, solved.node, c.gain, false))
                }
                Probe::Known(known, first) => {
                    option.first_answer = Some(first);
                    match known {
                        Some(wall) => Status::Bound {
                            wall,
                            answered: false,
                        },
                        None => {
                            let wall = self.answer(option, first, depth, depends);
                            Status::Bound {
                                wall,
                                answered: true,
                            }
                        }
                    }
                }
                Probe::Nothing => Status::Exact(self.solve_option(option, depth, depends)),
            };
        }
        while let Some(i) = self.next_to_solve(options, fixed) {
            let status = std::mem::replace(&mut options[i].status, Status::Open);
            options[i].status = match (status, options[i].first_answer) {
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
        }
    }

    /// The bounded option to work on next: the first (in move order) that can still change the node's
    /// value. While the solved options make a hot game, that is an option whose bound reaches above
    /// Left's (below Right's) scaffold of the solved options somewhere on `[0, T⁺]`; while they make a
    /// number, one whose stop can reach the solved options' best stop (a Left option's right stop is at
    /// most its bound at t = 0, a Right option's left stop at least): the number is read from the best
    /// stops alone, and options strictly beyond them change neither it nor the as-it-stands test.
    fn next_to_solve(&self, options: &[Option_], fixed: &Fixed) -> Option<usize> {
        let exact = |color: Color, extra: &[ThermoBranch]| {
            let solved = options.iter().filter_map(move |o| match &o.status {
                Status::Exact(b) if o.color == color => Some(b.thermograph()),
                _ => None,
            });
            solved
                .chain(extra.iter().map(ThermoBranch::thermograph))
                .collect::<Vec<Thermograph>>()
        };
        let black = exact(Color::Black, &fixed.0);
        let white = exact(Color::White, &fixed.1);
        let lo = value::left_scaffold(black.iter())?;
        let hi = value::right_scaffold(white.iter())?;
        if value::is_number(&value::thermograph_of(&black, &white)) {
            let low = black.iter().map(value::right_stop).max()?;
            let high = white.iter().map(value::left_stop).min()?;
            return options.iter().position(|o| match &o.status {
                Status::Bound { wall, .. } => match o.color {
                    Color::Black => wall.at(Rational::ZERO) >= low,
                    Color::White => wall.at(Rational::ZERO) <= high,
                },
                _ => false,
            });
        }
        let bounds = |color: Color| {
            options.iter().filter_map(move |o| match &o.status {
                Status::Bound { wall, .. } if o.color == color => Some(wall),
                _ => None,
            })
        };
        let up = bounds(Color::Black).fold(lo.clone(), |a, w| a.combine(w, true));
        let down = bounds(Color::White).fold(hi.clone(), |a, w| a.combine(w, false));
        let t_up = value::temperature_bound(&up, &down);
        options.iter().position(|o| match &o.status {
            Status::Bound { wall, .. } => {
                let (scaffold, below) = match o.color {
                    Color::Black => (&lo, true),
                    Color::White => (&hi, false),
                };
                !value::within(
                    wall,
                    scaffold,
                    Rational::ZERO,
                    t_up.max(Rational::ZERO),
                    below,
                )
            }
            _ => false,
        })
    }

    /// Looks at an option's position: a leaf or a known position is exact; otherwise the opponent's
    /// answers (not ko captures, whose value needs the whole node) that the table knows bound the
    /// option's taxed wall, and the first answer in move order is named for solving.
    fn probe(&mut self, option: &Option_, depth: usize, depends: &mut Dependencies) -> Probe {
        let c = &option.candidate;
        let key = (c.board.stone_hash(), c.state);
        if let Some(node) = self.table.get(&key) {
            return Probe::Exact(Solved::free(node.clone()));
        }
        if !self.count() {
            return Probe::Nothing;
        }
        self.probed.insert(key, ());
        if let Some(stats) = &mut self.stats {
            stats.probe();
        }
        let settlement = Settlement::assess(&c.board, self.region(), &c.state.sealed);
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
fn combine(a: &Wall, b: &Wall, color: Color) -> Wall {
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
