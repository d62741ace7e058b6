//! `tengen bench`: speed measurements whose figures go into the README (never timing assertions in tests).

use anyhow::Result;
use clap::{Args, Subcommand};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tengen::go::playout::{FastRng, play_out};
use tengen::go::{Board, BoardSize, Color};

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Uniformly random playouts (no own-eye filling) to the end
    Playouts(SpeedArgs),
    /// Workbench speed: frame render time with a 1,000,000-node book, key-to-frame latency under load
    Ui(super::bench_ui::UiArgs),
    /// Raw network evaluations per second, by batch size
    Nn(super::bench_nn::NnBenchArgs),
    /// Visits and network evaluations per second of the mcts engine
    Search(super::bench_nn::SearchBenchArgs),
    /// A synthetic opening book: load time, memory per node and edge, backup + cost update per expansion;
    /// with --grow, a book grown by an engine: nodes, visits and network evaluations per second
    Book(crate::cli::bench_book::BookBenchArgs),
    /// The rollout engine's search from the empty board: playouts per second through the tree
    Rollout(SpeedArgs),
    /// The exact endgame solver's time against region size, over a folder of problems
    Endgame(EndgameBenchArgs),
    /// Session recording bytes per minute of continuous expansion, and a frame-exact replay check
    Recording(super::bench_recording::RecordingArgs),
}

/// A speed measurement on an empty board: `tengen bench playouts` and `tengen bench rollout`.
#[derive(Args)]
pub struct SpeedArgs {
    #[arg(long, default_value = "9x9")]
    size: String,
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Threads (for `rollout`, 0: all cores)
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args)]
pub struct EndgameBenchArgs {
    /// Folder of endgame problems (SGF with SQ regions)
    dir: std::path::PathBuf,
    /// `exact` (the temperature-bounded search) or `canonical` (the full canonical game)
    #[arg(long, default_value = "exact")]
    method: String,
    /// Positions a search may visit before it gives up (default: the method's own budget, as `tengen
    /// endgame solve` uses it)
    #[arg(long)]
    positions: Option<usize>,
}

pub fn run(cmd: BenchCommand) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Playouts(args) => playouts(args),
        BenchCommand::Ui(args) => super::bench_ui::run(args),
        BenchCommand::Nn(args) => super::bench_nn::nn(args),
        BenchCommand::Search(args) => super::bench_nn::search(args),
        BenchCommand::Book(args) => crate::cli::bench_book::run(args),
        BenchCommand::Rollout(args) => rollout(args),
        BenchCommand::Endgame(args) => endgame(args),
        BenchCommand::Recording(args) => super::bench_recording::run(args),
    }
}

fn endgame(args: EndgameBenchArgs) -> Result<ExitCode> {
    use anyhow::Context;
    use std::collections::BTreeMap;
    use tengen::endgame::analysis::{AnalysisOptions, Method};
    use tengen::endgame::exact;
    use tengen::endgame::problem::Problem;
    use tengen::go::Scoring;
    let walk = Problem::find_all(&args.dir)?;
    for s in &walk.skipped {
        eprintln!("skipped {}: {}", s.path.display(), s.reason);
    }
    let files = walk.files;
    let method = match args.method.as_str() {
        "exact" => Method::Exact,
        "canonical" => Method::Canonical,
        other => anyhow::bail!("--method {other}: expected exact or canonical"),
    };
    let bounded = method == Method::Exact;
    let budget = args
        .positions
        .or(AnalysisOptions::default().position_budget(method))
        .context("the method searches no positions")?;
    println!(
        "(method {}: budget {budget} positions per problem)",
        args.method
    );
    // Per empty-point count: solved times in ms, positions searched, and how many gave up or were refused.
    let mut by_size: BTreeMap<usize, (Vec<f64>, Vec<usize>, usize)> = BTreeMap::new();
    for path in &files {
        let problem = Problem::read(path)?;
        let start = Instant::now();
        let (board, region, scoring) = (&problem.board, &problem.region, Scoring::Territory);
        let result = if bounded {
            let progress = exact::Progress::default();
            exact::bounded::solve_bounded(board, region, scoring, budget, &progress)
                .map(|s| s.positions)
        } else {
            exact::solve_within(board, region, scoring, budget).map(|s| s.positions)
        };
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let entry = by_size.entry(problem.empty_points()).or_default();
        match result {
            Ok(positions) => {
                entry.0.push(ms);
                entry.1.push(positions);
            }
            Err(_) => entry.2 += 1,
        }
    }
    println!(
        "{:>6} {:>7} {:>12} {:>12} {:>14} {:>13}",
        "empty", "solved", "median ms", "max ms", "max positions", "not solved"
    );
    for (empty, (mut times, positions, failed)) in by_size {
        times.sort_by(f64::total_cmp);
        // No solved problem of this size: a dash, not NaN.
        let ms = |t: Option<&f64>| t.map_or_else(|| "—".to_string(), |t| format!("{t:.1}"));
        let median = ms(times.get(times.len() / 2));
        let max = ms(times.last());
        let max_positions = positions.iter().max().copied().unwrap_or(0);
        println!(
            "{empty:>6} {:>7} {median:>12} {max:>12} {max_positions:>14} {failed:>13}",
            times.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn playouts(args: SpeedArgs) -> Result<ExitCode> {
    let size = BoardSize::parse(&args.size)?;
    let limit = Duration::from_secs_f64(args.seconds);
    let start = Instant::now();
    let totals: Vec<(u64, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..args.threads.max(1))
            .map(|t| {
                scope.spawn(move || {
                    let mut rng = FastRng::new(args.seed.wrapping_add(t as u64 * 0x9E37_79B9));
                    let empty = Board::new(size);
                    let (mut games, mut moves) = (0u64, 0u64);
                    while start.elapsed() < limit {
                        for _ in 0..64 {
                            let mut b = empty.clone();
                            moves +=
                                play_out(&mut b, Color::Black, &mut rng, size.area() * 3) as u64;
                            games += 1;
                        }
                    }
                    (games, moves)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, 0)))
            .collect()
    });
    let secs = start.elapsed().as_secs_f64();
    let (games, moves) = totals.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let json = serde_json::json!({
        "size": size.to_string(),
        "threads": args.threads,
        "seconds": secs,
        "playouts": games,
        "playouts_per_sec": games as f64 / secs,
        "moves_per_sec": moves as f64 / secs,
    });
    println!("{}", serde_json::to_string(&json)?);
    Ok(ExitCode::SUCCESS)
}

fn rollout(args: SpeedArgs) -> Result<ExitCode> {
    use tengen::engine::rollout::RolloutEngine;
    use tengen::engine::{CancelToken, Query};
    let size = BoardSize::parse(&args.size)?;
    let game = tengen::go::Game::new(size, tengen::go::Rules::tromp_taylor());
    let mut query = Query::from_game(&game);
    query.max_time = Some(Duration::from_secs_f64(args.seconds));
    query.seed = args.seed;
    let engine = RolloutEngine::new(args.threads);
    let start = Instant::now();
    let report = engine.search(&query, &CancelToken::default(), None)?;
    let secs = start.elapsed().as_secs_f64();
    let best = report.moves.first().map(|m| m.mv.to_gtp(size));
    let json = serde_json::json!({
        "size": size.to_string(),
        "threads": engine.threads(),
        "seconds": secs,
        "playouts": report.root.visits,
        "playouts_per_sec": report.root.visits as f64 / secs,
        "best": best,
    });
    println!("{}", serde_json::to_string(&json)?);
    Ok(ExitCode::SUCCESS)
}
