//! A grown tree valued bottom-up: leaves scored (`scoring`) or solved (`exact`), kos by the placid-ko
//! rule, and the root's game, tree as shown and best first moves.

use super::exact::ExactSubtrees;
use super::proposer::LocalState;
use super::scoring::Scorer;
use super::tree::{BuiltNode, LeafReason};
use crate::endgame::cgt::{Game, Rational, Thermograph, forced};
use crate::endgame::types::{
    AnalysisError, LocalPosition, Method, Outcome, TreeNode, VariationTree,
};
use crate::go::{Color, Point};

/// Values the leaves, builds the game bottom-up and the tree as shown.
pub(super) fn value_tree(
    scorer: &Scorer,
    exact: &ExactSubtrees,
    position: &LocalPosition,
    nodes: &[BuiltNode],
    forced_replies: bool,
) -> Result<Outcome, AnalysisError> {
    // Leaves the exact solver values (the root is grown whatever its size); the others are scored.
    let mut games: Vec<Option<Game>> = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate().skip(1) {
        if node.children.is_empty() {
            games[i] = exact.game(&node.state);
        }
    }
    let leaves: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].children.is_empty() && games[i].is_none())
        .collect();
    let states: Vec<&LocalState> = leaves.iter().map(|&i| &nodes[i].state).collect();
    let values = scorer.values(&states)?;
    let mut leaf_value: Vec<Option<Rational>> = vec![None; nodes.len()];
    for (&i, (v, _)) in leaves.iter().zip(values) {
        leaf_value[i] = Some(v);
    }
    // Children always come after their parent: fold from the back. A node's options are kept so that a
    // ko capture's node can get its retake option once its parent's other children are valued.
    let mut options: Vec<(Vec<Game>, Vec<Game>)> = vec![(Vec::new(), Vec::new()); nodes.len()];
    for i in (0..nodes.len()).rev() {
        if let Some(v) = leaf_value[i] {
            games[i] = Some(Game::number(v));
            continue;
        }
        if games[i].is_some() {
            continue;
        }
        for &c in &nodes[i].children {
            let g = games[c].clone().unwrap_or_else(|| Game::number(0));
            match nodes[c].mv.map(|m| m.0) {
                Some(Color::Black) => options[i].0.push(g),
                _ => options[i].1.push(g),
            }
        }
        for &c in &nodes[i].children {
            if let Some(retake) = ko_retake(nodes, &options, &leaf_value, i, c) {
                let (left, right) = &mut options[c];
                // A capture that ended the tree keeps its position as the taker's result.
                if let (Some(v), (retaker, _)) = (leaf_value[c], retake) {
                    match retaker.opponent() {
                        Color::Black => left.push(Game::number(v)),
                        Color::White => right.push(Game::number(v)),
                    }
                }
                match retake {
                    (Color::Black, v) => left.push(Game::number(v)),
                    (Color::White, v) => right.push(Game::number(v)),
                }
                let (left, right) = options[c].clone();
                games[c] = Some(Game::new(left, right));
                let value = games[c].clone().unwrap_or_else(|| Game::number(0));
                let side = match nodes[c].mv.map(|m| m.0) {
                    Some(Color::Black) => &mut options[i].0,
                    _ => &mut options[i].1,
                };
                // Replace the child's old value (children were pushed in order, colour by colour).
                let index = nodes[i].children[..]
                    .iter()
                    .filter(|&&k| nodes[k].mv.map(|m| m.0) == nodes[c].mv.map(|m| m.0))
                    .position(|&k| k == c);
                if let Some(slot) = index.and_then(|k| side.get_mut(k)) {
                    *slot = value;
                }
            }
        }
        let (left, right) = options[i].clone();
        games[i] = Some(match forced_answer(nodes, i).filter(|_| forced_replies) {
            Some(Color::Black) => forced(left, Color::Black),
            Some(Color::White) => forced(right, Color::White),
            None => Game::new(left, right),
        });
    }
    let root_game = games[0].clone().unwrap_or_else(|| Game::number(0));
    let mut tree = VariationTree {
        nodes: Vec::with_capacity(nodes.len()),
        size: Some(position.board.size()),
    };
    for (i, node) in nodes.iter().enumerate() {
        let game = games[i].clone().unwrap_or_else(|| Game::number(0));
        let th = Thermograph::of(&game);
        // A leaf without a scored value was valued by the exact solver, whatever ended its growth.
        let exact_leaf = i > 0 && node.children.is_empty() && leaf_value[i].is_none();
        tree.nodes.push(TreeNode {
            mv: node.mv,
            probability: node.probability,
            leaf_value: if exact_leaf {
                game.as_number()
            } else {
                leaf_value[i]
            },
            leaf_reason: if exact_leaf {
                Some(LeafReason::Exact.key())
            } else {
                node.leaf
                    .map(LeafReason::key)
                    .or(leaf_value[i].map(|_| "leaf"))
            },
            mean: th.mean,
            temperature: th.temperature,
            children: node.children.clone(),
        });
    }
    let best = |color: Color| best_children(&root_game, nodes, &games, color);
    Ok(Outcome {
        method: Method::Net,
        best_black: best(Color::Black),
        best_white: best(Color::White),
        game: root_game,
        kind: None,
        tree,
        evaluations: 0,
        notes: Vec::new(),
    })
}

