//! Line-dependent results (issue #7). A subtree that dropped a move because it repeated a position of
//! the line above it has a value that depends on that line. Such a result is kept in a side table with
//! the line positions whose repetition it avoided, and is reused wherever all of those positions are on
//! the current line again: the same moves are then dropped for the same reason, so the subtree's value is
//! the same. The converse is not checked, here as in the main table: a reused subtree may contain a
//! position that the new line holds (a repetition a fresh search would drop).
//!
//! A node reached by a ko capture also depends on the ko resolution passed down to it; a side entry
//! keeps that resolution and is reused only with the same one.

use super::{Ban, Node, TableKey};
use crate::endgame::cgt::Rational;
use crate::endgame::cgt::fast_hash::{FastMap, fast_map};
use crate::endgame::region::Sealed;
use std::sync::Arc;

/// A position on the line: the stones, the ko ban and the sealed captured space (prisoners aside: a
/// capture cycle repeats the board, not the prisoners).
pub(super) type LineKey = (u128, Ban, Sealed);

/// The most line positions a side entry may depend on: more, and it is not kept (a result that depends
/// on many positions of the line is rarely met with all of them again).
pub const MAX_LINE_DEPENDENCIES: usize = 4;

/// The most side entries kept for one position (with different dependencies or ko resolutions).
const MAX_ENTRIES_PER_POSITION: usize = 8;

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

/// A stored line-dependent result.
struct Entry {
    /// The line positions it depends on.
    line: Vec<LineKey>,
    /// The ko resolution passed down to it (a node reached by a ko capture).
    resolution: Option<Rational>,
    node: Arc<Node>,
}

/// The side table of line-dependent results, by position.
pub(super) struct Recall {
    entries: FastMap<TableKey, Vec<Entry>>,
}

impl Recall {
    pub fn new() -> Recall {
        Recall {
            entries: fast_map(),
        }
    }

    /// Keeps `node`, whose subtree avoided repeating the positions `dependencies` of `line` (the line's
    /// positions by depth), when it depends on few enough of them.
    pub fn store(
        &mut self,
        key: TableKey,
        resolution: Option<Rational>,
        dependencies: &Dependencies,
        line: &[LineKey],
        node: Arc<Node>,
    ) {
        if dependencies.len() > MAX_LINE_DEPENDENCIES {
            return;
        }
        let Some(keys) = dependencies
            .0
            .iter()
            .map(|&d| line.get(d).copied())
            .collect::<Option<Vec<LineKey>>>()
        else {
            return;
        };
        let entries = self.entries.entry(key).or_default();
        if entries.len() < MAX_ENTRIES_PER_POSITION {
            entries.push(Entry {
                line: keys,
                resolution,
                node,
            });
        }
    }

    /// A stored result for the position whose dependencies are all on the current line (`depth_on_line`
    /// gives a line position's depth), with those dependencies at their depths on this line.
    pub fn find(
        &self,
        key: &TableKey,
        resolution: Option<Rational>,
        depth_on_line: impl Fn(&LineKey) -> Option<usize>,
    ) -> Option<(Arc<Node>, Dependencies)> {
        self.entries.get(key)?.iter().find_map(|entry| {
            if entry.resolution != resolution {
                return None;
            }
            let mut depths = entry
                .line
                .iter()
                .map(&depth_on_line)
                .collect::<Option<Vec<usize>>>()?;
            depths.sort_unstable();
            depths.dedup();
            Some((entry.node.clone(), Dependencies(depths)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::cgt::Game;

    fn line_key(stones: u128) -> LineKey {
        (stones, None, Sealed::default())
    }

    fn table_key(stones: u128) -> TableKey {
        (u128::MAX, stones, Default::default())
    }

    fn leaf(n: i64) -> Arc<Node> {
        Arc::new(Node::leaf(Game::number(n)))
    }

    #[test]
    fn dependencies_merge_sorted_and_keep_only_the_line_above() {
        let mut d = Dependencies::at(7);
        d.merge(&Dependencies::at(2));
        d.merge(&Dependencies::at(7));
        d.merge(&Dependencies::at(5));
        assert_eq!(d, Dependencies(vec![2, 5, 7]));
        assert_eq!(d.clone().above(5), Dependencies(vec![2]));
        assert!(d.above(2).is_empty());
    }

    #[test]
    fn a_result_is_recalled_only_where_its_line_positions_are_on_the_line() {
        let line: Vec<LineKey> = (10..15).map(line_key).collect();
        let mut recall = Recall::new();
        let mut depends = Dependencies::at(1);
        depends.merge(&Dependencies::at(3));
        recall.store(table_key(99), None, &depends, &line, leaf(4));
        // Another line holding both positions (11 and 13), at other depths.
        let other: FastMap<LineKey, usize> =
            [(line_key(13), 0), (line_key(20), 1), (line_key(11), 2)]
                .into_iter()
                .collect();
        let (node, at) = recall
            .find(&table_key(99), None, |k| other.get(k).copied())
            .expect("both positions on the line");
        assert!(node.game.equals(&Game::number(4)));
        assert_eq!(at, Dependencies(vec![0, 2]));
        // A line without position 13 must search again.
        let without: FastMap<LineKey, usize> = [(line_key(11), 0)].into_iter().collect();
        assert!(
            recall
                .find(&table_key(99), None, |k| without.get(k).copied())
                .is_none()
        );
    }

    #[test]
    fn a_ko_node_is_recalled_only_with_its_resolution() {
        let line = vec![line_key(1)];
        let mut recall = Recall::new();
        let half = Some(Rational::new(1, 2));
        recall.store(table_key(5), half, &Dependencies::at(0), &line, leaf(1));
        let on_line = |k: &LineKey| (*k == line_key(1)).then_some(0);
        assert!(recall.find(&table_key(5), half, on_line).is_some());
        assert!(recall.find(&table_key(5), None, on_line).is_none());
        assert!(
            recall
                .find(&table_key(5), Some(Rational::ONE), on_line)
                .is_none()
        );
    }

    #[test]
    fn a_result_with_too_many_line_positions_is_not_kept() {
        let line: Vec<LineKey> = (0..10).map(line_key).collect();
        let mut recall = Recall::new();
        let mut depends = Dependencies::default();
        for d in 0..=MAX_LINE_DEPENDENCIES {
            depends.merge(&Dependencies::at(d));
        }
        recall.store(table_key(3), None, &depends, &line, leaf(0));
        assert!(recall.find(&table_key(3), None, |_| Some(0)).is_none());
    }
}
