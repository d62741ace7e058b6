use super::judged::*;
use super::reading::*;
use crate::endgame::region::Region;
use crate::endgame::test_support::{at, board_with, problem};
use crate::go::coord::GRID;
use crate::go::{Board, Color, Point};

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
