//! Which chains and points of a region are settled: a local form of Benson's algorithm.
//!
//! Local play only fills points of the region, so a chain with a liberty outside the region can never be
//! captured ("anchored"). Starting from every chain that touches the region, Benson's iteration removes the
//! chains (not anchored) that lack two vital enclosed areas, where an area is a connected set of points of
//! the region not of the chain's colour, enclosed inside the region (an area reaching a point outside the
//! region that is not the chain's colour is open). What survives can never be captured. An enclosed area
//! whose bordering chains all survive and whose every empty point touches one of them is sure territory:
//! the opponent cannot make an eye there, so its stones inside are dead.

use super::region::{Region, Sealed};
use crate::go::board::neighbours;
use crate::go::coord::GRID;
use crate::go::{Board, Cell, Color, Point};
use std::ops::Range;

/// The settled status of a position's region. Fixed arrays rather than vectors: the solver assesses every
/// position it visits, and allocation was a large share of that cost.
#[derive(Clone, Debug)]
pub struct Settlement {
    /// Sure territory owner of each region point (empty or dead stone), by grid index.
    owner: [Option<Color>; GRID],
    /// Whether the chain through a stone can never be captured, by grid index.
    safe: [bool; GRID],
    /// Whether a stone belongs to a chain in or next to the region (the chains assessed), by grid index.
    local: [bool; GRID],
}

impl Settlement {
    pub fn assess(board: &Board, region: &Region, sealed: &Sealed) -> Settlement {
        let mut settlement = Settlement {
            owner: [None; GRID],
            safe: [false; GRID],
            local: [false; GRID],
        };
        let mut scratch = Scratch::default();
        for color in [Color::Black, Color::White] {
            assess_colour(board, region, sealed, color, &mut settlement, &mut scratch);
        }
        settlement
    }

    /// Whether the stone at `p` belongs to a chain in or next to the region.
    pub fn is_local(&self, p: Point) -> bool {
        self.local[p.index()]
    }

    /// The colour whose sure territory `p` is.
    pub fn owner(&self, p: Point) -> Option<Color> {
        self.owner[p.index()]
    }

    /// Whether the stone at `p` belongs to a chain that can never be captured.
    pub fn is_safe(&self, p: Point) -> bool {
        self.safe[p.index()]
    }

    /// Whether no move in the region can change the count: every empty point is sure territory or dame
    /// between safe chains of both colours (dame only under territory scoring), and every stone is safe or
    /// dead in the opponent's sure territory.
    pub fn is_settled(&self, board: &Board, region: &Region, dame_count: bool) -> bool {
        region.points().iter().all(|&p| match board.color_at(p) {
            Some(_) => self.safe[p.index()] || self.owner(p).is_some(),
            None => self.owner(p).is_some() || (!dame_count && self.is_safe_dame(board, p)),
        })
    }

    /// An empty point touching safe stones of both colours: nobody can ever own it.
    fn is_safe_dame(&self, board: &Board, p: Point) -> bool {
        let touches = |c: Color| {
            neighbours(p)
                .iter()
                .any(|&n| board.color_at(n) == Some(c) && self.safe[n.index()])
        };
        touches(Color::Black) && touches(Color::White)
    }

    /// The local count from Black's side. Territory: sure territory points plus dead stones as prisoners.
    /// Area: sure territory points plus stones on the board that are not dead.
    pub fn count(&self, board: &Board, region: &Region, area: bool) -> i64 {
        region
            .points()
            .iter()
            .map(|&p| self.point_count(board, p, area))
            .sum()
    }

    /// One region point's share of [`Settlement::count`].
    pub fn point_count(&self, board: &Board, p: Point, area: bool) -> i64 {
        let stone = board.color_at(p);
        match self.owner(p) {
            Some(c) if !area && stone == Some(c.opponent()) => 2 * c.sign() as i64,
            Some(c) => c.sign() as i64,
            None => match stone {
                Some(c) if area => c.sign() as i64,
                _ => 0,
            },
        }
    }
}

/// Marks "not assigned" in the per-point chain and area indices.
const NONE: u16 = u16::MAX;

/// Buffers reused for both colours: chains and areas are ranges into flat point lists.
#[derive(Default)]
struct Scratch {
    /// Every assessed chain's stones, chain after chain.
    stones: Vec<Point>,
    chains: Vec<Chain>,
    /// Every area's points, area after area; its empty points and bordering chains likewise.
    points: Vec<Point>,
    empties: Vec<Point>,
    borders: Vec<u16>,
    areas: Vec<Area>,
    liberties: Vec<Point>,
}

