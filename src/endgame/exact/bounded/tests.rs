use super::*;
use crate::endgame::exact::solve_within;
use crate::endgame::problem::Problem;
use crate::endgame::test_support::problem;
use crate::go::BoardSize;
use std::path::Path;

fn bounded(p: &Problem, budget: usize) -> Result<Bounded, SolveError> {
    solve_bounded(
        &p.board,
        &p.region,
        Scoring::Territory,
        budget,
        &Progress::default(),
    )
}

#[test]
fn a_three_point_gote_capture_without_the_canonical_game() {
    // facts §3: Black's D19 leaves +3, White's leaves 0: T = 3/2, answer 3.
    let p = problem("01-value-of-move/01.sgf");
    let s = bounded(&p, DEFAULT_BUDGET).unwrap();
    assert_eq!(s.temperature(), Rational::new(3, 2));
    assert_eq!(s.mean(), Rational::new(3, 2));
    assert_eq!(Some(s.value()), p.answer);
    assert_eq!(s.kind, Kind::Gote);
    let size = BoardSize::square(19).unwrap();
    let gtp = |c| -> Vec<String> { s.best_moves(c).iter().map(|p| p.to_gtp(size)).collect() };
    assert_eq!(gtp(Color::Black), ["D19"]);
    assert_eq!(gtp(Color::White), ["D19"]);
}

#[test]
fn a_region_over_the_limit_is_refused_and_a_spent_budget_gives_up() {
    let p = problem("01-value-of-move/01.sgf");
    assert_eq!(
        bounded(&p, 1).unwrap_err(),
        SolveError::Budget { limit: 1 },
        "one position is not enough for a capture and its answers"
    );
}

/// Every development problem whose canonical search finishes within `budget` positions: the bounded
/// search finds the same mean and temperature, and both walls at and above the temperature. (The kind
/// may differ: the canonical solver reads sente from the canonical game's options, where a reversible
/// option has been bypassed, the bounded search from the options as played.)
fn compare_on_dev_problems(budget: usize) -> (usize, usize) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/endgame-dev/");
    let files = Problem::find_all(Path::new(dir)).expect("problems").files;
    assert_eq!(files.len(), 50);
    let (mut compared, mut fewer) = (0, 0);
    for path in files {
        let p = Problem::read(&path).expect("problem");
        let Ok(canonical) = solve_within(&p.board, &p.region, Scoring::Territory, budget) else {
            continue;
        };
        let found = bounded(&p, budget).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (a, b) = (&canonical.thermograph, found.thermograph());
        let name = path.display();
        assert_eq!(a.mean, b.mean, "mean of {name}");
        assert_eq!(a.temperature, b.temperature, "temperature of {name}");
        let t = a.temperature.max(Rational::ZERO);
        for dt in [0, 1, 2] {
            let at = t + Rational::new(dt, 2);
            assert_eq!(a.left.at(at), b.left.at(at), "left wall of {name} at {at}");
            assert_eq!(
                a.right.at(at),
                b.right.at(at),
                "right wall of {name} at {at}"
            );
        }
        compared += 1;
        fewer += usize::from(found.positions < canonical.positions);
    }
    (compared, fewer)
}

#[test]
fn the_bounded_search_reproduces_the_canonical_solver_on_the_quick_dev_problems() {
    let (compared, fewer) = compare_on_dev_problems(3_000);
    assert!(compared >= 15, "only {compared} problems finished");
    assert!(fewer > 0, "the bounds never saved a position");
}

#[test]
#[ignore = "minutes: every dev problem at the full budget; `cargo test --release -- --ignored`"]
fn the_bounded_search_reproduces_the_canonical_solver_on_every_dev_problem_both_finish() {
    let (compared, _) = compare_on_dev_problems(crate::endgame::exact::MAX_POSITIONS);
    // 31 finish under both methods (docs/endgame.md); fewer would mean the bounded search gave up where
    // the canonical solver finished.
    assert!(compared >= 31, "only {compared} problems finished");
}

