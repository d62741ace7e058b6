//! The endgame analysis facade: one blocking call that takes a position and a region, runs the chosen
//! method (exact search, a network-guided variation tree, KataGo's policy as the proposer, the file's
//! given lines) and returns everything a caller shows: temperature, mean, move value, kind, best moves,
//! the variation tree, the thermograph, the method actually used, time and notes.
//!
//! Callers (the CLI, the workbench's endgame pane) run `analyze` on a job thread; networks are opened on
//! first use and kept in the `Analyzer`, so one analyzer serves many analyses.

use super::cgt::{Game, Kind, Rational, Thermograph, classify};
use super::problem::Problem;
use super::region::Region;
use super::solver::{self, Node, SolveError};
use crate::go::sgf::SgfNode;
use crate::go::{Board, Color, Point, Scoring};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use super::tree::TreeOptions;

/// How the local game is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Method {
    /// Every local sequence, searched to settled positions (small regions only).
    Exact,
    /// A variation tree grown from the local-move network, leaves scored by ownership.
    Net,
    /// The same tree grown from KataGo's policy restricted to the region (the baseline).
    Policy,
    /// `Exact` when the region is small enough and the search finishes, `Blend` otherwise.
    Auto,
    /// The file's given correct lines, scored as a game.
    Lines,
    /// The tree grown from an even mixture of the local-move network and KataGo's policy.
    Blend,
}

impl Method {
    /// In the order the workbench's `m` key walks them.
    pub const ALL: [Method; 6] = [
        Method::Exact,
        Method::Auto,
        Method::Net,
        Method::Policy,
        Method::Lines,
        Method::Blend,
    ];

    /// The next method in [`Method::ALL`], round the end.
    pub fn next(self) -> Method {
        let i = Method::ALL.iter().position(|&m| m == self).unwrap_or(0);
        Method::ALL[(i + 1) % Method::ALL.len()]
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Net => "net",
            Method::Policy => "policy",
            Method::Auto => "auto",
            Method::Lines => "lines",
            Method::Blend => "blend",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown method `{0}`: use exact, auto, net, policy, lines or blend")]
pub struct MethodParseError(pub String);

impl FromStr for Method {
    type Err = MethodParseError;

    fn from_str(s: &str) -> Result<Method, MethodParseError> {
        let key = s.trim().to_ascii_lowercase();
        Method::ALL
            .into_iter()
            .find(|m| m.name() == key)
            .ok_or_else(|| MethodParseError(s.to_string()))
    }
}

/// How the ends of the given lines are valued (`Method::Lines`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LineLeaves {
    /// The exact count where settled, else the static estimate of `settle::estimate_count`.
    #[default]
    Static,
    /// The exact count where settled, else KataGo's rounded ownership (the paper's "correct lines given").
    Ownership,
}

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error("the region has no empty point: nothing to analyse")]
    NothingToPlay,
    #[error("no given lines to score: the position has no variations")]
    NoLines,
    #[error("{0}")]
    Lines(String),
    #[error("no {what} network: {hint}")]
    NoModel { what: &'static str, hint: String },
    #[error("the {what} network {path}: {detail}")]
    Model {
        what: &'static str,
        path: PathBuf,
        detail: String,
    },
    #[error("network evaluation failed: {0}")]
    Evaluation(String),
}

/// How the leaves of a grown tree (`Net`, `Policy`) are counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeLeaves {
    /// The exact count where Benson-settled, else KataGo's rounded ownership (the paper's rule; the
    /// default: it got the most development problems right, `docs/endgame-net.md`).
    #[default]
    Ownership,
    /// As `Ownership`, but a position finished in the course's sense (`status::finished_count`: reading
    /// decides every chain and no move changes the count) is a leaf with its judged count.
    Finished,
    /// The exact count where Benson-settled; else, when reading (`status.rs`) decides every chain in or
    /// next to the region, the judged count; KataGo's ownership only where reading leaves a chain open.
    /// Finished positions (`status::finished_count`) are leaves.
    Judged,
}

/// The networks an analyzer may use; `None` means "look in the usual places" (see `ModelPaths::resolve`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModelPaths {
    /// The local-move network (`models/local-move.onnx`).
    pub local_move: Option<PathBuf>,
    /// A KataGo network (`.bin.gz` or imported `.onnx`) for ownership and the policy baseline.
    pub ownership: Option<PathBuf>,
}

