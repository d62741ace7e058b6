//! The types every method of the endgame analysis shares: the method, its options and errors, the position
//! analysed, and the variation tree and outcome a method hands back. The facade (`analysis`) re-exports
//! them; the methods (`exact`, `net`, `lines`) use them without depending on the facade.

use super::cgt::{Game, Kind, Rational};
use super::exact::{self, SolveError};
use super::problem::Problem;
use super::region::Region;
use crate::go::sgf::SgfNode;
use crate::go::{Board, Color, Point, Scoring};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// How the local game is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Method {
    /// The temperature-bounded exact search: the exact thermograph, searching only the options that can
    /// still shape it (small regions only).
    Exact,
    /// The full canonical game of every local sequence, searched to settled positions (small regions).
    Canonical,
    /// A variation tree grown from the local-move network, leaves scored by ownership.
    Net,
    /// The same tree grown from KataGo's policy restricted to the region (the baseline).
    Policy,
    /// `Exact` when the region is small enough and the search finishes, `Net` otherwise.
    Auto,
    /// The file's given correct lines, scored as a game.
    Lines,
    /// The tree grown from a mixture of the local-move network and KataGo's policy (½ each by default).
    Blend,
}

impl Method {
    /// In the order the workbench's `m` key walks them.
    pub const ALL: [Method; 7] = [
        Method::Exact,
        Method::Auto,
        Method::Net,
        Method::Policy,
        Method::Lines,
        Method::Blend,
        Method::Canonical,
    ];

    /// The next method in [`Method::ALL`], round the end.
    pub fn next(self) -> Method {
        let i = Method::ALL.iter().position(|&m| m == self).unwrap_or(0);
        Method::ALL[(i + 1) % Method::ALL.len()]
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Canonical => "canonical",
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
    /// The exact count where settled, else the judged count (`local::judged`).
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
    /// default, chosen in `docs/research/endgame-net-defaults.md`).
    #[default]
    Ownership,
    /// As `Ownership`, but a position finished in the course's sense (`local::finished_count`: reading
    /// decides every chain and no move changes the count) is a leaf with its judged count.
    Finished,
    /// The exact count where Benson-settled; else, when reading (`local::reading`) decides every chain in or
    /// next to the region, the judged count; KataGo's ownership only where reading leaves a chain open.
    /// Finished positions (`local::finished_count`) are leaves.
    Judged,
}

/// The networks an analyzer may use; `None` means "look in the usual places" (see `ModelPaths::resolve`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModelPaths {
    /// The local-move network (`models/local-move-head.onnx`, on KataGo's trunk).
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
    /// The position budget of `Exact` (it gives up beyond it).
    pub exact_positions: usize,
    /// The position budget of `Canonical`, smaller than `Exact`'s: its games take far more memory per
    /// position.
    pub canonical_positions: usize,
    /// `Auto` gives the exact solver this many positions before it falls back to the network, so that
    /// a search that would exhaust `Exact`'s full budget does not cost minutes first.
    pub auto_exact_positions: usize,
    /// Grown trees: a node (not the root) with at most this many empty region points is valued by the
    /// exact solver's game when it finishes within `subtree_positions` (0: off; the default 8 was chosen
    /// on generated regions, `docs/research/endgame-net-defaults.md`).
    pub exact_subtrees: usize,
    /// The exact solver's position budget for one node of a grown tree.
    pub subtree_positions: usize,
    /// `Blend`: KataGo's policy's share of the move probability (the local-move network has the rest and
    /// says "no move" alone).
    pub blend_policy_weight: f32,
    /// How `Lines` values the ends of the lines.
    pub line_leaves: LineLeaves,
    /// How a grown tree's leaves are counted.
    pub tree_leaves: TreeLeaves,
    /// A node where the tree follows only the answer to the last move is valued as a forced reply (the
    /// last mover's skipped follow-up is a threat too big to ignore, as the given lines treat it) instead
    /// of scoring that follow-up as a leaf.
    pub forced_replies: bool,
}

impl AnalysisOptions {
    /// The position budget `method` searches within, or `None` when it searches no positions.
    pub fn position_budget(&self, method: Method) -> Option<usize> {
        match method {
            Method::Exact => Some(self.exact_positions),
            Method::Canonical => Some(self.canonical_positions),
            Method::Auto => Some(self.auto_exact_positions),
            _ => None,
        }
    }
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            scoring: Scoring::Territory,
            tree: TreeOptions::default(),
            // The exact solver's own limits.
            exact_max_empty: exact::MAX_EMPTY_POINTS,
            exact_positions: exact::bounded::DEFAULT_BUDGET,
            canonical_positions: exact::MAX_POSITIONS,
            auto_exact_positions: exact::MAX_POSITIONS,
            exact_subtrees: 8,
            subtree_positions: 20_000,
            blend_policy_weight: 0.5,
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
    /// A tree with no nodes yet, printed with the coordinates of a board of `size`.
    pub fn empty(size: crate::go::BoardSize) -> VariationTree {
        VariationTree {
            nodes: Vec::new(),
            size: Some(size),
        }
    }

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

/// The builder's thresholds and caps.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeOptions {
    /// A node whose "no move" probability is above this is a leaf.
    pub no_move_leaf: f32,
    /// A colour with more than this share of the node's move probability is the only one followed.
    pub one_colour: f32,
    /// A colour's moves above this fraction of the colour's total are followed (else its single best).
    pub relative: f32,
    /// At the root, each colour's best this-many moves are followed whatever their share (1: the paper's
    /// rule alone). The root decides which first moves the answer can name, so it gets a wider look
    /// (`docs/research/endgame-net-defaults.md`).
    pub root_breadth: usize,
    /// Plies below the root after which nodes become leaves.
    pub max_depth: usize,
    /// The most nodes a tree may have; moves beyond it become leaves.
    pub max_nodes: usize,
    /// A node is a leaf when every region point's ownership has at least this magnitude (`None`: off).
    pub ownership_terminal: Option<f32>,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            no_move_leaf: 0.30,
            one_colour: 0.85,
            relative: 0.30,
            root_breadth: 2,
            max_depth: 12,
            max_nodes: 400,
            ownership_terminal: Some(0.7),
        }
    }
}

impl TreeOptions {
    /// Keeps every proposed move of both colours (for the exhaustive proposer).
    pub fn exhaustive() -> TreeOptions {
        TreeOptions {
            no_move_leaf: f32::INFINITY,
            one_colour: f32::INFINITY,
            relative: 0.0,
            ownership_terminal: None,
            ..TreeOptions::default()
        }
    }
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
