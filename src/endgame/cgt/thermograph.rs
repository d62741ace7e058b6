//! Thermographs of games with number leaves, computed exactly: each wall is a piecewise-linear function of
//! the temperature t ≥ −1 with slopes 0 and ±1, stored as its breakpoints. Below the temperature the walls
//! come from the options (LW(t) = max RW(G^L)(t) − t, RW(t) = min LW(G^R)(t) + t); at and above it both are
//! the mast at the mean. A number's thermograph is its mast from t = −1.

use super::game::Game;
use super::rational::Rational;
use std::borrow::Cow;

/// A continuous piecewise-linear function on t ≥ −1: linear between breakpoints, slope `tail` after the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wall {
    points: Vec<(Rational, Rational)>,
    tail: Rational,
}

fn minus_one() -> Rational {
    Rational::integer(-1)
}

impl Wall {
    /// A vertical wall at `value` from t = −1 (a number's).
    pub(crate) fn constant(value: Rational) -> Wall {
        Wall {
            points: vec![(minus_one(), value)],
            tail: Rational::ZERO,
        }
    }

    /// The breakpoints `(t, value)` from t = −1; above the last one the wall is vertical (the mast).
    pub fn breakpoints(&self) -> &[(Rational, Rational)] {
        &self.points
    }

    pub fn at(&self, t: Rational) -> Rational {
        let mut previous = self.points[0];
        if t <= previous.0 {
            return previous.1;
        }
        for &(pt, pv) in &self.points[1..] {
            if t <= pt {
                let slope = (pv - previous.1) / (pt - previous.0);
                return previous.1 + slope * (t - previous.0);
            }
            previous = (pt, pv);
        }
        previous.1 + self.tail * (t - previous.0)
    }

    /// The wall moved by `x` (the wall of the game plus the number `x`).
    pub(crate) fn shifted(&self, x: Rational) -> Wall {
        Wall {
            points: self.points.iter().map(|&(t, v)| (t, v + x)).collect(),
            tail: self.tail,
        }
    }

    /// The wall plus `slope · t`.
    pub(crate) fn tilt(&self, slope: Rational) -> Wall {
        Wall {
            points: self
                .points
                .iter()
                .map(|&(t, v)| (t, v + slope * t))
                .collect(),
            tail: self.tail + slope,
        }
    }

    /// Pointwise maximum (`max = true`) or minimum of two walls, with the crossing points as breakpoints.
    pub(crate) fn combine(&self, other: &Wall, max: bool) -> Wall {
        let mut ts: Vec<Rational> = self
            .points
            .iter()
            .chain(&other.points)
            .map(|p| p.0)
            .collect();
        ts.sort();
        ts.dedup();
        let pick = |a: Rational, b: Rational| if max == (a >= b) { a } else { b };
        // Both walls at every breakpoint, each read once: `at` walks the wall, and this is the inner loop
        // of every thermograph the searches build.
        let values: Vec<(Rational, Rational)> =
            ts.iter().map(|&t| (self.at(t), other.at(t))).collect();
        let mut points = Vec::with_capacity(ts.len() + 2);
        for (i, &t) in ts.iter().enumerate() {
            let (a0, b0) = values[i];
            points.push((t, pick(a0, b0)));
            // A crossing strictly between this breakpoint and the next (or in the tails) is a new one.
            let next = ts.get(i + 1).copied();
            let d0 = a0 - b0;
            let (t1, d1) = match next {
                Some(n) => (n, values[i + 1].0 - values[i + 1].1),
                None => {
                    let n = t + Rational::ONE;
                    (n, self.at(n) - other.at(n))
                }
            };
            if (d0 < Rational::ZERO && d1 > Rational::ZERO)
                || (d0 > Rational::ZERO && d1 < Rational::ZERO)
            {
                let cross = t + (t1 - t) * (d0 / (d0 - d1));
                if next.is_some() || cross > t {
                    points.push((cross, self.at(cross)));
                }
            }
        }
        let last = *points.last().unwrap_or(&(minus_one(), Rational::ZERO));
        let probe = last.0 + Rational::ONE;
        let tail = pick(self.at(probe), other.at(probe)) - last.1;
        let mut wall = Wall { points, tail };
        wall.normalize();
        wall
    }

    /// Drops breakpoints where the slope does not change.
    fn normalize(&mut self) {
        let mut out: Vec<(Rational, Rational)> = Vec::with_capacity(self.points.len());
        for (i, &p) in self.points.iter().enumerate() {
            if i == 0 {
                out.push(p);
                continue;
            }
            let before = out[out.len() - 1];
            let slope_before = (p.1 - before.1) / (p.0 - before.0);
            let slope_after = match self.points.get(i + 1) {
                Some(n) => (n.1 - p.1) / (n.0 - p.0),
                None => self.tail,
            };
            if slope_before != slope_after {
                out.push(p);
            }
        }
        self.points = out;
    }

    /// The wall up to `t`, then vertical at its value there.
    fn cut_at(&self, t: Rational) -> Wall {
        let value = self.at(t);
        let mut points: Vec<(Rational, Rational)> =
            self.points.iter().copied().filter(|p| p.0 < t).collect();
        points.push((t, value));
        let mut wall = Wall {
            points,
            tail: Rational::ZERO,
        };
        wall.normalize();
        wall
    }
}

