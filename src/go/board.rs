//! The board: stones, chains, captures and the simple-ko point, built for speed.
//!
//! Chains are circular linked lists of stones with a representative ("head"). Each head keeps its size and
//! its *pseudo-liberties* (one count per stone–empty adjacency) with their sum and sum of squares: a chain
//! is captured when the count reaches zero and is in atari exactly when all its pseudo-liberties are the
//! same point, i.e. `count * sum_sq == sum * sum`. This keeps `play` free of flood fills.
//!
//! Invariants: every stone's `head` is its chain's head; `next` links each chain's stones in a cycle; the
//! empty list holds exactly the empty on-board points; `hash` is the XOR of the stone keys on the board.

use super::coord::{BoardSize, Color, GRID, Move, Point, PointSet, STRIDE};
use super::zobrist;

/// What a cell of the padded grid holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Cell {
    Black = 0,
    White = 1,
    Empty = 2,
    Border = 3,
}

impl Cell {
    pub fn stone(color: Color) -> Cell {
        match color {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }

    pub fn color(self) -> Option<Color> {
        match self {
            Cell::Black => Some(Color::Black),
            Cell::White => Some(Color::White),
            _ => None,
        }
    }
}

const NEIGHBOUR_OFFSETS: [isize; 4] = [-(STRIDE as isize), -1, 1, STRIDE as isize];

/// The four orthogonal neighbours of a point (some may be border cells).
#[inline]
pub fn neighbours(p: Point) -> [Point; 4] {
    let i = p.index() as isize;
    NEIGHBOUR_OFFSETS.map(|d| Point::from_index((i + d) as usize))
}

/// The four diagonal neighbours of a point (some may be border cells or off the padded grid's edge).
#[inline]
pub fn diagonals(p: Point) -> [Point; 4] {
    let i = p.index() as isize;
    let s = STRIDE as isize;
    [-s - 1, -s + 1, s - 1, s + 1].map(|d| Point::from_index((i + d) as usize))
}

/// Why a move cannot be played on the bare board (before any superko check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("the point is occupied")]
    Occupied,
    #[error("the point is off the board")]
    OffBoard,
    #[error("the move retakes a ko")]
    Ko,
    #[error("the move is suicide")]
    Suicide,
    #[error("the move repeats an earlier position (superko)")]
    Superko,
    #[error("the game is over")]
    GameOver,
}

/// The outcome of placing a stone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Placed {
    pub captured: u32,
    pub suicided: u32,
}

#[derive(Clone)]
pub struct Board {
    size: BoardSize,
    cells: [Cell; GRID],
    head: [u16; GRID],
    next: [u16; GRID],
    stones: [u16; GRID],
    libs: [u16; GRID],
    lib_sum: [u32; GRID],
    lib_sum_sq: [u32; GRID],
    empty_list: [u16; GRID],
    empty_pos: [u16; GRID],
    empty_count: u16,
    ko: Option<Point>,
    hash: u128,
    captures: [u32; 2],
}

