//! Endgame analysis as a job. The workbench sends a position, a region and a method; the job runs the
//! blocking analysis off the async threads and sends back a [`Report`]. Both travel through the session
//! recording, so they are serializable: stones and region as points, the endgame's own exact values and
//! kinds, the variation tree already cut and shaped for display.

use crate::endgame::analysis::{
    Analysis, AnalysisError, AnalysisOptions, Analyzer, LocalPosition, ModelPaths,
};
use crate::endgame::cgt::{Kind, Rational, Wall};
use crate::endgame::exact::Progress;
use crate::endgame::problem::Problem;
use crate::endgame::region::Region;
use crate::engine::CancelToken;
use crate::go::{Board, BoardSize, Color, Point};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Plies of the variation tree a report carries, and nodes in all: enough to read the lines, small
/// enough for a session record.
const TREE_DEPTH: usize = 8;
const TREE_NODES: usize = 400;

pub use crate::endgame::analysis::Method;

/// The position the pane analyses: the board's stones, the painted region, where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Position {
    /// What the pane's title says: the book and line, or the problem file.
    pub name: String,
    pub width: usize,
    pub height: usize,
    pub black: Vec<Point>,
    pub white: Vec<Point>,
    pub region: Vec<Point>,
    /// The problem file, when loaded from one (the `lines` method reads its variations).
    pub file: Option<String>,
    /// The file's answer (twice the temperature), when it has one.
    pub answer: Option<Rational>,
}

impl Position {
    pub fn size(&self) -> Result<BoardSize, String> {
        BoardSize::new(self.width, self.height).map_err(|e| e.to_string())
    }

    pub fn board(&self) -> Result<Board, String> {
        let mut board = Board::new(self.size()?);
        for &p in &self.black {
            board.setup_stone(Color::Black, p);
        }
        for &p in &self.white {
            board.setup_stone(Color::White, p);
        }
        Ok(board)
    }

    pub fn stone(&self, p: Point) -> Option<Color> {
        if self.black.contains(&p) {
            Some(Color::Black)
        } else if self.white.contains(&p) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Empty points of the region: what the exact solver's limit counts.
    pub fn empty_in_region(&self) -> usize {
        self.region
            .iter()
            .filter(|&&p| self.stone(p).is_none())
            .count()
    }

    /// A problem file's position and region.
    pub fn from_problem(problem: &Problem) -> Position {
        let board = &problem.board;
        let size = board.size();
        let (mut black, mut white) = (Vec::new(), Vec::new());
        for p in size.points() {
            match board.color_at(p) {
                Some(Color::Black) => black.push(p),
                Some(Color::White) => white.push(p),
                None => {}
            }
        }
        Position {
            name: problem.path.display().to_string(),
            width: size.width(),
            height: size.height(),
            black,
            white,
            region: problem.region.points().to_vec(),
            file: Some(problem.path.display().to_string()),
            answer: problem.answer,
        }
    }
}

/// What the job is asked: the position, the method, and the app's tag that says which run of which
/// column of the pane the answer belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub tag: u32,
    pub method: Method,
    pub position: Position,
}

/// One move of the variation tree with what follows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeNode {
    pub color: Color,
    /// GTP vertex.
    pub point: String,
    /// A first move that is one of its colour's best.
    pub best: bool,
    /// The proposer's probability of the move, where a network chose it.
    pub probability: Option<f32>,
    /// A leaf's value (the local count, Black's side) and why it is a leaf (settled, ko rule, …).
    pub leaf: Option<Rational>,
    pub reason: Option<String>,
    /// Mean and temperature of the position after the move.
    pub mean: Rational,
    pub temperature: Rational,
    pub children: Vec<TreeNode>,
}

