//! Where the solver is used: the moves of a tiny root, each within a node budget that grows with the
//! search asked for.

use super::{Outside, Solver};
use crate::engine::rollout::tree::RootPosition;
use crate::go::{KoRule, Move};

/// A root with at most this many empty points gets exact values for all its moves.
const ROOT_MAX_EMPTY: usize = 9;
/// Exact root values on boards of at most this many points (4x4): 5x5 endings of 9 empty points cost
/// millions of nodes per move, which made 5x5 self-play (coevolution) ten times slower.
const ROOT_MAX_AREA: usize = 16;
/// Nodes one root move may cost before it goes without an exact value: 4x4 endings of 8 empty points take
/// 2.1–2.5 million, so a 9-empty root's moves settle with this (docs/research/tiny-board-exact-values.md).
pub(super) const ROOT_BUDGET: u64 = 4_000_000;
/// Nodes per requested visit: exact solves cost in proportion to the search asked for, so a 30-visit
/// self-play move stays quick while a book's 1,000-visit quick re-search gets the full budget.
pub(super) const NODES_PER_VISIT: u64 = 4_000;

/// The node budget per root move for a query of `visits` (`None`: limited by time only).
pub fn root_budget(visits: Option<u64>) -> u64 {
    visits.map_or(ROOT_BUDGET, |v| {
        v.saturating_mul(NODES_PER_VISIT).min(ROOT_BUDGET)
    })
}

/// Whether the root is small enough, in board and in empty points, for exact move values.
pub fn root_is_tiny(root: &RootPosition) -> bool {
    root.board.size().area() <= ROOT_MAX_AREA
        && root.board.empty_count() <= ROOT_MAX_EMPTY
        && root.rules.ko != KoRule::Simple
}

/// Black's exact area minus White's after each of the root's `moves`, when the root is tiny (see
/// [`root_is_tiny`]) and each move settles within `budget` nodes (`None` for one that does not).
pub fn root_values(root: &RootPosition, moves: &[Move], budget: u64) -> Option<Vec<Option<i32>>> {
    if !root_is_tiny(root) {
        return None;
    }
    let mut solver = Solver::new(root.board.size(), root.rules)?;
    let outside = Outside {
        history: &root.history,
        path: &[],
        max_stones: root.max_stones,
    };
    let values = moves
        .iter()
        .map(|&mv| {
            solver.table.clear();
            let one = solver.solve_moves(
                &root.board,
                root.to_move,
                root.consecutive_passes,
                &outside,
                &[mv],
                budget,
            );
            one.map(|v| v[0])
        })
        .collect();
    Some(values)
}
