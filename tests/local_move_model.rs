//! The shipped local-move network (`models/local-move.onnx`, contract in `docs/local-move-network.md`):
//! it opens through tengen's `nn` runtime, takes any batch and board size, and agrees with the exact solver
//! on small positions whose answer is clear. Needs ONNX Runtime (`ORT_DYLIB_PATH`, set by `.ci/test`).

use std::path::Path;
use tengen::endgame::exact;
use tengen::endgame::region::Region;
use tengen::go::{Board, BoardSize, Color, Point, Scoring};
use tengen::nn::SessionOptions;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/models/local-move.onnx");
const HISTORY: usize = 8;
const PLANES: usize = 19;

/// The contract's input planes for one sample: `history` ends with the current position.
fn planes(history: &[Board], region: &Region, to_move: Color) -> Vec<f32> {
    let size = history[history.len() - 1].size();
    let area = size.area();
    let mut x = vec![0.0f32; PLANES * area];
    for h in 0..HISTORY {
        let board = &history[history.len() - 1 - h.min(history.len() - 1)];
        for p in size.points() {
            let i = size.row_major(p);
            match board.color_at(p) {
                Some(Color::Black) => x[2 * h * area + i] = 1.0,
                Some(Color::White) => x[(2 * h + 1) * area + i] = 1.0,
                None => {}
            }
        }
    }
    for p in size.points() {
        let i = size.row_major(p);
        x[16 * area + i] = f32::from(u8::from(region.contains(p)));
        x[17 * area + i] = f32::from(u8::from(to_move == Color::Black));
        x[18 * area + i] = 1.0;
    }
    x
}

fn run(session: &mut ort::session::Session, n: usize, side: usize, input: &[f32]) -> Vec<f32> {
    let tensor = ort::value::TensorRef::from_array_view(([n, PLANES, side, side], input)).unwrap();
    let outputs = session.run(ort::inputs!["input" => tensor]).unwrap();
    let (shape, data) = outputs["logits"].try_extract_tensor::<f32>().unwrap();
    assert_eq!(&shape[..], &[n as i64, (2 * side * side + 1) as i64]);
    data.to_vec()
}

fn open() -> ort::session::Session {
    if let Err(e) = tengen::nn::runtime::check() {
        panic!("this test needs ONNX Runtime: {e}");
    }
    tengen::nn::runtime::open_session(Path::new(MODEL), &SessionOptions::default())
        .unwrap()
        .session
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

/// The index of the largest value.
fn argmax(v: &[f32]) -> usize {
    (0..v.len())
        .max_by(|&a, &b| v[a].total_cmp(&v[b]))
        .unwrap_or(0)
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
fn shapes_follow_the_contract_for_any_batch_and_board_size() {
    let mut session = open();
    for side in [19, 9] {
        let (b, _) = open_corner();
        let small = board(side, &[(3, 0), (3, 1)], &[(1, 2)]);
        let b = if side == 19 { b } else { small };
        let region = rect(0, 3, 0, 2);
        let mut input = planes(std::slice::from_ref(&b), &region, Color::Black);
        input.extend(planes(&[b.clone(), b], &region, Color::White));
        let logits = run(&mut session, 2, side, &input);
        assert!(logits.iter().all(|v| v.is_finite()));
        // Moves outside the region get no probability: their logits sit far below the rest.
        let outside = Point::new(side - 1, side - 1);
        let i = BoardSize::square(side).unwrap().row_major(outside);
        assert!(logits[i] < logits[2 * side * side] - 100.0);
    }
}

#[test]
fn an_open_boundary_gets_a_best_move_and_a_closed_one_gets_no_move() {
    let mut session = open();
    let side = 19;
    let area = side * side;

    let (b, region) = open_corner();
    let solution = exact::solve(&b, &region, Scoring::Territory).unwrap();
    assert!(solution.temperature() > tengen::endgame::cgt::Rational::ZERO);
    let logits = run(&mut session, 1, side, &planes(&[b], &region, Color::Black));
    let top = argmax(&logits);
    assert_ne!(
        top,
        2 * area,
        "the open corner is hot, yet the network says no move"
    );
    let (colour, index) = if top < area {
        (Color::White, top)
    } else {
        (Color::Black, top - area)
    };
    let point = BoardSize::square(side).unwrap().from_row_major(index);
    assert!(
        solution.best_moves(colour).contains(&point),
        "the network's top move {colour:?} {point:?} is not among the solver's best"
    );

    let (b, region) = closed_corner();
    let solution = exact::solve(&b, &region, Scoring::Territory).unwrap();
    assert!(solution.root.game.is_number());
    let logits = run(&mut session, 1, side, &planes(&[b], &region, Color::White));
    assert_eq!(
        argmax(&logits),
        2 * area,
        "the closed corner should get no move"
    );
}
