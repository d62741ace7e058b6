use super::scoring::chains_decided;
use super::tree::{BuiltNode, LeafReason};
use super::value::forced_answer;
use crate::endgame::net::proposer::LocalState;
use crate::endgame::test_support::{at, problem};
use crate::go::{Color, Point};

#[test]
fn reading_decides_a_leaf_only_once_the_vital_point_is_taken() {
    // 01-value-of-move/05: White's straight three lives or dies by B19.
    let p = problem("01-value-of-move/05.sgf");
    assert!(!chains_decided(&p.board, &p.region));
    let mut killed = p.board.clone();
    killed.place(Color::Black, at("B19"));
    assert!(chains_decided(&killed, &p.region));
}

fn node(state: LocalState, mv: Option<(Color, Point)>, leaf: Option<LeafReason>) -> BuiltNode {
    BuiltNode {
        state,
        mv,
        probability: None,
        children: Vec::new(),
        leaf,
        depth: 0,
    }
}

#[test]
fn a_node_following_only_the_answer_is_a_forced_reply() {
    let p = problem("01-value-of-move/05.sgf");
    let root = LocalState::root(&p.board);
    let (b, w) = (at("B19"), at("C19"));
    let after_b = root.play(Color::Black, b).expect("legal");
    let answer = after_b.play(Color::White, w).expect("legal");
    let follow_up = after_b.play(Color::Black, w).expect("legal");
    let mut nodes = vec![
        node(root, None, None),
        node(after_b, Some((Color::Black, b)), None),
        node(answer, Some((Color::White, w)), Some(LeafReason::NoMove)),
        node(follow_up, Some((Color::Black, w)), Some(LeafReason::Direct)),
    ];
    nodes[0].children = vec![1];
    nodes[1].children = vec![2, 3];
    assert_eq!(forced_answer(&nodes, 1), Some(Color::White));
    assert_eq!(forced_answer(&nodes, 0), None);
    // Followed on both sides: no forced reply.
    nodes[3].leaf = Some(LeafReason::NoMove);
    assert_eq!(forced_answer(&nodes, 1), None);
}