/// Everything an analysis may be tuned by.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisOptions {
    /// Territory (the problems' convention) or area counting.
    pub scoring: Scoring,
    /// The tree builder's thresholds and caps.
    pub tree: TreeOptions,
    /// `Auto` tries the exact solver up to this many empty points.
    pub exact_max_empty: usize,
    /// `Auto` gives the exact solver this many positions before it falls back to the network, so that
    /// a search that would exhaust `Exact`'s full budget does not cost minutes first.
    pub auto_exact_positions: usize,
    /// Grown trees: a node (not the root) with at most this many empty region points is valued by the
    /// exact solver's game when it finishes within `subtree_positions` (0: off).
    pub exact_subtrees: usize,
    /// The exact solver's position budget for one node of a grown tree.
    pub subtree_positions: usize,
    /// How `Lines` values the ends of the lines.
    pub line_leaves: LineLeaves,
    /// How a grown tree's leaves are counted.
    pub tree_leaves: TreeLeaves,
    /// A node where the tree follows only the answer to the last move is valued as a forced reply (the
    /// last mover's skipped follow-up is a threat too big to ignore, as the given lines treat it) instead
    /// of scoring that follow-up as a leaf.
    pub forced_replies: bool,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            scoring: Scoring::Territory,
            tree: TreeOptions::default(),
            // The exact solver's own limits: on the development problems it finishes 26 and gets 18 right
            // (10 empty points within 20,000 positions: 21 and 15), at about 3x the CPU time of a bench run.
            exact_max_empty: solver::MAX_EMPTY_POINTS,
            auto_exact_positions: solver::MAX_POSITIONS,
            exact_subtrees: 0,
            subtree_positions: 5_000,
            line_leaves: LineLeaves::Static,
            tree_leaves: TreeLeaves::default(),
            forced_replies: false,
        }
    }
}

/// What is analysed: a position (stones outside the region never move), its region and, for `Lines`,
/// the correct lines as SGF variations.
#[derive(Clone, Debug)]
pub struct LocalPosition {
    pub board: Board,
    pub region: Region,
    pub lines: Vec<SgfNode>,
}

impl LocalPosition {
    pub fn new(board: Board, region: Region) -> LocalPosition {
        LocalPosition {
            board,
            region,
            lines: Vec::new(),
        }
    }
}

impl From<&Problem> for LocalPosition {
    fn from(p: &Problem) -> LocalPosition {
        LocalPosition {
            board: p.board.clone(),
            region: p.region.clone(),
            lines: p.lines.clone(),
        }
    }
}

/// One node of the variation tree as shown to a user.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeNode {
    /// The move that led here (`None` at the root).
    pub mv: Option<(Color, Point)>,
    /// The proposer's probability of that move, where a proposer chose it.
    pub probability: Option<f32>,
    /// A leaf's value (local count from Black's side, in the analysis's scoring); `None` inside the tree.
    pub leaf_value: Option<Rational>,
    /// Why this node is a leaf ("settled", "no move", "ownership", "depth"), if it is one.
    pub leaf_reason: Option<&'static str>,
    /// The node's mean and temperature (from its game).
    pub mean: Rational,
    pub temperature: Rational,
    pub children: Vec<usize>,
}

/// The variation tree: an arena whose node 0 is the root.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VariationTree {
    pub nodes: Vec<TreeNode>,
    /// The board size, for printing coordinates.
    pub size: Option<crate::go::BoardSize>,
}

impl VariationTree {
    pub fn root(&self) -> Option<&TreeNode> {
        self.nodes.first()
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The tree as indented text, `depth` plies deep.
    pub fn render(&self, depth: usize) -> String {
        let mut out = String::new();
        if !self.nodes.is_empty() {
            self.render_node(0, 0, depth, &mut out);
        }
        out
    }

    fn render_node(&self, id: usize, indent: usize, depth: usize, out: &mut String) {
        use std::fmt::Write;
        let Some(node) = self.nodes.get(id) else {
            return;
        };
        if let Some((color, point)) = node.mv {
            let at = self
                .size
                .map(|s| point.to_gtp(s))
                .unwrap_or_else(|| format!("{point:?}"));
            let _ = write!(out, "{}{}{} -> ", "  ".repeat(indent), color.letter(), at);
            match node.leaf_value {
                Some(v) => {
                    let _ = write!(out, "{}", v.mixed());
                    if let Some(r) = node.leaf_reason {
                        let _ = write!(out, "  ({r})");
                    }
                }
                None => {
                    let _ = write!(
                        out,
                        "mean {}, temperature {}",
                        node.mean.mixed(),
                        node.temperature.mixed()
                    );
                }
            }
            if let Some(p) = node.probability {
                let _ = write!(out, "  p={:.2}", p);
            }
            out.push('\n');
        }
        if depth == 0 {
            return;
        }
        for &c in &node.children {
            self.render_node(c, indent + 1, depth - 1, out);
        }
    }
}

impl fmt::Display for VariationTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(usize::MAX))
    }
}