/// The proof search against exact stops: on every dev problem the bounded search solves within 5,000
/// positions, bounds on both stops a little below, at and above the exact stop, each proved within
/// 1,000 positions without the exact table (so the proof reads only leaves): what it proves holds, and
/// it proves some.
#[test]
fn proofs_of_stop_bounds_hold_against_the_exact_stops() {
    use super::proof::{Bound, Goal, Stop};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/endgame-dev/");
    let files = Problem::find_all(Path::new(dir)).expect("problems").files;
    let (mut problems, mut tried, mut proved, mut true_at_the_stop) = (0, 0, 0, 0);
    for path in files {
        let p = Problem::read(&path).expect("problem");
        let Ok(exact) = bounded(&p, 5_000) else {
            continue;
        };
        problems += 1;
        let th = exact.thermograph();
        let start = crate::endgame::exact::starting_board(&p.board, &p.region).expect("board");
        // One search per problem: its tables of proved and failed bounds carry over, its exact table
        // holds only the leaves the proofs met.
        let progress = Progress::default();
        let mut search = BoundedSearch::new(&p.region, Scoring::Territory, usize::MAX, &progress);
        for (stop, at) in [
            (Stop::Left, value::left_stop(th)),
            (Stop::Right, value::right_stop(th)),
        ] {
            for half in [-1, 0] {
                for (upper, strict) in [(true, false), (true, true), (false, false), (false, true)]
                {
                    let c = at + Rational::new(half, 2);
                    let goal = Goal {
                        stop,
                        bound: Bound { c, upper, strict },
                    };
                    search.proof_left = 1_000;
                    let mut depends = super::Dependencies::default();
                    let ok = search.prove(&start, State::default(), 0, goal, &mut depends);
                    tried += 1;
                    if ok {
                        proved += 1;
                        true_at_the_stop += usize::from(half == 0);
                        assert!(
                            goal.bound.holds(at),
                            "{}: {goal:?} proved, the exact stop is {at}",
                            path.display()
                        );
                    }
                }
            }
        }
    }
    assert!(problems >= 10, "only {problems} problems solved");
    assert!(
        proved * 4 >= tried,
        "only {proved} of {tried} bounds proved"
    );
    assert!(
        true_at_the_stop > 0,
        "no bound at the exact stop itself was proved"
    );
}

/// A spent budget: exactly the budget is counted, and the search unwinds without expanding another
/// position (every node in the table was counted once; expanding past the budget would add more).
#[test]
fn a_spent_budget_counts_no_position_past_it_and_expands_nothing_more() {
    let p = problem("01-value-of-move/09.sgf");
    let start = crate::endgame::exact::starting_board(&p.board, &p.region).expect("board");
    let progress = Progress::default();
    for budget in [500, 5_000] {
        let mut search = BoundedSearch::new(&p.region, Scoring::Territory, budget, &progress);
        search.node(&start, State::default(), None, 0);
        assert!(
            search.spent,
            "01/09 is not solved within {budget} positions"
        );
        assert_eq!(search.visited, budget);
        assert!(
            search.table.len() <= search.visited,
            "{} positions in the table, {} counted",
            search.table.len(),
            search.visited
        );
    }
}

/// A proof tries the killer move of its colour and depth first among the positions no table knows; the
/// other moves keep their order.
#[test]
fn a_proof_tries_the_move_that_last_decided_one_at_its_depth_first() {
    use super::proof::{Bound, Stop};
    let p = problem("01-value-of-move/09.sgf");
    let start = crate::endgame::exact::starting_board(&p.board, &p.region).expect("board");
    let progress = Progress::default();
    let mut search = BoundedSearch::new(&p.region, Scoring::Territory, usize::MAX, &progress);
    let settlement = Settlement::assess(&start, &p.region, &State::default().sealed);
    let mut depends = Dependencies::default();
    let (plain, _) = search.candidates(
        &start,
        &settlement,
        State::default(),
        &[Color::Black],
        &mut depends,
    );
    assert!(plain.len() >= 3, "01/09 has several Black moves");
    let bound = Bound {
        c: Rational::ZERO,
        upper: false,
        strict: false,
    };
    let order = |search: &BoundedSearch| -> Vec<Point> {
        let goals = search.goals(&plain, Color::Black, Stop::Right, bound, 0);
        goals.iter().map(|(i, _)| plain[*i].1.point).collect()
    };
    let before = order(&search);
    assert_eq!(before[0], plain[0].1.point, "move order without a killer");
    let last = plain[plain.len() - 1].1.point;
    search.remember_killer(0, Color::Black, last);
    let after = order(&search);
    assert_eq!(after[0], last);
    assert_eq!(after[1..], before[..before.len() - 1]);
    // Black's killer at depth 0 is not White's, nor Black's at depth 1.
    assert_eq!(
        search.goals(&plain, Color::Black, Stop::Right, bound, 1)[0].0,
        0
    );
    search.remember_killer(0, Color::White, plain[1].1.point);
    assert_eq!(order(&search), after);
}
