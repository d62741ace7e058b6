//! Life and death of the chains of a region by a bounded local search, and the count a Go player gives a
//! finished local position ("judged" count).
//!
//! Benson's test (`settle`) only knows chains that can never be captured. Course problems end their lines
//! in positions a player counts at once although they are not pass-alive: a group with a straight three
//! whose vital point is taken is dead, a stone inside a dead shape is safe. Reading decides those: a
//! chain is dead when its opponent captures it even if its owner moves first, and safe when its opponent
//! cannot capture it even moving first. The search plays only on the region's empty points, allows
//! passes (two in a row end it), forbids repeating a position of the line (superko), and is bounded: a
//! search that runs out of budget proves nothing, so the chain stays undecided.

use super::region::{Region, Sealed};
use super::settle::Settlement;
use crate::go::board::neighbours;
use crate::go::coord::GRID;
use crate::go::{Board, Cell, Color, Point};
use std::collections::{HashMap, HashSet};

/// What reading says about a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Cannot be captured even if the opponent moves first (or it is anchored or Benson-safe).
    Safe,
    /// Captured even if its owner moves first.
    Dead,
    /// Whoever moves first decides, or the search ran out of budget.
    Open,
}

/// Positions one life-and-death search may visit before it gives up (proving nothing).
const READING_BUDGET: usize = 4_000;

/// The status of the chain through `at` (a stone inside the region or next to it).
pub fn chain_status(board: &Board, region: &Region, at: Point) -> Status {
    chain_status_within(board, region, at, READING_BUDGET)
}

fn chain_status_within(board: &Board, region: &Region, at: Point, budget: usize) -> Status {
    let Some(owner) = board.color_at(at) else {
        return Status::Safe;
    };
    if is_anchored(board, region, at) {
        return Status::Safe;
    }
    // Benson's test counts every chain with a liberty outside the region alive; one in atari is not.
    if board.liberty_count(at) >= 2
        && Settlement::assess(board, region, &Sealed::default()).is_safe(at)
    {
        return Status::Safe;
    }
    let mut start = board.clone();
    start.clear_ko();
    let attacker = owner.opponent();
    let mut reading = Reading::new(region, at, owner, budget);
    if reading.attacker_wins(&start, owner, 0, false) == Some(true) {
        return Status::Dead;
    }
    let mut reading = Reading::new(region, at, owner, budget);
    if reading.attacker_wins(&start, attacker, 0, true) == Some(false) {
        return Status::Safe;
    }
    Status::Open
}

/// A chain with a liberty outside the region and a second liberty: local play can never fill the
/// outside one. A chain in atari is not anchored by its last liberty lying outside: the opponent may
/// take it there (a stone that escapes along the edge into one liberty is still captured).
fn is_anchored(board: &Board, region: &Region, at: Point) -> bool {
    let liberties = board.chain_liberties(at);
    liberties.len() >= 2 && liberties.iter().any(|&l| !region.contains(l))
}

/// One search for "can the attacker capture the chain through `target`".
struct Reading<'a> {
    region: &'a Region,
    target: Point,
    defender: Color,
    /// Positions on the current line (stones and player to move): repeating one is not allowed.
    path: HashSet<(u128, Color)>,
    memo: HashMap<(u128, Option<Point>, Color, bool), bool>,
    visited: usize,
    budget: usize,
    depth_limit: usize,
}

