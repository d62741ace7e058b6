//! Exact subtrees: a node of a grown tree whose region has few enough empty points is valued by the exact
//! solver's game (`exact::solve_within`, a small position budget) instead of being grown further or
//! scored by ownership. Ownership sums misjudge positions that are still hot or whose boundary is open;
//! the solver reads them out.
//!
//! The solver counts from the position it is given: prisoners taken on the way there (territory scoring)
//! are added, as its own tree adds them to a branch. Positions with a ko ban are left to the tree (the
//! solver would clear the ban and let the opponent retake at once).

use crate::endgame::cgt::Game;
use crate::endgame::cgt::fast_hash::{FastMap, fast_map};
use crate::endgame::exact;
use crate::endgame::net::proposer::LocalState;
use crate::endgame::region::Region;
use crate::go::{Board, Color, Scoring};
use std::cell::{Cell, RefCell};

/// Values small nodes exactly, remembering each position's result within one analysis.
pub(crate) struct ExactSubtrees<'a> {
    region: &'a Region,
    scoring: Scoring,
    /// The most empty region points a node may have (0: off).
    max_empty: usize,
    max_positions: usize,
    /// Prisoners (Black's minus White's) on the analysed board, the frame every value counts from.
    root_prisoners: i64,
    /// Solver games by stones (each in its own position's frame); `None` when the budget ran out.
    memo: RefCell<FastMap<u128, Option<Game>>>,
    positions: Cell<usize>,
}

impl<'a> ExactSubtrees<'a> {
    pub fn new(
        region: &'a Region,
        root: &Board,
        scoring: Scoring,
        max_empty: usize,
        max_positions: usize,
    ) -> ExactSubtrees<'a> {
        ExactSubtrees {
            region,
            scoring,
            max_empty,
            max_positions,
            root_prisoners: prisoners(root),
            memo: RefCell::new(fast_map()),
            positions: Cell::new(0),
        }
    }

    /// Whether a position is small enough to be tried and has no ko ban.
    fn eligible(&self, board: &Board) -> bool {
        let empty = self.region.empty_points(board).len();
        self.max_empty > 0 && empty > 0 && empty <= self.max_empty && board.ko_point().is_none()
    }

    /// The exact game of `state` in the analysed position's frame, or `None` when the node is too large,
    /// has a ko ban, or the solver does not finish within the budget.
    pub fn game(&self, state: &LocalState) -> Option<Game> {
        let board = state.board();
        if !self.eligible(board) {
            return None;
        }
        let key = board.stone_hash();
        let known = self.memo.borrow().get(&key).cloned();
        let game = match known {
            Some(game) => game,
            None => {
                let game = self.solve(board);
                self.memo.borrow_mut().insert(key, game.clone());
                game
            }
        }?;
        Some(match self.scoring {
            Scoring::Area => game,
            Scoring::Territory => match prisoners(board) - self.root_prisoners {
                0 => game,
                n => game.add(&Game::number(n)),
            },
        })
    }

    fn solve(&self, board: &Board) -> Option<Game> {
        let solution =
            exact::solve_within(board, self.region, self.scoring, self.max_positions).ok();
        let searched = solution
            .as_ref()
            .map_or(self.max_positions, |s| s.positions);
        self.positions.set(self.positions.get() + searched);
        solution.map(|s| s.root.game.clone())
    }

    /// A note for the analysis: how many positions the solver was asked about and what it cost.
    pub fn note(&self) -> Option<String> {
        let memo = self.memo.borrow();
        (!memo.is_empty()).then(|| {
            format!(
                "exact subtrees: {} positions tried, {} solved, {} solver positions",
                memo.len(),
                memo.values().filter(|g| g.is_some()).count(),
                self.positions.get()
            )
        })
    }
}