/// The analysis of one position by one method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub method: Method,
    /// The method that actually ran (`auto` picks one).
    pub used: Method,
    pub temperature: Rational,
    /// The count, from Black's side.
    pub mean: Rational,
    /// Twice the temperature (the problems' convention), 0 when settled.
    pub value: Rational,
    pub kind: Kind,
    pub best_black: Vec<String>,
    pub best_white: Vec<String>,
    /// Thermograph walls as breakpoints (t, value) from t = −1; above the last one the mast.
    pub left_wall: Vec<(Rational, Rational)>,
    pub right_wall: Vec<(Rational, Rational)>,
    pub tree: Vec<TreeNode>,
    pub elapsed_ms: u64,
    pub notes: Vec<String>,
    /// `auto` only: why its figures are no answer (the exact solver and its fallback both gave up).
    pub gave_up: Option<String>,
}

impl Report {
    /// One line for the jobs pane.
    pub fn summary(&self) -> String {
        format!(
            "{}: T {} · mean {} · value {} · {}",
            self.used,
            self.temperature.mixed(),
            self.mean.mixed(),
            self.value.mixed(),
            self.kind.short()
        )
    }
}

/// The position budget of the exact search a request starts with (the jobs pane's bar and the pane's
/// "positions" count), or `None` when the method searches no positions.
pub fn position_budget(method: Method) -> Option<usize> {
    AnalysisOptions::default().position_budget(method)
}

/// The analyzers of the job runner, one per set of model paths: networks are opened on first use and
/// kept, so repeated jobs reuse the open ONNX sessions (and KataGo's evaluation cache) instead of
/// reopening them for every job. The runner owns one; tests make their own.
#[derive(Default)]
pub struct Analyzers {
    by_models: Mutex<HashMap<ModelPaths, Arc<Analyzer>>>,
}

impl Analyzers {
    /// The analyzer for `models`, made on first use.
    pub fn get(&self, models: &ModelPaths) -> Arc<Analyzer> {
        self.lock()
            .entry(models.clone())
            .or_insert_with(|| Arc::new(Analyzer::new(models.clone(), AnalysisOptions::default())))
            .clone()
    }

