//! Colours, points, moves and board sizes, with their text forms (GTP, SGF, KataGo JSON).
//!
//! A `Point` is an index into a fixed padded grid of stride `STRIDE`, so the same point means the same
//! intersection on every board size and converting to `(x, y)` needs no board. `x` runs left to right,
//! `y` top to bottom (row-major from the top, as SGF and KataGo's arrays are); GTP rows count from the bottom.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Largest supported board side.
pub const MAX_SIDE: usize = 19;
/// Row stride of the padded grid: one border column on each side.
pub const STRIDE: usize = MAX_SIDE + 2;
/// Number of cells in the padded grid (a border row above and below).
pub const GRID: usize = STRIDE * STRIDE;

const GTP_COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoordError {
    #[error("`{0}` is not a board size (expected N or WxH with sides 2..=19)")]
    BadSize(String),
    #[error("`{text}` is not a point on a {size} board")]
    BadPoint { text: String, size: BoardSize },
    #[error("`{0}` is not a colour (expected B, W, black or white)")]
    BadColor(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// `1` for Black, `-1` for White: the sign of a score from Black's point of view.
    pub fn sign(self) -> i32 {
        match self {
            Color::Black => 1,
            Color::White => -1,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    pub fn parse(text: &str) -> Result<Color, CoordError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "b" | "black" => Ok(Color::Black),
            "w" | "white" => Ok(Color::White),
            _ => Err(CoordError::BadColor(text.to_string())),
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Board dimensions: `width` columns by `height` rows, each 2..=19.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BoardSize {
    pub width: u8,
    pub height: u8,
}

impl BoardSize {
    pub fn new(width: usize, height: usize) -> Result<BoardSize, CoordError> {
        let ok = |s: usize| (2..=MAX_SIDE).contains(&s);
        if ok(width) && ok(height) {
            Ok(BoardSize {
                width: width as u8,
                height: height as u8,
            })
        } else {
            Err(CoordError::BadSize(format!("{width}x{height}")))
        }
    }

    pub fn square(side: usize) -> Result<BoardSize, CoordError> {
        BoardSize::new(side, side)
    }

    /// Parses `9`, `9x9`, `7x5` or SGF's `7:5`.
    pub fn parse(text: &str) -> Result<BoardSize, CoordError> {
        let bad = || CoordError::BadSize(text.to_string());
        let t = text.trim().to_ascii_lowercase();
        let parts: Vec<&str> = t.split(['x', ':']).collect();
        let nums: Vec<usize> = parts
            .iter()
            .map(|p| p.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        match nums.as_slice() {
            [s] => BoardSize::square(*s).map_err(|_| bad()),
            [w, h] => BoardSize::new(*w, *h).map_err(|_| bad()),
            _ => Err(bad()),
        }
    }

    pub fn width(self) -> usize {
        self.width as usize
    }

    pub fn height(self) -> usize {
        self.height as usize
    }

    pub fn area(self) -> usize {
        self.width() * self.height()
    }

    pub fn is_square(self) -> bool {
        self.width == self.height
    }

    pub fn contains(self, x: usize, y: usize) -> bool {
        x < self.width() && y < self.height()
    }

    /// Every point of the board in row-major order from the top-left corner.
    pub fn points(self) -> impl Iterator<Item = Point> {
        let (w, h) = (self.width(), self.height());
        (0..h).flat_map(move |y| (0..w).map(move |x| Point::new(x, y)))
    }

    /// Row-major index from the top-left (the layout of KataGo's policy and ownership arrays).
    pub fn row_major(self, p: Point) -> usize {
        p.y() * self.width() + p.x()
    }

    pub fn from_row_major(self, i: usize) -> Point {
        Point::new(i % self.width(), i / self.width())
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// An intersection, as an index into the padded grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Point(u16);

impl Point {
    pub const fn new(x: usize, y: usize) -> Point {
        Point(((y + 1) * STRIDE + x + 1) as u16)
    }

    pub const fn from_index(index: usize) -> Point {
        Point(index as u16)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn x(self) -> usize {
        self.0 as usize % STRIDE - 1
    }

    pub const fn y(self) -> usize {
        self.0 as usize / STRIDE - 1
    }

    /// Parses a GTP vertex such as `D4` (case-insensitive, no `I`).
    pub fn parse_gtp(text: &str, size: BoardSize) -> Result<Point, CoordError> {
        let bad = || CoordError::BadPoint {
            text: text.to_string(),
            size,
        };
        let t = text.trim().to_ascii_uppercase();
        let mut chars = t.chars();
        let col = chars.next().filter(char::is_ascii).ok_or_else(bad)? as u8;
        let x = GTP_COLUMNS.iter().position(|&c| c == col).ok_or_else(bad)?;
        let row: usize = chars.as_str().parse().map_err(|_| bad())?;
        if row == 0 || row > size.height() || x >= size.width() {
            return Err(bad());
        }
        Ok(Point::new(x, size.height() - row))
    }

    pub fn to_gtp(self, size: BoardSize) -> String {
        format!(
            "{}{}",
            GTP_COLUMNS[self.x()] as char,
            size.height() - self.y()
        )
    }

    /// Parses SGF's two letters (`aa` is the top-left corner).
    pub fn parse_sgf(text: &str, size: BoardSize) -> Result<Point, CoordError> {
        let bad = || CoordError::BadPoint {
            text: text.to_string(),
            size,
        };
        let b = text.as_bytes();
        if b.len() != 2 || !b[0].is_ascii_lowercase() || !b[1].is_ascii_lowercase() {
            return Err(bad());
        }
        let (x, y) = ((b[0] - b'a') as usize, (b[1] - b'a') as usize);
        if !size.contains(x, y) {
            return Err(bad());
        }
        Ok(Point::new(x, y))
    }

    pub fn to_sgf(self) -> String {
        format!(
            "{}{}",
            (b'a' + self.x() as u8) as char,
            (b'a' + self.y() as u8) as char
        )
    }
}

/// A move: a stone on a point, or a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Move {
    Play(Point),
    Pass,
}

impl Move {
    pub fn point(self) -> Option<Point> {
        match self {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        }
    }

    /// Parses a GTP vertex or `pass` (KataGo's JSON uses the same form).
    pub fn parse_gtp(text: &str, size: BoardSize) -> Result<Move, CoordError> {
        if text.trim().eq_ignore_ascii_case("pass") {
            Ok(Move::Pass)
        } else {
            Point::parse_gtp(text, size).map(Move::Play)
        }
    }

    pub fn to_gtp(self, size: BoardSize) -> String {
        match self {
            Move::Play(p) => p.to_gtp(size),
            Move::Pass => "pass".to_string(),
        }
    }

    /// Parses an SGF move value: empty, or `tt` on boards up to 19x19, is a pass.
    pub fn parse_sgf(text: &str, size: BoardSize) -> Result<Move, CoordError> {
        if text.is_empty() || (text == "tt" && size.width() <= 19 && size.height() <= 19) {
            Ok(Move::Pass)
        } else {
            Point::parse_sgf(text, size).map(Move::Play)
        }
    }

    pub fn to_sgf(self) -> String {
        match self {
            Move::Play(p) => p.to_sgf(),
            Move::Pass => String::new(),
        }
    }

    /// Pairs moves with colours, alternately from Black.
    pub fn alternating(moves: &[Move]) -> Vec<(Color, Move)> {
        let colour = |i: usize| {
            if i.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            }
        };
        moves
            .iter()
            .enumerate()
            .map(|(i, &m)| (colour(i), m))
            .collect()
    }

    /// Parses a whitespace- or comma-separated list of GTP moves.
    pub fn parse_list(text: &str, size: BoardSize) -> Result<Vec<Move>, CoordError> {
        text.split([' ', ',', '\t', '\n'])
            .filter(|t| !t.is_empty())
            .map(|t| Move::parse_gtp(t, size))
            .collect()
    }
}

/// A set of grid points, a bit each: no allocation, for the inner loops of readers and assessments.
#[derive(Clone, Copy, Debug, Default)]
pub struct PointSet([u64; GRID.div_ceil(64)]);

impl PointSet {
    pub fn insert(&mut self, p: Point) {
        self.0[p.index() / 64] |= 1 << (p.index() % 64);
    }

    /// Adds `p`; `false` when it was in already.
    pub fn add(&mut self, p: Point) -> bool {
        let fresh = !self.contains(p);
        self.insert(p);
        fresh
    }

    pub fn contains(&self, p: Point) -> bool {
        self.0[p.index() / 64] & (1 << (p.index() % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_round_trip_skips_i() {
        let size = BoardSize::square(19).unwrap();
        let p = Point::parse_gtp("J10", size).unwrap();
        assert_eq!((p.x(), p.y()), (8, 9));
        assert_eq!(p.to_gtp(size), "J10");
        assert!(Point::parse_gtp("I5", size).is_err());
        assert!(
            Point::parse_gtp("é5", size).is_err(),
            "a fuzz finding: multi-byte first characters"
        );
        let small = BoardSize::new(7, 5).unwrap();
        assert_eq!(Point::parse_gtp("A1", small).unwrap(), Point::new(0, 4));
        assert!(Point::parse_gtp("A6", small).is_err());
        assert!(Point::parse_gtp("H1", small).is_err());
    }

    #[test]
    fn sgf_points_and_passes() {
        let size = BoardSize::square(9).unwrap();
        assert_eq!(Move::parse_sgf("", size).unwrap(), Move::Pass);
        assert_eq!(Move::parse_sgf("tt", size).unwrap(), Move::Pass);
        assert_eq!(
            Move::parse_sgf("ab", size).unwrap(),
            Move::Play(Point::new(0, 1))
        );
        assert!(Move::parse_sgf("jj", size).is_err());
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(
            BoardSize::parse("9").unwrap(),
            BoardSize::square(9).unwrap()
        );
        assert_eq!(
            BoardSize::parse("7:5").unwrap(),
            BoardSize::new(7, 5).unwrap()
        );
        assert_eq!(BoardSize::parse("7x5").unwrap().area(), 35);
        assert!(BoardSize::parse("20").is_err());
        assert!(BoardSize::parse("1x5").is_err());
    }
}