/// The colour answering the last move at a node where the tree follows only that colour: the last mover's
/// own best move there was scored directly, a sign the proposer reads the last move as sente.
pub(super) fn forced_answer(nodes: &[BuiltNode], i: usize) -> Option<Color> {
    let (last, _) = nodes[i].mv?;
    let answer = last.opponent();
    let colour_of = |&c: &usize| nodes[c].mv.map(|m| m.0);
    let direct = |&c: &usize| nodes[c].leaf == Some(LeafReason::Direct);
    let children = &nodes[i].children;
    let follows_answer_only = children
        .iter()
        .filter(|c| !direct(c))
        .all(|c| colour_of(c) == Some(answer));
    let answered = children.iter().any(|c| colour_of(c) == Some(answer));
    let skipped = children
        .iter()
        .any(|c| direct(c) && colour_of(c) == Some(last));
    (follows_answer_only && answered && skipped).then_some(answer)
}

/// The retake option of a ko capture (placid ko, the rule of `docs/endgame.md`): when child `c` of `parent`
/// is a single-stone capture by colour K that the opponent could retake at once, the opponent's retake
/// leads back to the open ko, which counts `(l + 2r)/3`: `l` is K's best mean after the capture (K fills),
/// `r` the opponent's best mean among its other moves at `parent` (it resolves the open ko).
fn ko_retake(
    nodes: &[BuiltNode],
    options: &[(Vec<Game>, Vec<Game>)],
    leaf_value: &[Option<Rational>],
    parent: usize,
    c: usize,
) -> Option<(Color, Rational)> {
    let (taker, _) = nodes[c].mv?;
    nodes[c].state.board().ko_point()?;
    let mean = |g: &Game| Thermograph::of(g).mean;
    let (own, theirs) = match taker {
        Color::Black => (&options[c].0, &options[parent].1),
        Color::White => (&options[c].1, &options[parent].0),
    };
    let best = |list: &[Game], color: Color| -> Option<Rational> {
        let means = list.iter().map(mean);
        match color {
            Color::Black => means.max(),
            Color::White => means.min(),
        }
    };
    // A capture that ended the tree: the position as it stands is the taker's result (as the given
    // lines' ko rule takes it).
    let l = leaf_value[c].or_else(|| best(own, taker))?;
    let r = best(theirs, taker.opponent())?;
    let two = Rational::integer(2);
    let three = Rational::integer(3);
    Some((taker.opponent(), (l + two * r) / three))
}

/// The root's moves of `color` whose options attain the wall at the root's temperature.
fn best_children(
    root: &Game,
    nodes: &[BuiltNode],
    games: &[Option<Game>],
    color: Color,
) -> Vec<Point> {
    let t = Thermograph::of(root).temperature;
    let scored: Vec<(Point, Rational)> = nodes[0]
        .children
        .iter()
        .filter_map(|&c| {
            let (col, p) = nodes[c].mv?;
            if col != color {
                return None;
            }
            let th = Thermograph::of(games[c].as_ref()?);
            let s = match color {
                Color::Black => th.right.at(t) - t,
                Color::White => -(th.left.at(t) + t),
            };
            Some((p, s))
        })
        .collect();
    let Some(top) = scored.iter().map(|s| s.1).max() else {
        return Vec::new();
    };
    scored
        .into_iter()
        .filter(|s| s.1 == top)
        .map(|s| s.0)
        .collect()
}