/// The thermograph of a game: its two walls, temperature and mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thermograph {
    pub left: Wall,
    pub right: Wall,
    /// Where the walls meet; for a number, −1/d for a dyadic with denominator d (−1 for integers and for
    /// the non-dyadic leaves kos produce), the convention of CGT texts.
    pub temperature: Rational,
    /// The mast's value: the count.
    pub mean: Rational,
}

/// The items (moves of `color`) whose thermographs attain the best wall at temperature `t`: Black's
/// right wall taxed by `t`, or White's left wall taxed the other way.
pub fn attaining_wall<B>(
    items: &[B],
    color: crate::go::Color,
    t: Rational,
    thermograph: impl Fn(&B) -> Thermograph,
) -> Vec<&B> {
    let score = |b: &B| {
        let th = thermograph(b);
        match color {
            crate::go::Color::Black => th.right.at(t) - t,
            crate::go::Color::White => -(th.left.at(t) + t),
        }
    };
    let Some(top) = items.iter().map(score).max() else {
        return Vec::new();
    };
    items.iter().filter(|b| score(b) == top).collect()
}

impl Thermograph {
    /// The thermograph of the game plus the number `x` (for a game that is not a number): both walls and
    /// the mast move by `x`, the temperature stays.
    pub(crate) fn shifted(&self, x: Rational) -> Thermograph {
        Thermograph {
            left: self.left.shifted(x),
            right: self.right.shifted(x),
            temperature: self.temperature,
            mean: self.mean + x,
        }
    }

    pub fn of(game: &Game) -> Thermograph {
        Thermograph::view(game).into_owned()
    }

    /// [`Thermograph::of`] without copying the walls of a game whose thermograph is cached.
    pub fn view(game: &Game) -> Cow<'_, Thermograph> {
        match game {
            Game::Number(x) => Cow::Owned(Thermograph {
                left: Wall::constant(*x),
                right: Wall::constant(*x),
                temperature: if x.is_dyadic() {
                    -Rational::new(1, x.denominator())
                } else {
                    minus_one()
                },
                mean: *x,
            }),
            Game::Options(o) => {
                Cow::Borrowed(o.cached_thermograph(|| Thermograph::from_options(o)))
            }
        }
    }

    /// The mean (the count) of a game, without copying its thermograph.
    pub fn mean_of(game: &Game) -> Rational {
        match game {
            Game::Number(x) => *x,
            Game::Options(_) => Thermograph::view(game).mean,
        }
    }

    fn from_options(o: &super::game::Options) -> Thermograph {
        {
            {
                let fold = |walls: Vec<Wall>, max: bool| {
                    walls.into_iter().reduce(|a, b| a.combine(&b, max))
                };
                let scaffold_left = fold(
                    o.left
                        .iter()
                        .map(|gl| Thermograph::view(gl).right.tilt(-Rational::ONE))
                        .collect(),
                    true,
                );
                let scaffold_right = fold(
                    o.right
                        .iter()
                        .map(|gr| Thermograph::view(gr).left.tilt(Rational::ONE))
                        .collect(),
                    false,
                );
                // A side with no options (never produced by the solver) takes the other side's scaffold.
                let (sl, sr) = match (scaffold_left, scaffold_right) {
                    (Some(l), Some(r)) => (l, r),
                    (Some(l), None) => (l.clone(), l),
                    (None, Some(r)) => (r.clone(), r),
                    (None, None) => (
                        Wall::constant(Rational::ZERO),
                        Wall::constant(Rational::ZERO),
                    ),
                };
                Thermograph::from_scaffolds(sl, sr)
            }
        }
    }

    /// The thermograph whose walls below the temperature are the scaffolds `sl` (the maximum of the
    /// Left options' right walls less t) and `sr` (the minimum of the Right options' left walls plus t).
    pub(crate) fn from_scaffolds(sl: Wall, sr: Wall) -> Thermograph {
        let temperature = first_meeting(&sl, &sr);
        let mean = sl.at(temperature);
        Thermograph {
            left: sl.cut_at(temperature),
            right: sr.cut_at(temperature),
            temperature,
            mean,
        }
    }

    /// The thermograph of the number `x`.
    pub(crate) fn number(x: Rational) -> Thermograph {
        Thermograph::view(&Game::Number(x)).into_owned()
    }
}

/// The least t ≥ −1 where the left scaffold is no longer to the left of (greater than) the right one.
pub(crate) fn first_meeting(left: &Wall, right: &Wall) -> Rational {
    let start = minus_one();
    let diff = |t: Rational| left.at(t) - right.at(t);
    if diff(start) <= Rational::ZERO {
        return start;
    }
    let mut ts: Vec<Rational> = left
        .points
        .iter()
        .chain(&right.points)
        .map(|p| p.0)
        .filter(|&t| t > start)
        .collect();
    ts.sort();
    ts.dedup();
    let mut previous = start;
    for t in ts {
        let d = diff(t);
        if d <= Rational::ZERO {
            let d0 = diff(previous);
            return previous + (t - previous) * (d0 / (d0 - d));
        }
        previous = t;
    }
    // Past every breakpoint the difference is linear; its slope is negative for games that cool.
    let d0 = diff(previous);
    let slope = diff(previous + Rational::ONE) - d0;
    if slope >= Rational::ZERO {
        return previous;
    }
    previous + d0 / (-slope)
}

/// Twice the temperature, 0 when settled: the problems' convention.
pub fn move_value(temperature: Rational) -> Rational {
    if temperature > Rational::ZERO {
        temperature + temperature
    } else {
        Rational::ZERO
    }
}