/// The result of one analysis.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The method asked for, and the one that produced the figures (`Auto` resolves to one of the others).
    pub requested: Method,
    pub method: Method,
    pub scoring: Scoring,
    pub temperature: Rational,
    /// The local count from Black's side.
    pub mean: Rational,
    /// The move value in the problems' convention: twice the temperature (0 when settled).
    pub value: Rational,
    pub kind: Kind,
    pub best_black: Vec<Point>,
    pub best_white: Vec<Point>,
    pub game: Game,
    pub thermograph: Thermograph,
    pub tree: VariationTree,
    pub elapsed: Duration,
    /// Network evaluations and exact positions searched, where they apply.
    pub evaluations: usize,
    pub notes: Vec<String>,
}

impl Analysis {
    pub fn best_moves(&self, color: Color) -> &[Point] {
        match color {
            Color::Black => &self.best_black,
            Color::White => &self.best_white,
        }
    }
}

/// Twice the temperature, 0 when settled: the problems' convention.
pub fn move_value(temperature: Rational) -> Rational {
    if temperature > Rational::ZERO {
        temperature + temperature
    } else {
        Rational::ZERO
    }
}

/// Holds the options and the networks (opened on first use) for any number of analyses.
pub struct Analyzer {
    pub options: AnalysisOptions,
    pub models: ModelPaths,
    nets: super::leaf::Networks,
}

impl Analyzer {
    /// An analyzer that opens networks only when a method needs them.
    pub fn new(models: ModelPaths, options: AnalysisOptions) -> Analyzer {
        Analyzer {
            nets: super::leaf::Networks::new(models.clone()),
            options,
            models,
        }
    }

    /// How many network sessions this analyzer has opened (each at most once, on first use).
    pub fn networks_opened(&self) -> usize {
        self.nets.opened()
    }

    /// Runs `method` on `position` and blocks until it is done.
    pub fn analyze(
        &self,
        position: &LocalPosition,
        method: Method,
    ) -> Result<Analysis, AnalysisError> {
        let start = Instant::now();
        let mut notes = Vec::new();
        let mut outcome = match method {
            Method::Exact => self.exact(position)?,
            Method::Lines => self.lines(position)?,
            Method::Net => self.tree(position, Method::Net)?,
            Method::Policy => self.tree(position, Method::Policy)?,
            Method::Blend => self.tree(position, Method::Blend)?,
            Method::Auto => self.auto(position, &mut notes)?,
        };
        outcome.notes.splice(0..0, notes);
        let thermograph = Thermograph::of(&outcome.game);
        let kind = outcome.kind.unwrap_or_else(|| classify(&outcome.game));
        Ok(Analysis {
            requested: method,
            method: outcome.method,
            scoring: self.options.scoring,
            temperature: thermograph.temperature,
            mean: thermograph.mean,
            value: move_value(thermograph.temperature),
            kind,
            best_black: outcome.best_black,
            best_white: outcome.best_white,
            game: outcome.game,
            thermograph,
            tree: outcome.tree,
            elapsed: start.elapsed(),
            evaluations: outcome.evaluations,
            notes: outcome.notes,
        })
    }

    fn exact(&self, position: &LocalPosition) -> Result<Outcome, AnalysisError> {
        self.exact_within(position, solver::MAX_POSITIONS)
    }

    fn exact_within(
        &self,
        position: &LocalPosition,
        max_positions: usize,
    ) -> Result<Outcome, AnalysisError> {
        let solution = solver::solve_within(
            &position.board,
            &position.region,
            self.options.scoring,
            max_positions,
        )?;
        let mut tree = VariationTree {
            nodes: Vec::new(),
            size: Some(position.board.size()),
        };
        exact_tree(&solution.root, &solution.root.game, None, &mut tree, 3, 0);
        Ok(Outcome {
            method: Method::Exact,
            game: solution.root.game.clone(),
            kind: Some(solution.kind),
            best_black: solution.best_moves(Color::Black),
            best_white: solution.best_moves(Color::White),
            tree,
            evaluations: solution.positions,
            notes: Vec::new(),
        })
    }

