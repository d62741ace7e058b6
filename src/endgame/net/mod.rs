//! Leaf scoring and aggregation for network-guided trees and for scored given lines.
//!
//! A leaf is worth its exact count when the region is settled (`settle.rs`), else KataGo's ownership,
//! averaged over both colours to move, rounded to −1/0/1 and summed over the region: an area count.
//! Territory counts follow from area counts exactly: over a local sequence, area − territory changes by
//! (Black moves − White moves), so a leaf's territory value is its area value minus the path's move
//! balance and the region's initial stone balance. The tree then becomes a `Game` (Black's moves Left
//! options, White's Right), and the thermograph gives temperature and mean.

mod exact;
mod lines;

pub(crate) use lines::score_lines;

use exact::ExactSubtrees;

use super::analysis::{
    AnalysisError, AnalysisOptions, LocalPosition, Method, ModelPaths, Outcome, TreeLeaves,
    TreeNode, VariationTree,
};
use super::cgt::{Game, Rational, Thermograph};
use super::problem::forced;
use super::proposer::{
    Blend, KataGoNet, LocalMoveNet, LocalState, PolicyProposer, Proposer, ProposerError,
};
use super::region::{Region, Sealed};
use super::settle::Settlement;
use super::status::{self, Status};
use super::tree::{self, BuiltNode, LeafReason, TreeOptions};
use crate::go::board::neighbours;
use crate::go::coord::GRID;
use crate::go::{Board, Color, Point, Scoring};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Where networks are looked for when no path is given.
pub const LOCAL_MOVE_ENV: &str = "TENGEN_LOCAL_MOVE_MODEL";
pub const OWNERSHIP_ENV: &str = "TENGEN_OWNERSHIP_MODEL";

type Opened<T> = OnceLock<Result<Arc<T>, (PathBuf, String)>>;

/// The networks of an analyzer, opened on first use.
pub struct Networks {
    paths: ModelPaths,
    katago: Opened<KataGoNet>,
    local: Opened<LocalMoveNet>,
    /// Sessions opened so far (each network at most once).
    opens: AtomicUsize,
}

impl Networks {
    pub fn new(paths: ModelPaths) -> Networks {
        Networks {
            paths,
            katago: OnceLock::new(),
            local: OnceLock::new(),
            opens: AtomicUsize::new(0),
        }
    }

    /// How many network sessions this analyzer has opened.
    pub fn opened(&self) -> usize {
        self.opens.load(Ordering::Relaxed)
    }

    pub fn katago(&self) -> Result<Arc<KataGoNet>, AnalysisError> {
        let what = "ownership (KataGo)";
        let path = self
            .paths
            .ownership
            .clone()
            .or_else(default_ownership_model)
            .ok_or_else(|| AnalysisError::NoModel {
                what,
                hint: format!(
                    "give --ownership-model PATH (a KataGo .bin.gz or imported .onnx) or set {OWNERSHIP_ENV}"
                ),
            })?;
        opened(&self.katago, &self.opens, what, &path, KataGoNet::open)
    }

    pub fn local(&self) -> Result<Arc<LocalMoveNet>, AnalysisError> {
        let what = "local-move";
        let path = self
            .paths
            .local_move
            .clone()
            .or_else(default_local_model)
            .ok_or_else(|| AnalysisError::NoModel {
                what,
                hint: format!("give --model PATH (models/local-move.onnx) or set {LOCAL_MOVE_ENV}"),
            })?;
        opened(&self.local, &self.opens, what, &path, LocalMoveNet::open)
    }
}

fn opened<T>(
    cell: &Opened<T>,
    opens: &AtomicUsize,
    what: &'static str,
    path: &Path,
    open: impl FnOnce(&Path) -> Result<T, ProposerError>,
) -> Result<Arc<T>, AnalysisError> {
    cell.get_or_init(|| {
        let net = open(path).map_err(|e| (path.to_path_buf(), e.to_string()))?;
        opens.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(net))
    })
    .clone()
    .map_err(|(path, detail)| AnalysisError::Model { what, path, detail })
}

