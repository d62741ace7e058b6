//! Exact rational numbers for game values: the leaves of local games, thermograph breakpoints, means and
//! temperatures. A thin wrapper over `num_rational::Ratio<i64>` that adds the text forms Go players and the
//! problem files use (`3`, `-2/3`, `4 2/3`) and the dyadic questions combinatorial game theory asks.

use num_rational::Ratio;
use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};
use std::str::FromStr;

/// An exact rational value, always in lowest terms with a positive denominator. Serialised as the pair
/// (numerator, denominator); a zero denominator is refused when read back.
#[derive(Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "(i64, i64)", try_from = "(i64, i64)")]
pub struct Rational(Ratio<i64>);

/// Compares by cross-multiplying in 128 bits (denominators are positive): `Ratio`'s own comparison walks
/// a continued fraction, and thermographs compare values in their inner loops.
impl Ord for Rational {
    fn cmp(&self, other: &Rational) -> Ordering {
        let (a, b) = (self.denominator(), other.denominator());
        if a == b {
            return self.numerator().cmp(&other.numerator());
        }
        (i128::from(self.numerator()) * i128::from(b))
            .cmp(&(i128::from(other.numerator()) * i128::from(a)))
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Rational) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl From<Rational> for (i64, i64) {
    fn from(r: Rational) -> (i64, i64) {
        (r.numerator(), r.denominator())
    }
}

/// A serialised rational with a zero denominator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the fraction {0}/0 has a zero denominator")]
pub struct ZeroDenominator(pub i64);

impl TryFrom<(i64, i64)> for Rational {
    type Error = ZeroDenominator;

    fn try_from((numerator, denominator): (i64, i64)) -> Result<Rational, ZeroDenominator> {
        if denominator == 0 {
            return Err(ZeroDenominator(numerator));
        }
        Ok(Rational::new(numerator, denominator))
    }
}

/// Hashes the numerator and denominator as they are: the value is always in lowest terms, so equal values
/// have equal parts (`Ratio`'s own hash divides its way through a continued fraction, which the memo
/// tables of game comparisons paid for on every number).
impl std::hash::Hash for Rational {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_i64(*self.0.numer());
        state.write_i64(*self.0.denom());
    }
}

/// Why a text is not a rational.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a number: write an integer (`3`), a fraction (`2/3`) or a mixed number (`4 2/3`)"
)]
pub struct RationalParseError {
    pub text: String,
}

impl Rational {
    pub const ZERO: Rational = Rational(Ratio::new_raw(0, 1));
    pub const ONE: Rational = Rational(Ratio::new_raw(1, 1));

    pub fn new(numerator: i64, denominator: i64) -> Rational {
        Rational(Ratio::new(numerator, denominator))
    }

    pub fn integer(n: i64) -> Rational {
        Rational(Ratio::from_integer(n))
    }

    pub fn numerator(self) -> i64 {
        *self.0.numer()
    }

    pub fn denominator(self) -> i64 {
        *self.0.denom()
    }

    pub fn is_integer(self) -> bool {
        self.0.is_integer()
    }

    /// Whether the denominator is a power of two (the numbers that are finite games).
    pub fn is_dyadic(self) -> bool {
        let d = self.denominator();
        d & (d - 1) == 0
    }

    pub fn floor(self) -> Rational {
        Rational(self.0.floor())
    }

    pub fn ceil(self) -> Rational {
        Rational(self.0.ceil())
    }

    pub fn abs(self) -> Rational {
        if self < Rational::ZERO { -self } else { self }
    }

    pub fn half(self) -> Rational {
        self * Rational::new(1, 2)
    }

    pub fn to_f64(self) -> f64 {
        self.numerator() as f64 / self.denominator() as f64
    }

    /// The simplest number strictly between `low` and `high` (either bound may be absent), as in Conway's
    /// simplicity rule: an integer of least magnitude if one fits, otherwise the dyadic fraction with the
    /// smallest denominator.
    pub fn simplest_between(low: Option<Rational>, high: Option<Rational>) -> Rational {
        match (low, high) {
            (None, None) => Rational::ZERO,
            (Some(l), None) => {
                if l < Rational::ZERO {
                    Rational::ZERO
                } else {
                    l.floor() + Rational::ONE
                }
            }
            (None, Some(h)) => {
                if h > Rational::ZERO {
                    Rational::ZERO
                } else {
                    h.ceil() - Rational::ONE
                }
            }
            (Some(l), Some(h)) => {
                debug_assert!(l < h, "simplest_between needs low < high");
                if l < Rational::ZERO && h > Rational::ZERO {
                    return Rational::ZERO;
                }
                // Integers first, nearest to zero.
                let candidate = if l >= Rational::ZERO {
                    l.floor() + Rational::ONE
                } else {
                    h.ceil() - Rational::ONE
                };
                if candidate > l && candidate < h {
                    return candidate;
                }
                // Then dyadics with growing denominators: the first grid point inside wins; only one can
                // fit at the first denominator that has any, since two would leave a coarser one between.
                let mut denominator = 2i64;
                loop {
                    let step = Rational::new(1, denominator);
                    let first = (l / step).floor() + Rational::ONE;
                    let value = first * step;
                    if value < h {
                        return value;
                    }
                    denominator *= 2;
                }
            }
        }
    }
}

impl std::ops::Div for Rational {
    type Output = Rational;
    fn div(self, rhs: Rational) -> Rational {
        Rational(self.0 / rhs.0)
    }
}

