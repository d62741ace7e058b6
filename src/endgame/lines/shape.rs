//! The given lines' moves as the variation tree a user is shown.

use crate::endgame::cgt::Rational;
use crate::endgame::net::proposer::LocalState;
use crate::endgame::types::{TreeNode, VariationTree};
use crate::go::sgf::SgfNode;
use crate::go::{Color, Move, Point};

/// The lines below `state` as nodes of `tree` (a move the lines cannot play ends its branch); returns
/// the node's index.
pub(super) fn line_shape(
    state: &LocalState,
    children: &[SgfNode],
    mv: Option<(Color, Point)>,
    tree: &mut VariationTree,
) -> usize {
    let id = tree.nodes.len();
    tree.nodes.push(TreeNode {
        mv,
        probability: None,
        leaf_value: None,
        leaf_reason: None,
        mean: Rational::ZERO,
        temperature: Rational::ZERO,
        children: Vec::new(),
    });
    for child in children {
        let Some((color, Move::Play(p))) = child.get_move() else {
            continue;
        };
        if let Some(next) = state.play_ignoring_ko(color, p) {
            let c = line_shape(&next, &child.children, Some((color, p)), tree);
            tree.nodes[id].children.push(c);
        }
    }
    id
}
