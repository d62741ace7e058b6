//! The dihedral group of the board: 8 symmetries on square boards, the 4 that keep the axes on rectangles.
//!
//! Numbering follows KataGo (so `.katabook` symmetry ids carry over): bit 0 flips y, bit 1 flips x, bit 2
//! transposes after the flips.

use super::coord::{BoardSize, Move, Point};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Symmetry(u8);

impl Symmetry {
    pub const IDENTITY: Symmetry = Symmetry(0);
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    pub fn from_id(id: u8) -> Option<Symmetry> {
        (id < 8).then_some(Symmetry(id))
    }

    pub fn id(self) -> u8 {
        self.0
    }

    pub fn flips_y(self) -> bool {
        self.0 & 1 != 0
    }

    pub fn flips_x(self) -> bool {
        self.0 & 2 != 0
    }

    pub fn transposes(self) -> bool {
        self.0 & 4 != 0
    }

    /// The symmetries that map a board of this size onto itself.
    pub fn group(size: BoardSize) -> &'static [Symmetry] {
        if size.is_square() {
            &Symmetry::ALL
        } else {
            &Symmetry::ALL[..4]
        }
    }

    /// Maps `(x, y)` on a board of `size` (the source orientation).
    pub fn apply_xy(self, size: BoardSize, x: usize, y: usize) -> (usize, usize) {
        let x = if self.flips_x() {
            size.width() - 1 - x
        } else {
            x
        };
        let y = if self.flips_y() {
            size.height() - 1 - y
        } else {
            y
        };
        if self.transposes() { (y, x) } else { (x, y) }
    }

    pub fn apply(self, size: BoardSize, p: Point) -> Point {
        let (x, y) = self.apply_xy(size, p.x(), p.y());
        Point::new(x, y)
    }

    pub fn apply_move(self, size: BoardSize, mv: Move) -> Move {
        match mv {
            Move::Play(p) => Move::Play(self.apply(size, p)),
            Move::Pass => Move::Pass,
        }
    }

    /// The symmetry that applies `self` first, then `then`.
    pub fn then(self, then: Symmetry) -> Symmetry {
        COMPOSE[self.0 as usize][then.0 as usize]
    }

    pub fn inverse(self) -> Symmetry {
        // A transposing symmetry flips, then transposes: undoing it transposes, then flips the other axes.
        if self.transposes() {
            Symmetry(4 | ((self.0 & 1) << 1) | ((self.0 & 2) >> 1))
        } else {
            self
        }
    }

    pub fn name(self) -> &'static str {
        [
            "identity",
            "flip-y",
            "flip-x",
            "rotate-180",
            "transpose",
            "rotate-90",
            "rotate-270",
            "anti-transpose",
        ][self.0 as usize]
    }
}

impl std::fmt::Display for Symmetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name())
    }
}

/// `COMPOSE[a][b]` applies `a` then `b`, worked out on a square board with distinct coordinates.
static COMPOSE: [[Symmetry; 8]; 8] = compose_table();

const fn apply_const(s: u8, n: usize, x: usize, y: usize) -> (usize, usize) {
    let x = if s & 2 != 0 { n - 1 - x } else { x };
    let y = if s & 1 != 0 { n - 1 - y } else { y };
    if s & 4 != 0 { (y, x) } else { (x, y) }
}

const fn compose_table() -> [[Symmetry; 8]; 8] {
    let mut table = [[Symmetry(0); 8]; 8];
    let (n, x, y) = (5, 0, 1);
    let mut a = 0;
    while a < 8 {
        let mut b = 0;
        while b < 8 {
            let (ax, ay) = apply_const(a, n, x, y);
            let (bx, by) = apply_const(b, n, ax, ay);
            let mut c = 0;
            while c < 8 {
                let (cx, cy) = apply_const(c, n, x, y);
                if cx == bx && cy == by {
                    table[a as usize][b as usize] = Symmetry(c);
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sym() -> impl Strategy<Value = Symmetry> {
        (0u8..8).prop_map(Symmetry)
    }

    proptest! {
        #[test]
        fn composition_matches_application(a in sym(), b in sym(), x in 0usize..9, y in 0usize..9) {
            let size = BoardSize::square(9).unwrap();
            let p = Point::new(x, y);
            prop_assert_eq!(a.then(b).apply(size, p), b.apply(size, a.apply(size, p)));
        }

        #[test]
        fn inverse_undoes(a in sym(), x in 0usize..7, y in 0usize..7) {
            let size = BoardSize::square(7).unwrap();
            let p = Point::new(x, y);
            prop_assert_eq!(a.inverse().apply(size, a.apply(size, p)), p);
            prop_assert_eq!(a.then(a.inverse()), Symmetry::IDENTITY);
        }

        #[test]
        fn associative(a in sym(), b in sym(), c in sym()) {
            prop_assert_eq!(a.then(b).then(c), a.then(b.then(c)));
        }

        #[test]
        fn rectangle_group_is_closed(a in 0usize..4, b in 0usize..4, x in 0usize..7, y in 0usize..5) {
            let size = BoardSize::new(7, 5).unwrap();
            let (a, b) = (Symmetry::ALL[a], Symmetry::ALL[b]);
            prop_assert!(!a.then(b).transposes());
            let (px, py) = a.apply_xy(size, x, y);
            prop_assert!(size.contains(px, py));
        }
    }

    #[test]
    fn eight_distinct_images_of_an_asymmetric_point() {
        let size = BoardSize::square(9).unwrap();
        let p = Point::new(1, 2);
        let mut images: Vec<Point> = Symmetry::ALL.iter().map(|s| s.apply(size, p)).collect();
        images.sort();
        images.dedup();
        assert_eq!(images.len(), 8);
    }
}
