//! Scoring: area (Tromp-Taylor) and territory given the dead stones. Scores are Black's lead.

use super::board::{Board, Cell, neighbours};
use super::coord::{Color, Point};
use super::game::Game;
use super::rules::Scoring;

/// Who an empty region belongs to: the only colour it touches, if it touches one.
fn region_owner(board: &Board, start: Point, seen: &mut [bool]) -> (usize, Option<Color>) {
    let mut stack = vec![start];
    seen[start.index()] = true;
    let (mut size, mut touches) = (0, [false; 2]);
    while let Some(p) = stack.pop() {
        size += 1;
        for n in neighbours(p) {
            match board.cell(n) {
                Cell::Empty if !seen[n.index()] => {
                    seen[n.index()] = true;
                    stack.push(n);
                }
                Cell::Black => touches[0] = true,
                Cell::White => touches[1] = true,
                _ => {}
            }
        }
    }
    let owner = match touches {
        [true, false] => Some(Color::Black),
        [false, true] => Some(Color::White),
        _ => None,
    };
    (size, owner)
}

/// Per point: the colour that owns it by area counting (stones, and empty regions reaching one colour).
pub fn area_ownership(board: &Board) -> Vec<(Point, Option<Color>)> {
    let mut owner_of = vec![None; super::coord::GRID];
    let mut seen = vec![false; super::coord::GRID];
    for p in board.size().points() {
        match board.cell(p) {
            Cell::Black => owner_of[p.index()] = Some(Color::Black),
            Cell::White => owner_of[p.index()] = Some(Color::White),
            Cell::Empty if !seen[p.index()] => {
                let (_, owner) = region_owner(board, p, &mut seen);
                let mut fill_seen = vec![false; super::coord::GRID];
                let mut stack = vec![p];
                fill_seen[p.index()] = true;
                while let Some(q) = stack.pop() {
                    owner_of[q.index()] = owner;
                    for n in neighbours(q) {
                        if board.cell(n) == Cell::Empty && !fill_seen[n.index()] {
                            fill_seen[n.index()] = true;
                            stack.push(n);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    board
        .size()
        .points()
        .map(|p| (p, owner_of[p.index()]))
        .collect()
}

/// Black's area minus White's area (no komi): stones plus empty regions that reach only one colour.
pub fn area_difference(board: &Board) -> i32 {
    area_ownership(board)
        .iter()
        .map(|(_, o)| o.map_or(0, |c| c.sign()))
        .sum()
}

/// Black's territory plus prisoners minus White's (no komi), after removing `dead` stones.
pub fn territory_difference(board: &Board, dead: &[Point]) -> i32 {
    let mut board = board.clone();
    let mut prisoners = [
        board.captures(Color::Black) as i32,
        board.captures(Color::White) as i32,
    ];
    for &p in dead {
        if let Some(c) = board.color_at(p) {
            prisoners[c.opponent().index()] += 1;
            board.remove_stone(p);
        }
    }
    let mut seen = vec![false; super::coord::GRID];
    let mut territory = [0i32; 2];
    for p in board.size().points() {
        if board.cell(p) == Cell::Empty && !seen[p.index()] {
            let (size, owner) = region_owner(&board, p, &mut seen);
            if let Some(c) = owner {
                territory[c.index()] += size as i32;
            }
        }
    }
    (territory[0] + prisoners[0]) - (territory[1] + prisoners[1])
}

/// Black's lead at the end of `game` under its rules, komi included, assuming every stone alive
/// (territory scoring takes the dead stones from the caller through [`territory_difference`]).
pub fn final_score(game: &Game) -> f64 {
    let raw = match game.rules().scoring {
        Scoring::Area => area_difference(game.board()),
        Scoring::Territory => territory_difference(game.board(), &[]),
    };
    raw as f64 - game.rules().komi.value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::coord::BoardSize;
    use crate::go::rules::{Komi, Rules};

    #[test]
    fn empty_board_is_neutral_and_one_stone_owns_all() {
        let size = BoardSize::square(5).unwrap();
        let mut b = Board::new(size);
        assert_eq!(area_difference(&b), 0);
        b.place(Color::Black, Point::new(2, 2));
        assert_eq!(area_difference(&b), 25);
    }

    #[test]
    fn split_board_with_dame() {
        let size = BoardSize::square(3).unwrap();
        let mut b = Board::new(size);
        for y in 0..3 {
            b.place(Color::Black, Point::new(0, y));
            b.place(Color::White, Point::new(2, y));
        }
        assert_eq!(area_difference(&b), 0);
        b.place(Color::Black, Point::new(1, 0));
        assert_eq!(area_difference(&b), 1);
    }

    #[test]
    fn territory_counts_prisoners_and_dead_stones() {
        let size = BoardSize::square(5).unwrap();
        let mut b = Board::new(size);
        for y in 0..5 {
            b.place(Color::Black, Point::new(1, y));
            b.place(Color::White, Point::new(3, y));
        }
        assert_eq!(territory_difference(&b, &[]), 0);
        b.place(Color::White, Point::new(0, 2)); // an invader, dead
        assert_eq!(territory_difference(&b, &[Point::new(0, 2)]), (5 + 1) - 5);
        let g = Game::new(
            size,
            Rules::japanese().with_komi(Komi::from_f64(6.5).unwrap()),
        );
        assert_eq!(final_score(&g), -6.5);
    }
}