    fn forget(&self, models: &ModelPaths) {
        self.lock().remove(models);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ModelPaths, Arc<Analyzer>>> {
        self.by_models.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs the analysis through the endgame facade with the default networks; blocking (seconds for
    /// the exact solver on open regions, longer for networks). Errors are sentences for the status line:
    /// an empty or too large region, a missing network, a problem file that cannot be read.
    pub fn analyze(&self, request: &Request) -> Result<Report, String> {
        self.analyze_watched(request, &ModelPaths::default(), &Progress::default())
    }

    /// [`Analyzers::analyze`] with the networks at `models`, counting the exact search's positions in
    /// `progress` as it goes.
    pub fn analyze_watched(
        &self,
        request: &Request,
        models: &ModelPaths,
        progress: &Progress,
    ) -> Result<Report, String> {
        let position = &request.position;
        let board = position.board()?;
        let size = board.size();
        let region = Region::new(position.region.iter().copied());
        if region.is_empty() {
            return Err(
                "the region is empty: paint it first (x toggles a point, v a rectangle)".into(),
            );
        }
        let mut local = LocalPosition::new(board, region.clone());
        if request.method == Method::Lines {
            let Some(file) = &position.file else {
                return Err(
                "the lines method scores a problem file's variations: load one with :endgame load FILE"
                    .into(),
            );
            };
            let problem = Problem::read(&PathBuf::from(file)).map_err(|e| e.to_string())?;
            local.lines = problem.lines;
        }
        let analysis = self
            .get(models)
            .analyze_watched(&local, request.method, progress)
            .map_err(|e| {
                // A network that failed to open is not retried by the same analyzer: the next job gets a
                // fresh one, so a model put in place meanwhile is found.
                if matches!(
                    e,
                    AnalysisError::NoModel { .. } | AnalysisError::Model { .. }
                ) {
                    self.forget(models);
                }
                format!("{}: {e}", request.method.name())
            })?;
        let mut notes = analysis.notes.clone();
        if analysis.evaluations > 0 {
            notes.push(format!(
                "{} {}",
                analysis.evaluations,
                if matches!(analysis.method, Method::Exact | Method::Canonical) {
                    "positions searched"
                } else {
                    "network evaluations"
                }
            ));
        }
        let mut budget = TREE_NODES;
        let tree = match analysis.tree.root() {
            Some(root) => root
                .children
                .iter()
                .filter_map(|&c| tree_node(&analysis, c, size, TREE_DEPTH, &mut budget))
                .collect(),
            None => Vec::new(),
        };
        if budget == 0 {
            notes.push(format!("tree cut at {TREE_NODES} moves"));
        }
        let points = |ps: &[crate::go::Point]| ps.iter().map(|p| p.to_gtp(size)).collect();
        Ok(Report {
            method: request.method,
            used: analysis.method,
            temperature: analysis.temperature,
            mean: analysis.mean,
            value: analysis.value,
            kind: analysis.kind,
            best_black: points(&analysis.best_black),
            best_white: points(&analysis.best_white),
            left_wall: wall(&analysis.thermograph.left),
            right_wall: wall(&analysis.thermograph.right),
            tree,
            elapsed_ms: analysis.elapsed.as_millis() as u64,
            notes,
            gave_up: analysis.gave_up.clone(),
        })
    }
}

/// Why a watched analysis ended without a report.
#[derive(Debug, Clone, PartialEq)]
pub enum Stopped {
    Cancelled,
    Failed(String),
}

/// Runs `request` on a blocking thread and hands the exact search's positions to `progress` every quarter
/// second while it runs. A cancel answers at once; the solver itself has no cancel hook and runs to its
/// position budget in the background.
pub async fn run_watched(
    analyzers: Arc<Analyzers>,
    request: Request,
    cancel: &CancelToken,
    mut progress: impl FnMut(u64),
) -> Result<Report, Stopped> {
    let counter = Arc::new(Progress::default());
    let watched = Arc::clone(&counter);
    let mut work = tokio::task::spawn_blocking(move || {
        analyzers.analyze_watched(&request, &ModelPaths::default(), &watched)
    });
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(250));
    let mut reported = 0;
    loop {
        tokio::select! {
            joined = &mut work => {
                return joined
                    .map_err(|e| Stopped::Failed(format!("the analysis stopped: {e}")))?
                    .map_err(Stopped::Failed);
            }
            _ = cancel.cancelled() => return Err(Stopped::Cancelled),
            _ = tick.tick() => {
                let searched = counter.searched() as u64;
                if searched != reported {
                    reported = searched;
                    progress(searched);
                }
            }
        }
    }
}

fn wall(w: &Wall) -> Vec<(Rational, Rational)> {
    w.breakpoints().to_vec()
}

/// The facade's arena tree as nested nodes, cut by depth and size (a session record stays small).
fn tree_node(
    analysis: &Analysis,
    id: usize,
    size: BoardSize,
    depth: usize,
    budget: &mut usize,
) -> Option<TreeNode> {
    if depth == 0 || *budget == 0 {
        return None;
    }
    let node = analysis.tree.nodes.get(id)?;
    let (color, point) = node.mv?;
    *budget -= 1;
    let top = depth == TREE_DEPTH;
    let children = node
        .children
        .iter()
        .filter_map(|&c| tree_node(analysis, c, size, depth - 1, budget))
        .collect();
    Some(TreeNode {
        color,
        point: point.to_gtp(size),
        best: top && analysis.best_moves(color).contains(&point),
        probability: node.probability,
        leaf: node.leaf_value,
        reason: node.leaf_reason.map(str::to_string),
        mean: node.mean,
        temperature: node.temperature,
        children,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One job's analysis with analyzers of its own.
    fn analyze(request: &Request) -> Result<Report, String> {
        Analyzers::default().analyze(request)
    }

    fn tiny() -> Position {
        let size = BoardSize::square(5).unwrap();
        let p = |s: &str| Point::parse_gtp(s, size).unwrap();
        // A one-point gap between a Black wall and a White wall on the first line: a gote of 1 each way.
        Position {
            name: "tiny".into(),
            width: 5,
            height: 5,
            black: ["A2", "B2", "C2", "D2", "E2"].map(p).to_vec(),
            white: ["A3", "B3", "C3", "D3", "E3"].map(p).to_vec(),
            region: ["A1", "B1"].map(p).to_vec(),
            file: None,
            answer: None,
        }
    }

    #[test]
    fn exact_reports_round_trip_through_a_session_record() {
        let request = Request {
            tag: 1,
            method: Method::Exact,
            position: tiny(),
        };
        let report = analyze(&request).unwrap();
        assert_eq!(report.used.name(), "exact");
        assert!(!report.left_wall.is_empty() && !report.right_wall.is_empty());
        let bytes = rmp_serde::to_vec(&report).unwrap();
        let back: Report = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(back, report);
    }

    #[test]
    fn jobs_share_one_analyzer_per_set_of_models() {
        let analyzers = Analyzers::default();
        let shared_analyzer = |models: &ModelPaths| analyzers.get(models);
        let defaults = ModelPaths::default();
        let first = shared_analyzer(&defaults);
        assert!(Arc::ptr_eq(&first, &shared_analyzer(&defaults)));
        let other = ModelPaths {
            local_move: Some(PathBuf::from("elsewhere/local-move.onnx")),
            ownership: None,
        };
        assert!(!Arc::ptr_eq(&first, &shared_analyzer(&other)));
        // A model that cannot be opened is forgotten, so a later job looks again.
        let missing = ModelPaths {
            local_move: Some(PathBuf::from("no/such/local-move.onnx")),
            ownership: Some(PathBuf::from("no/such/katago.bin.gz")),
        };
        let broken = shared_analyzer(&missing);
        let request = Request {
            tag: 1,
            method: Method::Policy,
            position: tiny(),
        };
        let err = analyzers
            .analyze_watched(&request, &missing, &Progress::default())
            .unwrap_err();
        assert!(err.contains("no/such/katago.bin.gz"), "{err}");
        assert_eq!(broken.networks_opened(), 0);
        assert!(!Arc::ptr_eq(&broken, &shared_analyzer(&missing)));
    }

    #[test]
    fn repeated_network_jobs_reuse_the_open_networks() {
        let analyzers = Analyzers::default();
        let analyze = |request: &Request| analyzers.analyze(request);
        let shared_analyzer = |models: &ModelPaths| analyzers.get(models);
        let request = Request {
            tag: 1,
            method: Method::Policy,
            position: tiny(),
        };
        let first = analyze(&request).expect("the policy baseline runs with the default networks");
        let opened = shared_analyzer(&ModelPaths::default()).networks_opened();
        assert_eq!(
            opened, 1,
            "KataGo's network alone serves the policy baseline"
        );
        let again = analyze(&Request { tag: 2, ..request }).expect("second job");
        assert_eq!(again.value, first.value);
        assert_eq!(
            shared_analyzer(&ModelPaths::default()).networks_opened(),
            opened,
            "the second job reopened a network"
        );
    }

    #[test]
    fn unavailable_methods_and_empty_regions_are_sentences() {
        let mut position = tiny();
        let err = analyze(&Request {
            tag: 1,
            method: Method::Lines,
            position: position.clone(),
        })
        .unwrap_err();
        assert!(err.contains("problem file"), "{err}");
        position.region.clear();
        let err = analyze(&Request {
            tag: 1,
            method: Method::Exact,
            position,
        })
        .unwrap_err();
        assert!(err.contains("region is empty"), "{err}");
        assert_eq!("auto".parse::<Method>().ok(), Some(Method::Auto));
        assert!("magic".parse::<Method>().is_err());
    }
}