struct Chain {
    stones: Range<usize>,
    /// A liberty outside the region: local play can never capture it.
    anchored: bool,
}

struct Area {
    points: Range<usize>,
    empties: Range<usize>,
    borders: Range<usize>,
    open: bool,
}

/// The chains of `own` in or next to the region, flood-filled into `scratch` (indices in `chain_of`).
fn collect_chains(
    board: &Board,
    region: &Region,
    own: Cell,
    chain_of: &mut [u16; GRID],
    scratch: &mut Scratch,
) {
    scratch.stones.clear();
    scratch.chains.clear();
    for &p in region.points() {
        for q in std::iter::once(p).chain(neighbours(p)) {
            if board.cell(q) != own || chain_of[q.index()] != NONE {
                continue;
            }
            let id = scratch.chains.len() as u16;
            let start = scratch.stones.len();
            chain_of[q.index()] = id;
            scratch.stones.push(q);
            let mut anchored = false;
            let mut i = start;
            while i < scratch.stones.len() {
                for n in neighbours(scratch.stones[i]) {
                    let cell = board.cell(n);
                    if cell == own && chain_of[n.index()] == NONE {
                        chain_of[n.index()] = id;
                        scratch.stones.push(n);
                    } else if cell == Cell::Empty && !region.contains(n) {
                        anchored = true;
                    }
                }
                i += 1;
            }
            scratch.chains.push(Chain {
                stones: start..scratch.stones.len(),
                anchored,
            });
        }
    }
}

/// Enclosed areas: connected sets of region points not of `own`, flood-filled into `scratch`.
fn collect_areas(
    board: &Board,
    region: &Region,
    own: Cell,
    chain_of: &[u16; GRID],
    area_of: &mut [u16; GRID],
    scratch: &mut Scratch,
) {
    scratch.points.clear();
    scratch.empties.clear();
    scratch.borders.clear();
    scratch.areas.clear();
    for &start in region.points() {
        if board.cell(start) == own || area_of[start.index()] != NONE {
            continue;
        }
        let id = scratch.areas.len() as u16;
        let (first, first_empty, first_border) = (
            scratch.points.len(),
            scratch.empties.len(),
            scratch.borders.len(),
        );
        let mut open = false;
        area_of[start.index()] = id;
        scratch.points.push(start);
        let mut i = first;
        while i < scratch.points.len() {
            let p = scratch.points[i];
            if board.cell(p) == Cell::Empty {
                scratch.empties.push(p);
            }
            for n in neighbours(p) {
                match board.cell(n) {
                    Cell::Border => {}
                    c if c == own => {
                        let chain = chain_of[n.index()];
                        if !scratch.borders[first_border..].contains(&chain) {
                            scratch.borders.push(chain);
                        }
                    }
                    _ if !region.contains(n) => open = true,
                    _ => {
                        if area_of[n.index()] == NONE {
                            area_of[n.index()] = id;
                            scratch.points.push(n);
                        }
                    }
                }
            }
            i += 1;
        }
        scratch.areas.push(Area {
            points: first..scratch.points.len(),
            empties: first_empty..scratch.empties.len(),
            borders: first_border..scratch.borders.len(),
            open,
        });
    }
}

