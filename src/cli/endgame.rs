//! `tengen endgame`: solve endgame problem files and score a folder of them, by the exact solver, a
//! network-guided variation tree, KataGo's policy, or the files' given lines.

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tengen::endgame::analysis::{
    Analysis, AnalysisOptions, Analyzer, LineLeaves, LocalPosition, Method, ModelPaths, TreeLeaves,
};
use tengen::endgame::problem::Problem;
use tengen::go::{Color, Point, Scoring};

#[derive(Subcommand)]
pub enum EndgameCommand {
    /// Solve one problem file: temperature, mean, move value, best moves, kind and the variation tree
    Solve(SolveArgs),
    /// Solve every problem under a folder and compare with the answers
    Bench(BenchArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScoringArg {
    Territory,
    Area,
}

impl From<ScoringArg> for Scoring {
    fn from(s: ScoringArg) -> Scoring {
        match s {
            ScoringArg::Territory => Scoring::Territory,
            ScoringArg::Area => Scoring::Area,
        }
    }
}

/// How `--method lines` values the ends of the given lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LeavesArg {
    /// Exact count where settled, else a static estimate
    Static,
    /// Exact count where settled, else KataGo's rounded ownership
    Ownership,
}

/// How `net` and `policy` count the leaves of their trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TreeLeavesArg {
    /// Exact count where settled, else KataGo's rounded ownership (the paper's rule)
    Ownership,
    /// As ownership, but finished positions (reading decides them) are leaves with their judged count
    Finished,
    /// Exact count where settled, the judged count where reading decides every chain, else ownership
    Judged,
}

/// Options shared by `solve` and `bench`.
#[derive(Args)]
pub struct MethodArgs {
    /// exact | canonical | net | policy | auto | lines | blend
    #[arg(long, default_value = "exact")]
    method: Method,
    #[arg(long, value_enum, default_value = "territory")]
    scoring: ScoringArg,
    /// The local-move network (default: $TENGEN_LOCAL_MOVE_MODEL, else models/local-move-head.onnx)
    #[arg(long)]
    model: Option<PathBuf>,
    /// The KataGo network for ownership and the policy baseline (.bin.gz or imported .onnx; default:
    /// $TENGEN_OWNERSHIP_MODEL, else the first .bin.gz in models/)
    #[arg(long)]
    ownership_model: Option<PathBuf>,
    /// How `--method lines` values the ends of the lines
    #[arg(long, value_enum, default_value = "static")]
    lines_leaves: LeavesArg,
    /// How `net` and `policy` count their trees' leaves
    #[arg(long, value_enum, default_value = "ownership")]
    tree_leaves: TreeLeavesArg,
    /// `net`/`policy`: value a node that follows only the answer to the last move as a forced reply
    #[arg(long)]
    forced_replies: bool,
    /// `auto` uses the exact solver up to this many empty points
    #[arg(long, default_value_t = AnalysisOptions::default().exact_max_empty)]
    exact_max_empty: usize,
    /// `exact` gives up after searching this many positions
    #[arg(long, default_value_t = AnalysisOptions::default().exact_positions)]
    exact_positions: usize,
    /// `canonical` gives up after searching this many positions
    #[arg(long, default_value_t = AnalysisOptions::default().canonical_positions)]
    canonical_positions: usize,
    /// `auto` gives the exact solver this many positions before falling back to the tree
    #[arg(long, default_value_t = AnalysisOptions::default().auto_exact_positions)]
    auto_exact_positions: usize,
    /// Grown trees: value nodes with at most N empty region points by the exact solver (0 = off)
    #[arg(long, default_value_t = AnalysisOptions::default().exact_subtrees)]
    exact_subtrees: usize,
    /// The exact solver's position budget per node of a grown tree (`--exact-subtrees`)
    #[arg(long, default_value_t = AnalysisOptions::default().subtree_positions)]
    subtree_positions: usize,
    /// Tree builder: plies below the root after which nodes are leaves
    #[arg(long, default_value_t = AnalysisOptions::default().tree.max_depth)]
    max_depth: usize,
    /// Tree builder: the most nodes a tree may have
    #[arg(long, default_value_t = AnalysisOptions::default().tree.max_nodes)]
    max_nodes: usize,
    /// Tree builder: at the root, follow each colour's best N moves whatever their probability
    #[arg(long, default_value_t = AnalysisOptions::default().tree.root_breadth)]
    root_breadth: usize,
}

