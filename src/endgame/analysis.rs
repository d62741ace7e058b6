//! The endgame analysis facade: one blocking call that takes a position and a region, runs the chosen
//! method (exact search, a network-guided variation tree, KataGo's policy as the proposer, the file's
//! given lines) and returns everything a caller shows: temperature, mean, move value, kind, best moves,
//! the variation tree, the thermograph, the method actually used, time and notes.
//!
//! Callers (the CLI, the workbench's endgame pane) run `analyze` on a job thread; networks are opened on
//! first use and kept in the `Analyzer`, so one analyzer serves many analyses.

pub use super::cgt::move_value;
use super::cgt::{Game, Kind, Rational, Thermograph, classify};
use super::exact::bounded::ThermoNode;
use super::exact::{self, Node, Progress};
use super::net::Networks;
use super::types::Outcome;
use crate::go::{Color, Point, Scoring};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use super::types::{
    AnalysisError, AnalysisOptions, LineLeaves, LocalPosition, Method, MethodParseError,
    ModelPaths, TreeLeaves, TreeNode, TreeOptions, VariationTree,
};

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
    /// The game the method built; `None` for the bounded exact search, which finds the thermograph
    /// without the canonical game.
    pub game: Option<Game>,
    pub thermograph: Thermograph,
    pub tree: VariationTree,
    pub elapsed: Duration,
    /// Network evaluations and exact positions searched, where they apply.
    pub evaluations: usize,
    pub notes: Vec<String>,
    /// `Auto` only: why its answer is no answer. The exact solver gave up and the fallback's tree found
    /// no move worth playing (its game is a number), which says nothing about a region too open to solve.
    pub gave_up: Option<String>,
}

impl Analysis {
    pub fn best_moves(&self, color: Color) -> &[Point] {
        match color {
            Color::Black => &self.best_black,
            Color::White => &self.best_white,
        }
    }
}

/// Holds the options and the networks (opened on first use) for any number of analyses.
pub struct Analyzer {
    pub options: AnalysisOptions,
    pub models: ModelPaths,
    nets: Networks,
}

impl Analyzer {
    /// An analyzer that opens networks only when a method needs them.
    pub fn new(models: ModelPaths, options: AnalysisOptions) -> Analyzer {
        Analyzer {
            nets: Networks::new(models.clone()),
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
        self.analyze_watched(position, method, &Progress::default())
    }

    /// [`Analyzer::analyze`], counting the exact search's positions in `progress` while it runs (another
    /// thread may read them).
    pub fn analyze_watched(
        &self,
        position: &LocalPosition,
        method: Method,
        progress: &Progress,
    ) -> Result<Analysis, AnalysisError> {
        let start = Instant::now();
        let mut notes = Vec::new();
        let mut gave_up = None;
        let mut stopped = None;
        let bounded = match method {
            Method::Exact => {
                Some(self.bounded(position, self.options.exact_positions, progress)?)
            }
            Method::Auto => self.auto_bounded(position, &mut notes, &mut stopped, progress)?,
            _ => None,
        };
        if let Some(found) = bounded {
            return Ok(found.analysis(method, self.options.scoring, start, notes));
        }
        let mut outcome = match method {
            Method::Canonical => {
                self.exact_within(position, self.options.canonical_positions, progress)?
            }
            Method::Lines => self.lines(position)?,
            Method::Net => self.tree(position, Method::Net)?,
            Method::Policy => self.tree(position, Method::Policy)?,
            Method::Blend => self.tree(position, Method::Blend)?,
            Method::Auto | Method::Exact => {
                progress.clear();
                self.fallback(position, stopped, &mut gave_up)?
            }
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
            game: Some(outcome.game),
            thermograph,
            tree: outcome.tree,
            elapsed: start.elapsed(),
            evaluations: outcome.evaluations,
            notes: outcome.notes,
            gave_up,
        })
    }

    /// The bounded exact search with a budget of `max_positions`.
    fn bounded(
        &self,
        position: &LocalPosition,
        max_positions: usize,
        progress: &Progress,
    ) -> Result<BoundedFound, AnalysisError> {
        let solution = exact::bounded::solve_bounded(
            &position.board,
            &position.region,
            self.options.scoring,
            max_positions,
            progress,
        )?;
        let mut tree = VariationTree::empty(position.board.size());
        let root = solution.root.clone();
        bounded_tree(&root, &root.thermograph, None, &mut tree, 3, 0);
        Ok(BoundedFound {
            solution,
            tree,
            budget: max_positions,
        })
    }

