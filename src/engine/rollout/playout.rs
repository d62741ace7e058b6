//! Light playouts with simple tactics, and the fast area count that scores them.
//!
//! Each move: capture the chain the opponent just played into atari's neighbourhood (if its last stone's
//! chain is in atari), else save an own chain the last move put in atari when extending gains liberties,
//! else a uniformly random legal move that does not fill an own eye. These are the rules MoGo-era engines
//! found to strengthen playouts at a cost of a few lookups per move; the last move's neighbourhood is the
//! only place they look, which keeps them cheap.

use crate::go::board::{Cell, neighbours};
use crate::go::coord::GRID;
use crate::go::playout::{FastRng, random_move};
use crate::go::{Board, Color, Point};

/// Plays a light playout to the end (two passes, or `max_moves`), appending every stone played to
/// `played` (for AMAF). Simple ko only: longer cycles are cut by the move cap.
pub fn light_playout(
    board: &mut Board,
    mut color: Color,
    mut last: Option<Point>,
    rng: &mut FastRng,
    max_moves: usize,
    played: &mut Vec<(Color, Point)>,
) {
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < max_moves {
        let chosen = last
            .and_then(|q| tactical_move(board, color, q))
            .or_else(|| random_move(board, color, rng));
        match chosen {
            Some(p) => {
                board.place(color, p);
                played.push((color, p));
                passes = 0;
                last = Some(p);
            }
            None => {
                board.clear_ko();
                passes += 1;
                last = None;
            }
        }
        moves += 1;
        color = color.opponent();
    }
}

/// A capture or an atari escape answering the opponent's stone at `last`, if one applies.
#[inline]
fn tactical_move(board: &Board, color: Color, last: Point) -> Option<Point> {
    let enemy = Cell::stone(color.opponent());
    if board.cell(last) != enemy {
        return None;
    }
    // Capture: the stone just played (with its chain) is in atari.
    if board.in_atari(last) {
        let lib = board.atari_liberty(last);
        if board.ko_point() != Some(lib) {
            return Some(lib);
        }
    }
    // Escape: the last move put one of our chains in atari; extend if that gains liberties.
    let own = Cell::stone(color);
    for n in neighbours(last) {
        if board.cell(n) == own && board.in_atari(n) {
            let lib = board.atari_liberty(n);
            let fresh = neighbours(lib)
                .iter()
                .filter(|&&m| board.cell(m) == Cell::Empty)
                .count();
            if fresh >= 2 && board.ko_point() != Some(lib) && board.has_liberty_after(color, lib) {
                return Some(lib);
            }
        }
    }
    None
}

/// Who owns each point by area counting, written into `owner` (indexed by padded-grid index), and
/// Black's area minus White's. Works on any board; fast on finished playouts, where almost every empty
/// point is a one-point eye whose neighbours settle it without a flood fill.
pub fn area_count(board: &Board, owner: &mut [Option<Color>; GRID]) -> i32 {
    let mut diff = empty_area(board, |i, o| owner[i as usize] = o);
    for p in board.size().points() {
        if let Some(c) = board.color_at(p) {
            owner[p.index()] = Some(c);
            diff += c.sign();
        }
    }
    diff
}

/// Black's area minus White's when the caller knows Black's stones minus White's (`stone_balance`):
/// only the empty points are visited, which on a finished playout are a few eyes.
pub fn area_score(board: &Board, stone_balance: i32) -> i32 {
    stone_balance + empty_area(board, |_, _| {})
}

/// Black's stones minus White's on `end`, a board reached from `start` (whose balance is
/// `start_balance`) by playing `played`: from the stones played and the captures, without a pass over
/// the board.
pub fn stone_balance(
    start: &Board,
    start_balance: i32,
    played: &[(Color, Point)],
    end: &Board,
) -> i32 {
    let placed: i32 = played.iter().map(|&(c, _)| c.sign()).sum();
    // `captures(c)` counts the opponent's stones that `c`'s moves removed (suicides are credited to the
    // opponent), so captures by Black are White stones gone and the other way round.
    let gone = |c: Color| (end.captures(c) - start.captures(c)) as i32;
    start_balance + placed + gone(Color::Black) - gone(Color::White)
}

