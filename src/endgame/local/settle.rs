//! Which chains and points of a region are settled: a local form of Benson's algorithm.
//!
//! Local play only fills points of the region, so a chain with a liberty outside the region and a second
//! liberty can never be captured ("anchored"). A chain in atari whose last liberty is outside is not: local
//! play may take it there (the solver's moves include such points). Starting from every chain that touches the region, Benson's iteration removes the
//! chains (not anchored) that lack two vital enclosed areas, where an area is a connected set of points of
//! the region not of the chain's colour, enclosed inside the region (an area reaching a point outside the
//! region that is not the chain's colour is open). What survives can never be captured. An enclosed area
//! whose bordering chains all survive and whose every empty point touches one of them is sure territory:
//! the opponent cannot make an eye there, so its stones inside are dead.

use super::area::flood;
use super::recent::Recent;
use super::spheres::Spheres;
use crate::endgame::region::{Region, Sealed};
use crate::go::board::neighbours;
use crate::go::coord::GRID;
use crate::go::{Board, BoardSize, Cell, Color, Point, PointSet};
use std::cell::RefCell;
use std::ops::Range;

/// The settled status of a position's region. Fixed bit sets rather than vectors or arrays of flags:
/// the solver assesses every position it visits (and remembers recent ones), so both allocation and
/// size were a large share of that cost.
#[derive(Clone, Debug)]
pub struct Settlement {
    /// Sure territory of each colour (Black's, White's): region points, empty or dead stones.
    owner: [PointSet; 2],
    /// Stones whose chain can never be captured.
    safe: PointSet,
    /// Stones of the chains in or next to the region (the chains assessed).
    local: PointSet,
    /// The last liberties, outside the region, of the chains in atari there: local play may take such a
    /// point (or extend from it), since the edge of the region does not save a chain in atari. Empty
    /// (no allocation) in almost every position.
    outside_last_liberties: Vec<Point>,
}

impl Settlement {
    pub fn assess(board: &Board, region: &Region, sealed: &Sealed) -> Settlement {
        Settlement::assess_colours(board, region, sealed, &[Color::Black, Color::White])
    }

    /// Whether the chain through the stone at `at` can never be captured. Only its colour is assessed:
    /// a colour's safe chains do not depend on the other colour's assessment, and readers ask this at
    /// every position they visit.
    pub fn chain_is_safe(board: &Board, region: &Region, at: Point) -> bool {
        let Some(color) = board.color_at(at) else {
            return false;
        };
        let key = (
            region.fingerprint(),
            board.stone_hash(),
            board.size(),
            color,
        );
        let hash = key.1 as u64 ^ color.index() as u64;
        if let Some(safe) = SAFE_STONES.with_borrow(|recent| recent.get(&key, hash)) {
            return safe.contains(at);
        }
        let safe = Settlement::assess_colours(board, region, &Sealed::default(), &[color]).safe;
        SAFE_STONES.with_borrow_mut(|recent| recent.insert(key, hash, safe));
        safe.contains(at)
    }

    fn assess_colours(
        board: &Board,
        region: &Region,
        sealed: &Sealed,
        colors: &[Color],
    ) -> Settlement {
        let mut settlement = Settlement {
            owner: [PointSet::default(); 2],
            safe: PointSet::default(),
            local: PointSet::default(),
            outside_last_liberties: Vec::new(),
        };
        let mut spheres = Spheres::new(region);
        SCRATCH.with_borrow_mut(|scratch| {
            for &color in colors {
                assess_colour(
                    board,
                    region,
                    sealed,
                    color,
                    &mut settlement,
                    scratch,
                    &mut spheres,
                );
            }
        });
        settlement
    }

    /// Whether the stone at `p` belongs to a chain in or next to the region.
    pub fn is_local(&self, p: Point) -> bool {
        self.local.contains(p)
    }

    /// The points outside the region that are the last liberty of a chain in or next to it.
    pub fn outside_last_liberties(&self) -> &[Point] {
        &self.outside_last_liberties
    }

    /// The colour whose sure territory `p` is.
    pub fn owner(&self, p: Point) -> Option<Color> {
        // White is assessed last and wins a point both colours' assessments claim.
        [Color::White, Color::Black]
            .into_iter()
            .find(|c| self.owner[c.index()].contains(p))
    }

    /// Whether the stone at `p` belongs to a chain that can never be captured.
    pub fn is_safe(&self, p: Point) -> bool {
        self.safe.contains(p)
    }

    /// Whether no move in the region can change the count: every empty point is sure territory or dame
    /// between safe chains of both colours (dame only under territory scoring), and every stone is safe or
    /// dead in the opponent's sure territory.
    pub fn is_settled(&self, board: &Board, region: &Region, dame_count: bool) -> bool {
        region.points().iter().all(|&p| match board.color_at(p) {
            Some(_) => self.safe.contains(p) || self.owner(p).is_some(),
            None => self.owner(p).is_some() || (!dame_count && self.is_safe_dame(board, p)),
        })
    }

