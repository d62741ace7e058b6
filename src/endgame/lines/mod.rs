//! The file's given lines scored as a game: static leaves (`Problem::lines_game`, the course's judged
//! counts) or ownership leaves like a grown tree's (the paper's "correct lines given" experiment).

use super::{Networks, Scorer, region_balance};
use crate::endgame::analysis::{
    AnalysisError, LineLeaves, LocalPosition, Method, Outcome, TreeLeaves, TreeNode, VariationTree,
};
use crate::endgame::cgt::{Game, Rational, Thermograph};
use crate::endgame::problem::Problem;
use crate::endgame::proposer::LocalState;
use crate::go::sgf::SgfNode;
use crate::go::{Color, Move, Point, Scoring};
use std::path::PathBuf;

/// Scores the position's given lines: static leaves (the exact engineer's `Problem::lines_game`) or
/// ownership leaves (the paper's "correct lines given" experiment).
pub(crate) fn score_lines(
    nets: &Networks,
    position: &LocalPosition,
    scoring: Scoring,
    leaves: LineLeaves,
) -> Result<Outcome, AnalysisError> {
    let mut tree = VariationTree {
        nodes: Vec::new(),
        size: Some(position.board.size()),
    };
    let game = match leaves {
        LineLeaves::Static => {
            let problem = Problem {
                path: PathBuf::from("(given lines)"),
                board: position.board.clone(),
                region: position.region.clone(),
                answer: None,
                lines: position.lines.clone(),
            };
            let game = problem
                .lines_game(scoring)
                .map_err(|e| AnalysisError::Lines(e.to_string()))?;
            let root = LocalState::root(&position.board);
            line_shape(&root, &position.lines, None, &mut tree);
            game
        }
        LineLeaves::Ownership => {
            let scorer = Scorer {
                region: &position.region,
                katago: nets.katago()?,
                scoring,
                initial_balance: region_balance(position),
                leaves: TreeLeaves::Ownership,
            };
            let root = LocalState::root(&position.board);
            let mut ends = Vec::new();
            collect_ends(&root, &position.lines, &mut ends, 0)?;
            let refs: Vec<&LocalState> = ends.iter().collect();
            let values = scorer.values(&refs)?;
            let mut values = values.into_iter().map(|(v, _)| v);
            let game = line_game(&root, &position.lines, &mut values, scoring)?;
            line_shape(&root, &position.lines, None, &mut tree);
            game
        }
    };
    let best = |color: Color| -> Vec<Point> {
        position
            .lines
            .iter()
            .filter_map(SgfNode::get_move)
            .filter(|&(c, _)| c == color)
            .filter_map(|(_, m)| m.point())
            .take(1)
            .collect()
    };
    Ok(Outcome {
        method: Method::Lines,
        best_black: best(Color::Black),
        best_white: best(Color::White),
        game,
        kind: None,
        tree,
        evaluations: 0,
        notes: vec![match leaves {
            LineLeaves::Static => "given lines, static leaves".to_string(),
            LineLeaves::Ownership => "given lines, ownership leaves".to_string(),
        }],
    })
}

fn line_move(
    state: &LocalState,
    node: &SgfNode,
    depth: usize,
) -> Result<Option<(Color, Point, LocalState)>, AnalysisError> {
    let Some((color, mv)) = node.get_move() else {
        return Ok(None);
    };
    let size = state.board().size();
    let Move::Play(p) = mv else {
        return Err(AnalysisError::Lines(format!(
            "variation move {color} pass at depth {depth} is not a local move"
        )));
    };
    let next = state.play_ignoring_ko(color, p).ok_or_else(|| {
        AnalysisError::Lines(format!(
            "variation move {color} {} at depth {depth} is illegal",
            p.to_gtp(size)
        ))
    })?;
    Ok(Some((color, p, next)))
}

/// The positions at the ends of the lines, in the order `line_game` visits them.
fn collect_ends(
    state: &LocalState,
    children: &[SgfNode],
    out: &mut Vec<LocalState>,
    depth: usize,
) -> Result<(), AnalysisError> {
    let mut any = false;
    for child in children {
        if let Some((_, _, next)) = line_move(state, child, depth + 1)? {
            any = true;
            collect_ends(&next, &child.children, out, depth + 1)?;
        }
    }
    if !any {
        out.push(state.clone());
    }
    Ok(())
}

/// The lines as a game; a node with one colour's moves only is that colour's best result taken at
/// leisure, plus a point under territory counting. This differs from `Problem::lines_game`, which treats a
/// lone reply to the last move as forced and adds no point; the two given-lines scorers are still separate.
fn line_game(
    state: &LocalState,
    children: &[SgfNode],
    values: &mut impl Iterator<Item = Rational>,
    scoring: Scoring,
) -> Result<Game, AnalysisError> {
    let mut left = Vec::new();
    let mut right = Vec::new();
    for child in children {
        if let Some((color, _, next)) = line_move(state, child, 0)? {
            let g = line_game(&next, &child.children, values, scoring)?;
            match color {
                Color::Black => left.push(g),
                Color::White => right.push(g),
            }
        }
    }
    if left.is_empty() && right.is_empty() {
        let v = values
            .next()
            .ok_or_else(|| AnalysisError::Evaluation("a line end was not scored".into()))?;
        return Ok(Game::number(v));
    }
    let leisure = match scoring {
        Scoring::Area => Rational::ZERO,
        Scoring::Territory => Rational::ONE,
    };
    let mean = |g: &Game| Thermograph::of(g).mean;
    Ok(match (left.is_empty(), right.is_empty()) {
        (false, true) => {
            Game::Number(left.iter().map(mean).max().unwrap_or(Rational::ZERO) + leisure)
        }
        (true, false) => {
            Game::Number(right.iter().map(mean).min().unwrap_or(Rational::ZERO) - leisure)
        }
        _ => Game::new(left, right),
    })
}

/// The lines' moves as a display tree (values are filled by the caller where known).
fn line_shape(
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
        if let Ok(Some((color, p, next))) = line_move(state, child, 0) {
            let c = line_shape(&next, &child.children, Some((color, p)), tree);
            tree.nodes[id].children.push(c);
        }
    }
    id
}
