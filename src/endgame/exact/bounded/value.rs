//! A node's thermograph from its options' thermographs, with the solver's rules for numbers, and the
//! bounds that let the search leave an option unsearched.

use crate::endgame::cgt::thermograph::first_meeting;
use crate::endgame::cgt::{Rational, Thermograph, Wall};
use crate::go::Color;
use std::borrow::Borrow;

/// Whether a thermograph is a number's (a mast from below zero).
pub(super) fn is_number(th: &Thermograph) -> bool {
    th.temperature < Rational::ZERO
}

/// The right stop of an option (its number, or its right wall at t = 0).
pub(super) fn right_stop(th: &Thermograph) -> Rational {
    if is_number(th) {
        th.mean
    } else {
        th.right.at(Rational::ZERO)
    }
}

pub(super) fn left_stop(th: &Thermograph) -> Rational {
    if is_number(th) {
        th.mean
    } else {
        th.left.at(Rational::ZERO)
    }
}

/// A game's thermograph in the making, from its options' thermographs: Left's scaffold (the maximum of
/// Left's options' right walls less t), Right's (the minimum of Right's options' left walls plus t),
/// and the tightest ends of the interval a number must lie in. Options can be added one at a time.
pub(super) struct Scaffolds {
    pub lo: Wall,
    pub hi: Wall,
    /// The highest right stop of Left's options and the lowest left stop of Right's, each excluded when
    /// it is a number's (a number option `n` has `n ◁ x` only for `x > n`).
    pub low: End,
    pub high: End,
}

/// An end of an interval: its value and whether it is excluded.
pub(super) type End = (Rational, bool);

impl Scaffolds {
    /// The scaffolds of `black`'s and `white`'s options; `None` while a colour has none.
    pub fn of<T: Borrow<Thermograph>>(black: &[T], white: &[T]) -> Option<Scaffolds> {
        let (low, high) = (
            best_end(black, Color::Black)?,
            best_end(white, Color::White)?,
        );
        let (lo, hi) = walls(black, white)?;
        Some(Scaffolds { lo, hi, low, high })
    }

    /// Adds an option of `color`.
    pub fn add(&mut self, th: &Thermograph, color: Color) {
        let end = end_of(th, color);
        match color {
            Color::Black => {
                self.lo = self.lo.combine(&taxed(th, color), true);
                self.low = tighter(self.low, end, color);
            }
            Color::White => {
                self.hi = self.hi.combine(&taxed(th, color), false);
                self.high = tighter(self.high, end, color);
            }
        }
    }

    /// The game's temperature (that of `thermograph_of`), without building its walls: below zero
    /// when the game is a number.
    pub fn temperature(&self) -> Rational {
        match simplest_in(self.low, self.high) {
            Some(_) => -Rational::ONE,
            None => first_meeting(&self.lo, &self.hi),
        }
    }
}

/// An option's wall that makes its colour's scaffold: Left's right wall less t, Right's left wall plus t.
fn taxed(th: &Thermograph, color: Color) -> Wall {
    match color {
        Color::Black => th.right.tilt(-Rational::ONE),
        Color::White => th.left.tilt(Rational::ONE),
    }
}

/// Left's and Right's scaffolds of `black`'s and `white`'s options.
fn walls<T: Borrow<Thermograph>>(black: &[T], white: &[T]) -> Option<(Wall, Wall)> {
    let scaffold = |options: &[T], color: Color| {
        options
            .iter()
            .map(|th| taxed(th.borrow(), color))
            .reduce(|a, b| a.combine(&b, color == Color::Black))
    };
    Some((
        scaffold(black, Color::Black)?,
        scaffold(white, Color::White)?,
    ))
}

/// An option's end of the interval a number must lie in: a Left option's right stop, a Right option's
/// left stop, excluded when the option is a number (a number option `n` has `n ◁ x` only for `x > n`).
fn end_of(th: &Thermograph, color: Color) -> End {
    let stop = match color {
        Color::Black => right_stop(th),
        Color::White => left_stop(th),
    };
    (stop, is_number(th))
}

/// The tighter of two ends of `color`'s options (Left's the higher, Right's the lower; at a tie, the
/// excluded one).
fn tighter(a: End, b: End, color: Color) -> End {
    let beyond = match color {
        Color::Black => b.0 > a.0,
        Color::White => b.0 < a.0,
    };
    if beyond || (b.0 == a.0 && b.1) { b } else { a }
}

/// The tightest end of `color`'s options; `None` when there is none.
fn best_end<T: Borrow<Thermograph>>(options: &[T], color: Color) -> Option<End> {
    options
        .iter()
        .map(|th| end_of(th.borrow(), color))
        .reduce(|a, b| tighter(a, b, color))
}

/// The thermograph of a game with options of both colours. A number `x` with every Left option `◁ x`
/// and every Right option `x ◁` makes the game that number, the simplest such (Conway's simplicity
/// rule). `x ◁ n` for a number option means `x < n`; for any other option it is read from its stop: a
/// Left option whose right stop is at most `x` is `◁ x` (Right, moving first in `G^L − x`, reaches 0 with
/// Left to move). Otherwise the walls come from the scaffolds, built only then.
pub(super) fn thermograph_of<T: Borrow<Thermograph>>(black: &[T], white: &[T]) -> Thermograph {
    let zero = Thermograph::number(Rational::ZERO);
    let (Some(low), Some(high)) = (best_end(black, Color::Black), best_end(white, Color::White))
    else {
        return zero;
    };
    if let Some(x) = simplest_in(low, high) {
        return Thermograph::number(x);
    }
    match walls(black, white) {
        Some((lo, hi)) => Thermograph::from_scaffolds(lo, hi),
        None => zero,
    }
}