fn assess_colour(
    board: &Board,
    region: &Region,
    sealed: &Sealed,
    color: Color,
    settlement: &mut Settlement,
    scratch: &mut Scratch,
) {
    let own = Cell::stone(color);
    let mut chain_of = [NONE; GRID];
    collect_chains(board, region, own, &mut chain_of, scratch);
    for &s in &scratch.stones {
        settlement.local[s.index()] = true;
    }
    let mut area_of = [NONE; GRID];
    collect_areas(board, region, own, &chain_of, &mut area_of, scratch);
    let Scratch {
        stones,
        chains,
        points,
        empties,
        borders,
        areas,
        liberties,
    } = scratch;
    // A chain finds an area vital when each of its empty points is one of the chain's liberties.
    let adjacent_to = |p: Point, chain: u16| {
        neighbours(p)
            .iter()
            .any(|&n| board.cell(n) == own && chain_of[n.index()] == chain)
    };
    let mut alive = vec![true; chains.len()];
    loop {
        let mut changed = false;
        for chain in 0..chains.len() {
            if !alive[chain] || chains[chain].anchored {
                continue;
            }
            let id = chain as u16;
            let vital = areas
                .iter()
                .filter(|a| {
                    !a.open
                        && borders[a.borders.clone()]
                            .iter()
                            .all(|&b| alive[b as usize])
                })
                .filter(|a| borders[a.borders.clone()].contains(&id))
                .filter(|a| {
                    empties[a.empties.clone()]
                        .iter()
                        .all(|&e| adjacent_to(e, id))
                })
                .count();
            if vital < 2 {
                alive[chain] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (chain, c) in chains.iter().enumerate() {
        if alive[chain] {
            for s in &stones[c.stones.clone()] {
                settlement.safe[s.index()] = true;
            }
        }
    }
    // Captured space: an enclosed area whose empty points are all sealed against the opponent (it may
    // only play there to capture or give atari) is territory, and the chains around it are safe while
    // each keeps two liberties there. (Requiring three, so that no throw-in can give atari, solves
    // `01-value-of-move/05` but makes many other searches exceed their budget: 12 instead of 13 correct.)
    let opponent = color.opponent();
    let sealed_area = |a: &Area| {
        !a.open
            && !a.borders.is_empty()
            && !a.empties.is_empty()
            && empties[a.empties.clone()]
                .iter()
                .all(|&e| sealed.contains(region, opponent, e))
    };
    for (chain, c) in chains.iter().enumerate() {
        if alive[chain] {
            continue;
        }
        liberties.clear();
        for &s in &stones[c.stones.clone()] {
            for n in neighbours(s) {
                if board.cell(n) == Cell::Empty && !liberties.contains(&n) {
                    liberties.push(n);
                }
            }
        }
        let held = liberties.len() >= 2
            && liberties.iter().all(|&l| {
                areas
                    .get(area_of[l.index()] as usize)
                    .is_some_and(&sealed_area)
            });
        if held {
            alive[chain] = true;
        }
    }
    for area in areas.iter() {
        let bordering = &borders[area.borders.clone()];
        if area.open || bordering.is_empty() || !bordering.iter().all(|&b| alive[b as usize]) {
            continue;
        }
        let owned = sealed_area(area)
            || empties[area.empties.clone()]
                .iter()
                .all(|&e| bordering.iter().any(|&b| adjacent_to(e, b)));
        if owned {
            for p in &points[area.points.clone()] {
                settlement.owner[p.index()] = Some(color);
            }
        }
    }
}

/// A quick count of a position that may not be settled, for the ends of given lines: chains that are not
/// anchored (no liberty outside the region) and have a single liberty are dead; region points reached,
/// through empty and dead points, only by one colour's living stones are that colour's territory. Territory
/// scoring counts those points and the dead stones again as prisoners; area scoring counts territory and
/// living stones. Seki and eyes that a later move would spoil are beyond it.
pub fn estimate_count(board: &Board, region: &Region, area: bool) -> i64 {
    let dead = |p: Point| {
        board.color_at(p).is_some()
            && board.liberty_count(p) <= 1
            && !board
                .chain_liberties(p)
                .iter()
                .any(|&l| !region.contains(l))
            && board.chain_stones(p).iter().all(|&s| region.contains(s))
    };
    let mut seen = vec![false; GRID];
    let mut total = 0i64;
    for &start in region.points() {
        if seen[start.index()] {
            continue;
        }
        let stone = board.color_at(start);
        if stone.is_some() && !dead(start) {
            seen[start.index()] = true;
            if area && let Some(c) = stone {
                total += c.sign() as i64;
            }
            continue;
        }
        // A component of empty and dead points, with the living colours around it.
        let mut stack = vec![start];
        seen[start.index()] = true;
        let mut points = Vec::new();
        let mut touches = [false; 2];
        while let Some(p) = stack.pop() {
            points.push(p);
            for n in neighbours(p) {
                if !region.contains(n) {
                    if let Some(c) = board.color_at(n) {
                        touches[c.index()] = true;
                    } else if board.cell(n) == Cell::Empty {
                        touches = [true, true];
                    }
                    continue;
                }
                match board.color_at(n) {
                    Some(c) if !dead(n) => touches[c.index()] = true,
                    _ => {
                        if !seen[n.index()] {
                            seen[n.index()] = true;
                            stack.push(n);
                        }
                    }
                }
            }
        }
        let owner = match touches {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        };
        if let Some(c) = owner {
            for &p in &points {
                total += c.sign() as i64;
                if !area && board.color_at(p) == Some(c.opponent()) {
                    total += c.sign() as i64;
                }
            }
        }
    }
    total
}
