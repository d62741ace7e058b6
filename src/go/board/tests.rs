use super::*;

fn board_from(rows: &[&str]) -> Board {
    let size = BoardSize::new(rows[0].len(), rows.len()).unwrap();
    let mut b = Board::new(size);
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            match c {
                'X' => b.setup_stone(Color::Black, Point::new(x, y)),
                'O' => b.setup_stone(Color::White, Point::new(x, y)),
                _ => {}
            }
        }
    }
    b
}

/// Recomputes every chain's liberties by flood fill and compares with the incremental bookkeeping.
fn assert_consistent(b: &Board) {
    for p in b.size().points() {
        if b.color_at(p).is_some() {
            let exact = b.chain_liberties(p);
            assert_eq!(b.in_atari(p), exact.len() == 1, "atari flag at {p:?}");
            if exact.len() == 1 {
                assert_eq!(b.atari_liberty(p), exact[0]);
            }
            assert!(
                b.chain_stones(p)
                    .iter()
                    .all(|&s| b.chain_head(s) == b.chain_head(p))
            );
        }
    }
    let empties = b
        .size()
        .points()
        .filter(|&p| b.cell(p) == Cell::Empty)
        .count();
    assert_eq!(empties, b.empty_count());
}

#[test]
fn capture_in_the_corner() {
    let mut b = board_from(&["X....", "O....", ".....", ".....", "....."]);
    assert!(b.in_atari(Point::new(0, 0)));
    assert_eq!(b.atari_liberty(Point::new(0, 0)), Point::new(1, 0));
    let placed = b.place(Color::White, Point::new(1, 0));
    assert_eq!(placed.captured, 1);
    assert_eq!(b.color_at(Point::new(0, 0)), None);
    assert_eq!(b.captures(Color::White), 1);
    assert_consistent(&b);
}

#[test]
fn snapback() {
    // Black throws in at D3; White takes; the five White stones are then in atari at D3.
    let mut b = board_from(&["XOO.O.", "XOO.X.", ".XXX.."]);
    let (throw_in, take) = (Point::new(3, 0), Point::new(3, 1));
    assert!(b.check(Color::Black, throw_in, false).is_ok());
    assert_eq!(b.place(Color::Black, throw_in).captured, 0);
    assert_eq!(b.place(Color::White, take).captured, 1);
    assert_eq!(b.ko_point(), None, "taking with a group is not a ko");
    assert_eq!(b.place(Color::Black, throw_in).captured, 5);
    assert_consistent(&b);
}

#[test]
fn suicide_rules() {
    let b = board_from(&[".O...", "O....", ".....", ".....", "....."]);
    assert_eq!(
        b.check(Color::Black, Point::new(0, 0), true),
        Err(IllegalMove::Suicide)
    );
    let b = board_from(&["X.O..", "OO...", ".....", ".....", "....."]);
    assert_eq!(
        b.check(Color::Black, Point::new(1, 0), false),
        Err(IllegalMove::Suicide)
    );
    assert_eq!(b.check(Color::Black, Point::new(1, 0), true), Ok(()));
    let mut b2 = b.clone();
    let placed = b2.place(Color::Black, Point::new(1, 0));
    assert_eq!(placed.suicided, 2);
    assert_eq!(b2.captures(Color::White), 2);
    assert_consistent(&b2);
}

#[test]
fn simple_ko_is_banned_then_cleared() {
    let mut b = board_from(&["..XO.", ".X.XO", "..XO.", ".....", "....."]);
    let placed = b.place(Color::White, Point::new(2, 1));
    assert_eq!(placed.captured, 1);
    assert_eq!(b.ko_point(), Some(Point::new(3, 1)));
    assert_eq!(
        b.check(Color::Black, Point::new(3, 1), false),
        Err(IllegalMove::Ko)
    );
    b.play(Color::Black, Move::Pass);
    assert_eq!(b.ko_point(), None);
    assert_consistent(&b);
}

