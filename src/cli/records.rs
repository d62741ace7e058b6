//! `tengen records`: books from game records.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tengen::go::{BoardSize, Color};
use tengen::records::{MergeCounts, collect, collect::sgf_files, mcst};

#[derive(Subcommand)]
pub enum RecordsCommand {
    /// Merge SGF game records into a trimmed book of solution trees (Chen et al.)
    Build(BuildArgs),
    /// Minimax over a position database scored at several komi values (Cook)
    Minimax(MinimaxArgs),
    /// Grow a population of self-play games that follows its own best moves (MoGo's coevolution)
    Coevolve(CoevolveArgs),
}

#[derive(Args)]
pub struct CoevolveArgs {
    /// The population: a JSON-lines log of games, created if missing and appended to
    log: PathBuf,
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// The engine that makes the moves the book does not ("mutations"): rollout, onnx:MODEL, katago, gtp…
    #[arg(long, default_value = "rollout")]
    engine: String,
    #[arg(long, default_value_t = 2000)]
    visits: u64,
    /// Concurrent games
    #[arg(long, default_value_t = 2)]
    workers: usize,
    #[arg(long, default_value = "5x5")]
    size: String,
    #[arg(long, default_value = "tromp-taylor")]
    rules: String,
    #[arg(long, allow_hyphen_values = true)]
    komi: Option<f64>,
    /// Book moves with this success rate or less are never followed
    #[arg(long, default_value_t = 0.10)]
    threshold: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args)]