    fn lines(&self, position: &LocalPosition) -> Result<Outcome, AnalysisError> {
        if position.lines.is_empty() {
            return Err(AnalysisError::NoLines);
        }
        super::leaf::score_lines(
            &self.nets,
            position,
            self.options.scoring,
            self.options.line_leaves,
        )
    }

    fn tree(&self, position: &LocalPosition, method: Method) -> Result<Outcome, AnalysisError> {
        if position.region.empty_points(&position.board).is_empty() {
            return Err(AnalysisError::NothingToPlay);
        }
        super::leaf::grow(&self.nets, position, &self.options, method)
    }

    fn auto(
        &self,
        position: &LocalPosition,
        notes: &mut Vec<String>,
    ) -> Result<Outcome, AnalysisError> {
        let empty = position.region.empty_points(&position.board).len();
        if empty <= self.options.exact_max_empty {
            match self.exact_within(position, self.options.auto_exact_positions) {
                Ok(outcome) => return Ok(outcome),
                Err(AnalysisError::Solve(e)) => {
                    notes.push(format!("exact solver gave up ({e}); using the network"));
                }
                Err(e) => return Err(e),
            }
        } else {
            notes.push(format!(
                "{empty} empty points (exact up to {}): using the network",
                self.options.exact_max_empty
            ));
        }
        self.tree(position, Method::Blend)
    }
}

/// Blocking analysis; see [`Analyzer::analyze`].
pub fn analyze(
    analyzer: &Analyzer,
    position: &LocalPosition,
    method: Method,
) -> Result<Analysis, AnalysisError> {
    analyzer.analyze(position, method)
}

/// What each method hands back before the common figures are computed.
pub(crate) struct Outcome {
    pub method: Method,
    pub game: Game,
    /// The kind where the method knows better than the game's thermograph (kos in the exact solver).
    pub kind: Option<Kind>,
    pub best_black: Vec<Point>,
    pub best_white: Vec<Point>,
    pub tree: VariationTree,
    pub evaluations: usize,
    pub notes: Vec<String>,
}

/// The exact solver's tree, best moves of each colour only, `depth` plies deep.
/// A node shows the value of the option that led to it, counted from the root: a solver node counts from
/// its own position, so `prisoners` (taken on the way to `node`) are added to its branches' values.
fn exact_tree(
    node: &Arc<Node>,
    value: &Game,
    mv: Option<(Color, Point)>,
    tree: &mut VariationTree,
    depth: usize,
    prisoners: i64,
) -> usize {
    let th = Thermograph::of(value);
    let id = tree.nodes.len();
    tree.nodes.push(TreeNode {
        mv,
        probability: None,
        leaf_value: value.as_number(),
        leaf_reason: value.as_number().map(|_| "settled"),
        mean: th.mean,
        temperature: th.temperature,
        children: Vec::new(),
    });
    if depth == 0 || node.game.is_number() {
        return id;
    }
    for color in [Color::Black, Color::White] {
        for branch in node.best(color) {
            let value = match prisoners {
                0 => branch.value.clone(),
                n => branch.value.add(&Game::number(n)),
            };
            let child = match &branch.child {
                Some(child) => exact_tree(
                    child,
                    &value,
                    Some((color, branch.point)),
                    tree,
                    depth - 1,
                    prisoners + branch.prisoners,
                ),
                None => {
                    let th = Thermograph::of(&value);
                    tree.nodes.push(TreeNode {
                        mv: Some((color, branch.point)),
                        probability: None,
                        leaf_value: Some(th.mean),
                        leaf_reason: Some("ko rule"),
                        mean: th.mean,
                        temperature: th.temperature,
                        children: Vec::new(),
                    });
                    tree.nodes.len() - 1
                }
            };
            tree.nodes[id].children.push(child);
        }
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_round_trip_through_their_names() {
        for m in Method::ALL {
            assert_eq!(m.to_string().parse::<Method>(), Ok(m));
        }
        assert_eq!("NET".parse::<Method>(), Ok(Method::Net));
        assert!("deep".parse::<Method>().is_err());
    }

    #[test]
    fn move_value_is_twice_a_positive_temperature() {
        assert_eq!(move_value(Rational::new(3, 2)), Rational::integer(3));
        assert_eq!(move_value(Rational::integer(-1)), Rational::ZERO);
    }
}