/// Prisoners taken so far, Black's minus White's.
fn prisoners(board: &Board) -> i64 {
    board.captures(Color::Black) as i64 - board.captures(Color::White) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::cgt::Thermograph;
    use crate::endgame::test_support::{at, board_with, problem};

    #[test]
    fn a_root_of_exact_children_has_the_exact_solver_s_value() {
        // 01-value-of-move/01: a small gote; every first move is valued by the solver after it.
        let p = problem("01-value-of-move/01.sgf");
        let exact = ExactSubtrees::new(&p.region, &p.board, Scoring::Territory, 14, 200_000);
        let root = LocalState::root(&p.board);
        let options = |color: Color| -> Vec<Game> {
            root.legal_points(&p.region, color)
                .into_iter()
                .filter_map(|q| root.play(color, q))
                .map(|child| exact.game(&child).expect("small child solved"))
                .collect()
        };
        let built = Game::new(options(Color::Black), options(Color::White));
        let solved = exact::solve(&p.board, &p.region, Scoring::Territory).expect("solved");
        let th = Thermograph::of(&built);
        assert_eq!(th.temperature, solved.temperature());
        assert_eq!(th.mean, solved.mean());
    }

    /// The first position (breadth first, up to three local moves) after which prisoners were taken.
    fn after_a_capture(root: &LocalState, region: &Region) -> Option<LocalState> {
        let mut layer = vec![root.clone()];
        for _ in 0..3 {
            let mut next = Vec::new();
            for state in &layer {
                for color in [Color::Black, Color::White] {
                    for q in state.legal_points(region, color) {
                        next.extend(state.play(color, q));
                    }
                }
            }
            let wanted = |s: &&LocalState| {
                prisoners(s.board()) != 0
                    && s.board().ko_point().is_none()
                    && !region.empty_points(s.board()).is_empty()
            };
            if let Some(found) = next.iter().find(wanted) {
                return Some(found.clone());
            }
            layer = next;
        }
        None
    }

    #[test]
    fn prisoners_taken_on_the_way_are_added_to_the_solver_s_game() {
        // 01-value-of-move/05: White's straight three in the corner; local play soon captures.
        let p = problem("01-value-of-move/05.sgf");
        let exact = ExactSubtrees::new(&p.region, &p.board, Scoring::Territory, 14, 200_000);
        let root = LocalState::root(&p.board);
        let state = after_a_capture(&root, &p.region).expect("a capture within three moves");
        let taken = prisoners(state.board());
        let solved = exact::solve(state.board(), &p.region, Scoring::Territory).expect("solved");
        let expected = solved.root.game.add(&Game::number(taken));
        assert_eq!(exact.game(&state), Some(expected));
        // Area counts have no prisoners: the solver's game as it is.
        let area = ExactSubtrees::new(&p.region, &p.board, Scoring::Area, 14, 200_000);
        let solved = exact::solve(state.board(), &p.region, Scoring::Area).expect("solved");
        assert_eq!(area.game(&state), Some(solved.root.game.clone()));
    }

    #[test]
    fn large_nodes_and_the_off_switch_leave_nodes_to_the_tree() {
        let p = problem("01-value-of-move/05.sgf");
        let root = LocalState::root(&p.board);
        let empty = p.region.empty_points(&p.board).len();
        let child = root.play(Color::Black, at("B19")).expect("legal");
        // One move leaves `empty - 1` empty points.
        let under = ExactSubtrees::new(&p.region, &p.board, Scoring::Territory, empty - 2, 200_000);
        assert!(under.game(&child).is_none());
        let off = ExactSubtrees::new(&p.region, &p.board, Scoring::Territory, 0, 200_000);
        assert!(off.game(&child).is_none());
        let on = ExactSubtrees::new(&p.region, &p.board, Scoring::Territory, empty, 200_000);
        assert!(on.game(&child).is_some());
    }

    #[test]
    fn a_position_with_a_ko_ban_is_left_to_the_tree() {
        // Black's E10 takes White's D10 and leaves a ko: White may not retake at once.
        let mut board = board_with(&["D11", "C10", "D9"], &["E11", "F10", "E9", "D10"]);
        let region = Region::new(["D10", "E10", "C11", "C9"].map(at));
        let exact = ExactSubtrees::new(&region, &board, Scoring::Territory, 14, 1_000);
        assert!(exact.eligible(&board));
        board.place(Color::Black, at("E10"));
        assert_eq!(board.ko_point(), Some(at("D10")));
        assert!(!exact.eligible(&board));
    }
}