pub struct MinimaxArgs {
    /// The database: JSON lines, one scored position each (format in `docs/records.md`)
    db: PathBuf,
    /// Start from this line instead of the shortest position in the database (GTP moves)
    #[arg(long)]
    line: Option<String>,
    /// Entries listed per urgency queue
    #[arg(long, default_value_t = 5)]
    show: usize,
    /// The komi that decides who wins, for refutations (default: the database rules' komi)
    #[arg(long, allow_hyphen_values = true)]
    komi: Option<f64>,
    /// Feed the urgency queues to tengen's job queue on this tengen book: every queued position whose line
    /// is in the book gets a deep-analysis job, high urgency (low confidence) first
    #[arg(long)]
    analyze: Option<PathBuf>,
    /// The engine for `--analyze`
    #[command(flatten)]
    engine: super::args::EngineArgs,
    /// Visits per searched position for `--analyze`
    #[arg(long, default_value_t = 2000)]
    visits: u64,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct BuildArgs {
    /// SGF files or folders (read recursively)
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// Output file: a tengen book (`.book`: moves carry their games, positions the games' values), or
    /// `.mcst` for Chen et al.'s text format
    #[arg(short, long)]
    output: PathBuf,
    /// Rules of the book (records of mixed rules are merged all the same)
    #[arg(long, default_value = "chinese")]
    rules: String,
    #[arg(long, default_value_t = 7.0, allow_negative_numbers = true)]
    komi: f64,
    /// Board size of the games to merge (others are skipped)
    #[arg(long, default_value = "9x9")]
    size: String,
    /// Moves kept per game
    #[arg(long, default_value_t = 16)]
    depth: usize,
    /// Drop nodes reached by fewer games
    #[arg(long, default_value_t = 20)]
    min_games: u32,
    /// Prune moves whose mover won less often
    #[arg(long, default_value_t = 0.25)]
    min_winrate: f64,
    /// Moves kept at the book side's turns in each solution tree
    #[arg(long, default_value_t = 3)]
    best: usize,
    /// Print the statistics as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(cmd: RecordsCommand) -> Result<ExitCode> {
    match cmd {
        RecordsCommand::Build(args) => build(args),
        RecordsCommand::Minimax(args) => minimax(args),
        RecordsCommand::Coevolve(args) => coevolve(args),
    }
}

fn build(args: BuildArgs) -> Result<ExitCode> {
    let size = BoardSize::parse(&args.size)?;
    let walk = sgf_files(&args.games).context("listing the game records")?;
    if walk.files.is_empty() {
        bail!("no SGF files under {:?}", args.games);
    }
    let mut collection = collect(&walk.files, size, args.depth);
    collection.skipped.splice(0..0, walk.skipped);
    let merged = collection.tree;
    let trimmed = merged.trimmed(args.min_games, args.min_winrate);
    let mut book = trimmed.solution_tree(Color::Black, args.best);
    book.merge(
        &trimmed.solution_tree(Color::White, args.best),
        MergeCounts::Keep,
    );
    let text = mcst::write(&book);
    let written = match args.output.extension().and_then(|e| e.to_str()) {
        Some("mcst") => {
            tengen::files::write_whole(&args.output, text.as_bytes())?;
            None
        }
        _ => Some(super::records_book::write(
            &book,
            &args.output,
            &args.rules,
            args.komi,
        )?),
    };
    let stats = serde_json::json!({
        "files": collection.files,
        "games_read": collection.games,
        "games_unscored": collection.unscored,
        "skipped": collection.skipped.iter().map(|s| serde_json::json!({"file": s.path.display().to_string(), "reason": s.reason})).collect::<Vec<_>>(),
        "nodes_merged": merged.len(),
        "nodes_trimmed": trimmed.len(),
        "nodes_book": book.len(),
        "mcst_bytes_merged": mcst::write(&merged).len(),
        "mcst_bytes_book": text.len(),
        "book": written.as_ref().map(super::records_book::summary_json),
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        println!("files read:      {}", collection.files);
        println!(
            "games merged:    {} ({} without a result, counted but not scored)",
            collection.games, collection.unscored
        );
        println!("skipped:         {}", collection.skipped.len());
        for s in &collection.skipped {
            println!("  {}: {}", s.path.display(), s.reason);
        }
        println!(
            "nodes:           {} merged, {} after trimming, {} in the book",
            merged.len(),
            trimmed.len(),
            book.len()
        );
        println!(
            "size (MCST):     {} bytes merged, {} bytes book",
            stats["mcst_bytes_merged"],
            text.len()
        );
        if let Some(w) = &written {
            println!("{}", super::records_book::summary_text(w));
        }
        println!("wrote {}", args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn minimax(args: MinimaxArgs) -> Result<ExitCode> {
    use tengen::records::posdb::PositionDb;
    let db = PositionDb::load(&args.db)?;
    let shortest = db
        .positions
        .values()
        .min_by_key(|p| (p.game.moves().len(), p.line))
        .context("the database is empty")?;
    let mut game = tengen::go::Game::new(shortest.game.size(), shortest.game.rules());
    if let Some(line) = &args.line {
        game = tengen::go::Game::from_gtp_moves(game.size(), game.rules(), line)?;
    } else {
        for &(c, m) in shortest.game.moves() {
            game.play_as(c, m)?;
        }
    }
    let size = game.size();
    let backed = db
        .minimax(&game)
        .context("the starting position is not in the database")?;
    let mut best_line = Vec::new();
    let mut walk = game.clone();
    while let Some(mv) = db.minimax(&walk).and_then(|b| b.best) {
        if walk.play(mv).is_err() || best_line.len() > size.area() {
            break;
        }
        best_line.push(mv.to_gtp(size));
    }
    let queues = db.urgency_queues();
    let describe = |p: &tengen::records::posdb::Position| {
        let line: Vec<String> = p.game.moves().iter().map(|(_, m)| m.to_gtp(size)).collect();
        serde_json::json!({"line": line.join(" "), "score": p.score.to_string(), "confidence": p.confidence, "db_line": p.line})
    };
    let names = ["high", "mid", "low"];
    let komi = args.komi.unwrap_or(game.rules().komi.value());
    let refutations = db.refutations(komi);
    let json = serde_json::json!({
        "positions": db.positions.len(),
        "value": backed.value,
        "best_line": best_line.join(" "),
        "queues": names.iter().zip(&queues).map(|(n, q)| (n.to_string(), serde_json::json!({
            "count": q.len(),
            "first": q.iter().take(args.show).map(|p| describe(p)).collect::<Vec<_>>(),
        }))).collect::<serde_json::Map<_, _>>(),
        "refutations": refutations.iter().map(|(l, who)| serde_json::json!({"line": l, "found_by": who})).collect::<Vec<_>>(),
    });
    if let Some(book) = &args.analyze {
        let lines: Vec<(Vec<tengen::go::Move>, i32)> = queues
            .iter()
            .enumerate()
            .flat_map(|(rank, q)| {
                // High urgency runs first: the job queue runs higher priorities first.
                q.iter().map(move |p| {
                    (
                        p.game.moves().iter().map(|&(_, m)| m).collect(),
                        2 - rank as i32,
                    )
                })
            })
            .collect();
        analyze_queues(book, &lines, &args.engine, args.visits)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("positions:   {}", db.positions.len());
    println!("value:       {} (Black's score by minimax)", backed.value);
    println!(
        "best line:   {}",
        if best_line.is_empty() {
            "(a leaf)".into()
        } else {
            best_line.join(" ")
        }
    );
    for (name, q) in names.iter().zip(&queues) {
        println!("{name:>4} urgency: {} positions", q.len());
        for p in q.iter().take(args.show) {
            println!("      {}", describe(p));
        }
    }
    for (line, who) in &refutations {
        println!(
            "refutation:  {line} (found by {})",
            who.as_deref().unwrap_or("unknown")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn coevolve(args: CoevolveArgs) -> Result<ExitCode> {
    use tengen::records::coevolve::{CoevolveConfig, coevolve};
    let size = BoardSize::parse(&args.size)?;
    let mut rules = tengen::go::Rules::parse(&args.rules)?;
    if let Some(k) = args.komi {
        rules = rules.with_komi(tengen::go::Komi::from_f64(k)?);
    }
    // Workers run concurrently: each search gets one thread.
    let opts = tengen::engine::spec::SpecOptions {
        threads: 1,
        ..Default::default()
    };
    let engine: std::sync::Arc<dyn tengen::engine::Engine> =
        tengen::engine::spec::build(&args.engine, &opts)?.into();
    let config = CoevolveConfig {
        games: args.games,
        workers: args.workers,
        visits: args.visits,
        threshold: args.threshold,
        max_moves: size.area() * 3,
        seed: args.seed,
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let (population, summary) =
        runtime.block_on(coevolve(&args.log, size, rules, engine, config))?;
    let recommended = population
        .recommend(&[])
        .map_or("none".into(), |m| m.to_gtp(size));
    println!(
        "played {} games ({} book moves, {} engine moves); population {} games; the book recommends {recommended}",
        summary.games_played, summary.book_moves, summary.engine_moves, population.games
    );
    Ok(ExitCode::SUCCESS)
}

/// Queues a deep analysis of every line the book holds, at its urgency's priority, on one job at a time so
/// that the queue order is the analysis order; reports each job on stderr as it finishes.
fn analyze_queues(
    path: &std::path::Path,
    lines: &[(Vec<tengen::go::Move>, i32)],
    engine: &super::args::EngineArgs,
    visits: u64,
) -> Result<()> {
    use tengen::jobs::{JobEvent, Priority, Request, Runner, RunnerConfig, runner::SharedBook};
    let (store, book, _) = tengen::book::store::BookStore::open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let size = book.meta.size;
    let (queued, outside): (Vec<_>, Vec<_>) = lines
        .iter()
        .partition(|(line, _)| book.follow_line(line).is_ok());
    for (line, _) in &outside {
        let text: Vec<String> = line.iter().map(|m| m.to_gtp(size)).collect();
        eprintln!("not in the book, not analysed: {}", text.join(" "));
    }
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let engine: std::sync::Arc<dyn tengen::engine::Engine> =
            engine.build_for_book(size)?.into();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let config = RunnerConfig {
            concurrent: 1,
            expand_visits: visits,
            analyze_visits: visits,
        };
        let shared = SharedBook::new(book, Some(store));
        let runner = Runner::spawn(shared, engine, config, std::time::Instant::now(), tx);
        for (line, priority) in &queued {
            runner.send(Request::AnalyzeLine {
                line: line.clone(),
                priority: Priority(*priority),
            });
        }
        let mut names = std::collections::HashMap::new();
        let mut done = 0;
        while done < queued.len() {
            let Some(event) = rx.recv().await else { break };
            match event {
                JobEvent::Queued {
                    id,
                    kind: tengen::jobs::JobKind::AnalyzeLine { line },
                    priority,
                    ..
                } => {
                    let text: Vec<String> = line.iter().map(|m| m.to_gtp(size)).collect();
                    names.insert(id, (format!("[{}]", text.join(" ")), priority.0));
                }
                JobEvent::Started { id, .. } => {
                    if let Some((line, priority)) = names.get(&id) {
                        eprintln!("analysing {line} (priority {priority})");
                    }
                }
                JobEvent::Finished { id, summary, .. } => {
                    done += 1;
                    eprintln!("job {} done: {summary}", id.0);
                }
                JobEvent::Failed { id, error, .. } => {
                    done += 1;
                    eprintln!("job {} failed: {error}", id.0);
                }
                JobEvent::Cancelled { .. } => done += 1,
                _ => {}
            }
        }
        runner.send(Request::StopAll);
        anyhow::Ok(())
    })?;
    eprintln!(
        "analysed {} queued positions into {}",
        queued.len(),
        path.display()
    );
    Ok(())
}