impl Board {
    pub fn new(size: BoardSize) -> Board {
        let mut board = Board {
            size,
            cells: [Cell::Border; GRID],
            head: [0; GRID],
            next: [0; GRID],
            stones: [0; GRID],
            libs: [0; GRID],
            lib_sum: [0; GRID],
            lib_sum_sq: [0; GRID],
            empty_list: [0; GRID],
            empty_pos: [0; GRID],
            empty_count: 0,
            ko: None,
            hash: 0,
            captures: [0; 2],
        };
        for p in size.points() {
            board.cells[p.index()] = Cell::Empty;
            board.push_empty(p);
        }
        board
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Makes this board a copy of `source`. Between boards of one size only the rows of the padded grid
    /// that size uses are copied (the rest never changes), a fraction of a clone on small boards: what a
    /// search that restarts from the same position every iteration needs.
    pub fn copy_from(&mut self, source: &Board) {
        if self.size != source.size {
            self.clone_from(source);
            return;
        }
        let used = ((self.size.height() + 2) * STRIDE).min(GRID);
        self.cells[..used].copy_from_slice(&source.cells[..used]);
        for (to, from) in [
            (&mut self.head, &source.head),
            (&mut self.next, &source.next),
            (&mut self.stones, &source.stones),
            (&mut self.libs, &source.libs),
            (&mut self.empty_pos, &source.empty_pos),
        ] {
            to[..used].copy_from_slice(&from[..used]);
        }
        self.lib_sum[..used].copy_from_slice(&source.lib_sum[..used]);
        self.lib_sum_sq[..used].copy_from_slice(&source.lib_sum_sq[..used]);
        let empty = source.empty_count as usize;
        self.empty_list[..empty].copy_from_slice(&source.empty_list[..empty]);
        self.empty_count = source.empty_count;
        self.ko = source.ko;
        self.hash = source.hash;
        self.captures = source.captures;
    }

    #[inline]
    pub fn cell(&self, p: Point) -> Cell {
        self.cells[p.index()]
    }

    pub fn color_at(&self, p: Point) -> Option<Color> {
        self.cell(p).color()
    }

    pub fn is_on_board(&self, p: Point) -> bool {
        p.index() < GRID && self.cells[p.index()] != Cell::Border
    }

    /// The point the player to move may not play because of a simple ko, if any.
    pub fn ko_point(&self) -> Option<Point> {
        self.ko
    }

    pub fn clear_ko(&mut self) {
        self.ko = None;
    }

    /// XOR of the stone keys: equal boards have equal hashes.
    pub fn stone_hash(&self) -> u128 {
        self.hash
    }

    /// Stones captured so far by each colour (prisoners held by Black, then White).
    pub fn captures(&self, by: Color) -> u32 {
        self.captures[by.index()]
    }

    pub fn empty_points(&self) -> &[u16] {
        &self.empty_list[..self.empty_count as usize]
    }

    pub fn empty_count(&self) -> usize {
        self.empty_count as usize
    }

    /// The chain's representative stone; chains compare equal by their heads.
    #[inline]
    pub fn chain_head(&self, p: Point) -> Point {
        Point::from_index(self.head[p.index()] as usize)
    }

    pub fn chain_size(&self, p: Point) -> usize {
        self.stones[self.head[p.index()] as usize] as usize
    }

    /// The stones of the chain through `p`.
    pub fn chain_stones(&self, p: Point) -> Vec<Point> {
        let mut out = Vec::new();
        let mut s = p.index();
        loop {
            out.push(Point::from_index(s));
            s = self.next[s] as usize;
            if s == p.index() {
                return out;
            }
        }
    }

    /// The distinct liberties of the chain through `p`.
    pub fn chain_liberties(&self, p: Point) -> Vec<Point> {
        let mut libs = Vec::new();
        self.for_each_liberty(p, |l| libs.push(l));
        libs
    }

    /// The number of distinct liberties of the chain through `p`, without allocating.
    pub fn liberty_count(&self, p: Point) -> usize {
        let mut count = 0;
        self.for_each_liberty(p, |_| count += 1);
        count
    }

    /// Calls `visit` once for each distinct liberty of the chain through `p`. A bit set over the grid
    /// deduplicates: readers call this in their inner loops, where a list per call was most of the cost.
    pub fn for_each_liberty(&self, p: Point, mut visit: impl FnMut(Point)) {
        let mut seen = PointSet::default();
        let mut s = p.index();
        loop {
            for n in neighbours(Point::from_index(s)) {
                if self.cells[n.index()] == Cell::Empty && seen.add(n) {
                    visit(n);
                }
            }
            s = self.next[s] as usize;
            if s == p.index() {
                return;
            }
        }
    }

    /// Whether the chain through `p` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, p: Point) -> bool {
        let h = self.head[p.index()] as usize;
        let n = self.libs[h] as u64;
        n > 0 && n * self.lib_sum_sq[h] as u64 == (self.lib_sum[h] as u64).pow(2)
    }

    /// The single liberty of a chain in atari.
    #[inline]
    pub fn atari_liberty(&self, p: Point) -> Point {
        let h = self.head[p.index()] as usize;
        Point::from_index((self.lib_sum[h] / self.libs[h] as u32) as usize)
    }

    /// Checks a move for `color` on the bare board: occupancy, simple ko and suicide. Superko is the
    /// game's business. `multi_stone_suicide` allows a move that kills its own chain of two or more stones.
    pub fn check(
        &self,
        color: Color,
        p: Point,
        multi_stone_suicide: bool,
    ) -> Result<(), IllegalMove> {
        if !self.is_on_board(p) {
            return Err(IllegalMove::OffBoard);
        }
        if self.cell(p) != Cell::Empty {
            return Err(IllegalMove::Occupied);
        }
        if self.ko == Some(p) {
            return Err(IllegalMove::Ko);
        }
        if self.has_liberty_after(color, p) {
            return Ok(());
        }
        let joins_own = neighbours(p)
            .iter()
            .any(|&n| self.cell(n) == Cell::stone(color));
        if multi_stone_suicide && joins_own {
            Ok(())
        } else {
            Err(IllegalMove::Suicide)
        }
    }

