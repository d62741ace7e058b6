//! The solver against hand-checked positions, the proven 3x3 value, and a plain search over `Game`.

use super::root::{NODES_PER_VISIT, ROOT_BUDGET};
use super::*;
use crate::engine::Query;
use crate::engine::rollout::root_position;
use crate::engine::rollout::tree::RootPosition;
use crate::go::Point;
use crate::go::playout::FastRng;
use crate::go::score::area_difference;
use crate::go::{Game, Komi};

/// Tromp-Taylor without suicide (which the solver does not play), komi 0.
fn rules() -> Rules {
    Rules {
        multi_stone_suicide: false,
        ..Rules::tromp_taylor()
    }
    .with_komi(Komi::from_f64(0.0).unwrap())
}

fn game(side: usize, moves: &str) -> Game {
    Game::from_gtp_moves(BoardSize::square(side).unwrap(), rules(), moves).unwrap()
}

fn root_of(game: &Game) -> RootPosition {
    root_position(&Query::from_game(game)).unwrap()
}

/// Black's exact area minus White's from the game's position, with its history.
fn solve(solver: &mut Solver, game: &Game) -> Option<i32> {
    let root = root_of(game);
    let outside = Outside {
        history: &root.history,
        path: &[],
        max_stones: root.max_stones,
    };
    solver.solve(
        &root.board,
        root.to_move,
        root.consecutive_passes,
        &outside,
        5_000_000,
    )
}

/// Plain alpha-beta over `Game` (its own legality and superko), no table: the reference. The value is
/// the player to move's; lines cut `depth` moves on get Black's `cut` and set the flag.
fn reference(game: &Game, mut alpha: i32, beta: i32, depth: usize, cut: i32) -> (i32, bool) {
    let sign = game.to_move().sign();
    if game.is_over() {
        return (area_difference(game.board()) * sign, false);
    }
    if depth == 0 {
        return (cut * sign, true);
    }
    let mut best = -INFINITE;
    let mut was_cut = false;
    let mut moves = game.legal_moves();
    // Pass first (the list has it last), as in the solver.
    moves.rotate_right(1);
    for mv in moves {
        if fills_a_chains_eye(game, mv) {
            continue;
        }
        let mut child = game.clone();
        child.play(mv).unwrap();
        let (value, cut_below) = reference(&child, -beta, -alpha, depth - 1, cut);
        was_cut |= cut_below;
        best = best.max(-value);
        alpha = alpha.max(-value);
        if alpha >= beta {
            break;
        }
    }
    (best, was_cut)
}

/// Black's value by the reference, if cuts at `depth` leave it settled.
fn plain_value(game: &Game, depth: usize) -> Option<i32> {
    let area = game.size().area() as i32;
    let sign = game.to_move().sign();
    let (low, was_cut) = reference(game, -INFINITE, INFINITE, depth, -area);
    let (high, _) = reference(game, -INFINITE, INFINITE, depth, area);
    (!was_cut || low == high).then_some(low * sign)
}

/// Whether `mv` fills a one-point eye of a single chain of the mover's (which the solver leaves out).
fn fills_a_chains_eye(game: &Game, mv: Move) -> bool {
    let Move::Play(p) = mv else { return false };
    let board = game.board();
    let around: Vec<Point> = crate::go::board::neighbours(p)
        .into_iter()
        .filter(|&n| board.is_on_board(n))
        .collect();
    around
        .iter()
        .all(|&n| board.color_at(n) == Some(game.to_move()))
        && around
            .iter()
            .all(|&n| board.chain_head(n) == board.chain_head(around[0]))
}

#[test]
fn bitboard_moves_agree_with_the_board() {
    let mut rng = FastRng::new(9);
    for (w, h) in [(2, 2), (3, 3), (4, 4), (5, 5), (5, 3), (2, 4)] {
        let size = BoardSize::new(w, h).unwrap();
        let geo = Geometry::new(size).unwrap();
        for _ in 0..20 {
            let mut g = Game::new(size, rules());
            for _ in 0..3 * size.area() {
                let moves = g.legal_moves();
                let mv = moves[rng.below(moves.len())];
                let before = Position::of(g.board(), &geo);
                let color = g.to_move();
                g.play(mv).unwrap();
                if g.is_over() {
                    break;
                }
                let after = Position::of(g.board(), &geo);
                assert_eq!(after.hash, g.board().stone_hash());
                assert_eq!(after.black_area(&geo), area_difference(g.board()));
                if let Move::Play(p) = mv {
                    let (played, _) = before.play(&geo, color, p.y() * w + p.x()).unwrap();
                    assert_eq!(played, after, "{w}x{h} {}", mv.to_gtp(size));
                }
            }
        }
    }
}

