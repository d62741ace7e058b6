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

#[test]
fn a_remembered_safe_verdict_is_its_own_position_s_and_region_s() {
    // The same stones read in turn with White's D19-D18 in atari (not safe) and anchored (safe), and
    // under a second region where nothing is assessed as anchored differently: each answer is the
    // fresh assessment's, whatever the slots held before.
    let in_atari = board_with(&["C19", "C18", "D17", "E18"], &["D19", "D18"]);
    let anchored = board_with(&["C19", "C18", "D17"], &["D19", "D18", "F18"]);
    let small = region(&["D19", "D18", "C19", "C18"]);
    let large = region(&["D19", "D18", "C19", "C18", "E19", "E18"]);
    for _ in 0..2 {
        for board in [&in_atari, &anchored] {
            for region in [&small, &large] {
                let fresh = Settlement::assess(board, region, &Sealed::default());
                for p in ["D19", "C19", "D17"] {
                    assert_eq!(
                        Settlement::chain_is_safe(board, region, at(p)),
                        fresh.is_safe(at(p)),
                        "{p}"
                    );
                }
            }
        }
    }
    assert!(!Settlement::chain_is_safe(&in_atari, &small, at("D19")));
    assert!(Settlement::chain_is_safe(&anchored, &small, at("D19")));
}