/// `$TENGEN_LOCAL_MOVE_MODEL`, else `models/local-move.onnx` here or in the source tree.
fn default_local_model() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(LOCAL_MOVE_ENV) {
        return Some(PathBuf::from(p));
    }
    [
        PathBuf::from("models/local-move.onnx"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/local-move.onnx"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// `$TENGEN_OWNERSHIP_MODEL`, else the first KataGo model in `models/` or `../shared/models/`.
fn default_ownership_model() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(OWNERSHIP_ENV) {
        return Some(PathBuf::from(p));
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = [
        PathBuf::from("models"),
        PathBuf::from("../shared/models"),
        manifest.join("models"),
        manifest.join("../shared/models"),
    ];
    dirs.iter().find_map(|dir| {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".bin.gz"))
            .collect();
        found.sort();
        found.into_iter().next()
    })
}

fn proposer_error(e: ProposerError) -> AnalysisError {
    AnalysisError::Evaluation(e.to_string())
}

/// Scores positions of one region.
struct Scorer<'a> {
    region: &'a Region,
    katago: Arc<KataGoNet>,
    scoring: Scoring,
    /// Black stones minus White stones in the region at the start.
    initial_balance: i64,
    leaves: TreeLeaves,
}

impl Scorer<'_> {
    fn settled_count(&self, state: &LocalState) -> Option<i64> {
        let board = state.board();
        let settlement = Settlement::assess(board, self.region, &Sealed::default());
        let area = self.scoring == Scoring::Area;
        settlement
            .is_settled(board, self.region, area)
            .then(|| settlement.count(board, self.region, true))
    }

    /// Whether the position is finished in the course's sense (judged leaves only): no move changes its
    /// count, so the tree need not ask the proposer about it.
    fn finished(&self, state: &LocalState) -> bool {
        if self.leaves == TreeLeaves::Ownership {
            return false;
        }
        let board = state.board();
        let settlement = Settlement::assess(board, self.region, &Sealed::default());
        let area = self.scoring == Scoring::Area;
        status::finished_count(board, self.region, &settlement, area).is_some()
    }

    /// The exact count where settled; else status.rs's judged count (an area count, like the others)
    /// where the leaf rule trusts reading: finished positions (`Finished`), or every chain decided
    /// (`Judged`); `None` where only the ownership can say.
    fn known_count(&self, state: &LocalState) -> Option<i64> {
        self.settled_count(state).or_else(|| {
            let board = state.board();
            let judged = match self.leaves {
                TreeLeaves::Ownership => false,
                TreeLeaves::Finished => self.finished(state),
                TreeLeaves::Judged => chains_decided(board, self.region),
            };
            judged.then(|| status::judged_count(board, self.region, true))
        })
    }

    /// Rounded ownership summed over the region, with whether every point is decided at `threshold`.
    fn ownership_counts(
        &self,
        states: &[&LocalState],
        threshold: f32,
    ) -> Result<Vec<(i64, bool)>, AnalysisError> {
        let owned = self.katago.ownership(states).map_err(proposer_error)?;
        Ok(states
            .iter()
            .zip(owned)
            .map(|(state, own)| {
                let size = state.board().size();
                let mut total = 0i64;
                let mut decided = true;
                for &p in self.region.points() {
                    let o = own.get(size.row_major(p)).copied().unwrap_or(0.0);
                    total += o.round().clamp(-1.0, 1.0) as i64;
                    decided &= o.abs() >= threshold;
                }
                (total, decided)
            })
            .collect())
    }

    /// An area count turned into the analysis's scoring (see the module's header).
    fn in_scoring(&self, area: i64, state: &LocalState) -> Rational {
        match self.scoring {
            Scoring::Area => Rational::integer(area),
            Scoring::Territory => {
                Rational::integer(area - state.move_balance() - self.initial_balance)
            }
        }
    }

    /// Each leaf's value: exact where settled (or judged, see `known_count`), rounded ownership elsewhere.
    fn values(&self, states: &[&LocalState]) -> Result<Vec<(Rational, bool)>, AnalysisError> {
        let exact: Vec<Option<i64>> = states.iter().map(|s| self.known_count(s)).collect();
        let open: Vec<&LocalState> = states
            .iter()
            .zip(&exact)
            .filter(|(_, e)| e.is_none())
            .map(|(s, _)| *s)
            .collect();
        let mut owned = self.ownership_counts(&open, 0.5)?.into_iter();
        states
            .iter()
            .zip(exact)
            .map(|(state, e)| {
                let (area, settled) = match e {
                    Some(count) => (count, true),
                    None => {
                        let (count, _) = owned.next().ok_or_else(|| {
                            AnalysisError::Evaluation("an ownership was not computed".into())
                        })?;
                        (count, false)
                    }
                };
                Ok((self.in_scoring(area, state), settled))
            })
            .collect()
    }
}

