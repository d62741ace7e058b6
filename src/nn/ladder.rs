//! Ladder reading for the network's input features, with KataGo's semantics (V7 planes 14-17).
//!
//! A chain with one liberty is "laddered" when the defender, moving first, cannot escape a sequence of
//! ataris: escaping means reaching two liberties (or three after an attacker's move). The defender may
//! extend or capture an adjacent chain in atari; the attacker must keep it in atari. Kos are assumed to
//! work for the defender at the root, and a defender facing a fresh ko point is assumed to escape (so the
//! feature never depends on ko threats). A chain with two liberties is laddered when one of the attacker's
//! two ataris leads to such a ladder; those ataris are the "working moves".
//!
//! The search copies the board at every ply: boards are small and ladders short, and copying keeps the
//! board type free of undo bookkeeping.

use crate::go::board::{Board, Cell, neighbours};
use crate::go::{Color, Point};

/// The result of reading one chain.
pub struct LadderRead {
    pub captured: bool,
    /// For a two-liberty chain: the attacker's ataris that capture it.
    pub working_moves: Vec<Point>,
}

/// Calls `found` for every stone (row-major from the top left) of every laddered chain with one or two
/// liberties, with the chain's working moves (empty for one-liberty chains).
pub fn for_each_laddered_stone(board: &Board, mut found: impl FnMut(Point, &[Point])) {
    let size = board.size();
    let mut solved: Vec<(Point, bool, Vec<Point>)> = Vec::new();
    for p in size.points() {
        if board.color_at(p).is_none() {
            continue;
        }
        let libs = board.chain_liberties(p).len();
        if libs != 1 && libs != 2 {
            continue;
        }
        let head = board.chain_head(p);
        if let Some((_, captured, moves)) = solved.iter().find(|(h, _, _)| *h == head) {
            if *captured {
                // KataGo reports the working moves only for the chain's first stone.
                let _ = moves;
                found(p, &[]);
            }
            continue;
        }
        let read = read_ladder(board, p);
        if read.captured {
            found(p, &read.working_moves);
        }
        solved.push((head, read.captured, read.working_moves));
    }
}

/// Reads the chain through `p` (one or two liberties).
pub fn read_ladder(board: &Board, p: Point) -> LadderRead {
    let libs = board.chain_liberties(p);
    match libs.len() {
        1 => LadderRead {
            captured: defender_first(board, p),
            working_moves: Vec::new(),
        },
        2 => {
            let Some(defender) = board.color_at(p) else {
                return LadderRead {
                    captured: false,
                    working_moves: Vec::new(),
                };
            };
            let attacker = defender.opponent();
            let working_moves: Vec<Point> = libs
                .into_iter()
                .filter(|&m| {
                    if board.check(attacker, m, false).is_err() {
                        return false;
                    }
                    let mut after = board.clone();
                    after.place(attacker, m);
                    defender_first(&after, p)
                })
                .collect();
            LadderRead {
                captured: !working_moves.is_empty(),
                working_moves,
            }
        }
        _ => LadderRead {
            captured: false,
            working_moves: Vec::new(),
        },
    }
}

/// Whether the one-liberty chain through `p` is captured with its owner to move.
fn defender_first(board: &Board, p: Point) -> bool {
    if board.color_at(p).is_none() || board.chain_liberties(p).len() != 1 {
        return false;
    }
    let mut root = board.clone();
    root.clear_ko(); // every ko works for the defender at the root
    let depth_limit = board.size().area() * 3 / 2;
    search(&root, p, true, 0, depth_limit)
}

/// Minimax over ataris: true when the target ends up captured.
fn search(
    board: &Board,
    target: Point,
    defender_to_move: bool,
    depth: usize,
    depth_limit: usize,
) -> bool {
    if depth >= depth_limit {
        return true; // an endless ladder counts as captured, as in KataGo
    }
    let Some(defender) = board.color_at(target) else {
        return true;
    };
    let attacker = defender.opponent();
    let libs = board.chain_liberties(target);
    let moves = if defender_to_move {
        if libs.len() >= 2 || board.ko_point().is_some() {
            return false;
        }
        let mut moves = liberty_gaining_captures(board, target);
        for l in libs {
            if !moves.contains(&l) {
                moves.push(l);
            }
        }
        moves
    } else {
        match libs.len() {
            0 | 1 => return true,
            2 => {}
            _ => return false,
        }
        match attacker_moves(board, target, defender, libs[0], libs[1]) {
            Ok(moves) => moves,
            Err(captured) => return captured,
        }
    };
    let mover = if defender_to_move { defender } else { attacker };
    for m in moves {
        if board.check(mover, m, false).is_err() {
            continue;
        }
        let mut next = board.clone();
        next.place(mover, m);
        let captured = search(&next, target, !defender_to_move, depth + 1, depth_limit);
        if defender_to_move && !captured {
            return false;
        }
        if !defender_to_move && captured {
            return true;
        }
    }
    defender_to_move
}