/// The simplest number in the interval from `low` to `high` (ends excluded where marked).
fn simplest_in(low: End, high: End) -> Option<Rational> {
    if low.0 > high.0 || (low.0 == high.0 && (low.1 || high.1)) {
        return None;
    }
    let mut candidates = Vec::new();
    if low.0 < high.0 {
        candidates.push(Rational::simplest_between(Some(low.0), Some(high.0)));
    }
    for (value, open) in [low, high] {
        if !open {
            candidates.push(value);
        }
    }
    candidates.into_iter().min_by_key(|&x| simplicity(x))
}

/// Sorts numbers simplest first: integers by magnitude, then fractions by denominator.
fn simplicity(x: Rational) -> (i64, i64) {
    if x.denominator() == 1 {
        (0, x.numerator().abs())
    } else {
        (x.denominator(), 0)
    }
}

/// Whether the count `c` as it stands lies strictly between the options: no Left option is at least it
/// and no Right option at most it (a number option compared exactly, any other by its stop: one whose
/// right stop is `c` is not at least `c`).
pub(super) fn strictly_between<T: Borrow<Thermograph>>(
    c: Rational,
    black: &[T],
    white: &[T],
) -> bool {
    black.iter().map(Borrow::borrow).all(|th| {
        if is_number(th) {
            th.mean < c
        } else {
            right_stop(th) <= c
        }
    }) && white.iter().map(Borrow::borrow).all(|th| {
        if is_number(th) {
            th.mean > c
        } else {
            left_stop(th) >= c
        }
    })
}

/// Whether `bound` lies at or below `wall` (`below = true`), or at or above it, at every t of
/// `[from, to]`. Both are piecewise linear, so their breakpoints and the window's ends decide.
pub(super) fn within(bound: &Wall, wall: &Wall, from: Rational, to: Rational, below: bool) -> bool {
    let mut ts: Vec<Rational> = bound
        .breakpoints()
        .iter()
        .chain(wall.breakpoints())
        .map(|p| p.0)
        .filter(|&t| t > from && t < to)
        .collect();
    ts.push(from);
    ts.push(to);
    ts.iter().all(|&t| {
        let (x, y) = (bound.at(t), wall.at(t));
        if below { x <= y } else { x >= y }
    })
}

/// The largest (`max`) or smallest value of `wall` on `[from, to]`: at a breakpoint or an end.
pub(super) fn extreme_on(wall: &Wall, from: Rational, to: Rational, max: bool) -> Rational {
    let values = wall
        .breakpoints()
        .iter()
        .map(|p| p.0)
        .filter(|&t| t > from && t < to)
        .chain([from, to])
        .map(|t| wall.at(t));
    let extreme = if max { values.max() } else { values.min() };
    extreme.unwrap_or_else(|| wall.at(from))
}

/// A bound that proves nothing: far above any count for Left's options, far below for Right's.
pub(super) fn unbounded(color: Color) -> Wall {
    let far = Rational::integer(1 << 20);
    let th = Thermograph::number(match color {
        Color::Black => far,
        Color::White => -far,
    });
    th.left
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::cgt::Game;

    fn r(s: &str) -> Rational {
        s.parse().expect("rational")
    }

    /// The thermograph of `game` computed as the bounded search does, from its options' thermographs
    /// with the number rule, not from the simplified game.
    fn by_options(game: &Game) -> Thermograph {
        match game {
            Game::Number(x) => Thermograph::number(*x),
            _ => {
                let left: Vec<Thermograph> = game.left().iter().map(by_options).collect();
                let right: Vec<Thermograph> = game.right().iter().map(by_options).collect();
                thermograph_of(&left, &right)
            }
        }
    }

    #[test]
    fn the_thirty_cases_of_cgt_cases_json_from_their_options() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/docs/facts/cgt-cases.json"
        );
        let text = std::fs::read_to_string(path).expect("cgt-cases.json");
        let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("json");
        assert_eq!(cases.len(), 30);
        for case in &cases {
            let text = case["game"].as_str().expect("game");
            let game: Game = text.parse().expect("a game");
            let th = by_options(&game);
            let field = |k: &str| r(case[k].as_str().expect(k));
            assert_eq!(th.mean, field("mean"), "mean of {text}");
            assert_eq!(
                th.temperature,
                field("temperature"),
                "temperature of {text}"
            );
            let stops = if is_number(&th) {
                (th.mean, th.mean)
            } else {
                (th.left.at(Rational::ZERO), th.right.at(Rational::ZERO))
            };
            assert_eq!(stops, (field("left_stop"), field("right_stop")), "{text}");
        }
    }

    #[test]
    fn numbers_far_apart_are_the_simplest_between_not_the_scaffolds_meeting() {
        // {-5 | -2} = -3; the scaffolds alone would meet at -4.
        let th = thermograph_of(
            &[Thermograph::number(r("-5"))],
            &[Thermograph::number(r("-2"))],
        );
        assert_eq!(th.mean, r("-3"));
        assert_eq!(th.temperature, r("-1"));
    }

    #[test]
    fn a_bound_below_a_wall_on_the_window_only() {
        let low = Thermograph::number(r("1")).left;
        let high = Thermograph::number(r("2")).left;
        assert!(within(&low, &high, r("0"), r("3"), true));
        assert!(!within(&high, &low, r("0"), r("3"), true));
        let sloped = high.tilt(-Rational::ONE); // 2 - t: below 1 from t = 1
        assert!(within(&sloped, &low, r("1"), r("3"), true));
        assert!(!within(&sloped, &low, r("0"), r("3"), true));
    }
}