impl MethodArgs {
    fn analyzer(&self) -> Analyzer {
        let mut options = AnalysisOptions {
            scoring: self.scoring.into(),
            exact_max_empty: self.exact_max_empty,
            exact_positions: self.exact_positions,
            canonical_positions: self.canonical_positions,
            auto_exact_positions: self.auto_exact_positions,
            exact_subtrees: self.exact_subtrees,
            subtree_positions: self.subtree_positions,
            line_leaves: match self.lines_leaves {
                LeavesArg::Static => LineLeaves::Static,
                LeavesArg::Ownership => LineLeaves::Ownership,
            },
            tree_leaves: match self.tree_leaves {
                TreeLeavesArg::Ownership => TreeLeaves::Ownership,
                TreeLeavesArg::Finished => TreeLeaves::Finished,
                TreeLeavesArg::Judged => TreeLeaves::Judged,
            },
            forced_replies: self.forced_replies,
            ..AnalysisOptions::default()
        };
        options.tree.max_depth = self.max_depth;
        options.tree.max_nodes = self.max_nodes;
        options.tree.root_breadth = self.root_breadth;
        let models = ModelPaths {
            local_move: self.model.clone(),
            ownership: self.ownership_model.clone(),
        };
        Analyzer::new(models, options)
    }
}

#[derive(Args)]
pub struct SolveArgs {
    /// The problem file (SGF with SQ marking the region)
    file: PathBuf,
    #[command(flatten)]
    method: MethodArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// How many plies of the tree to print
    #[arg(long, default_value_t = 4)]
    depth: usize,
}

#[derive(Args)]
pub struct BenchArgs {
    /// A folder searched recursively for .sgf problems
    dir: PathBuf,
    #[command(flatten)]
    method: MethodArgs,
}

pub fn run(cmd: EndgameCommand) -> Result<ExitCode> {
    match cmd {
        EndgameCommand::Solve(args) => solve(args),
        EndgameCommand::Bench(args) => bench(args),
    }
}

fn points_text(points: &[Point], problem: &Problem) -> Vec<String> {
    let size = problem.board.size();
    points.iter().map(|p| p.to_gtp(size)).collect()
}