    /// An empty point touching safe stones of both colours: nobody can ever own it.
    fn is_safe_dame(&self, board: &Board, p: Point) -> bool {
        let touches = |c: Color| {
            neighbours(p)
                .iter()
                .any(|&n| board.color_at(n) == Some(c) && self.safe.contains(n))
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

thread_local! {
    /// Every assessment on a thread reuses these buffers: searches assess every position they visit,
    /// and allocating the lists afresh each time was a large share of that cost.
    static SCRATCH: RefCell<Scratch> = RefCell::default();
    /// One colour's safe stones in recently read positions (`chain_is_safe`), direct-mapped by the
    /// stones: a reading asks at nearly every position it visits, and the readings of the chains of one
    /// position visit many of the same positions.
    static SAFE_STONES: RefCell<Recent<SafeKey, PointSet>> = RefCell::new(Recent::new(12));
}

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
    /// A liberty outside the region and a second one: local play can never fill the outside one, and
    /// the chain is not in atari there (a chain in atari may be taken at its last liberty, inside or out).
    anchored: bool,
}

/// Whether a chain has one liberty or more, counted without a list.
#[derive(Default)]
struct Liberties {
    first: Option<Point>,
    two: bool,
}

impl Liberties {
    fn see(&mut self, p: Point) {
        match self.first {
            None => self.first = Some(p),
            Some(q) if q != p => self.two = true,
            Some(_) => {}
        }
    }

    fn at_least_two(&self) -> bool {
        self.two
    }
}

/// The region (its fingerprint), the stones, the board's size and the colour whose safe stones are kept
/// (4,096 of them, about 0.4 MB).
type SafeKey = (u64, u128, BoardSize, Color);

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
    spheres: &mut Spheres,
    outside_last: &mut Vec<Point>,
) {
    let opponent = own.color().map(Color::opponent);
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
            let mut outside = None;
            let mut liberties = Liberties::default();
            scratch.liberties.clear();
            let mut i = start;
            while i < scratch.stones.len() {
                for n in neighbours(scratch.stones[i]) {
                    let cell = board.cell(n);
                    if cell == own && chain_of[n.index()] == NONE {
                        chain_of[n.index()] = id;
                        scratch.stones.push(n);
                    } else if cell == Cell::Empty {
                        liberties.see(n);
                        if !region.contains(n) {
                            outside = Some(n);
                            if !scratch.liberties.contains(&n) {
                                scratch.liberties.push(n);
                            }
                        }
                    }
                }
                i += 1;
            }
            // The chain's own stones are not the wall of its liberties' spheres.
            let chain_of = &*chain_of;
            let anchored = liberties.at_least_two()
                && scratch
                    .liberties
                    .iter()
                    .any(|&n| spheres.of(board, n, |s| chain_of[s.index()] != id) != opponent);
            if let Some(last) = outside.filter(|_| !liberties.at_least_two())
                && !outside_last.contains(&last)
            {
                outside_last.push(last);
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
    spheres: &mut Spheres,
) {
    let colour = own.color();
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
        scratch.liberties.clear();
        let (borders, liberties) = (&mut scratch.borders, &mut scratch.liberties);
        let points = flood(board, start, &mut scratch.points, |n| match board.cell(n) {
            c if c == own => {
                let chain = chain_of[n.index()];
                if !borders[first_border..].contains(&chain) {
                    borders.push(chain);
                }
                false
            }
            Cell::Empty if !region.contains(n) => {
                if !liberties.contains(&n) {
                    liberties.push(n);
                }
                false
            }
            _ if !region.contains(n) => {
                open = true;
                false
            }
            _ => {
                let join = area_of[n.index()] == NONE;
                if join {
                    area_of[n.index()] = id;
                }
                join
            }
        });
        let empty = |p: &&Point| board.cell(**p) == Cell::Empty;
        scratch
            .empties
            .extend(scratch.points[points].iter().filter(empty));
        // The area's own stones (the opponent's, whose fate it decides) are not the wall.
        let area_of = &*area_of;
        open |= scratch
            .liberties
            .iter()
            .any(|&n| spheres.of(board, n, |s| area_of[s.index()] != id) != colour);
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
    spheres: &mut Spheres,
) {
    let own = Cell::stone(color);
    let mut chain_of = [NONE; GRID];
    collect_chains(
        board,
        region,
        own,
        &mut chain_of,
        scratch,
        spheres,
        &mut settlement.outside_last_liberties,
    );
    for &s in &scratch.stones {
        settlement.local.insert(s);
    }
    let mut area_of = [NONE; GRID];
    collect_areas(
        board,
        region,
        own,
        &chain_of,
        &mut area_of,
        scratch,
        spheres,
    );
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
                settlement.safe.insert(*s);
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
    for (index, area) in areas.iter().enumerate() {
        let bordering = &borders[area.borders.clone()];
        if area.open || bordering.is_empty() || !bordering.iter().all(|&b| alive[b as usize]) {
            continue;
        }
        // An empty point next to the wall's sphere outside the region is as good as next to the wall.
        let mut walled = |e: Point| {
            bordering.iter().any(|&b| adjacent_to(e, b))
                || neighbours(e).iter().any(|&n| {
                    board.cell(n) == Cell::Empty
                        && !region.contains(n)
                        && spheres.of(board, n, |s| area_of[s.index()] as usize != index)
                            == Some(color)
                })
        };
        let owned = sealed_area(area) || empties[area.empties.clone()].iter().all(|&e| walled(e));
        if owned {
            for p in &points[area.points.clone()] {
                settlement.owner[color.index()].insert(*p);
            }
        }
    }
}

#[cfg(test)]
#[path = "settle_tests.rs"]
mod tests;