    /// Whether a stone of `color` at the empty point `p` would have a liberty after captures.
    #[inline]
    pub fn has_liberty_after(&self, color: Color, p: Point) -> bool {
        let own = Cell::stone(color);
        for n in neighbours(p) {
            match self.cell(n) {
                Cell::Empty => return true,
                Cell::Border => {}
                c if c == own => {
                    if !self.in_atari(n) {
                        return true;
                    }
                }
                _ => {
                    if self.in_atari(n) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Whether `p` is a single-point eye of `color`: all neighbours are its stones and enough diagonals too
    /// (the usual playout rule: at most one bad diagonal in the middle, none on the edge).
    pub fn is_eye(&self, color: Color, p: Point) -> bool {
        let own = Cell::stone(color);
        if neighbours(p).iter().any(|&n| {
            let c = self.cell(n);
            c != own && c != Cell::Border
        }) {
            return false;
        }
        let mut bad = 0;
        let mut edge = false;
        for d in diagonals(p) {
            match self.cells.get(d.index()).copied().unwrap_or(Cell::Border) {
                Cell::Border => edge = true,
                c if c == own => {}
                Cell::Empty => {}
                _ => bad += 1,
            }
        }
        bad + usize::from(edge) < 2
    }

    /// The stone hash the board would have after `color` plays at the empty point `p` (captures and
    /// suicide included), without playing: what superko checks need, at the cost of a few chain walks.
    pub fn hash_after(&self, color: Color, p: Point) -> u128 {
        let own = Cell::stone(color);
        let mut h = self.hash ^ zobrist::STONE[color.index()][p.index()];
        let mut seen: [u16; 4] = [0; 4];
        let mut captured_any = false;
        for (k, n) in neighbours(p).into_iter().enumerate() {
            let cell = self.cell(n);
            if cell == Cell::Empty || cell == Cell::Border || cell == own {
                continue;
            }
            let head = self.head[n.index()];
            if seen[..k].contains(&head) || !self.in_atari(n) {
                continue;
            }
            seen[k] = head;
            captured_any = true;
            h ^= self.chain_hash(n);
        }
        if !captured_any && !self.has_liberty_after(color, p) {
            // Suicide: the new stone and every own chain it joins leave the board.
            h ^= zobrist::STONE[color.index()][p.index()];
            for (k, n) in neighbours(p).into_iter().enumerate() {
                if self.cell(n) == own {
                    let head = self.head[n.index()];
                    if !seen[..k].contains(&head) {
                        seen[k] = head;
                        h ^= self.chain_hash(n);
                    }
                }
            }
        }
        h
    }

    /// XOR of the stone keys of the chain through `p`.
    fn chain_hash(&self, p: Point) -> u128 {
        let key = match self.cell(p).color() {
            Some(c) => &zobrist::STONE[c.index()],
            None => return 0,
        };
        self.chain_stones(p)
            .iter()
            .fold(0, |h, s| h ^ key[s.index()])
    }

    /// Plays a move assumed legal (see [`Board::check`]). Passing only clears the ko point.
    pub fn play(&mut self, color: Color, mv: Move) -> Placed {
        match mv {
            Move::Pass => {
                self.ko = None;
                Placed::default()
            }
            Move::Play(p) => self.place(color, p),
        }
    }

    /// Places a stone (legality assumed), captures, and updates the ko point.
    pub fn place(&mut self, color: Color, p: Point) -> Placed {
        let pi = p.index();
        self.remove_empty(p);
        self.cells[pi] = Cell::stone(color);
        self.hash ^= zobrist::STONE[color.index()][pi];
        self.head[pi] = pi as u16;
        self.next[pi] = pi as u16;
        self.stones[pi] = 1;
        self.libs[pi] = 0;
        self.lib_sum[pi] = 0;
        self.lib_sum_sq[pi] = 0;

        let own = Cell::stone(color);
        let enemy = Cell::stone(color.opponent());
        for n in neighbours(p) {
            match self.cell(n) {
                Cell::Empty => self.add_lib(pi, n.index()),
                Cell::Border => {}
                _ => {
                    let h = self.head[n.index()] as usize;
                    self.remove_lib(h, pi);
                }
            }
        }
        for n in neighbours(p) {
            if self.cell(n) == own {
                let a = self.head[pi] as usize;
                let b = self.head[n.index()] as usize;
                if a != b {
                    self.merge(a, b);
                }
            }
        }
        let mut placed = Placed::default();
        let mut last_captured = p;
        for n in neighbours(p) {
            if self.cell(n) == enemy && self.libs[self.head[n.index()] as usize] == 0 {
                last_captured = n;
                placed.captured += self.remove_chain(n);
            }
        }
        self.captures[color.index()] += placed.captured;
        let h = self.head[pi] as usize;
        self.ko = None;
        if self.libs[h] == 0 {
            placed.suicided = self.remove_chain(p);
            self.captures[color.opponent().index()] += placed.suicided;
        } else if placed.captured == 1 && self.stones[h] == 1 && self.in_atari(p) {
            self.ko = Some(last_captured);
        }
        placed
    }

    /// Puts a stone on an empty point without captures or ko (SGF setup). Chains without liberties are
    /// removed afterwards, as SGF viewers do.
    pub fn setup_stone(&mut self, color: Color, p: Point) {
        if self.cell(p) == Cell::Empty {
            let saved = (self.captures, self.ko);
            self.place(color, p);
            (self.captures, self.ko) = saved;
        }
    }

    /// Clears a point (SGF `AE`), rebuilding the chains around it.
    pub fn remove_stone(&mut self, p: Point) {
        if self.color_at(p).is_none() {
            return;
        }
        let stones: Vec<(Color, Point)> = self
            .size
            .points()
            .filter(|&q| q != p)
            .filter_map(|q| self.color_at(q).map(|c| (c, q)))
            .collect();
        let (captures, ko) = (self.captures, self.ko);
        *self = Board::new(self.size);
        for (c, q) in stones {
            self.setup_stone(c, q);
        }
        (self.captures, self.ko) = (captures, ko);
    }

    #[inline]
    fn add_lib(&mut self, head: usize, lib: usize) {
        self.libs[head] += 1;
        self.lib_sum[head] += lib as u32;
        self.lib_sum_sq[head] += (lib * lib) as u32;
    }

    #[inline]
    fn remove_lib(&mut self, head: usize, lib: usize) {
        self.libs[head] -= 1;
        self.lib_sum[head] -= lib as u32;
        self.lib_sum_sq[head] -= (lib * lib) as u32;
    }

    /// Merges two chains, relabelling the smaller one.
    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.stones[a] >= self.stones[b] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = self.next[s] as usize;
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.stones[big] += self.stones[small];
        self.libs[big] += self.libs[small];
        self.lib_sum[big] += self.lib_sum[small];
        self.lib_sum_sq[big] += self.lib_sum_sq[small];
    }

    /// Removes the chain through `p`, giving liberties back to its neighbours. Returns the stone count.
    fn remove_chain(&mut self, p: Point) -> u32 {
        let color = self.cell(p).color().expect("remove_chain on a stone");
        let key = &zobrist::STONE[color.index()];
        let start = p.index();
        let mut s = start;
        let mut count = 0;
        loop {
            let following = self.next[s] as usize;
            self.cells[s] = Cell::Empty;
            self.hash ^= key[s];
            self.push_empty(Point::from_index(s));
            count += 1;
            for n in neighbours(Point::from_index(s)) {
                if let Some(c) = self.cell(n).color()
                    && c != color
                {
                    let h = self.head[n.index()] as usize;
                    self.add_lib(h, s);
                }
            }
            s = following;
            if s == start {
                return count;
            }
        }
    }

    #[inline]
    fn push_empty(&mut self, p: Point) {
        self.empty_pos[p.index()] = self.empty_count;
        self.empty_list[self.empty_count as usize] = p.index() as u16;
        self.empty_count += 1;
    }

    #[inline]
    fn remove_empty(&mut self, p: Point) {
        let pos = self.empty_pos[p.index()] as usize;
        self.empty_count -= 1;
        let last = self.empty_list[self.empty_count as usize];
        self.empty_list[pos] = last;
        self.empty_pos[last as usize] = pos as u16;
    }
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size
            && self.size.points().all(|p| self.cell(p) == other.cell(p))
            && self.ko == other.ko
    }
}

mod render;
#[cfg(test)]
mod tests;
