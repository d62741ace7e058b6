use super::*;
use crate::endgame::problem::Problem;
use crate::endgame::test_support::problem;
use crate::go::BoardSize;

fn gtp(points: &[Point]) -> Vec<String> {
    let size = BoardSize::square(19).unwrap();
    points.iter().map(|p| p.to_gtp(size)).collect()
}

#[test]
fn a_three_point_gote_capture() {
    // facts §3: Black's D19 leaves +3, White's leaves 0: T = 3/2, answer 3.
    let p = problem("01-value-of-move/01.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    assert_eq!(s.temperature(), Rational::new(3, 2));
    assert_eq!(s.mean(), Rational::new(3, 2));
    assert_eq!(s.value(), Rational::integer(3));
    assert_eq!(Some(s.value()), p.answer);
    assert_eq!(s.kind, Kind::Gote);
    assert_eq!(gtp(&s.best_moves(Color::Black)), ["D19"]);
    assert_eq!(gtp(&s.best_moves(Color::White)), ["D19"]);
    assert_eq!(
        s.principal_variation(Color::Black),
        vec![(Color::Black, s.best_moves(Color::Black)[0])]
    );
}

/// Whether some node within `depth` plies has a retake valued by the ko rule.
fn has_ko_rule_option(node: &Node, depth: usize) -> bool {
    has_ko_option(node)
        || depth > 0
            && node
                .branches(Color::Black)
                .iter()
                .chain(node.branches(Color::White))
                .filter_map(|b| b.child.as_deref())
                .any(|c| has_ko_rule_option(c, depth - 1))
}

#[test]
fn a_ko_with_thirds_comes_out_exact() {
    // 06-value-of-ko/05: answer 3 1/3, so T = 5/3; the ko rule must have been used on the way.
    let p = problem("06-value-of-ko/05.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    assert_eq!(s.temperature(), Rational::new(5, 3));
    assert_eq!(s.value(), Rational::new(10, 3));
    assert_eq!(Some(s.value()), p.answer);
    assert!(has_ko_rule_option(&s.root, 4));
}

#[test]
fn a_dead_shape_is_read_as_finished() {
    // 01-value-of-move/05: after Black B19 White's straight three is dead; Benson's test alone left
    // the search in capturing sequences valued 2 instead of 14.
    let p = problem("01-value-of-move/05.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    assert_eq!(s.value(), Rational::integer(14));
    assert_eq!(Some(s.value()), p.answer);
    assert_eq!(gtp(&s.best_moves(Color::Black)), ["B19"]);
}

#[test]
fn area_scoring_adds_about_a_point_of_temperature_in_plain_gote() {
    let p = problem("01-value-of-move/01.sgf");
    let s = solve(&p.board, &p.region, Scoring::Area).unwrap();
    assert_eq!(s.temperature(), Rational::new(5, 2));
}

#[test]
fn a_region_over_the_limit_is_refused_with_its_size() {
    let p = problem("03-addition-method/09.sgf");
    let err = solve(&p.board, &p.region, Scoring::Territory).unwrap_err();
    assert_eq!(
        err,
        SolveError::TooLarge {
            empty: 15,
            limit: MAX_EMPTY_POINTS
        }
    );
    assert!(err.to_string().contains("15 empty points"));
}

#[test]
fn a_position_reached_with_different_prisoners_is_solved_once() {
    // 03-addition-method/07: capture sequences reach the same boards with different prisoner counts.
    // Nodes count from their own position, so one table entry serves every count: some node is reached
    // through lines whose captures differ, and every branch's value is its child's plus its prisoners.
    let p = problem("03-addition-method/07.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    assert_eq!(Some(s.value()), p.answer);
    let mut totals: FastMap<usize, std::collections::BTreeSet<i64>> = fast_map();
    let mut stack = vec![(s.root.clone(), 0i64)];
    while let Some((node, taken)) = stack.pop() {
        let seen = totals.entry(Arc::as_ptr(&node) as usize).or_default();
        if !seen.insert(taken) || seen.len() > 4 {
            continue;
        }
        for color in [Color::Black, Color::White] {
            for b in node.branches(color) {
                let Some(child) = &b.child else { continue };
                let expected = child.game.add(&Game::number(b.prisoners));
                assert!(b.value.equals(&expected), "{} against {expected}", b.value);
                stack.push((child.clone(), taken + b.prisoners));
            }
        }
    }
    assert!(totals.values().any(|t| t.len() > 1));
}

#[test]
fn settled_after_the_capture_move() {
    // After Black D19 in 01-value-of-move/01 the white stone is dead in Black's sure territory.
    let p = problem("01-value-of-move/01.sgf");
    let mut board = p.board.clone();
    let d19 = Point::parse_gtp("D19", board.size()).unwrap();
    board.place(Color::Black, d19);
    let settlement = Settlement::assess(&board, &p.region, &Sealed::default());
    assert!(settlement.is_settled(&board, &p.region, false));
    assert_eq!(settlement.count(&board, &p.region, false), 3);
}

#[test]
fn a_chain_in_atari_is_taken_at_its_last_liberty_outside_the_region() {
    // 01-value-of-move/11: after Black G19, White's F18 connection leaves its chain two liberties, D18
    // and D19; Black D18 and White D19 leave it one, C19, outside the region, where Black captures.
    // Counted safe there, the answer was 2; with the capture and White's sphere outside, 8.
    let p = problem("01-value-of-move/11.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    assert_eq!(Some(s.value()), p.answer);
    assert_eq!(gtp(&s.best_moves(Color::Black)), ["G19"]);
}

#[test]
fn points_next_to_the_wall_s_outside_sphere_are_its_territory() {
    // 02-expected-local-result/05: E19 and E18 lie next to F19 and F18, outside the region behind
    // White's G18 and G16; the course counts them White's. Open to the outside, they were searched
    // as if Black could live there (8 instead of 9).
    let p = problem("02-expected-local-result/05.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    assert_eq!(Some(s.value()), p.answer);
}

#[test]
fn the_counters_account_for_every_position_visited() {
    let p = problem("01-value-of-move/05.sgf");
    let mut search = Search::new(&p.region, false, MAX_POSITIONS);
    search.stats = Some(stats::Stats::default());
    search.node(&p.board, State::default(), None, 0);
    let stats = search.stats.as_ref().expect("counters on");
    assert_eq!(stats.visited(), search.visited);
    assert!(stats.report(&p.board).contains("by depth: 0:1"));
}

/// Every move of the course's correct lines that the solver's move rule refuses (`problem: line`).
fn refused_line_moves(
    search: &Search,
    board: &Board,
    state: State,
    children: &[crate::go::sgf::SgfNode],
    line: &mut Vec<String>,
    out: &mut Vec<String>,
) {
    for child in children {
        let Some((color, crate::go::Move::Play(p))) = child.get_move() else {
            continue;
        };
        line.push(format!("{}{}", color, p.to_gtp(board.size())));
        if state.ban != Some((p, color)) {
            match search.play(board, state, color, p) {
                Some(next) => {
                    refused_line_moves(search, &next.board, next.state, &child.children, line, out)
                }
                None => out.push(line.join(" ")),
            }
        }
        line.pop();
    }
}

/// The solver searches every move of the course's correct lines but one: in `07/03`, after Black's
/// G19 captures four stones, White's F18 goes back into the captured space with an atari that captures
/// nothing, which the sealed-space rule refuses (the price of ending capture cycles, `docs/endgame.md`).
#[test]
fn the_solver_searches_the_course_s_lines_but_one_atari_into_captured_space() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/endgame-dev");
    let mut refused = Vec::new();
    for path in Problem::find_all(std::path::Path::new(dir)).unwrap().files {
        let p = Problem::read(&path).unwrap();
        let search = Search::new(&p.region, false, MAX_POSITIONS);
        let mut board = p.board.clone();
        board.clear_ko();
        let mut found = Vec::new();
        let mut line = Vec::new();
        refused_line_moves(
            &search,
            &board,
            State::default(),
            &p.lines,
            &mut line,
            &mut found,
        );
        let name = path.strip_prefix(dir).unwrap().display().to_string();
        refused.extend(found.into_iter().map(|l| format!("{name}: {l}")));
    }
    assert_eq!(refused, ["07-subtraction-method/03.sgf: BG19 WF18"]);
}

#[test]
fn a_seki_beside_territory_counts_as_it_stands() {
    // 07-subtraction-method/05: after Black D18 and D19 (two prisoners) Black's G17-G19 and White's
    // E17-E19 share their last two liberties, a seki whose every move is a self-atari. The node's
    // options alone made it the simplest number between them (2 with the prisoners); as it stands it is
    // C18 and C19 for Black plus the prisoners, 4, and the problem's answer follows.
    let p = problem("07-subtraction-method/05.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    let branch = |node: &Node, color: Color, point: &str| {
        node.branches(color)
            .iter()
            .find(|b| b.point == crate::endgame::test_support::at(point))
            .cloned()
            .expect("the move is searched")
    };
    let d18 = branch(&s.root, Color::Black, "D18");
    let seki = branch(d18.child.as_deref().unwrap(), Color::Black, "D19");
    assert_eq!(seki.value.as_number(), Some(Rational::integer(4)));
    assert_eq!(s.value(), Rational::integer(10));
    assert_eq!(Some(s.value()), p.answer);
}

#[test]
fn an_invader_beside_the_wall_s_stones_in_the_region_is_not_anchored_outside() {
    // 04-value-of-reverse-sente/01: after Black D16, White's D19 has liberties C19 and E19 outside the
    // region, next to Black's C18 and E18, which are marked in the region. Their spheres are Black's, so
    // D19 dies in Black's territory and Black's D16 is worth 5. When only the stones outside the region
    // made a sphere, E19 was nobody's, D19 was anchored by it, and the exact solver read 1 3/4 for 2.
    let p = problem("04-value-of-reverse-sente/01.sgf");
    let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
    assert_eq!(s.temperature(), Rational::integer(1));
    assert_eq!(s.mean(), Rational::integer(4));
    assert_eq!(s.value(), Rational::integer(2));
    assert_eq!(Some(s.value()), p.answer);
}

#[test]
fn a_watched_search_reports_its_positions_against_its_budget() {
    let p = problem("01-value-of-move/05.sgf");
    let progress = Progress::default();
    let s = solve_watched(
        &p.board,
        &p.region,
        Scoring::Territory,
        MAX_POSITIONS,
        &progress,
    )
    .unwrap();
    assert_eq!(progress.searched(), s.positions);
    assert_eq!(progress.budget(), MAX_POSITIONS);
    // A search over its budget stops counting at the budget.
    let small = Progress::default();
    let err = solve_watched(&p.board, &p.region, Scoring::Territory, 10, &small).unwrap_err();
    assert_eq!(err, SolveError::Budget { limit: 10 });
    assert_eq!((small.searched(), small.budget()), (10, 10));
}