fn solve(args: SolveArgs) -> Result<ExitCode> {
    let problem = Problem::read(&args.file)?;
    let analyzer = args.method.analyzer();
    let a = analyzer
        .analyze(&LocalPosition::from(&problem), args.method.method)
        .with_context(|| format!("{}", problem.path.display()))?;
    let best = |c: Color| points_text(a.best_moves(c), &problem);
    if args.json {
        let json = serde_json::json!({
            "file": problem.path.display().to_string(),
            "method": a.requested.to_string(),
            "method_used": a.method.to_string(),
            "temperature": a.temperature.to_string(),
            "mean": a.mean.to_string(),
            "value": a.value.to_string(),
            "expected": problem.answer.map(|a| a.to_string()),
            "best_black": best(Color::Black),
            "best_white": best(Color::White),
            "kind": a.kind.key(),
            "game": a.game.as_ref().map(|g| g.to_string()),
            "empty_points": problem.empty_points(),
            "tree_nodes": a.tree.len(),
            "evaluations": a.evaluations,
            "elapsed_ms": a.elapsed.as_secs_f64() * 1000.0,
            "notes": a.notes,
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}", problem.path.display());
    println!(
        "region: {} points, {} empty",
        problem.region.len(),
        problem.empty_points()
    );
    if a.method != a.requested {
        println!("method: {} (via {})", a.method, a.requested);
    } else {
        println!("method: {}", a.method);
    }
    println!("temperature: {}", a.temperature.mixed());
    println!("mean (count, Black's view): {}", a.mean.mixed());
    print!("move value (2 x temperature): {}", a.value.mixed());
    match problem.answer {
        Some(x) if x == a.value => println!("  (matches the answer {})", x.mixed()),
        Some(x) => println!("  (the file's answer is {})", x.mixed()),
        None => println!(),
    }
    println!("kind: {}", a.kind);
    if let Some(game) = a.game.as_ref().filter(|g| g.size() <= 60) {
        println!("game: {game}");
    }
    println!("best for Black: {}", best(Color::Black).join(" "));
    println!("best for White: {}", best(Color::White).join(" "));
    for note in &a.notes {
        println!("note: {note}");
    }
    println!(
        "{} tree nodes, {} evaluations/positions, {:.1} ms",
        a.tree.len(),
        a.evaluations,
        a.elapsed.as_secs_f64() * 1000.0
    );
    println!("tree (values in the analysis's scoring, Black's view):");
    print!("{}", a.tree.render(args.depth));
    Ok(ExitCode::SUCCESS)
}

fn bench(args: BenchArgs) -> Result<ExitCode> {
    let walk = Problem::find_all(&args.dir)
        .with_context(|| format!("cannot list problems under {}", args.dir.display()))?;
    for s in &walk.skipped {
        eprintln!("skipped {}: {}", s.path.display(), s.reason);
    }
    let files = walk.files;
    if files.is_empty() {
        anyhow::bail!("no .sgf files under {}", args.dir.display());
    }
    let analyzer = args.method.analyzer();
    let method = args.method.method;
    let budget = analyzer.options.position_budget(method);
    if let Some(budget) = budget {
        println!("(method {method}: exact search budget {budget} positions per problem)");
    }
    let (mut passed, mut failed, mut refused) = (0, 0, 0);
    let mut used: Vec<(Method, usize, usize)> = Vec::new();
    println!(
        "{:<40} {:>7} {:>9} {:>9} {:>8} {:>9} {:>7}",
        "problem", "empty", "expected", "found", "correct", "time", "method"
    );
    let total = std::time::Instant::now();
    for path in &files {
        let name = relative_name(path, &args.dir);
        let problem = match Problem::read(path) {
            Ok(p) => p,
            Err(e) => {
                println!("{name:<40} error: {e}");
                failed += 1;
                continue;
            }
        };
        let start = std::time::Instant::now();
        let outcome: Result<Analysis, _> = analyzer.analyze(&LocalPosition::from(&problem), method);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let expected = problem
            .answer
            .map(|a| a.mixed())
            .unwrap_or_else(|| "-".into());
        match outcome {
            Ok(a) => {
                let correct = problem.answer == Some(a.value);
                if correct {
                    passed += 1;
                } else {
                    failed += 1;
                }
                match used.iter_mut().find(|u| u.0 == a.method) {
                    Some(u) => {
                        u.1 += 1;
                        u.2 += correct as usize;
                    }
                    None => used.push((a.method, 1, correct as usize)),
                }
                println!(
                    "{name:<40} {:>7} {expected:>9} {:>9} {:>8} {:>7.1}ms {:>7}",
                    problem.empty_points(),
                    a.value.mixed(),
                    if correct { "yes" } else { "no" },
                    ms,
                    a.method.to_string()
                );
            }
            Err(e) => {
                failed += 1;
                let text = e.to_string();
                if text.contains("accepts at most") {
                    refused += 1;
                }
                println!(
                    "{name:<40} {:>7} {expected:>9} {:>9} {:>8} {:>7.1}ms  {}",
                    problem.empty_points(),
                    "-",
                    "refused",
                    ms,
                    text
                );
            }
        }
    }
    if refused > 0 {
        println!("({refused} refused as larger than the exact solver's limit)");
    }
    if method == Method::Auto {
        for (m, n, ok) in &used {
            println!("({m}: {ok} of {n} correct)");
        }
    }
    println!("(total {:.1} s)", total.elapsed().as_secs_f64());
    println!("{passed} passed, {failed} failed");
    Ok(ExitCode::SUCCESS)
}

fn relative_name(path: &Path, dir: &Path) -> String {
    path.strip_prefix(dir).unwrap_or(path).display().to_string()
}