/// Whether reading decides (safe or dead) every chain in or next to the region.
fn chains_decided(board: &Board, region: &Region) -> bool {
    let mut seen = vec![false; GRID];
    for &p in region.points() {
        for q in std::iter::once(p).chain(neighbours(p)) {
            if board.color_at(q).is_none() || seen[q.index()] {
                continue;
            }
            for s in board.chain_stones(q) {
                seen[s.index()] = true;
            }
            if status::chain_status(board, region, q) == Status::Open {
                return false;
            }
        }
    }
    true
}

fn region_balance(position: &LocalPosition) -> i64 {
    position
        .region
        .points()
        .iter()
        .filter_map(|&p| position.board.color_at(p))
        .map(|c| c.sign() as i64)
        .sum()
}

/// Grows a tree with the network (`Method::Net`), KataGo's policy (`Method::Policy`) or both
/// (`Method::Blend`) and values it.
pub(crate) fn grow(
    nets: &Networks,
    position: &LocalPosition,
    options: &AnalysisOptions,
    method: Method,
) -> Result<Outcome, AnalysisError> {
    let katago = nets.katago()?;
    let proposer: Box<dyn Proposer> = match method {
        Method::Policy => Box::new(PolicyProposer::new(katago.clone())),
        Method::Blend => Box::new(Blend::new(vec![
            (Box::new(LocalNetProposer(nets.local()?)), 0.5),
            (Box::new(PolicyProposer::new(katago.clone())), 0.5),
        ])),
        _ => Box::new(LocalNetProposer(nets.local()?)),
    };
    let scorer = Scorer {
        region: &position.region,
        katago: katago.clone(),
        scoring: options.scoring,
        initial_balance: region_balance(position),
        leaves: options.tree_leaves,
    };
    let exact = ExactSubtrees::new(
        &position.region,
        &position.board,
        options.scoring,
        options.exact_subtrees,
        options.subtree_positions,
    );
    let before = katago.evaluations();
    let nodes = build_tree(&scorer, &exact, position, proposer.as_ref(), &options.tree)?;
    let mut outcome = value_tree(&scorer, &exact, position, &nodes, options.forced_replies)?;
    outcome.method = method;
    outcome.evaluations = katago.evaluations() - before + proposer.evaluations();
    outcome
        .notes
        .push(format!("{} nodes from {}", nodes.len(), proposer.name()));
    outcome.notes.extend(exact.note());
    Ok(outcome)
}

/// The local-move network behind a shared handle.
struct LocalNetProposer(Arc<LocalMoveNet>);

impl Proposer for LocalNetProposer {
    fn name(&self) -> String {
        self.0.name()
    }

    fn propose(
        &self,
        region: &Region,
        states: &[&LocalState],
    ) -> Result<Vec<super::proposer::Proposal>, ProposerError> {
        self.0.propose(region, states)
    }

    fn evaluations(&self) -> usize {
        self.0.evaluations()
    }
}

