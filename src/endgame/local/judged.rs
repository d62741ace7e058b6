//! The count a Go player gives a finished local position ("judged" count): chains alive or dead by
//! reading (`reading`), territory by who surrounds it, the course's sente-dame rule, and the finished
//! test the solver and the trees use to stop early.

use super::area::flood;
use super::reading::{READING_BUDGET, Status, chain_status_within};
use super::settle::Settlement;
use crate::endgame::region::Region;
use crate::go::board::neighbours;
use crate::go::coord::GRID;
use crate::go::{Board, Cell, Color, Point};

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
struct Surrounded {
    points: Vec<Point>,
    owner: Option<Color>,
}

fn areas(board: &Board, region: &Region, dead: &[bool]) -> Vec<Surrounded> {
    let mut seen = vec![false; GRID];
    let mut out = Vec::new();
    for &start in region.points() {
        if seen[start.index()] || (board.color_at(start).is_some() && !dead[start.index()]) {
            continue;
        }
        seen[start.index()] = true;
        let mut points = Vec::new();
        let mut touches = [false; 2];
        flood(board, start, &mut points, |n| {
            let living = board.color_at(n).filter(|_| !dead[n.index()]);
            if let Some(c) = living {
                touches[c.index()] = true;
                return false;
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
                return false;
            }
            !std::mem::replace(&mut seen[n.index()], true)
        });
        let owner = match touches {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        };
        out.push(Surrounded { points, owner });
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