    fn exact_within(
        &self,
        position: &LocalPosition,
        max_positions: usize,
        progress: &Progress,
    ) -> Result<Outcome, AnalysisError> {
        let solution = exact::solve_watched(
            &position.board,
            &position.region,
            self.options.scoring,
            max_positions,
            progress,
        )?;
        let mut tree = VariationTree::empty(position.board.size());
        exact_tree(&solution.root, &solution.root.game, None, &mut tree, 3, 0);
        Ok(Outcome {
            method: Method::Canonical,
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
        super::lines::score_lines(
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
        super::net::grow(&self.nets, position, &self.options, method)
    }

    /// `Auto`'s first try: the bounded exact search where the region is small enough, within
    /// `auto_exact_positions`; `None` (with a note saying why) when it is not or the search gave up.
    fn auto_bounded(
        &self,
        position: &LocalPosition,
        notes: &mut Vec<String>,
        stopped: &mut Option<exact::SolveError>,
        progress: &Progress,
    ) -> Result<Option<BoundedFound>, AnalysisError> {
        let empty = position.region.empty_points(&position.board).len();
        if empty > self.options.exact_max_empty {
            notes.push(format!(
                "{empty} empty points (exact up to {}): using the network",
                self.options.exact_max_empty
            ));
            return Ok(None);
        }
        match self.bounded(position, self.options.auto_exact_positions, progress) {
            Ok(found) => Ok(Some(found)),
            Err(AnalysisError::Solve(e)) => {
                notes.push(format!("exact solver gave up ({e}); using the network"));
                *stopped = Some(e);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// `Auto` after the exact search: the local-move network's tree, which came closer to the exact
    /// solver's values than `blend`'s on generated regions (`docs/research/endgame-net-defaults.md`).
    /// When the solver gave up and the tree's game is a number, `gave_up` says so.
    fn fallback(
        &self,
        position: &LocalPosition,
        stopped: Option<exact::SolveError>,
        gave_up: &mut Option<String>,
    ) -> Result<Outcome, AnalysisError> {
        let outcome = self.tree(position, Method::Net)?;
        if let Some(e) = stopped
            && outcome.game.is_number()
        {
            *gave_up = Some(format!(
                "gave up: the exact solver stopped ({e}) and {} found no move worth playing",
                outcome.method
            ));
        }
        Ok(outcome)
    }
}

/// What the bounded exact search found, with its tree and the budget it ran under.
struct BoundedFound {
    solution: exact::bounded::Bounded,
    tree: VariationTree,
    budget: usize,
}

impl BoundedFound {
    fn analysis(
        self,
        requested: Method,
        scoring: Scoring,
        start: Instant,
        mut notes: Vec<String>,
    ) -> Analysis {
        let s = self.solution;
        notes.push(format!(
            "exact: {} of {} positions, {} options cut by bounds",
            s.positions, self.budget, s.pruned
        ));
        let thermograph = s.thermograph().clone();
        Analysis {
            requested,
            method: Method::Exact,
            scoring,
            temperature: thermograph.temperature,
            mean: thermograph.mean,
            value: move_value(thermograph.temperature),
            kind: s.kind,
            best_black: s.best_moves(Color::Black),
            best_white: s.best_moves(Color::White),
            game: None,
            thermograph,
            tree: self.tree,
            elapsed: start.elapsed(),
            evaluations: s.positions,
            notes,
            gave_up: None,
        }
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
                None => ko_leaf(tree, (color, branch.point), &Thermograph::of(&value)),
            };
            tree.nodes[id].children.push(child);
        }
    }
    id
}

/// A leaf where the ko rule stops a line (a ko capture that cannot be answered at once), valued by `th`.
fn ko_leaf(tree: &mut VariationTree, mv: (Color, Point), th: &Thermograph) -> usize {
    tree.nodes.push(TreeNode {
        mv: Some(mv),
        probability: None,
        leaf_value: Some(th.mean),
        leaf_reason: Some("ko rule"),
        mean: th.mean,
        temperature: th.temperature,
        children: Vec::new(),
    });
    tree.nodes.len() - 1
}

/// The bounded search's tree, best moves of each colour only, `depth` plies deep; values from the root
/// (as [`exact_tree`]).
fn bounded_tree(
    node: &Arc<ThermoNode>,
    th: &Thermograph,
    mv: Option<(Color, Point)>,
    tree: &mut VariationTree,
    depth: usize,
    prisoners: i64,
) -> usize {
    let id = tree.nodes.len();
    let number = (th.temperature < Rational::ZERO).then_some(th.mean);
    tree.nodes.push(TreeNode {
        mv,
        probability: None,
        leaf_value: number,
        leaf_reason: number.map(|_| "settled"),
        mean: th.mean,
        temperature: th.temperature,
        children: Vec::new(),
    });
    if depth == 0 || node.is_number() {
        return id;
    }
    for color in [Color::Black, Color::White] {
        for branch in node.best(color) {
            let value = branch.thermograph().shifted(Rational::integer(prisoners));
            let child = match &branch.child {
                Some(child) => bounded_tree(
                    child,
                    &value,
                    Some((color, branch.point)),
                    tree,
                    depth - 1,
                    prisoners + branch.prisoners,
                ),
                None => ko_leaf(tree, (color, branch.point), &value),
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
