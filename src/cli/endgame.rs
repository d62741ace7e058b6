//! `tengen endgame`: solve endgame problem files and score a folder of them.

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tengen::endgame::cgt::{Game, Rational, Thermograph};
use tengen::endgame::problem::Problem;
use tengen::endgame::solver::{self, Node, Solution};
use tengen::go::{Color, Point, Scoring};

#[derive(Subcommand)]
pub enum EndgameCommand {
    /// Solve one problem file: temperature, mean, move value, best moves, kind, lines and tree
    Solve(SolveArgs),
    /// Solve every problem under a folder and compare with the answers
    Bench(BenchArgs),
}

/// How a problem's local game is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Search every local sequence (regions of at most 14 empty points)
    Exact,
    /// Score the correct lines given as the file's variations
    Lines,
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

#[derive(Args)]
pub struct SolveArgs {
    /// The problem file (SGF with SQ marking the region)
    file: PathBuf,
    #[arg(long, value_enum, default_value = "exact")]
    method: Method,
    #[arg(long, value_enum, default_value = "territory")]
    scoring: ScoringArg,
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
    #[arg(long, value_enum, default_value = "exact")]
    method: Method,
    #[arg(long, value_enum, default_value = "territory")]
    scoring: ScoringArg,
}

pub fn run(cmd: EndgameCommand) -> Result<ExitCode> {
    match cmd {
        EndgameCommand::Solve(args) => solve(args),
        EndgameCommand::Bench(args) => bench(args),
    }
}

/// The figures both methods produce.
struct Outcome {
    game: Game,
    thermograph: Thermograph,
    solution: Option<Solution>,
}

impl Outcome {
    /// Twice the temperature (0 when settled): the problems' convention.
    fn value(&self) -> Rational {
        let t = self.thermograph.temperature;
        if t > Rational::ZERO {
            t + t
        } else {
            Rational::ZERO
        }
    }
}

fn evaluate(problem: &Problem, method: Method, scoring: Scoring) -> Result<Outcome> {
    match method {
        Method::Exact => {
            let solution = solver::solve(&problem.board, &problem.region, scoring)
                .with_context(|| format!("{}", problem.path.display()))?;
            Ok(Outcome {
                game: solution.root.game.clone(),
                thermograph: solution.thermograph.clone(),
                solution: Some(solution),
            })
        }
        Method::Lines => {
            let game = problem.lines_game(scoring)?;
            Ok(Outcome {
                thermograph: Thermograph::of(&game),
                game,
                solution: None,
            })
        }
    }
}

fn points_text(points: &[Point], problem: &Problem) -> Vec<String> {
    let size = problem.board.size();
    points.iter().map(|p| p.to_gtp(size)).collect()
}

