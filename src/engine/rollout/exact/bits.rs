//! The solver's positions as bitboards: the board's shape as masks, and a position's stones, liberties
//! and moves computed on them.

use super::{MAX_AREA, safety};
use crate::go::{Board, BoardSize, Color, Point, zobrist};

/// The board's shape as bit masks: point `y * width + x` is bit `y * width + x`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Geometry {
    pub(super) width: usize,
    pub(super) area: usize,
    pub(super) all: u32,
    /// Points not in the first column (where a shift to the right may land) and not in the last.
    pub(super) not_first_column: u32,
    pub(super) not_last_column: u32,
    /// Each bit's padded-grid index, for the Zobrist keys the superko history is written in.
    pub(super) grid: [u16; MAX_AREA],
}

impl Geometry {
    pub(super) fn new(size: BoardSize) -> Option<Geometry> {
        let (width, area) = (size.width(), size.area());
        if area > MAX_AREA {
            return None;
        }
        let all = (1u32 << area) - 1;
        let column = |x: usize| (0..size.height()).fold(0u32, |m, y| m | 1 << (y * width + x));
        let mut grid = [0u16; MAX_AREA];
        for (i, p) in size.points().enumerate() {
            grid[i] = p.index() as u16;
        }
        Some(Geometry {
            width,
            area,
            all,
            not_first_column: all & !column(0),
            not_last_column: all & !column(width - 1),
            grid,
        })
    }

    #[inline]
    pub(super) fn neighbours(&self, m: u32) -> u32 {
        (((m << 1) & self.not_first_column)
            | ((m >> 1) & self.not_last_column)
            | (m << self.width)
            | (m >> self.width))
            & self.all
    }

    /// The connected part of `within` that contains `seed`.
    #[inline]
    pub(super) fn flood(&self, within: u32, seed: u32) -> u32 {
        let mut region = seed;
        loop {
            let grown = (region | self.neighbours(region)) & within;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    pub(super) fn point(&self, bit: usize) -> Point {
        Point::from_index(self.grid[bit] as usize)
    }
}

/// The stones (Black's mask, White's) and their Zobrist hash, equal to [`Board::stone_hash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Position {
    pub(super) stones: [u32; 2],
    pub(super) hash: u128,
}

impl Position {
    pub(super) fn of(board: &Board, geo: &Geometry) -> Position {
        let mut pos = Position {
            stones: [0; 2],
            hash: 0,
        };
        for bit in 0..geo.area {
            if let Some(c) = board.color_at(geo.point(bit)) {
                pos.stones[c.index()] |= 1 << bit;
                pos.hash ^= zobrist::STONE[c.index()][geo.grid[bit] as usize];
            }
        }
        pos
    }

    pub(super) fn occupied(&self) -> u32 {
        self.stones[0] | self.stones[1]
    }

    pub(super) fn stone_count(&self) -> usize {
        self.occupied().count_ones() as usize
    }

    /// The position after `color` plays at the empty `bit`, and whether it captured; `None` for suicide.
    #[inline]
    pub(super) fn play(
        &self,
        geo: &Geometry,
        color: Color,
        bit: usize,
    ) -> Option<(Position, bool)> {
        let (me, them) = (color.index(), color.opponent().index());
        let stone = 1u32 << bit;
        let mut next = *self;
        next.stones[me] |= stone;
        next.hash ^= zobrist::STONE[me][geo.grid[bit] as usize];
        let empty = geo.all & !next.occupied();
        let mut enemies = geo.neighbours(stone) & next.stones[them];
        let mut captured = false;
        while enemies != 0 {
            let chain = geo.flood(next.stones[them], enemies & enemies.wrapping_neg());
            enemies &= !chain;
            if geo.neighbours(chain) & empty == 0 {
                next.remove(geo, them, chain);
                captured = true;
            }
        }
        // A capture always frees a point next to the new stone.
        let own = geo.flood(next.stones[me], stone);
        if !captured && geo.neighbours(own) & empty == 0 {
            return None;
        }
        Some((next, captured))
    }

    pub(super) fn remove(&mut self, geo: &Geometry, side: usize, chain: u32) {
        self.stones[side] &= !chain;
        let mut rest = chain;
        while rest != 0 {
            let bit = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.hash ^= zobrist::STONE[side][geo.grid[bit] as usize];
        }
    }

    /// Each side's pass-alive area (see [`safety`]): points it keeps whatever the other does.
    pub(super) fn safe_areas(&self, geo: &Geometry) -> [u32; 2] {
        let [black, white] = self.stones;
        let black_safe = safety::pass_alive_area(geo, black, white);
        [
            black_safe,
            safety::pass_alive_area(geo, white, black) & !black_safe,
        ]
    }

    /// The position with the stones inside each side's safe area taken off, as its owner would before
    /// the game ends (the solver plays no move inside a safe area).
    pub(super) fn cleared(&self, geo: &Geometry) -> Position {
        let [black_safe, white_safe] = self.safe_areas(geo);
        let mut clear = *self;
        clear.stones[0] &= !white_safe;
        clear.stones[1] &= !black_safe;
        clear
    }

    /// Black's area minus White's (Tromp-Taylor: stones plus empty regions only one colour reaches).
    pub(super) fn black_area(&self, geo: &Geometry) -> i32 {
        let [black, white] = self.stones;
        let mut diff = black.count_ones() as i32 - white.count_ones() as i32;
        let empty = geo.all & !self.occupied();
        let mut left = empty;
        while left != 0 {
            let region = geo.flood(empty, left & left.wrapping_neg());
            left &= !region;
            let border = geo.neighbours(region);
            let size = region.count_ones() as i32;
            match (border & black != 0, border & white != 0) {
                (true, false) => diff += size,
                (false, true) => diff -= size,
                _ => {}
            }
        }
        diff
    }
}
