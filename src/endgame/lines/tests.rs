use super::*;
use crate::endgame::cgt::Thermograph;
use crate::go::Scoring;

fn gote(left: i64, right: Rational) -> Game {
    Game::new(vec![Game::number(left)], vec![Game::Number(right)])
}

#[test]
fn a_lone_reply_that_the_lines_answer_is_the_replier_s_privilege() {
    // 07/09 after Black G19 and White's capture at F19: Black's J19 (the only move given) threatens
    // G19 (a capture worth about 19) and White answers C19 (mean 10/3): Black's sente, worth 10/3.
    let ten_thirds = Rational::new(10, 3);
    let after_j19 = Game::new(
        vec![gote(19, Rational::integer(4))],
        vec![Game::Number(ten_thirds)],
    );
    let node = lone_reply(vec![after_j19], Color::Black);
    assert_eq!(node.as_number(), Some(ten_thirds));
}

#[test]
fn a_lone_reply_that_ends_the_line_is_forced() {
    // The reply leaves a settled 3: the missing option is a threat, so the node stays hot and
    // worth the reply's 3 to Black moving first.
    let node = lone_reply(vec![Game::number(3)], Color::Black);
    assert!(!node.is_number());
    assert_eq!(node.left_stop(), Rational::integer(3));
}

#[test]
fn the_given_lines_of_07_09_give_the_course_s_answer() {
    let problem = crate::endgame::test_support::problem("07-subtraction-method/09.sgf");
    let game = problem_game(&problem, Scoring::Territory).expect("lines");
    let value = Thermograph::of(&game).temperature * Rational::integer(2);
    assert_eq!(Some(value), problem.answer);
}
