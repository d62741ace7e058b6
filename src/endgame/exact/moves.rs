//! Move generation: the points a colour may try in a position, and the position a move leads to.

use super::{Candidate, Search, State};
use crate::endgame::cgt::Rational;
use crate::endgame::local::Settlement;
use crate::go::board::neighbours;
use crate::go::{Board, Cell, Color, Point};

impl Search<'_> {
    /// What a move that only one side can make is worth beyond its result: the point a territory-scored
    /// filling move costs, which the side never has to spend.
    pub(super) fn leisure(&self) -> Rational {
        if self.area {
            Rational::ZERO
        } else {
            Rational::ONE
        }
    }

    /// The points where `color` may try a move: the region's empty points that are not banned, not sure
    /// territory and not a neutral dame (territory scoring), and the last liberty outside the region of a
    /// chain in atari (the edge of the region does not save it: it may be taken there, or connected out
    /// to another chain).
    pub(super) fn moves(
        &self,
        board: &Board,
        settlement: &Settlement,
        state: State,
        color: Color,
    ) -> Vec<Point> {
        let inside = self.region.points().iter().copied().filter(|&p| {
            board.color_at(p).is_none()
                && state.ban != Some((p, color))
                && settlement.owner(p).is_none()
                && (self.area || !self.is_neutral_dame(board, settlement, p))
        });
        let outside = settlement
            .outside_last_liberties()
            .iter()
            .copied()
            .filter(|&p| state.ban != Some((p, color)) && takes_or_connects(board, color, p));
        inside.chain(outside).collect()
    }

    /// The position after `color` plays at `p`, or `None` when the move is illegal or re-enters sealed
    /// captured space without capturing.
    pub(super) fn play(
        &self,
        board: &Board,
        state: State,
        color: Color,
        p: Point,
    ) -> Option<Candidate> {
        // Back into captured space only with a capture: a mere atari there feeds capture cycles. Tested
        // before the board is copied, as most such moves are refused.
        if state.sealed.contains(self.region, color, p) && !captures_at(board, color, p) {
            return None;
        }
        if board.check(color, p, false).is_err() {
            return None;
        }
        let mut next = super::boards::BoxedBoard::copy_of(board);
        let placed = next.place(color, p);
        let gain = if self.area {
            0
        } else {
            color.sign() as i64 * placed.captured as i64
        };
        let mut sealed = state.sealed;
        if placed.captured > 0 {
            let victim = color.opponent();
            let emptied: Vec<Point> = self
                .region
                .points()
                .iter()
                .copied()
                .filter(|&q| board.color_at(q) == Some(victim) && next.color_at(q).is_none())
                .collect();
            sealed.capture(self.region, victim, &emptied);
        }
        sealed.forget(self.region, p);
        let new_state = State {
            ban: next.ko_point().map(|k| (k, color.opponent())),
            sealed,
        };
        next.clear_ko();
        Some(Candidate {
            point: p,
            board: next,
            state: new_state,
            gain,
        })
    }

    /// An empty point with no empty neighbour whose stone neighbours are all safe, of both colours:
    /// filling it changes nothing under territory scoring.
    fn is_neutral_dame(&self, board: &Board, settlement: &Settlement, p: Point) -> bool {
        let mut colours = [false; 2];
        for n in neighbours(p) {
            match board.cell(n) {
                Cell::Border => {}
                Cell::Empty => return false,
                _ => {
                    if !settlement.is_safe(n) {
                        return false;
                    }
                    if let Some(c) = board.color_at(n) {
                        colours[c.index()] = true;
                    }
                }
            }
        }
        colours[0] && colours[1]
    }
}

/// Whether `color` playing at `p` (outside the region, the last liberty of a chain in atari) captures an
/// opposing chain or connects its own chain in atari to another of its chains. Running out into empty
/// space outside the region is not local play: the space beyond the region counts as settled.
fn takes_or_connects(board: &Board, color: Color, p: Point) -> bool {
    captures_at(board, color, p)
        || neighbours(p)
            .iter()
            .any(|&n| board.color_at(n) == Some(color) && !board.in_atari(n))
}

/// Whether `color` playing at the empty point `p` captures: a neighbouring opposing chain is in atari,
/// so `p` is its last liberty.
fn captures_at(board: &Board, color: Color, p: Point) -> bool {
    neighbours(p)
        .iter()
        .any(|&n| board.color_at(n) == Some(color.opponent()) && board.in_atari(n))
}