/// Black's stones minus White's.
pub fn count_stone_balance(board: &Board) -> i32 {
    board
        .size()
        .points()
        .filter_map(|p| board.color_at(p))
        .map(Color::sign)
        .sum()
}

/// Black's empty area minus White's, telling `mark` the owner of every empty point.
#[inline]
fn empty_area(board: &Board, mut mark: impl FnMut(u16, Option<Color>)) -> i32 {
    match one_point_regions(board) {
        Some(diff) => {
            // Nothing to flood: the common case, done without clearing the flood's bookkeeping.
            for &i in board.empty_points() {
                mark(i, point_owner(board, Point::from_index(i as usize)).0);
            }
            diff
        }
        None => flooded_empty_area(board, mark),
    }
}

/// Black's empty area minus White's when every empty point is a region of its own (no two empty points
/// touch, as after a finished playout), else `None`.
#[inline]
fn one_point_regions(board: &Board) -> Option<i32> {
    let mut diff = 0;
    for &i in board.empty_points() {
        let ([black, white], open) = point_touches(board, Point::from_index(i as usize));
        if open {
            return None;
        }
        // The owner's sign without a branch: +1 Black's eye, -1 White's, 0 dame.
        diff += i32::from(black & !white) - i32::from(white & !black);
    }
    Some(diff)
}

/// The owner of the empty point `p` by its neighbours alone, and whether one of them is empty too.
#[inline]
fn point_owner(board: &Board, p: Point) -> (Option<Color>, bool) {
    let (touches, open) = point_touches(board, p);
    (region_owner(touches), open)
}

/// Which colours' stones touch `p` (Black, White), and whether an empty point does. One bit per kind
/// of cell, gathered without branches: which neighbour holds what is unpredictable, and this runs on
/// every empty point of every playout's end.
#[inline]
fn point_touches(board: &Board, p: Point) -> ([bool; 2], bool) {
    let seen = neighbours(p)
        .into_iter()
        .fold(0u8, |seen, n| seen | 1 << board.cell(n) as u8);
    let has = |cell: Cell| seen & 1 << cell as u8 != 0;
    ([has(Cell::Black), has(Cell::White)], has(Cell::Empty))
}

/// [`empty_area`] on any board: empty regions of several points are flooded.
fn flooded_empty_area(board: &Board, mut mark: impl FnMut(u16, Option<Color>)) -> i32 {
    let mut seen = [false; GRID];
    let mut stack = [0u16; GRID];
    let mut diff = 0;
    for &i in board.empty_points() {
        let p = Point::from_index(i as usize);
        if seen[p.index()] {
            continue;
        }
        let (mut touches, open) = point_touches(board, p);
        if !open {
            seen[p.index()] = true;
            let o = region_owner(touches);
            mark(i, o);
            diff += o.map_or(0, |c| c.sign());
            continue;
        }
        // A larger empty region: flood it, then give every point of it the region's owner.
        stack[0] = i;
        let mut top = 1;
        seen[p.index()] = true;
        // The stack's popped prefix doubles as the region's list: points are never pushed twice.
        let mut k = 0;
        while k < top {
            let q = Point::from_index(stack[k] as usize);
            k += 1;
            for n in neighbours(q) {
                match board.cell(n) {
                    Cell::Empty if !seen[n.index()] => {
                        seen[n.index()] = true;
                        stack[top] = n.index() as u16;
                        top += 1;
                    }
                    Cell::Black => touches[0] = true,
                    Cell::White => touches[1] = true,
                    _ => {}
                }
            }
        }
        let o = region_owner(touches);
        diff += o.map_or(0, |c| c.sign()) * top as i32;
        for &q in &stack[..top] {
            mark(q, o);
        }
    }
    diff
}

