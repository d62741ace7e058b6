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
    /// The last liberties, outside the region, of the chains in atari there: local play may take such a
    /// point (or extend from it), since the edge of the region does not save a chain in atari. Empty
    /// (no allocation) in almost every position.
    outside_last_liberties: Vec<Point>,
}

impl Settlement {
    pub fn assess(board: &Board, region: &Region, sealed: &Sealed) -> Settlement {
        Settlement::assess_within(board, region, region, sealed)
    }

    /// [`Settlement::assess`] for a part of the region `whole`: the part's neighbouring points in the
    /// rest of `whole` are still in play, so they are nobody's sphere.
    pub fn assess_within(
        board: &Board,
        region: &Region,
        whole: &Region,
        sealed: &Sealed,
    ) -> Settlement {
        let mut settlement = Settlement {
            owner: [None; GRID],
            safe: [false; GRID],
            local: [false; GRID],
            outside_last_liberties: Vec::new(),
        };
        let mut scratch = Scratch::default();
        let mut spheres = Spheres::new(whole);
        for color in [Color::Black, Color::White] {
            assess_colour(
                board,
                region,
                sealed,
                color,
                &mut settlement,
                &mut scratch,
                &mut spheres,
            );
        }
        settlement
    }

    /// Whether the stone at `p` belongs to a chain in or next to the region.
    pub fn is_local(&self, p: Point) -> bool {
        self.local[p.index()]
    }

    /// The points outside the region that are the last liberty of a chain in or next to it.
    pub fn outside_last_liberties(&self) -> &[Point] {
        &self.outside_last_liberties
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

/// Which colour's sphere each point outside the region lies in, worked out once per point and position.
struct Spheres<'a> {
    /// The whole region searched: a point of it outside the part being assessed is nobody's sphere.
    whole: &'a Region,
    /// The sphere by the stones outside the region alone. 0: not yet worked out; 1: nobody's; 2:
    /// Black's; 3: White's.
    known: [u8; GRID],
    /// Whether a stone of the region is within reach (then the sphere depends on what is judged).
    /// 0: not yet worked out; 1: no; 2: yes.
    near_region: [u8; GRID],
}

/// How far (through empty points outside the region) a point's sphere looks for stones.
const SPHERE_REACH: usize = 3;

impl Spheres<'_> {
    fn new(whole: &Region) -> Spheres<'_> {
        Spheres {
            whole,
            known: [0; GRID],
            near_region: [0; GRID],
        }
    }

    /// The colour whose stones are nearest to the empty outside point `p` (through empty outside points,
    /// within `SPHERE_REACH`), or `None` when both are as near or neither is. Local play never fills such
    /// a point; the course counts it as part of the wall behind it, so a stone of the other colour gains
    /// no safety from it, and an area it closes is not open. The wall is every stone but those `judged`:
    /// stones outside the region, and stones in it (a wall's stones are often marked in the region: an
    /// invader at D19 between Black's C18 and E18 is not anchored by E19 beside E18), except the chain
    /// or area whose fate is being decided, which cannot be its own wall: a stone `p` of the region
    /// counts when `counts(p)`.
    fn of(&mut self, board: &Board, p: Point, counts: impl Fn(Point) -> bool) -> Option<Color> {
        if self.whole.contains(p) {
            return None;
        }
        // Cached when no stone of the region is within reach: then only the stones outside decide.
        if self.known[p.index()] == 0 {
            self.known[p.index()] = match nearest_colour(board, self.whole, p, |_| true) {
                None => 1,
                Some(Color::Black) => 2,
                Some(Color::White) => 3,
            };
        }
        if self.near_region[p.index()] == 0 {
            self.near_region[p.index()] = 1 + region_stone_within_reach(board, self.whole, p) as u8;
        }
        if self.near_region[p.index()] == 2 {
            return nearest_colour(board, self.whole, p, counts);
        }
        match self.known[p.index()] {
            2 => Some(Color::Black),
            3 => Some(Color::White),
            _ => None,
        }
    }
}

/// The outside empty points within `SPHERE_REACH - 1` steps of `p` (through empty outside points), `p`
/// included, into `seen`; returns how many.
fn reach(board: &Board, whole: &Region, p: Point, seen: &mut [Point; 32]) -> usize {
    seen[0] = p;
    let mut seen_len = 1;
    let mut frontier = 0..1;
    for _ in 1..SPHERE_REACH {
        let next_start = seen_len;
        for i in frontier.clone() {
            for n in neighbours(seen[i]) {
                if !whole.contains(n)
                    && board.cell(n) == Cell::Empty
                    && seen_len < seen.len()
                    && !seen[..seen_len].contains(&n)
                {
                    seen[seen_len] = n;
                    seen_len += 1;
                }
            }
        }
        frontier = next_start..seen_len;
    }
    seen_len
}

/// Whether a stone of the region lies next to an outside point within reach of `p`.
fn region_stone_within_reach(board: &Board, whole: &Region, p: Point) -> bool {
    let mut seen = [p; 32];
    let len = reach(board, whole, p, &mut seen);
    seen[..len].iter().any(|&q| {
        neighbours(q)
            .iter()
            .any(|&n| whole.contains(n) && board.color_at(n).is_some())
    })
}