#[test]
fn suicide_is_not_a_move() {
    // 2x2: White A1 and B2, Black to move: A2 and B1 are each a suicide for Black... unless it
    // captures, which a lone stone with no liberty cannot.
    let g = game(2, "pass A1 pass B2");
    let geo = Geometry::new(g.size()).unwrap();
    let pos = Position::of(g.board(), &geo);
    // A2 is (0, 0), B1 is (1, 1) in the solver's row-major bits.
    assert!(pos.play(&geo, Color::Black, 0).is_none());
    assert!(pos.play(&geo, Color::Black, 3).is_none());
}

#[test]
fn a_wall_down_the_middle_owns_the_board() {
    // Black's wall on the B file splits 3x3 into two strips of three no White stone can live in.
    let mut solver = Solver::new(BoardSize::square(3).unwrap(), rules()).unwrap();
    let white_to_move = game(3, "B2 pass B1 pass B3");
    assert_eq!(solve(&mut solver, &white_to_move), Some(9));
    // After White's pass Black's pass ends the game at once: nine points either way.
    let black_to_move = game(3, "B2 pass B1 pass B3 pass");
    assert_eq!(solve(&mut solver, &black_to_move), Some(9));
}

#[test]
fn a_lone_stone_after_a_pass_is_counted_as_it_stands() {
    // White to move after Black's pass may pass too (game over, Black 9) or play: both sides are then
    // still on the board, and the solver must find White's best, which a plain search confirms.
    let g = game(3, "B2 pass");
    let mut solver = Solver::new(g.size(), g.rules()).unwrap();
    let exact = solve(&mut solver, &g).unwrap();
    assert_eq!(Some(exact), plain_value(&g, 20));
}

#[test]
fn the_empty_three_by_three_is_black_plus_nine_from_the_centre() {
    let g = game(3, "");
    let root = root_of(&g);
    let moves = g.legal_moves();
    let values = root_values(&root, &moves, root_budget(None)).expect("3x3 is tiny");
    let centre = moves
        .iter()
        .position(|&m| m.to_gtp(g.size()) == "B2")
        .unwrap();
    // The edge moves' ko fights need more than the root's budget with the converse guard: unsettled.
    assert_eq!(values[centre], Some(9));
    assert_eq!(values.iter().flatten().max(), Some(&9));
}

#[test]
fn the_table_agrees_with_a_plain_search_on_random_endings() {
    // One solver for every position (each solve starts with an empty table, see the module).
    let mut rng = FastRng::new(17);
    for (side, empty, games) in [(3, 5, 30), (4, 3, 8)] {
        let size = BoardSize::square(side).unwrap();
        let mut solver = Solver::new(size, rules()).unwrap();
        let mut compared = 0;
        for _ in 0..games {
            let mut g = Game::new(size, rules());
            while g.board().empty_count() > empty && !g.is_over() {
                play_a_random_stone(&mut rng, &mut g);
            }
            if g.is_over() {
                continue;
            }
            let Some(plain) = plain_value(&g, 16) else {
                continue;
            };
            let exact = solve(&mut solver, &g);
            assert_eq!(
                exact,
                Some(plain),
                "{side}x{side}\n{}",
                g.board().render(None)
            );
            compared += 1;
        }
        assert!(
            compared > games / 2,
            "{side}x{side}: only {compared} compared"
        );
    }
}

/// Solver effort on growing 4x4 positions (`--ignored --nocapture solver_effort`): a diagnostic.
#[test]
#[ignore]
fn solver_effort() {
    // TINY_CUTS: iterative deepening instead of the default cuts, e.g. "6,8,10,12,14,16,24,32,64";
    // TINY_FRESH=1: an empty table for each cut.
    let cuts: &'static [usize] = match std::env::var("TINY_CUTS") {
        Ok(list) => list
            .split(',')
            .map(|c| c.parse().unwrap())
            .collect::<Vec<_>>()
            .leak(),
        Err(_) => &CUTS,
    };
    let fresh = std::env::var("TINY_FRESH").is_ok_and(|v| v == "1");
    let line = "C3 B2 C2 B3 B4 C1 A3 B1 A2 D2 D4 D1";
    let moves: Vec<&str> = line.split(' ').collect();
    for n in (7..=moves.len()).rev() {
        let g = game(4, &moves[..n].join(" "));
        let mut solver = Solver::new(g.size(), g.rules())
            .unwrap()
            .with_cuts(cuts, fresh);
        let start = std::time::Instant::now();
        let v = solve(&mut solver, &g);
        eprintln!(
            "{n} moves, {} empty: {v:?}, {} nodes, {:?}",
            g.board().empty_count(),
            solver.nodes(),
            start.elapsed()
        );
        let e = solver.effort();
        eprintln!(
            "  moves: {} passes, {} captures, {} self-ataris, {} other; {} cut leaves, {} games \
             finished, {} nodes bounded statically, {} by the table",
            e.passes,
            e.captures,
            e.self_ataris,
            e.other,
            e.cut_leaves,
            e.finished,
            e.bounded,
            e.from_table
        );
        eprintln!("  searches (cut, cut value, nodes): {:?}", e.searches);
        eprintln!("  nodes by depth: {:?}", e.by_depth);
    }
    let g = game(3, "");
    let mut solver = Solver::new(g.size(), g.rules())
        .unwrap()
        .with_cuts(cuts, fresh);
    eprintln!(
        "3x3: {:?}, {} nodes",
        solve(&mut solver, &g),
        solver.nodes()
    );
}