/// Adding an integer needs no reduction: `n/d + k = (n + k·d)/d` is in lowest terms when `n/d` is. Games
/// are moved by whole prisoners far more often than fractions are added, and `Ratio`'s addition always
/// divides by a greatest common divisor.
impl Add for Rational {
    type Output = Rational;
    fn add(self, rhs: Rational) -> Rational {
        match (self.is_integer(), rhs.is_integer()) {
            (_, true) => self.plus_integer(rhs.numerator()),
            (true, false) => rhs.plus_integer(self.numerator()),
            (false, false) => Rational(self.0 + rhs.0),
        }
    }
}

impl Sub for Rational {
    type Output = Rational;
    fn sub(self, rhs: Rational) -> Rational {
        if rhs.is_integer() {
            self.plus_integer(-rhs.numerator())
        } else {
            Rational(self.0 - rhs.0)
        }
    }
}

impl Rational {
    fn plus_integer(self, k: i64) -> Rational {
        let d = self.denominator();
        Rational(Ratio::new_raw(self.numerator() + k * d, d))
    }
}

impl Mul for Rational {
    type Output = Rational;
    fn mul(self, rhs: Rational) -> Rational {
        if self.is_integer() && rhs.is_integer() {
            return Rational::integer(self.numerator() * rhs.numerator());
        }
        Rational(self.0 * rhs.0)
    }
}

impl Neg for Rational {
    type Output = Rational;
    fn neg(self) -> Rational {
        Rational(-self.0)
    }
}

impl From<i64> for Rational {
    fn from(n: i64) -> Rational {
        Rational::integer(n)
    }
}

impl fmt::Display for Rational {
    /// `3`, `-1/2`, `14/3`: the plain form used in JSON and tests.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integer() {
            write!(f, "{}", self.numerator())
        } else {
            write!(f, "{}/{}", self.numerator(), self.denominator())
        }
    }
}

impl fmt::Debug for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl Rational {
    /// The mixed form Go books print: `4 2/3`, `-1 1/2`, `2/3`, `5`.
    pub fn mixed(self) -> String {
        if self.is_integer() {
            return self.to_string();
        }
        let sign = if self < Rational::ZERO { "-" } else { "" };
        let a = self.abs();
        let whole = a.floor();
        let part = a - whole;
        if whole == Rational::ZERO {
            format!("{sign}{part}")
        } else {
            format!("{sign}{whole} {part}")
        }
    }
}

impl FromStr for Rational {
    type Err = RationalParseError;

    /// Accepts `3`, `-3`, `2/3`, `4 2/3` and `-4 2/3`.
    fn from_str(text: &str) -> Result<Rational, RationalParseError> {
        let bad = || RationalParseError {
            text: text.to_string(),
        };
        let t = text.trim();
        let (negative, body) = match t.strip_prefix('-') {
            Some(rest) => (true, rest.trim()),
            None => (false, t),
        };
        let parts: Vec<&str> = body.split_whitespace().collect();
        let fraction = |s: &str| -> Result<Rational, RationalParseError> {
            match s.split_once('/') {
                Some((n, d)) => {
                    let n: i64 = n.parse().map_err(|_| bad())?;
                    let d: i64 = d.parse().map_err(|_| bad())?;
                    if d <= 0 || n < 0 {
                        return Err(bad());
                    }
                    Ok(Rational::new(n, d))
                }
                None => {
                    let n: i64 = s.parse().map_err(|_| bad())?;
                    if n < 0 {
                        return Err(bad());
                    }
                    Ok(Rational::integer(n))
                }
            }
        };
        let value = match parts.as_slice() {
            [one] => fraction(one)?,
            [whole, part] if !whole.contains('/') && part.contains('/') => {
                fraction(whole)? + fraction(part)?
            }
            _ => return Err(bad()),
        };
        Ok(if negative { -value } else { value })
    }
}

impl PartialOrd<i64> for Rational {
    fn partial_cmp(&self, other: &i64) -> Option<Ordering> {
        Some(self.cmp(&Rational::integer(*other)))
    }
}

impl PartialEq<i64> for Rational {
    fn eq(&self, other: &i64) -> bool {
        *self == Rational::integer(*other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Rational {
        s.parse().unwrap()
    }

    #[test]
    fn parses_and_prints_the_problem_forms() {
        assert_eq!(r("4 2/3"), Rational::new(14, 3));
        assert_eq!(r("-4 2/3"), Rational::new(-14, 3));
        assert_eq!(r("2/3").to_string(), "2/3");
        assert_eq!(r("7 1/2").mixed(), "7 1/2");
        assert_eq!(r("-3/2").mixed(), "-1 1/2");
        assert_eq!(r("12").to_string(), "12");
        assert!("4 2".parse::<Rational>().is_err());
        assert!("x".parse::<Rational>().is_err());
        assert!("1/0".parse::<Rational>().is_err());
    }

    #[test]
    fn simplest_numbers_follow_the_simplicity_rule() {
        let s = |l: Option<&str>, h: Option<&str>| {
            Rational::simplest_between(l.map(r), h.map(r)).to_string()
        };
        assert_eq!(s(Some("0"), Some("3")), "1");
        assert_eq!(s(Some("0"), Some("1")), "1/2");
        assert_eq!(s(Some("1/3"), Some("2/3")), "1/2");
        assert_eq!(s(Some("-5"), Some("2")), "0");
        assert_eq!(s(Some("2"), None), "3");
        assert_eq!(s(Some("-2"), None), "0");
        assert_eq!(s(None, Some("-2")), "-3");
        assert_eq!(s(Some("5/8"), Some("3/4")), "11/16");
        assert_eq!(s(Some("-7/2"), Some("-3")), "-13/4");
    }
}
