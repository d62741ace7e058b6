//! Results that depend on the line above them. A subtree that dropped a move because it repeated a
//! position of the line has a value that depends on that line, so it must not go to the transposition
//! table: the same position reached by another line may play that move.

use crate::endgame::region::Sealed;
use crate::go::Color;
use crate::go::Point;

/// A position on the line: the stones, the ko ban and the sealed captured space (prisoners aside: a
/// capture cycle repeats the board, not the prisoners).
pub(super) type LineKey = (u128, Option<(Point, Color)>, Sealed);

/// A subtree's result (`N`: a canonical game's node or a thermograph's) and the line positions it depends on.
pub(super) struct Solved<N> {
    pub node: std::sync::Arc<N>,
    pub depends: Dependencies,
}

impl<N> Solved<N> {
    /// A result that depends on no position of the line: it may go to the table.
    pub fn free(node: std::sync::Arc<N>) -> Solved<N> {
        Solved {
            node,
            depends: Dependencies::default(),
        }
    }
}

/// The depths on the current line of the positions whose repetition a subtree avoided, ascending and
/// without repeats (empty for a result that does not depend on the line).
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub(super) struct Dependencies(Vec<usize>);

impl Dependencies {
    /// A dependency on the line position at `depth` alone.
    pub fn at(depth: usize) -> Dependencies {
        Dependencies(vec![depth])
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The deepest line position depended on.
    pub fn deepest(&self) -> Option<usize> {
        self.0.last().copied()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Adds the dependencies of `other`.
    pub fn merge(&mut self, other: &Dependencies) {
        if other.0.is_empty() {
            return;
        }
        self.0.extend_from_slice(&other.0);
        self.0.sort_unstable();
        self.0.dedup();
    }

    /// The dependencies as seen from a node at `depth`: positions at its depth or below are its own
    /// position and its subtree's, met again wherever the node is searched, so only those above remain.
    pub fn above(mut self, depth: usize) -> Dependencies {
        self.0.retain(|&d| d < depth);
        self
    }
}