/// The attacker's candidate ataris, best first, or the answer when it is already known.
fn attacker_moves(
    board: &Board,
    target: Point,
    defender: Color,
    a: Point,
    b: Point,
) -> Result<Vec<Point>, bool> {
    let attacker = defender.opponent();
    let open_a = open_neighbours(board, a);
    let open_b = open_neighbours(board, b);
    // Both liberties are ko mouths the defender cannot usefully connect through: a double ko that the
    // attacker wins however many threats the defender has.
    if open_a == 0
        && open_b == 0
        && would_be_ko_capture(board, a, attacker)
        && would_be_ko_capture(board, b, attacker)
        && liberties_after_play(board, a, defender) <= 2
        && liberties_after_play(board, b, defender) <= 2
        && liberty_gaining_captures(board, target).is_empty()
    {
        return Err(true);
    }
    let mut moves = vec![a, b];
    if !are_adjacent(a, b) {
        // An escape to three immediate liberties must be blocked there and then.
        match (open_a >= 3, open_b >= 3) {
            (true, true) => return Err(false),
            (true, false) => moves = vec![a],
            (false, true) => moves = vec![b],
            (false, false) => {}
        }
    }
    if moves.len() == 2 {
        let score =
            |m: Point, open: usize| open as i32 * 2 + connection_liberties_x2(board, m, defender);
        if score(b, open_b) > score(a, open_a) {
            moves.swap(0, 1);
        }
    }
    Ok(moves)
}

fn open_neighbours(board: &Board, p: Point) -> usize {
    neighbours(p)
        .into_iter()
        .filter(|&n| board.cell(n) == Cell::Empty)
        .count()
}

fn are_adjacent(a: Point, b: Point) -> bool {
    neighbours(a).contains(&b)
}

/// How much the defender gains by connecting at `p`: for each neighbouring defender chain with more than
/// one liberty, twice its liberties minus three.
fn connection_liberties_x2(board: &Board, p: Point, defender: Color) -> i32 {
    neighbours(p)
        .into_iter()
        .filter(|&n| board.color_at(n) == Some(defender))
        .map(|n| board.chain_liberties(n).len() as i32)
        .filter(|&libs| libs > 1)
        .map(|libs| libs * 2 - 3)
        .sum()
}

/// Whether `by` playing at the empty point `p` would capture exactly one stone and be a ko shape.
fn would_be_ko_capture(board: &Board, p: Point, by: Color) -> bool {
    if board.cell(p) != Cell::Empty {
        return false;
    }
    let victim = by.opponent();
    let mut capturable = None;
    for n in neighbours(p) {
        match board.cell(n) {
            Cell::Border => {}
            c if c == Cell::stone(victim) => {
                if board.chain_liberties(n).len() == 1 {
                    if capturable.is_some() {
                        return false;
                    }
                    capturable = Some(n);
                }
            }
            _ => return false,
        }
    }
    capturable.is_some_and(|n| board.chain_size(n) == 1)
}

/// Liberties of `color`'s chain at `p` after playing there (0 for a suicide).
fn liberties_after_play(board: &Board, p: Point, color: Color) -> usize {
    let mut after = board.clone();
    after.place(color, p);
    if after.color_at(p) == Some(color) {
        after.chain_liberties(p).len()
    } else {
        0
    }
}

/// Points where the defender captures a neighbouring chain in atari (gaining liberties).
fn liberty_gaining_captures(board: &Board, target: Point) -> Vec<Point> {
    let Some(defender) = board.color_at(target) else {
        return Vec::new();
    };
    let mut heads: Vec<Point> = Vec::new();
    let mut moves = Vec::new();
    for s in board.chain_stones(target) {
        for n in neighbours(s) {
            if board.color_at(n) == Some(defender.opponent()) {
                let head = board.chain_head(n);
                if heads.contains(&head) {
                    continue;
                }
                heads.push(head);
                let libs = board.chain_liberties(n);
                if libs.len() == 1 && !moves.contains(&libs[0]) {
                    moves.push(libs[0]);
                }
            }
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{BoardSize, Game, Rules};

    fn game(moves: &str) -> Game {
        Game::from_gtp_moves(BoardSize::square(9).unwrap(), Rules::tromp_taylor(), moves).unwrap()
    }

    fn at(text: &str) -> Point {
        Point::parse_gtp(text, BoardSize::square(9).unwrap()).unwrap()
    }

    #[test]
    fn a_ladder_towards_the_corner_works() {
        // White E5 with Black on E6, D5 and the diagonal F4: the atari at F5 starts a ladder to the edge.
        let g = game("D5 E5 E6 pass F4 pass");
        let read = read_ladder(g.board(), at("E5"));
        assert!(read.captured);
        assert!(read.working_moves.contains(&at("F5")));
    }

    #[test]
    fn a_stone_in_atari_that_extends_to_three_liberties_escapes() {
        // White E5 with Black on D5, E6 and F5 has one liberty, E4, and extending there gives three.
        let g = game("D5 E5 E6 pass F5 pass");
        let read = read_ladder(g.board(), at("E5"));
        assert!(!read.captured);
    }

    #[test]
    fn a_chain_with_three_liberties_is_not_read() {
        let g = game("E5");
        assert!(!read_ladder(g.board(), at("E5")).captured);
    }
}