#[test]
fn static_safety_bounds_hold_the_searched_value() {
    let mut rng = FastRng::new(23);
    let mut checked = 0;
    for (side, empty) in [(3, 4), (3, 5), (4, 3), (4, 4)] {
        let size = BoardSize::square(side).unwrap();
        let geo = Geometry::new(size).unwrap();
        for _ in 0..60 {
            let mut g = Game::new(size, rules());
            while g.board().empty_count() > empty && !g.is_over() {
                play_a_random_stone(&mut rng, &mut g);
            }
            if g.is_over() || g.consecutive_passes() > 0 {
                continue;
            }
            let pos = Position::of(g.board(), &geo);
            let [black_safe, white_safe] = pos.safe_areas(&geo).map(|a| a.count_ones() as i32);
            let open = size.area() as i32 - black_safe - white_safe;
            let (low, high) = (
                black_safe - white_safe - open,
                black_safe - white_safe + open,
            );
            if low == -(size.area() as i32) && high == size.area() as i32 {
                continue;
            }
            let Some(plain) = plain_value(&g, 14) else {
                continue;
            };
            assert!(
                (low..=high).contains(&plain),
                "{plain} outside {low}..={high}\n{}",
                g.board().render(None)
            );
            checked += 1;
        }
    }
    eprintln!("{checked} positions with a decided point checked");
    assert!(checked > 20, "only {checked} positions had a decided point");
}

#[test]
fn a_root_s_budget_follows_the_visits_asked_for_up_to_the_cap() {
    assert_eq!(root_budget(Some(30)), 30 * NODES_PER_VISIT);
    assert_eq!(root_budget(Some(2_000)), ROOT_BUDGET);
    assert_eq!(root_budget(Some(u64::MAX)), ROOT_BUDGET);
    assert_eq!(root_budget(None), ROOT_BUDGET);
}

/// The 8-empty position of `solver_effort`'s line (Black to move): its value must be the best of its
/// moves' values. Without the converse graph-history guard ([`guard`]) the whole-position solve gave +3
/// and D2 solved alone (a fresh table, as the root hook solves) +6; guarded, the whole is +2 and the
/// moves A4 −16, C4 0, D4 −1, D3 −16, A2 +2, D2 −1, A1 −16, D1 0 (pass unsettled within the root's
/// budget), i.e. A2, the proven +2 of the 7-empty position after it.
#[test]
fn a_position_is_worth_its_best_move() {
    let g = game(4, "C3 B2 C2 B3 B4 C1 A3 B1");
    let root = root_of(&g);
    let mut moves = g.legal_moves();
    moves.retain(|m| !fills_a_chains_eye(&g, *m) && *m != Move::Pass);
    let values = root_values(&root, &moves, root_budget(None)).expect("4x4 is tiny");
    let best = values.iter().flatten().max().copied();
    let mut solver = Solver::new(g.size(), g.rules()).expect("4x4 fits");
    let whole = solve(&mut solver, &g);
    assert!(
        whole.is_some() && best.is_some(),
        "settled: {whole:?}, {values:?}"
    );
    assert_eq!(whole, best, "the position against its moves {values:?}");
}

/// Per-move solves as the root hook does them (a fresh table per move): values and nodes.
fn per_move(g: &Game, budget: u64) -> (Vec<Option<i32>>, u64) {
    let root = root_of(g);
    let outside = Outside {
        history: &root.history,
        path: &[],
        max_stones: root.max_stones,
    };
    let mut solver = Solver::new(g.size(), g.rules()).unwrap();
    let mut moves = g.legal_moves();
    moves.retain(|m| !fills_a_chains_eye(g, *m));
    let values = moves
        .iter()
        .map(|&mv| {
            solver.table.clear();
            let (board, color, passes) = (&root.board, root.to_move, root.consecutive_passes);
            let one = solver.solve_moves(board, color, passes, &outside, &[mv], budget);
            one.map(|v| v[0])
        })
        .collect();
    (values, solver.nodes())
}