fn region_owner(touches: [bool; 2]) -> Option<Color> {
    match touches {
        [true, false] => Some(Color::Black),
        [false, true] => Some(Color::White),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::BoardSize;
    use crate::go::score::area_difference;

    #[test]
    fn area_count_agrees_with_the_go_core() {
        let size = BoardSize::new(7, 5).unwrap();
        let mut rng = FastRng::new(11);
        for _ in 0..40 {
            let mut b = Board::new(size);
            let mut played = Vec::new();
            // Stop some playouts early so that open regions and dame are counted too.
            let cap = 5 + rng.below(60);
            light_playout(&mut b, Color::Black, None, &mut rng, cap, &mut played);
            let mut owner = [None; GRID];
            assert_eq!(area_count(&b, &mut owner), area_difference(&b));
        }
    }

    #[test]
    fn area_score_from_the_stone_balance_agrees_with_the_go_core() {
        let size = BoardSize::square(7).unwrap();
        let mut rng = FastRng::new(23);
        for _ in 0..40 {
            // A start position with stones of both colours, then a playout full of captures.
            let mut start = Board::new(size);
            let mut played = Vec::new();
            let cap = 10 + rng.below(30);
            light_playout(&mut start, Color::Black, None, &mut rng, cap, &mut played);
            let start_balance = count_stone_balance(&start);
            let mut end = start.clone();
            played.clear();
            let cap = 5 + rng.below(200);
            light_playout(&mut end, Color::White, None, &mut rng, cap, &mut played);
            let balance = stone_balance(&start, start_balance, &played, &end);
            assert_eq!(balance, count_stone_balance(&end));
            assert_eq!(area_score(&end, balance), area_difference(&end));
        }
    }

    #[test]
    fn the_one_point_shortcut_marks_what_the_flood_marks() {
        let size = BoardSize::new(9, 7).unwrap();
        let mut rng = FastRng::new(31);
        let mut shortcuts = 0;
        for _ in 0..40 {
            let mut b = Board::new(size);
            light_playout(&mut b, Color::Black, None, &mut rng, 1000, &mut Vec::new());
            let mut fast = [None; GRID];
            let mut flooded = [None; GRID];
            let diff = empty_area(&b, |i, o| fast[i as usize] = o);
            assert_eq!(diff, flooded_empty_area(&b, |i, o| flooded[i as usize] = o));
            assert_eq!(fast, flooded);
            shortcuts += usize::from(one_point_regions(&b).is_some());
        }
        // Finished playouts leave one-point eyes almost always: the shortcut is what was tested.
        assert!(shortcuts > 30, "{shortcuts}");
    }

    #[test]
    fn captures_a_chain_in_atari() {
        let size = BoardSize::square(5).unwrap();
        let mut b = Board::new(size);
        // White C3 surrounded on three sides; the last white stone is in atari at D3.
        for (x, y) in [(1, 2), (2, 1), (2, 3)] {
            b.place(Color::Black, Point::new(x, y));
        }
        b.place(Color::White, Point::new(2, 2));
        assert_eq!(
            tactical_move(&b, Color::Black, Point::new(2, 2)),
            Some(Point::new(3, 2))
        );
    }

    #[test]
    fn escapes_an_atari_when_extending_gains_liberties() {
        let size = BoardSize::square(5).unwrap();
        let mut b = Board::new(size);
        b.place(Color::Black, Point::new(2, 2));
        for (x, y) in [(1, 2), (2, 1)] {
            b.place(Color::White, Point::new(x, y));
        }
        b.place(Color::White, Point::new(2, 3));
        // Black C3 now has one liberty, D3, where it can extend to three.
        assert_eq!(
            tactical_move(&b, Color::Black, Point::new(2, 3)),
            Some(Point::new(3, 2))
        );
    }

    #[test]
    fn playouts_finish() {
        let size = BoardSize::square(9).unwrap();
        let mut rng = FastRng::new(5);
        let mut b = Board::new(size);
        let mut played = Vec::new();
        light_playout(&mut b, Color::Black, None, &mut rng, 1000, &mut played);
        assert!(played.len() < 1000);
        assert!(random_move(&b, Color::Black, &mut rng).is_none());
        assert!(random_move(&b, Color::White, &mut rng).is_none());
    }
}
