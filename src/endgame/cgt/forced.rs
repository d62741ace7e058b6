//! A node where only one colour's answer to the last move is known (given lines, grown trees that follow
//! only the answer): the other colour's missing option is a threat bigger than anything local, so the
//! answer is forced and the node is worth what the answer leaves.

use super::{Game, Rational, Thermograph};
use crate::go::Color;

/// The best mean among `options` for `color` (Black: the largest, White: the smallest).
pub fn best_mean(options: &[Game], color: Color) -> Option<Rational> {
    let means = options.iter().map(|g| Thermograph::of(g).mean);
    match color {
        Color::Black => means.max(),
        Color::White => means.min(),
    }
}

/// The node whose only options are `color`'s `options`, with the opponent's missing option a threat too
/// big to ignore (a number 1000 points beyond the best answer).
pub fn forced(options: Vec<Game>, color: Color) -> Game {
    let best = best_mean(&options, color).unwrap_or(Rational::ZERO);
    let threat = Game::Number(best + Rational::integer(-1000 * color.sign() as i64));
    match color {
        Color::Black => Game::new(options, vec![threat]),
        Color::White => Game::new(vec![threat], options),
    }
}
