//! A node's thermograph from its options' thermographs, with the solver's rules for numbers, and the
//! bounds that let the search leave an option unsearched.

use crate::endgame::cgt::{Rational, Thermograph, Wall};
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

/// Left's scaffold: the maximum over Left's options of their right walls less t.
pub(super) fn left_scaffold<'a>(options: impl Iterator<Item = &'a Thermograph>) -> Option<Wall> {
    options
        .map(|th| th.right.tilt(-Rational::ONE))
        .reduce(|a, b| a.combine(&b, true))
}

/// Right's scaffold: the minimum over Right's options of their left walls plus t.
pub(super) fn right_scaffold<'a>(options: impl Iterator<Item = &'a Thermograph>) -> Option<Wall> {
    options
        .map(|th| th.left.tilt(Rational::ONE))
        .reduce(|a, b| a.combine(&b, false))
}

/// The thermograph of a game with options of both colours. A number `x` with every Left option `◁ x`
/// and every Right option `x ◁` makes the game that number, the simplest such (Conway's simplicity
/// rule). `x ◁ n` for a number option means `x < n`; for any other option it is read from its stop: a
/// Left option whose right stop is at most `x` is `◁ x` (Right, moving first in `G^L − x`, reaches 0 with
/// Left to move). Otherwise the walls come from the scaffolds.
pub(super) fn thermograph_of<T: Borrow<Thermograph>>(black: &[T], white: &[T]) -> Thermograph {
    if let Some(x) = number_between(black, white) {
        return Thermograph::number(x);
    }
    match (
        left_scaffold(black.iter().map(Borrow::borrow)),
        right_scaffold(white.iter().map(Borrow::borrow)),
    ) {
        (Some(l), Some(r)) => Thermograph::from_scaffolds(l, r),
        _ => Thermograph::number(Rational::ZERO),
    }
}

/// An end of an interval: its value and whether it is excluded.
pub(super) type End = (Rational, bool);

/// A Left option's end of the interval a number must lie in: its right stop, excluded when it is a
/// number (a number option `n` has `n ◁ x` only for `x > n`).
pub(super) fn left_end(th: &Thermograph) -> End {
    (right_stop(th), is_number(th))
}

/// A Right option's end: its left stop, excluded when it is a number.
pub(super) fn right_end(th: &Thermograph) -> End {
    (left_stop(th), is_number(th))
}

/// The tighter of two Left ends (the higher; at a tie, excluded if either is).
pub(super) fn higher_end(a: End, b: End) -> End {
    if b.0 > a.0 || (b.0 == a.0 && b.1) {
        b
    } else {
        a
    }
}

/// The tighter of two Right ends (the lower; at a tie, excluded if either is).
pub(super) fn lower_end(a: End, b: End) -> End {
    if b.0 < a.0 || (b.0 == a.0 && b.1) {
        b
    } else {
        a
    }
}

/// The simplest number `x` with every Left option `◁ x ◁` every Right option, if there is one.
fn number_between<T: Borrow<Thermograph>>(black: &[T], white: &[T]) -> Option<Rational> {
    let low = black
        .iter()
        .map(|th| left_end(th.borrow()))
        .reduce(higher_end)?;
    let high = white
        .iter()
        .map(|th| right_end(th.borrow()))
        .reduce(lower_end)?;
    simplest_in(low, high)
}

/// The simplest number in the interval from `low` to `high` (ends excluded where marked).
pub(super) fn simplest_in(low: End, high: End) -> Option<Rational> {
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
pub(super) fn unbounded(color: crate::go::Color) -> Wall {
    let far = Rational::integer(1 << 20);
    let th = Thermograph::number(match color {
        crate::go::Color::Black => far,
        crate::go::Color::White => -far,
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