impl<'a> Reading<'a> {
    fn new(region: &'a Region, target: Point, defender: Color, budget: usize) -> Reading<'a> {
        Reading {
            budget,
            region,
            target,
            defender,
            path: HashSet::new(),
            memo: HashMap::new(),
            visited: 0,
            depth_limit: 2 * region.len().min(24) + 6,
        }
    }

    /// Whether the attacker captures the target with `to_move` to play; `None` when the budget or the
    /// depth limit ran out on every line that would decide it.
    fn attacker_wins(
        &mut self,
        board: &Board,
        to_move: Color,
        depth: usize,
        passed: bool,
    ) -> Option<bool> {
        if board.color_at(self.target) != Some(self.defender) {
            return Some(true);
        }
        if is_anchored(board, self.region, self.target) {
            return Some(false);
        }
        let key = (board.stone_hash(), board.ko_point(), to_move, passed);
        if let Some(&known) = self.memo.get(&key) {
            return Some(known);
        }
        self.visited += 1;
        if self.visited > self.budget || depth > self.depth_limit {
            return None;
        }
        if board.liberty_count(self.target) >= 2
            && Settlement::assess(board, self.region, &Sealed::default()).is_safe(self.target)
        {
            self.memo.insert(key, false);
            return Some(false);
        }
        let attacking = to_move != self.defender;
        self.path.insert((board.stone_hash(), to_move));
        let mut unknown = false;
        let mut result = None;
        for p in self.moves(board, to_move) {
            let mut next = board.clone();
            next.place(to_move, p);
            if self.path.contains(&(next.stone_hash(), to_move.opponent())) {
                continue;
            }
            match self.attacker_wins(&next, to_move.opponent(), depth + 1, false) {
                Some(wins) if wins == attacking => {
                    result = Some(attacking);
                    break;
                }
                Some(_) => {}
                None => unknown = true,
            }
        }
        if result.is_none() {
            // A pass; two in a row end the reading with the target on the board.
            let pass = if passed {
                Some(false)
            } else {
                let mut next = board.clone();
                next.clear_ko();
                self.attacker_wins(&next, to_move.opponent(), depth + 1, true)
            };
            result = match pass {
                Some(wins) if wins == attacking => Some(attacking),
                Some(_) if !unknown => Some(!attacking),
                _ => None,
            };
        }
        self.path.remove(&(board.stone_hash(), to_move));
        if let Some(r) = result {
            self.memo.insert(key, r);
        }
        result
    }

    /// Legal moves near the target: its liberties, the liberties of the chains touching it, and the
    /// empty region points next to those. Reading elsewhere in the region cannot change its fate
    /// except through much longer fights than the ones a finished position holds.
    fn moves(&self, board: &Board, color: Color) -> Vec<Point> {
        let liberties = board.chain_liberties(self.target);
        let mut near: Vec<Point> = liberties.clone();
        for s in board.chain_stones(self.target) {
            for n in neighbours(s) {
                if board.color_at(n) == Some(self.defender.opponent()) {
                    near.extend(board.chain_liberties(n));
                }
            }
        }
        let first = near.len();
        for i in 0..first {
            near.extend(
                neighbours(near[i])
                    .iter()
                    .filter(|&&n| board.cell(n) == Cell::Empty),
            );
        }
        // The last liberty of a chain in atari may be taken (or extended from) outside the region.
        let outside_ok = |p: Point| liberties.len() == 1 && liberties.contains(&p);
        let captures = self.captures_next_to_the_fight(board, color);
        let mut moves: Vec<Point> = Vec::new();
        for p in near.into_iter().chain(captures.iter().copied()) {
            if (self.region.contains(p) || outside_ok(p) || captures.contains(&p))
                && !moves.contains(&p)
                && board.check(color, p, false).is_ok()
            {
                moves.push(p);
            }
        }
        moves.sort_by_key(|p| !liberties.contains(p));
        moves
    }

    /// The last liberties of `color`'s opponent's chains in atari next to the fight (the chains touching
    /// the target, and the target's colour's other chains touching those), wherever they lie: the edge of
    /// the region does not save a stone in atari, so `color` may capture it there.
    fn captures_next_to_the_fight(&self, board: &Board, color: Color) -> Vec<Point> {
        let target_stones = board.chain_stones(self.target);
        let mut fighting: Vec<Point> = vec![self.target];
        for &s in &target_stones {
            for n in neighbours(s) {
                if board.color_at(n) == Some(self.defender.opponent()) {
                    fighting.push(n);
                    for a in board.chain_stones(n) {
                        fighting.extend(neighbours(a).into_iter().filter(|&m| {
                            board.color_at(m) == Some(self.defender) && !target_stones.contains(&m)
                        }));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for p in fighting {
            if board.color_at(p) == Some(color.opponent()) && board.liberty_count(p) == 1 {
                let last = board.atari_liberty(p);
                if !out.contains(&last) {
                    out.push(last);
                }
            }
        }
        out
    }
}

/// The count a player gives a finished position: chains are alive or dead by reading (undecided ones
/// count as alive), region points reached through empty points and dead stones only by one colour's living
/// stones are its territory, and dead stones are its prisoners under territory scoring. Areas both colours
/// reach are split where the walls meet (see `split`). Area scoring counts territory and living stones.
pub fn judged_count(board: &Board, region: &Region, area: bool) -> i64 {
    Judged::of(board, region).count(board, region, area)
}

/// The territory count of a finished position and what its sente dame add (see
/// [`sente_dame_privilege`]), from one reading of the position.
pub fn judged_territory_with_sente_dame(board: &Board, region: &Region) -> (i64, i64) {
    let judged = Judged::of(board, region);
    (
        judged.count(board, region, false),
        judged.sente_dame_privilege(board),
    )
}

/// A finished position as a player counts it: which stones are dead and who owns each area point.
struct Judged {
    dead: Vec<bool>,
    owners: Vec<(Point, Option<Color>)>,
}

impl Judged {
    fn of(board: &Board, region: &Region) -> Judged {
        let dead = dead_stones(board, region, READING_BUDGET, false, |_| None).unwrap_or_default();
        let mut owners = Vec::new();
        for a in areas(board, region, &dead) {
            let split = split(board, &a.points, &dead, a.owner);
            owners.extend(a.points.iter().copied().zip(split));
        }
        Judged { dead, owners }
    }

    fn count(&self, board: &Board, region: &Region, area: bool) -> i64 {
        let territory: i64 = self
            .owners
            .iter()
            .map(|&(p, owner)| point_count(board, p, owner, area))
            .sum();
        territory + living_stones(board, region, &self.dead, area)
    }

    fn sente_dame_privilege(&self, board: &Board) -> i64 {
        self.owners
            .iter()
            .filter(|&&(p, owner)| owner.is_none() && board.color_at(p).is_none())
            .map(|&(p, _)| {
                let black = fill_forces_own_territory_fill(board, self, p, Color::Black);
                let white = fill_forces_own_territory_fill(board, self, p, Color::White);
                i64::from(black) - i64::from(white)
            })
            .sum()
    }
}

/// The judged position as text around the region: `X`/`O` living stones, `x`/`o` dead ones, `b`/`w`
/// the territory of Black/White, `+` a neutral region point, `.` points outside the region.
pub fn judged_diagram(board: &Board, region: &Region) -> String {
    let judged = Judged::of(board, region);
    let size = board.size();
    let (xs, ys): (Vec<usize>, Vec<usize>) = region.points().iter().map(|p| (p.x(), p.y())).unzip();
    let (Some(&x0), Some(&x1), Some(&y0), Some(&y1)) = (
        xs.iter().min(),
        xs.iter().max(),
        ys.iter().min(),
        ys.iter().max(),
    ) else {
        return String::new();
    };
    let mut out = String::new();
    for y in y0.saturating_sub(1)..=(y1 + 1).min(size.height() - 1) {
        out.push_str(&format!("{:>2} ", size.height() - y));
        for x in x0.saturating_sub(1)..=(x1 + 1).min(size.width() - 1) {
            let p = Point::new(x, y);
            let owner = judged.owners.iter().find(|o| o.0 == p).map(|o| o.1);
            let mark = match (board.color_at(p), judged.dead[p.index()], owner) {
                (Some(Color::Black), false, _) => 'X',
                (Some(Color::White), false, _) => 'O',
                (Some(Color::Black), true, _) => 'x',
                (Some(Color::White), true, _) => 'o',
                (None, _, Some(Some(Color::Black))) => 'b',
                (None, _, Some(Some(Color::White))) => 'w',
                (None, _, Some(None)) => '+',
                (None, _, None) => '.',
            };
            out.push(mark);
            out.push(' ');
        }
        out.push('\n');
    }
    out
}

/// The points a finished position's sente dame are still worth under territory scoring (Black's view).
/// A dame whose filling by one colour is sente (it ataris an opposing chain whose only saving move lies
/// in that chain's own territory) will be filled by that colour, and its opponent then connects inside
/// its own territory: a point for the colour, its privilege. A dame that is sente for both colours is
/// left neutral (a point to whoever fills it first, nothing on average). Under area scoring every dame
/// is already worth a point, so this does not apply.
pub fn sente_dame_privilege(board: &Board, region: &Region) -> i64 {
    Judged::of(board, region).sente_dame_privilege(board)
}

/// Whether `color` filling `p` (safely: the filling stone keeps two liberties) ataris a living opposing
/// chain whose last liberty is that opponent's territory.
fn fill_forces_own_territory_fill(board: &Board, judged: &Judged, p: Point, color: Color) -> bool {
    if board.check(color, p, false).is_err() {
        return false;
    }
    let mut next = board.clone();
    next.place(color, p);
    if next.liberty_count(p) < 2 {
        return false;
    }
    let opponent = color.opponent();
    neighbours(p).iter().any(|&n| {
        if next.color_at(n) != Some(opponent) || judged.dead[n.index()] {
            return false;
        }
        match next.chain_liberties(n).as_slice() {
            [last] => judged
                .owners
                .iter()
                .any(|&(q, owner)| q == *last && owner == Some(opponent)),
            _ => false,
        }
    })
}

/// Positions one reading may visit when the solver asks whether a position is finished: it asks at
/// every node, so it reads less, and an undecided chain only means the search goes on.
const FINISHED_BUDGET: usize = 300;

/// The solver asks only about positions with at most this many empty region points: reading at every
/// node of a wide search costs far more than it saves, while near the leaves it is cheap and it is
/// where dead shapes otherwise send the search into long capturing sequences.
pub const FINISHED_MAX_EMPTY: usize = 6;

/// The count of a position no move can change in the course's sense, or `None` while one can: every
/// chain is safe or dead by reading, every area belongs to one colour, and what both colours touch is
/// single dame points whose filling puts no chain short of liberties. `settlement` decides the chains
/// Benson's test already knows. Under area scoring a dame point is still worth a move, so none may remain.
/// Positions with more than `FINISHED_MAX_EMPTY` empty points are not judged (`None`).
pub fn finished_count(
    board: &Board,
    region: &Region,
    settlement: &Settlement,
    area: bool,
) -> Option<i64> {
    finished_count_up_to(board, region, settlement, area, FINISHED_MAX_EMPTY)
}

/// [`finished_count`] for positions of at most `max_empty` empty region points.
pub fn finished_count_up_to(
    board: &Board,
    region: &Region,
    settlement: &Settlement,
    area: bool,
    max_empty: usize,
) -> Option<i64> {
    if region.empty_points(board).len() > max_empty {
        return None;
    }
    let known = |p: Point| {
        if settlement.is_safe(p) {
            Some(false)
        } else if settlement.owner(p).is_some() {
            Some(true)
        } else {
            None
        }
    };
    let dead = dead_stones(board, region, FINISHED_BUDGET, true, known)?;
    let mut total = 0i64;
    for a in areas(board, region, &dead) {
        match a.owner {
            Some(c) => {
                for &p in &a.points {
                    total += point_count(board, p, Some(c), area);
                }
            }
            None => {
                if area || a.points.len() > 1 || board.color_at(a.points[0]).is_some() {
                    return None;
                }
                let p = a.points[0];
                let short = neighbours(p)
                    .iter()
                    .any(|&n| board.color_at(n).is_some() && board.liberty_count(n) < 3);
                if short {
                    return None;
                }
            }
        }
    }
    Some(total + living_stones(board, region, &dead, area))
}

/// Which stones are dead, chain by chain, for every chain in or next to the region: `known` answers for
/// the chains it can, reading for the others. When `strict`, an undecided chain makes the whole answer
/// `None`; otherwise undecided chains count as alive.
fn dead_stones(
    board: &Board,
    region: &Region,
    budget: usize,
    strict: bool,
    known: impl Fn(Point) -> Option<bool>,
) -> Option<Vec<bool>> {
    let mut dead = vec![false; GRID];
    let mut decided = vec![false; GRID];
    for &p in region.points() {
        for q in std::iter::once(p).chain(neighbours(p)) {
            if board.color_at(q).is_none() || decided[q.index()] {
                continue;
            }
            let is_dead = match known(q) {
                Some(d) => d,
                None => match chain_status_within(board, region, q, budget) {
                    Status::Dead => true,
                    Status::Safe => false,
                    Status::Open if strict => return None,
                    Status::Open => false,
                },
            };
            for s in board.chain_stones(q) {
                decided[s.index()] = true;
                dead[s.index()] = is_dead;
            }
        }
    }
    Some(dead)
}

/// A connected set of region points that are empty or hold dead stones, and the one colour whose living
/// stones alone reach it (`None`: both, or an empty point outside the region).
struct Area {
    points: Vec<Point>,
    owner: Option<Color>,
}

fn areas(board: &Board, region: &Region, dead: &[bool]) -> Vec<Area> {
    let mut seen = vec![false; GRID];
    let mut out = Vec::new();
    for &start in region.points() {
        if seen[start.index()] || (board.color_at(start).is_some() && !dead[start.index()]) {
            continue;
        }
        let mut stack = vec![start];
        seen[start.index()] = true;
        let mut points = Vec::new();
        let mut touches = [false; 2];
        while let Some(p) = stack.pop() {
            points.push(p);
            for n in neighbours(p) {
                let living = board.color_at(n).filter(|_| !dead[n.index()]);
                if let Some(c) = living {
                    touches[c.index()] = true;
                    continue;
                }
                if !region.contains(n) {
                    match board.cell(n) {
                        Cell::Empty => touches = [true, true],
                        // A dead stone outside the region: its opponent's wall reaches the area.
                        _ => {
                            if let Some(c) = board.color_at(n) {
                                touches[c.opponent().index()] = true;
                            }
                        }
                    }
                    continue;
                }
                if board.cell(n) != Cell::Border && !seen[n.index()] {
                    seen[n.index()] = true;
                    stack.push(n);
                }
            }
        }
        let owner = match touches {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        };
        out.push(Area { points, owner });
    }
    out
}

/// What one area point counts for Black: a point of territory, and under territory scoring a dead stone
/// on it again as a prisoner.
fn point_count(board: &Board, p: Point, owner: Option<Color>, area: bool) -> i64 {
    let Some(c) = owner else {
        return 0;
    };
    let prisoner = !area && board.color_at(p) == Some(c.opponent());
    c.sign() as i64 * if prisoner { 2 } else { 1 }
}

/// Area scoring counts the living stones of the region too.
fn living_stones(board: &Board, region: &Region, dead: &[bool], area: bool) -> i64 {
    if !area {
        return 0;
    }
    region
        .points()
        .iter()
        .filter(|p| !dead[p.index()])
        .filter_map(|&p| board.color_at(p))
        .map(|c| c.sign() as i64)
        .sum()
}

/// Owners of an area's points. An area surrounded by one colour is its territory. An area both colours
/// reach is a boundary not yet closed; a finished position closes it where the walls meet, so each point
/// goes to the colour whose living stones are nearer (through the area), and points as near to both stay
/// neutral (dame).
fn split(
    board: &Board,
    points: &[Point],
    dead: &[bool],
    owner: Option<Color>,
) -> Vec<Option<Color>> {
    if owner.is_some() {
        return vec![owner; points.len()];
    }
    let inside = |p: Point| points.contains(&p);
    let mut distance = [vec![usize::MAX; GRID], vec![usize::MAX; GRID]];
    for color in [Color::Black, Color::White] {
        let dist = &mut distance[color.index()];
        let mut frontier: Vec<Point> = points
            .iter()
            .copied()
            .filter(|&p| {
                neighbours(p)
                    .iter()
                    .any(|&n| board.color_at(n) == Some(color) && !dead[n.index()])
            })
            .collect();
        for &p in &frontier {
            dist[p.index()] = 1;
        }
        let mut d = 1;
        while !frontier.is_empty() {
            d += 1;
            let mut next = Vec::new();
            for p in frontier {
                for n in neighbours(p) {
                    if inside(n) && dist[n.index()] == usize::MAX {
                        dist[n.index()] = d;
                        next.push(n);
                    }
                }
            }
            frontier = next;
        }
    }
    points
        .iter()
        .map(|&p| {
            let (b, w) = (
                distance[Color::Black.index()][p.index()],
                distance[Color::White.index()][p.index()],
            );
            match b.cmp(&w) {
                std::cmp::Ordering::Less => Some(Color::Black),
                std::cmp::Ordering::Greater => Some(Color::White),
                std::cmp::Ordering::Equal => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::test_support::{at, board_with, problem};

    #[test]
    fn a_straight_three_with_its_vital_point_taken_is_dead() {
        // 01-value-of-move/05: White's eye space A19-B19-C19; Black B19 kills, White B19 lives.
        let p = problem("01-value-of-move/05.sgf");
        let mut board = p.board.clone();
        board.place(Color::Black, at("B19"));
        assert_eq!(chain_status(&board, &p.region, at("B18")), Status::Dead);
        assert_eq!(chain_status(&board, &p.region, at("B19")), Status::Safe);
        // Five stones and seven points of territory for Black.
        assert_eq!(judged_count(&board, &p.region, false), 12);
        let mut board = p.board.clone();
        board.place(Color::White, at("B19"));
        assert_eq!(chain_status(&board, &p.region, at("B18")), Status::Safe);
        assert_eq!(judged_count(&board, &p.region, false), -2);
    }

    fn points(board: &Board, gtp: &[&str]) -> Vec<Point> {
        gtp.iter()
            .map(|s| Point::parse_gtp(s, board.size()).unwrap())
            .collect()
    }

    #[test]
    fn a_chain_in_atari_is_not_saved_by_a_last_liberty_outside_the_region() {
        // White D19-D18 has one liberty, E19. Extending there leaves it one liberty, F19, outside the
        // region: Black takes it there, so the chain is dead whoever moves first.
        let board = board_with(&["C19", "C18", "D17", "E18"], &["D19", "D18"]);
        let region = Region::new(points(&board, &["E19"]));
        let d19 = points(&board, &["D19"])[0];
        assert_eq!(chain_status(&board, &region, d19), Status::Dead);
        // With a second liberty outside (E18 empty, outside the region) local play cannot capture it.
        let board = board_with(&["C19", "C18", "D17"], &["D19", "D18"]);
        assert_eq!(chain_status(&board, &region, d19), Status::Safe);
    }

    /// Black's corner with a lone stone on C19 whose liberties are B19 (Black's territory) and D19, a
    /// dame against White's wall: White filling D19 ataris C19 and Black must connect at B19, inside
    /// its own territory; Black filling D19 is self-atari.
    fn sente_dame_corner() -> (Board, Region) {
        let board = board_with(
            &["A19", "C19", "A18", "B18", "A17", "B17"],
            &["C18", "D18", "E18", "E19", "C17", "D17"],
        );
        let region = Region::new(points(&board, &["B19", "D19"]));
        (board, region)
    }

    #[test]
    fn a_dame_whose_fill_forces_a_connection_in_territory_is_the_filler_s_point() {
        let (board, region) = sente_dame_corner();
        // B19 is Black's, D19 is dame.
        assert_eq!(judged_count(&board, &region, false), 1);
        assert_eq!(sente_dame_privilege(&board, &region), -1);
        // The same shape with the colours swapped is Black's privilege.
        let mut swapped = Board::new(board.size());
        for p in (0..GRID)
            .map(Point::from_index)
            .filter(|&p| board.is_on_board(p))
        {
            if let Some(c) = board.color_at(p) {
                swapped.setup_stone(c.opponent(), p);
            }
        }
        assert_eq!(judged_count(&swapped, &region, false), -1);
        assert_eq!(sente_dame_privilege(&swapped, &region), 1);
    }

    #[test]
    fn a_dame_that_ataris_nothing_is_worth_nothing() {
        // With B19 filled the C19 stone joins Black's corner: White's D19 no longer ataris it.
        let (mut board, _) = sente_dame_corner();
        board.setup_stone(Color::Black, points(&board, &["B19"])[0]);
        let region = Region::new(points(&board, &["D19"]));
        assert_eq!(judged_count(&board, &region, false), 0);
        assert_eq!(sente_dame_privilege(&board, &region), 0);
    }

    #[test]
    fn a_stone_in_atari_is_not_saved_by_a_last_liberty_outside_the_region() {
        // 03-addition-method/05 after White E19 and White G19: Black's B18-C18 has the liberties B19
        // and C19. Black's A17 ataris White's A18, but A17's own last liberty A16 lies outside the
        // region: White captures there, and Black's corner dies whoever moves first.
        let p = problem("03-addition-method/05.sgf");
        let mut board = p.board.clone();
        board.place(Color::White, at("E19"));
        board.place(Color::White, at("G19"));
        // Before the capture outside the region was read, the corner was counted alive (line end −1).
        assert_eq!(chain_status(&board, &p.region, at("B18")), Status::Dead);
        assert_eq!(judged_count(&board, &p.region, false), -9);
    }

    #[test]
    fn a_chain_whoever_moves_first_decides_is_open() {
        // Before either move the white group lives if White plays B19 and dies if Black does.
        let p = problem("01-value-of-move/05.sgf");
        assert_eq!(chain_status(&p.board, &p.region, at("B18")), Status::Open);
    }
}