fn solve(args: SolveArgs) -> Result<ExitCode> {
    let problem = Problem::read(&args.file)?;
    let outcome = evaluate(&problem, args.method, args.scoring.into())?;
    let size = problem.board.size();
    let kind = outcome
        .solution
        .as_ref()
        .map(|s| s.kind)
        .unwrap_or_else(|| tengen::endgame::cgt::classify(&outcome.game));
    let best = |c: Color| {
        outcome
            .solution
            .as_ref()
            .map(|s| points_text(&s.best_moves(c), &problem))
            .unwrap_or_default()
    };
    if args.json {
        let json = serde_json::json!({
            "file": problem.path.display().to_string(),
            "method": format!("{:?}", args.method).to_lowercase(),
            "temperature": outcome.thermograph.temperature.to_string(),
            "mean": outcome.thermograph.mean.to_string(),
            "value": outcome.value().to_string(),
            "expected": problem.answer.map(|a| a.to_string()),
            "best_black": best(Color::Black),
            "best_white": best(Color::White),
            "kind": kind.key(),
            "game": outcome.game.to_string(),
            "empty_points": problem.empty_points(),
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
    println!("temperature: {}", outcome.thermograph.temperature.mixed());
    println!(
        "mean (count, Black's view): {}",
        outcome.thermograph.mean.mixed()
    );
    print!("move value (2 x temperature): {}", outcome.value().mixed());
    match problem.answer {
        Some(a) if a == outcome.value() => println!("  (matches the answer {})", a.mixed()),
        Some(a) => println!("  (the file's answer is {})", a.mixed()),
        None => println!(),
    }
    println!("kind: {kind}");
    println!("game: {}", outcome.game);
    if let Some(solution) = &outcome.solution {
        println!("best for Black: {}", best(Color::Black).join(" "));
        println!("best for White: {}", best(Color::White).join(" "));
        for first in [Color::Black, Color::White] {
            let line: Vec<String> = solution
                .principal_variation(first)
                .iter()
                .map(|(c, p)| format!("{}{}", c.letter(), p.to_gtp(size)))
                .collect();
            println!("{} first: {}", first, line.join(" "));
        }
        println!("positions searched: {}", solution.positions);
        println!("tree (best moves, values in the node's frame):");
        print_tree(&solution.root, &problem, 1, args.depth);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_tree(node: &Node, problem: &Problem, indent: usize, depth: usize) {
    if depth == 0 || node.game.is_number() {
        return;
    }
    for color in [Color::Black, Color::White] {
        for branch in node.best(color) {
            let th = Thermograph::of(&branch.value);
            let ko = if branch.child.is_none() {
                " (ko retake, by the ko rule)"
            } else {
                ""
            };
            println!(
                "{}{}{} -> {}  (mean {}, temperature {}){ko}",
                "  ".repeat(indent),
                color.letter(),
                branch.point.to_gtp(problem.board.size()),
                branch.value,
                th.mean.mixed(),
                th.temperature.mixed()
            );
            if let Some(child) = &branch.child {
                print_tree(child, problem, indent + 1, depth - 1);
            }
        }
    }
}

fn bench(args: BenchArgs) -> Result<ExitCode> {
    let files = Problem::find_all(&args.dir)
        .with_context(|| format!("cannot list problems under {}", args.dir.display()))?;
    if files.is_empty() {
        anyhow::bail!("no .sgf files under {}", args.dir.display());
    }
    let (mut passed, mut failed, mut refused) = (0, 0, 0);
    println!(
        "{:<40} {:>7} {:>9} {:>9} {:>8} {:>9}",
        "problem", "empty", "expected", "found", "correct", "time"
    );
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
        let start = Instant::now();
        let outcome = evaluate(&problem, args.method, args.scoring.into());
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let expected = problem
            .answer
            .map(|a| a.mixed())
            .unwrap_or_else(|| "-".into());
        match outcome {
            Ok(o) => {
                let correct = problem.answer == Some(o.value());
                if correct {
                    passed += 1;
                } else {
                    failed += 1;
                }
                println!(
                    "{name:<40} {:>7} {expected:>9} {:>9} {:>8} {:>7.1}ms",
                    problem.empty_points(),
                    o.value().mixed(),
                    if correct { "yes" } else { "no" },
                    ms
                );
            }
            Err(e) => {
                failed += 1;
                if e.to_string().contains("accepts at most") {
                    refused += 1;
                }
                println!(
                    "{name:<40} {:>7} {expected:>9} {:>9} {:>8} {:>7.1}ms  {}",
                    problem.empty_points(),
                    "-",
                    "refused",
                    ms,
                    root_cause(&e)
                );
            }
        }
    }
    if refused > 0 {
        println!("({refused} refused as larger than the exact solver's limit)");
    }
    println!("{passed} passed, {failed} failed");
    Ok(ExitCode::SUCCESS)
}

fn root_cause(e: &anyhow::Error) -> String {
    e.chain().last().map(|c| c.to_string()).unwrap_or_default()
}

fn relative_name(path: &Path, dir: &Path) -> String {
    path.strip_prefix(dir).unwrap_or(path).display().to_string()
}