/// The colour of the nearest stones to `p` through empty outside points: stones outside the region,
/// and stones of the region for which `counts` holds.
fn nearest_colour(
    board: &Board,
    whole: &Region,
    p: Point,
    counts: impl Fn(Point) -> bool,
) -> Option<Color> {
    // Within SPHERE_REACH steps of a point there are at most 25 points: fixed buffers, no allocation.
    let mut seen = [p; 32];
    let mut seen_len = 1;
    let mut frontier = 0..1;
    for _ in 0..SPHERE_REACH {
        let mut found = [false; 2];
        let next_start = seen_len;
        for i in frontier.clone() {
            for n in neighbours(seen[i]) {
                if whole.contains(n) {
                    if let Some(c) = board.color_at(n)
                        && counts(n)
                    {
                        found[c.index()] = true;
                    }
                    continue;
                }
                match board.cell(n) {
                    Cell::Empty => {
                        if seen_len < seen.len() && !seen[..seen_len].contains(&n) {
                            seen[seen_len] = n;
                            seen_len += 1;
                        }
                    }
                    Cell::Border => {}
                    _ => {
                        if let Some(c) = board.color_at(n) {
                            found[c.index()] = true;
                        }
                    }
                }
            }
        }
        match found {
            [true, false] => return Some(Color::Black),
            [false, true] => return Some(Color::White),
            [true, true] => return None,
            _ => frontier = next_start..seen_len,
        }
    }
    None
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
        scratch.points.push(start);
        scratch.liberties.clear();
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
                    Cell::Empty if !region.contains(n) => {
                        if !scratch.liberties.contains(&n) {
                            scratch.liberties.push(n);
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
        settlement.local[s.index()] = true;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::test_support::{at, board_with};

    fn region(gtp: &[&str]) -> Region {
        Region::new(gtp.iter().map(|s| at(s)))
    }

    #[test]
    fn a_chain_in_atari_is_not_anchored_by_its_last_liberty_outside() {
        // White D19-D18 has one liberty, E19, outside the region: local play may take it there.
        let board = board_with(&["C19", "C18", "D17", "E18"], &["D19", "D18"]);
        let region = region(&["D19", "D18", "C19", "C18"]);
        let s = Settlement::assess(&board, &region, &Sealed::default());
        assert!(!s.is_safe(at("D19")));
        assert_eq!(s.outside_last_liberties(), [at("E19")]);
        // With E18 empty too (next to White's F18) it has two liberties, outside in White's sphere:
        // anchored, and nothing to take outside.
        let board = board_with(&["C19", "C18", "D17"], &["D19", "D18", "F18"]);
        let s = Settlement::assess(&board, &region, &Sealed::default());
        assert!(s.is_safe(at("D19")));
        assert!(s.outside_last_liberties().is_empty());
    }

    #[test]
    fn the_wall_s_stones_in_the_region_make_the_sphere_of_a_point_beside_them() {
        // 04-value-of-reverse-sente/01 after Black D16: Black's C18 and E18 are marked in the region,
        // with D19 between them; C19 and E19 lie outside it. White's invader at D19 has liberties C19 and
        // E19: E19's nearest stone is Black's E18 (the invader itself is not its own wall), so it is
        // Black's sphere, the invader is not anchored, and after Black D18 it is dead in Black's
        // territory. With only the stones outside counted, E19 was nobody's and D19 lived.
        let black = [
            "A18", "B18", "C18", "C17", "E18", "D16", "E16", "F16", "G16",
        ];
        let white = ["A17", "B17", "C16", "B15", "D15", "E15", "C14"];
        let problem = region(&[
            "C18", "C17", "C16", "D16", "E16", "E17", "E18", "D18", "D17", "D19", "F17",
        ]);
        let mut board = board_with(&black, &white);
        board.setup_stone(Color::White, at("D19"));
        let s = Settlement::assess(&board, &problem, &Sealed::default());
        assert!(!s.is_safe(at("D19")));
        board.setup_stone(Color::Black, at("D18"));
        let s = Settlement::assess(&board, &problem, &Sealed::default());
        assert!(!s.is_safe(at("D19")));
        assert_eq!(s.owner(at("D19")), Some(Color::Black));
        assert!(s.is_settled(&board, &problem, false));
        // D17, E17, F17, and D19 with its dead stone as a prisoner.
        assert_eq!(s.count(&board, &problem, false), 5);
    }

    #[test]
    fn the_outside_wall_s_sphere_closes_an_area_and_anchors_no_invader() {
        // White's corner wall D19-D18-D17-E17-F17 with Black outside it; the region is E19-E18-F19-F18,
        // and G19-G18 beyond it (outside) lie next to White's G17 stone: White's sphere.
        let black = ["C19", "C18", "C17", "D16", "E16", "F16", "G16"];
        let white = [
            "D19", "D18", "D17", "E17", "F17", "G17", "H17", "H18", "H19",
        ];
        let board = board_with(&black, &white);
        let corner = region(&["E19", "E18", "F19", "F18"]);
        let s = Settlement::assess(&board, &corner, &Sealed::default());
        for p in ["E19", "E18", "F19", "F18"] {
            assert_eq!(s.owner(at(p)), Some(Color::White), "{p}");
        }
        // A Black invader at F18 with liberties F19 (inside) and G18 (White's sphere) is not anchored.
        let mut invaded = board.clone();
        invaded.setup_stone(Color::Black, at("F18"));
        invaded.setup_stone(Color::Black, at("E19"));
        let s = Settlement::assess(&invaded, &corner, &Sealed::default());
        assert!(!s.is_safe(at("F18")));
        // The same stone next to a neutral outside point (G18 between both colours) is anchored.
        let mut open = invaded.clone();
        open.setup_stone(Color::Black, at("G19"));
        open.remove_stone(at("H19"));
        open.remove_stone(at("H18"));
        open.setup_stone(Color::Black, at("H18"));
        let s = Settlement::assess(&open, &corner, &Sealed::default());
        assert!(s.is_safe(at("F18")));
    }
}
