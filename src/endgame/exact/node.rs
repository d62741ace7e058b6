//! A solved local position and its options, as the search builds them and the facade shows them.

use crate::endgame::cgt::Game;
use crate::endgame::cgt::fast_hash::FastMap;
use crate::endgame::cgt::{Thermograph, attaining_wall};
use crate::go::{Color, Point};
use std::sync::Arc;

/// One option of a node: a move and the value it leads to, in the node's frame.
#[derive(Clone, Debug)]
pub struct Branch {
    pub point: Point,
    /// The option's value (child value plus prisoners taken by the move).
    pub value: Game,
    /// Prisoners taken by the move, Black's minus White's (territory scoring; included in `value`). The
    /// child's own game and branches count from the child's position, without them.
    pub prisoners: i64,
    /// The position after the move; `None` for a ko retake valued by the ko rule.
    pub child: Option<Arc<Node>>,
    /// The move captures a ko, or is the ko retake valued by rule.
    pub ko: bool,
}

impl Branch {
    /// The move to `child`, taking `prisoners` (added to the child's value: the child counts from its
    /// own position). `shifted` remembers the child's game moved by the prisoners, so that a position
    /// reached again by a capture of the same size shares that game instead of copying it.
    pub(super) fn to(
        point: Point,
        child: Arc<Node>,
        prisoners: i64,
        ko: bool,
        shifted: &mut FastMap<(usize, i64), (Arc<Node>, Game)>,
    ) -> Branch {
        let value = match prisoners {
            0 => child.game.clone(),
            n => {
                // Keyed by the node's address; the entry holds the node, so the address is not reused.
                let key = (Arc::as_ptr(&child) as usize, n);
                let (_, game) = shifted
                    .entry(key)
                    .or_insert_with(|| (child.clone(), child.game.add(&Game::number(n))));
                game.clone()
            }
        };
        Branch {
            point,
            value,
            prisoners,
            child: Some(child),
            ko,
        }
    }
}

/// A solved local position.
#[derive(Clone, Debug)]
pub struct Node {
    pub game: Game,
    black: Vec<Branch>,
    white: Vec<Branch>,
}

impl Node {
    pub(super) fn new(game: Game, black: Vec<Branch>, white: Vec<Branch>) -> Node {
        Node { game, black, white }
    }

    pub(super) fn leaf(game: Game) -> Node {
        Node::new(game, Vec::new(), Vec::new())
    }

    pub fn branches(&self, color: Color) -> &[Branch] {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The moves of `color` whose options attain the thermograph's wall at the node's temperature.
    pub fn best(&self, color: Color) -> Vec<&Branch> {
        let t = Thermograph::view(&self.game).temperature;
        attaining_wall(self.branches(color), color, t, |b| {
            Thermograph::view(&b.value).into_owned()
        })
    }
}