fn build_tree(
    scorer: &Scorer,
    exact: &ExactSubtrees,
    position: &LocalPosition,
    proposer: &dyn Proposer,
    options: &TreeOptions,
) -> Result<Vec<BuiltNode>, AnalysisError> {
    let mut failure: Option<AnalysisError> = None;
    let mut terminal = |states: &[(&LocalState, bool)]| {
        let mut verdicts: Vec<Option<LeafReason>> = states
            .iter()
            .map(|&(s, root)| {
                if scorer.settled_count(s).is_some() {
                    Some(LeafReason::Settled)
                } else if scorer.finished(s) {
                    Some(LeafReason::Finished)
                } else {
                    (!root && exact.game(s).is_some()).then_some(LeafReason::Exact)
                }
            })
            .collect();
        if let Some(threshold) = options.ownership_terminal {
            let open: Vec<usize> = (0..states.len())
                .filter(|&i| verdicts[i].is_none() && !states[i].1)
                .collect();
            let asked: Vec<&LocalState> = open.iter().map(|&i| states[i].0).collect();
            match scorer.ownership_counts(&asked, threshold) {
                Ok(counts) => {
                    for (&i, (_, decided)) in open.iter().zip(counts) {
                        if decided {
                            verdicts[i] = Some(LeafReason::Decided);
                        }
                    }
                }
                Err(AnalysisError::Evaluation(e)) => return Err(ProposerError::Run(e)),
                Err(e) => {
                    let text = e.to_string();
                    failure = Some(e);
                    return Err(ProposerError::Run(text));
                }
            }
        }
        Ok(verdicts)
    };
    let root = LocalState::root(&position.board);
    let built = tree::build(root, &position.region, proposer, options, &mut terminal);
    match (built, failure) {
        (Ok(nodes), _) => Ok(nodes),
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(proposer_error(e)),
    }
}

/// Values the leaves, builds the game bottom-up and the tree as shown.
fn value_tree(
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
fn forced_answer(nodes: &[BuiltNode], i: usize) -> Option<Color> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::test_support::{at, problem};

    #[test]
    fn reading_decides_a_leaf_only_once_the_vital_point_is_taken() {
        // 01-value-of-move/05: White's straight three lives or dies by B19.
        let p = problem("01-value-of-move/05.sgf");
        assert!(!chains_decided(&p.board, &p.region));
        let mut killed = p.board.clone();
        killed.place(Color::Black, at("B19"));
        assert!(chains_decided(&killed, &p.region));
    }

    fn node(state: LocalState, mv: Option<(Color, Point)>, leaf: Option<LeafReason>) -> BuiltNode {
        BuiltNode {
            state,
            mv,
            probability: None,
            children: Vec::new(),
            leaf,
            depth: 0,
        }
    }

    #[test]
    fn a_node_following_only_the_answer_is_a_forced_reply() {
        let p = problem("01-value-of-move/05.sgf");
        let root = LocalState::root(&p.board);
        let (b, w) = (at("B19"), at("C19"));
        let after_b = root.play(Color::Black, b).expect("legal");
        let answer = after_b.play(Color::White, w).expect("legal");
        let follow_up = after_b.play(Color::Black, w).expect("legal");
        let mut nodes = vec![
            node(root, None, None),
            node(after_b, Some((Color::Black, b)), None),
            node(answer, Some((Color::White, w)), Some(LeafReason::NoMove)),
            node(follow_up, Some((Color::Black, w)), Some(LeafReason::Direct)),
        ];
        nodes[0].children = vec![1];
        nodes[1].children = vec![2, 3];
        assert_eq!(forced_answer(&nodes, 1), Some(Color::White));
        assert_eq!(forced_answer(&nodes, 0), None);
        // Followed on both sides: no forced reply.
        nodes[3].leaf = Some(LeafReason::NoMove);
        assert_eq!(forced_answer(&nodes, 1), None);
    }
}