#[test]
fn eyes() {
    let b = board_from(&[".X...", "X....", ".....", ".....", "....."]);
    assert!(b.is_eye(Color::Black, Point::new(0, 0)));
    assert!(!b.is_eye(Color::White, Point::new(0, 0)));
    let b = board_from(&[".XO..", "XX...", ".....", ".....", "....."]);
    assert!(b.is_eye(Color::Black, Point::new(0, 0)));
    let b = board_from(&[".X...", "XO...", ".....", ".....", "....."]);
    assert!(
        !b.is_eye(Color::Black, Point::new(0, 0)),
        "false eye on the edge"
    );
}

#[test]
fn two_by_two_and_three_by_three() {
    let mut b = Board::new(BoardSize::square(2).unwrap());
    b.place(Color::Black, Point::new(0, 0));
    b.place(Color::White, Point::new(1, 1));
    assert!(!b.in_atari(Point::new(0, 0)));
    let placed = b.place(Color::White, Point::new(1, 0));
    assert_eq!(placed.captured, 0);
    assert!(b.in_atari(Point::new(0, 0)));
    let placed = b.place(Color::White, Point::new(0, 1));
    assert_eq!(placed.captured, 1);
    assert_eq!(b.empty_count(), 1);
    // Black's stone in the last liberty captures all three White stones, so it is no suicide.
    assert_eq!(b.check(Color::Black, Point::new(0, 0), false), Ok(()));
    assert_eq!(b.place(Color::Black, Point::new(0, 0)).captured, 3);
    assert_eq!(b.ko_point(), None, "a capture of three is not a ko");
    assert_consistent(&b);
    let mut b = Board::new(BoardSize::square(3).unwrap());
    b.place(Color::Black, Point::new(1, 1));
    assert_eq!(b.liberty_count(Point::new(1, 1)), 4);
    assert_consistent(&b);
}

#[test]
fn random_play_keeps_invariants() {
    let mut rng = 12345u64;
    for side in [2, 3, 5, 9] {
        let mut b = Board::new(BoardSize::square(side).unwrap());
        let mut color = Color::Black;
        for _ in 0..200 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let empties = b.empty_points().to_vec();
            if empties.is_empty() {
                break;
            }
            let p = Point::from_index(empties[(rng >> 33) as usize % empties.len()] as usize);
            if b.check(color, p, true).is_ok() {
                let predicted = b.hash_after(color, p);
                b.place(color, p);
                assert_eq!(b.stone_hash(), predicted, "hash_after agrees with place");
                assert_consistent(&b);
            }
            color = color.opponent();
        }
    }
}

#[test]
fn copy_from_gives_a_board_that_plays_on_like_a_clone() {
    use crate::go::playout::{FastRng, play_out};
    for (side, seed) in [(5, 1), (7, 2), (9, 3), (19, 4)] {
        let size = BoardSize::square(side).unwrap();
        let mut source = Board::new(size);
        play_out(&mut source, Color::Black, &mut FastRng::new(seed), 3 * side);
        // A board of the same size in another position, and one of another size.
        let mut same = Board::new(size);
        play_out(&mut same, Color::White, &mut FastRng::new(seed + 10), 500);
        let mut other = Board::new(BoardSize::new(side, side.max(6) - 2).unwrap());
        for copy in [&mut same, &mut other] {
            copy.copy_from(&source);
            assert_eq!(*copy, source);
            assert_eq!(copy.empty_points(), source.empty_points());
            assert_consistent(copy);
            let mut clone = source.clone();
            play_out(copy, Color::White, &mut FastRng::new(seed), 1000);
            play_out(&mut clone, Color::White, &mut FastRng::new(seed), 1000);
            assert_eq!(*copy, clone);
            assert_eq!(copy.stone_hash(), clone.stone_hash());
            assert_eq!(copy.captures(Color::Black), clone.captures(Color::Black));
            assert_eq!(copy.captures(Color::White), clone.captures(Color::White));
        }
    }
}
