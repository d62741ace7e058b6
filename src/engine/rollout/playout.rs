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
    let mut seen = [false; GRID];
    let mut stack = [0u16; GRID];
    let mut diff = 0;
    for &i in board.empty_points() {
        let p = Point::from_index(i as usize);
        if seen[p.index()] {
            continue;
        }
        let mut touches = [false; 2];
        let mut open = false;
        for n in neighbours(p) {
            match board.cell(n) {
                Cell::Black => touches[0] = true,
                Cell::White => touches[1] = true,
                Cell::Empty => open = true,
                Cell::Border => {}
            }
        }
        if !open {
            seen[p.index()] = true;
            let o = region_owner(touches);
            owner[p.index()] = o;
            diff += o.map_or(0, |c| c.sign());
            continue;
        }
        // A larger empty region: flood it, then give every point of it the region's owner.
        let mut len = 0usize;
        stack[0] = i;
        let mut top = 1;
        seen[p.index()] = true;
        // The stack's popped prefix doubles as the region's list: points are never pushed twice.
        let mut k = 0;
        while k < top {
            let q = Point::from_index(stack[k] as usize);
            k += 1;
            len += 1;
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
        diff += o.map_or(0, |c| c.sign()) * len as i32;
        for &q in &stack[..top] {
            owner[q as usize] = o;
        }
    }
    for p in board.size().points() {
        if let Some(c) = board.color_at(p) {
            owner[p.index()] = Some(c);
            diff += c.sign();
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
