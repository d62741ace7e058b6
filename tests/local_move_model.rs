//! The shipped local-move network (`models/local-move-head.onnx` on KataGo's b6c96 trunk, contract in
//! `docs/local-move-network.md`): the head agrees with the training code on a stored window of trunk
//! features (the fixture `training/export.py` writes), it opens with its trunk through tengen's `nn`
//! runtime, and it agrees with the exact solver on small positions whose answer is clear. Needs ONNX
//! Runtime (`ORT_DYLIB_PATH`, set by `.ci/test`).

use std::path::Path;
use tengen::endgame::exact;
use tengen::endgame::net::proposer::trunk::FeatureMaps;
use tengen::endgame::net::proposer::{LocalMoveNet, LocalState, Proposer};
use tengen::endgame::region::Region;
use tengen::go::{Board, BoardSize, Color, Point, Scoring};

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/models/local-move-head.onnx");
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/local-move-head-fixture.json"
);

fn open() -> LocalMoveNet {
    if let Err(e) = tengen::nn::runtime::check() {
        panic!("this test needs ONNX Runtime: {e}");
    }
    LocalMoveNet::open(Path::new(MODEL)).expect("the shipped head and its trunk open")
}

fn board(side: usize, black: &[(usize, usize)], white: &[(usize, usize)]) -> Board {
    let mut b = Board::new(BoardSize::square(side).unwrap());
    for &(x, y) in black {
        b.setup_stone(Color::Black, Point::new(x, y));
    }
    for &(x, y) in white {
        b.setup_stone(Color::White, Point::new(x, y));
    }
    b
}

fn rect(x0: usize, x1: usize, y0: usize, y1: usize) -> Region {
    Region::new((y0..y1).flat_map(|y| (x0..x1).map(move |x| Point::new(x, y))))
}

/// A corner where the boundary is still open: a black and a white wall meet on the second line.
fn open_corner() -> (Board, Region) {
    let b = board(
        19,
        &[(3, 0), (3, 1), (3, 2), (2, 2)],
        &[(1, 2), (0, 2), (0, 3), (1, 3)],
    );
    (b, rect(0, 3, 0, 2))
}

/// The same corner after Black has closed it: Black's territory, nothing left to play.
fn closed_corner() -> (Board, Region) {
    let b = board(
        19,
        &[(3, 0), (3, 1), (3, 2), (2, 2), (0, 1), (1, 1), (2, 1)],
        &[(1, 2), (0, 2), (0, 3), (1, 3)],
    );
    (b, rect(0, 3, 0, 2))
}

#[test]
fn the_head_reproduces_the_training_code_on_the_fixture() {
    let net = open();
    let text = std::fs::read_to_string(FIXTURE).expect("fixture");
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("fixture JSON");
    let numbers = |key: &str| -> Vec<f32> {
        fixture[key]
            .as_array()
            .expect("an array")
            .iter()
            .map(|v| v.as_f64().expect("a number") as f32)
            .collect()
    };
    let size = |key: &str| fixture[key].as_u64().expect("a size") as usize;
    let (channels, h, w) = (size("channels"), size("height"), size("width"));
    let maps = FeatureMaps {
        n: 1,
        channels,
        height: h,
        width: w,
        data: numbers("features"),
    };
    let mask = numbers("mask");
    let want = numbers("logits");
    let got = net.head(&maps, &mask).expect("the head runs");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].len(), 2 * h * w + 1);
    assert!(
        mask.iter().any(|&m| m > 0.5),
        "the fixture's window holds part of a region"
    );
    for (i, (g, e)) in got[0].iter().zip(&want).enumerate() {
        let inside = i == 2 * h * w || mask[i % (h * w)] > 0.5;
        if inside {
            assert!(
                (g - e).abs() < 1e-3,
                "logit {i}: {g} from ONNX Runtime, {e} from torch"
            );
        } else {
            assert!(
                *g < -1000.0 && *e < -1000.0,
                "logit {i} outside the region: {g}, {e}"
            );
        }
    }
}

#[test]
fn an_open_boundary_gets_a_best_move_and_a_closed_one_gets_no_move() {
    let net = open();

    let (b, region) = open_corner();
    let solution = exact::solve(&b, &region, Scoring::Territory).unwrap();
    assert!(solution.temperature() > tengen::endgame::cgt::Rational::ZERO);
    let state = LocalState::root(&b);
    let proposal = net.propose(&region, &[&state]).unwrap().remove(0);
    let total = proposal.total(Color::Black) + proposal.total(Color::White) + proposal.no_move;
    assert!((total - 1.0).abs() < 1e-3, "probabilities sum to {total}");
    let best = [Color::Black, Color::White]
        .into_iter()
        .flat_map(|c| proposal.moves(c).iter().map(move |&(p, q)| (c, p, q)))
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .expect("moves in the open corner");
    assert!(
        best.2 > proposal.no_move,
        "the open corner is hot, yet the network says no move ({} against {})",
        proposal.no_move,
        best.2
    );
    assert!(
        solution.best_moves(best.0).contains(&best.1),
        "the network's top move {:?} {:?} is not among the solver's best",
        best.0,
        best.1
    );
    assert!(
        [Color::Black, Color::White]
            .iter()
            .all(|&c| proposal.moves(c).iter().all(|&(p, _)| region.contains(p))),
        "moves outside the region"
    );

    let (b, region) = closed_corner();
    let solution = exact::solve(&b, &region, Scoring::Territory).unwrap();
    assert!(solution.root.game.is_number());
    let state = LocalState::root(&b);
    let proposal = net.propose(&region, &[&state]).unwrap().remove(0);
    let best_move = proposal
        .black
        .iter()
        .chain(&proposal.white)
        .map(|&(_, q)| q)
        .fold(0.0f32, f32::max);
    assert!(
        proposal.no_move > best_move,
        "the closed corner should get no move ({} against a move at {best_move})",
        proposal.no_move
    );
}