/// The converse guard's cost (`--ignored --nocapture guard_effort`, `TINY_BUDGET` nodes per solve,
/// default 20,000,000; `TINY_ONLY3=1`: 3x3 only): the empty 3x3 board whole and move by move, the
/// 8-empty 4x4 position move by move, and the positions of `solver_effort`'s line whole.
#[test]
#[ignore]
fn guard_effort() {
    let budget: u64 = std::env::var("TINY_BUDGET").map_or(20_000_000, |v| v.parse().unwrap());
    let start = std::time::Instant::now();
    let mut solver = Solver::new(BoardSize::square(3).unwrap(), rules()).unwrap();
    let v = solve(&mut solver, &game(3, ""));
    eprintln!(
        "3x3 whole: {v:?} {} nodes {:?}",
        solver.nodes(),
        start.elapsed()
    );
    let start = std::time::Instant::now();
    let (v, n) = per_move(&game(3, ""), budget);
    eprintln!("3x3 moves: {v:?} {n} nodes {:?}", start.elapsed());
    if std::env::var("TINY_ONLY3").is_ok() {
        return;
    }
    let start = std::time::Instant::now();
    let (v, n) = per_move(&game(4, "C3 B2 C2 B3 B4 C1 A3 B1"), budget);
    eprintln!("8-empty moves: {v:?} {n} nodes {:?}", start.elapsed());
    let line = "C3 B2 C2 B3 B4 C1 A3 B1 A2 D2 D4 D1";
    let moves: Vec<&str> = line.split(' ').collect();
    for n in (8..=moves.len()).rev() {
        let g = game(4, &moves[..n].join(" "));
        let mut solver = Solver::new(g.size(), g.rules()).unwrap();
        let start = std::time::Instant::now();
        let v = solve(&mut solver, &g);
        eprintln!(
            "{n} moves whole: {v:?} {} nodes {:?}",
            solver.nodes(),
            start.elapsed()
        );
    }
}

/// Plays a random legal move other than a pass (a pass when there is none).
fn play_a_random_stone(rng: &mut FastRng, g: &mut Game) {
    let stones: Vec<Move> = g
        .legal_moves()
        .into_iter()
        .filter(|m| *m != Move::Pass)
        .collect();
    let mv = stones.get(rng.below(stones.len().max(1))).copied();
    g.play(mv.unwrap_or(Move::Pass)).unwrap();
}

/// A random game on a `side` board, played until at most `empty` points are empty, with a capture on the
/// way (the converse graph-history case needs a cycle, and cycles need captures); `None` if it ended.
fn ending_after_a_capture(rng: &mut FastRng, side: usize, empty: usize) -> Option<Game> {
    let mut g = Game::new(BoardSize::square(side).unwrap(), rules());
    let mut captured = false;
    // Random moves on past the first capture, until few enough points are empty.
    for _ in 0..6 * side * side {
        if g.is_over() || captured && g.board().empty_count() <= empty {
            break;
        }
        let before = g.board().empty_count();
        play_a_random_stone(rng, &mut g);
        captured |= g.board().empty_count() > before;
    }
    let ended = g.is_over() || g.board().empty_count() > empty;
    (captured && !ended).then_some(g)
}

#[test]
fn whole_solves_per_move_solves_and_the_plain_search_agree_after_captures() {
    let mut rng = FastRng::new(31);
    let mut compared = 0;
    for _ in 0..60 {
        let Some(g) = ending_after_a_capture(&mut rng, 3, 5) else {
            continue;
        };
        let Some(plain) = plain_value(&g, 16) else {
            continue;
        };
        let mut solver = Solver::new(g.size(), g.rules()).unwrap();
        let whole = solve(&mut solver, &g);
        let board = g.board().render(None);
        assert_eq!(whole, Some(plain), "whole against plain\n{board}");
        // Each move alone with a fresh table (the root hook): the best of them is the position's value.
        let (values, _) = per_move(&g, 5_000_000);
        let settled: Vec<i32> = values.iter().flatten().copied().collect();
        if settled.len() == values.len() {
            let best = match g.to_move() {
                Color::Black => settled.iter().max(),
                Color::White => settled.iter().min(),
            };
            assert_eq!(
                best,
                Some(&plain),
                "moves {values:?} against plain\n{board}"
            );
        }
        compared += 1;
    }
    assert!(compared > 10, "only {compared} endings compared");
}
