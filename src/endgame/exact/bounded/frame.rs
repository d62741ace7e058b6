//! Which of a node's options can still change its value: the scaffolds of the options solved so far,
//! and the bounds on an option's stops that would leave it unsearched.

use super::Fixed;
use super::node::ThermoBranch;
use super::options::{Option_, Status, combine};
use super::proof::{Bound, Goal, Stop};
use super::value::{self, Scaffolds};
use crate::endgame::cgt::{Rational, Thermograph, Wall};
use crate::go::Color;
use std::borrow::Cow;

/// The solved options' scaffolds (Left's `lo`, Right's `hi`) up to the temperature `t` of the game they
/// make, whether that game is a number, and the goals each colour's other options need. Kept from
/// option to option: solving one more combines its wall into one scaffold.
pub(super) struct Frame {
    scaffolds: Scaffolds,
    t: Rational,
    number: bool,
    needs_black: Vec<Goal>,
    needs_white: Vec<Goal>,
}

impl Frame {
    /// The frame of the options solved in `options` and `fixed`; `None` while a colour has none.
    ///
    /// While the solved options make a hot game with temperature `T`, an option matters if its taxed
    /// wall can reach above Left's (below Right's) scaffold `S` of the solved options somewhere on
    /// `[0, T]`: under the scaffolds up to their first meeting, it cannot move the meeting. A Left
    /// option's taxed wall `RW(t) − t` is at most its right stop (a right wall rises with slope 0 or 1)
    /// and at most `LS − t` (it never passes the mean), so `RS ≤ min S on [0, T]` or `LS ≤ S(0)` leave
    /// it unsearched; mirror for Right. While they make a number, an option matters if its stop can
    /// reach the solved options' best stop: the number is read from the best stops alone, and options
    /// strictly beyond them change neither it nor the as-it-stands test.
    pub fn of(options: &[Option_], fixed: &Fixed) -> Option<Frame> {
        let black = solved(options, Color::Black, &fixed.0);
        let white = solved(options, Color::White, &fixed.1);
        Scaffolds::of(&black, &white).map(Frame::from_scaffolds)
    }

    /// The frame once one more option of `color`, whose thermograph (in the node's frame) is `th`, is
    /// solved.
    pub fn with(self, th: &Thermograph, color: Color) -> Frame {
        let mut scaffolds = self.scaffolds;
        scaffolds.add(th, color);
        Frame::from_scaffolds(scaffolds)
    }

    fn from_scaffolds(scaffolds: Scaffolds) -> Frame {
        let temperature = scaffolds.temperature();
        let number = temperature < Rational::ZERO;
        let t = temperature.max(Rational::ZERO);
        let goal = |stop, c, upper, strict| Goal {
            stop,
            bound: Bound { c, upper, strict },
        };
        let Scaffolds { lo, hi, low, high } = &scaffolds;
        let (needs_black, needs_white) = if number {
            (
                vec![goal(Stop::Right, low.0, true, true)],
                vec![goal(Stop::Left, high.0, false, true)],
            )
        } else {
            let top = value::extreme_on(lo, Rational::ZERO, t, false);
            let bottom = value::extreme_on(hi, Rational::ZERO, t, true);
            (
                vec![
                    goal(Stop::Right, top, true, false),
                    goal(Stop::Left, lo.at(Rational::ZERO), true, false),
                ],
                vec![
                    goal(Stop::Left, bottom, false, false),
                    goal(Stop::Right, hi.at(Rational::ZERO), false, false),
                ],
            )
        };
        Frame {
            scaffolds,
            t,
            number,
            needs_black,
            needs_white,
        }
    }

    /// The first option from `from` on (in move order) that can still change the node's value, with
    /// the bounds on its stops that would leave it unsearched.
    pub fn next_to_solve(&self, options: &[Option_], from: usize) -> Option<(usize, Vec<Goal>)> {
        let zero = Rational::ZERO;
        options.iter().enumerate().skip(from).find_map(|(i, o)| {
            let (needs, scaffold, below) = match o.color {
                Color::Black => (&self.needs_black, &self.scaffolds.lo, true),
                Color::White => (&self.needs_white, &self.scaffolds.hi, false),
            };
            let by_wall = match &o.status {
                Status::Bound { wall, .. } if self.number => needs[0].bound.holds(wall.at(zero)),
                Status::Bound { wall, .. } => value::within(wall, scaffold, zero, self.t, below),
                Status::Open => false,
                Status::Exact(_) | Status::Taken => return None,
            };
            let by_proof = if self.number {
                // A Left option's right stop is at most its left stop (mirror for Right).
                o.proved.iter().any(|p| p.bound.implies(needs[0].bound))
            } else {
                proved_wall(o).is_some_and(|w| value::within(&w, scaffold, zero, self.t, below))
            };
            (!by_wall && !by_proof).then(|| (i, needs.clone()))
        })
    }
}

/// The thermographs of `color`'s solved options and its fixed branches, in the node's frame.
fn solved<'a>(
    options: &'a [Option_],
    color: Color,
    extra: &'a [ThermoBranch],
) -> Vec<Cow<'a, Thermograph>> {
    let exact = options.iter().filter_map(move |o| match &o.status {
        Status::Exact(b) if o.color == color => Some(b.view()),
        _ => None,
    });
    exact.chain(extra.iter().map(ThermoBranch::view)).collect()
}

/// The bound the proved stops give an option's taxed wall: Left's `min(RS, LS − t)` from above,
/// Right's `max(LS, RS + t)` from below.
fn proved_wall(option: &Option_) -> Option<Wall> {
    let black = option.color == Color::Black;
    option
        .proved
        .iter()
        .map(|g| {
            let flat = Wall::constant(g.bound.c);
            let facing = (g.stop == Stop::Right) == black;
            match (facing, black) {
                (true, _) => flat,
                (false, true) => flat.tilt(-Rational::ONE),
                (false, false) => flat.tilt(Rational::ONE),
            }
        })
        .reduce(|a, b| combine(&a, &b, option.color))
}
