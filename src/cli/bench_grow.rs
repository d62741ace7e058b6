//! `tengen bench book --grow`: a book grown from the empty board for a while, the way KataGo's `genbook`
//! grows one, with its store on disk: book nodes, engine visits and network evaluations per second.
//! Defaults are the settings of the side-by-side comparison with `genbook` (400 visits, 200 for leaves,
//! 8 nodes expanded at once, 2 cores).

use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tengen::book::expand::{ExpandSettings, Progress, grow};
use tengen::book::store::BookStore;
use tengen::book::{Book, BookMeta, CostParams, node_table, recompute_everything};
use tengen::engine::mcts::{MctsEngine, SearchParams};
use tengen::engine::spec::{self, SpecOptions};
use tengen::engine::{CancelToken, Engine};
use tengen::nn::{BatchOptions, Evaluator};

#[derive(Args)]
pub struct GrowArgs {
    /// Grow a book with an engine (the other options below) instead of measuring a synthetic book
    #[arg(long)]
    pub grow: bool,
    #[command(flatten)]
    setup: super::args::BookSetup,
    /// Seconds of growth; expansions still searching at the end are dropped
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// Stop after this many iterations of the growing batch (KataGo's -num-iters) if that comes first
    #[arg(long)]
    iterations: Option<u64>,
    #[arg(long, help = format!("The engine: {}", spec::KNOWN))]
    engine: Option<String>,
    /// Visits of each expansion's full search (KataGo's maxVisits)
    #[arg(long, default_value_t = 400)]
    visits: u64,
    /// Visits of the quick searches (KataGo's maxVisitsForLeaves)
    #[arg(long, default_value_t = 200)]
    quick_visits: u64,
    /// Nodes expanded at once (KataGo's numToExpandPerIteration)
    #[arg(long, default_value_t = 8)]
    parallel: usize,
    /// Cores: ONNX Runtime sessions of one intra-op thread each for `onnx:` (the rollout engine's threads)
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Search threads per search (`onnx:` engines; more than one is not deterministic)
    #[arg(long, default_value_t = 1)]
    search_threads: usize,
    /// Leaves one search sends per network call (`onnx:` engines); 1 is the engine's default (no virtual
    /// loss), and the searches of a batch of expansions still share network calls
    #[arg(long, default_value_t = 1)]
    batch: usize,
    #[arg(long)]
    json: bool,
}

/// The engine under test, and its counters when it has them.
struct Grower {
    engine: Box<dyn Engine>,
    mcts: Option<MctsEngine>,
}

fn engine(args: &GrowArgs, spec_text: &str) -> Result<Grower> {
    let Some(model) = spec_text.strip_prefix("onnx:") else {
        let opts = SpecOptions {
            threads: args.threads,
            ..SpecOptions::default()
        };
        return Ok(Grower {
            engine: spec::build(spec_text, &opts)?,
            mcts: None,
        });
    };
    let options = super::bench_nn::session(args.threads, 1, false, "cpu")?;
    let params = SearchParams {
        batch_size: args.batch.max(1),
        pipelined: args.batch > 1,
        threads: args.search_threads.max(1),
        ..SearchParams::default()
    };
    let model = tengen::nn::import::onnx_for(PathBuf::from(model).as_path())?;
    let defaults = BatchOptions::default();
    let batch = BatchOptions {
        max_batch: defaults.max_batch.max(params.batch_size * 2),
        ..defaults
    };
    let evaluator = Evaluator::open(&model, &options, batch)?;
    let engine = MctsEngine::new(evaluator, params);
    Ok(Grower {
        engine: Box::new(engine.clone()),
        mcts: Some(engine),
    })
}

pub fn run(args: GrowArgs, seed: u64) -> Result<ExitCode> {
    let Some(spec_text) = args.engine.clone() else {
        bail!("--grow needs --engine SPEC (e.g. onnx:MODEL)");
    };
    let (size, rules) = args.setup.parse()?;
    let mut book = Book::new(BookMeta::new(size, rules), CostParams::default());
    recompute_everything(&mut book);
    let grower = engine(&args, &spec_text)?;
    let dir = std::env::temp_dir().join(format!("tengen-bench-grow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut store = BookStore::create(&dir.join("grown.tengenbook"), &book)?;
    let settings = ExpandSettings {
        max_visits: args.visits,
        quick_visits: args.quick_visits,
        seed,
    };
    let runtime = super::args::runtime(Some(2))?;
    let cancel = CancelToken::default();
    let counts = |g: &Grower| {
        g.mcts.as_ref().map(|m| {
            (
                m.stats().visits.load(Ordering::Relaxed),
                m.evaluator().stats().positions.load(Ordering::Relaxed),
            )
        })
    };
    let before = counts(&grower);
    let start = Instant::now();
    let mut iterations = 0;
    let expanded = runtime.block_on(async {
        let stop = cancel.clone();
        let limit = Duration::from_secs_f64(args.seconds.max(0.0));
        tokio::spawn(async move {
            tokio::time::sleep(limit).await;
            stop.cancel();
        });
        grow(
            &mut book,
            Some(&mut store),
            grower.engine.as_ref(),
            settings,
            args.iterations.unwrap_or(u64::MAX),
            args.parallel,
            &cancel,
            |p| {
                if let Progress::Iteration { .. } = p {
                    iterations += 1;
                }
            },
        )
        .await
    })?;
    let secs = start.elapsed().as_secs_f64();
    cancel.cancel();
    let after = counts(&grower);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
    let (visits, evals) = match (before, after) {
        (Some(a), Some(b)) => (Some(b.0 - a.0), Some(b.1 - a.1)),
        _ => (None, None),
    };
    let per_sec = |n: Option<u64>| n.map(|n| n as f64 / secs);
    let root = node_table(
        &book,
        tengen::book::OrientedNode {
            id: book.root(),
            to_view: tengen::go::Symmetry::IDENTITY,
        },
    );
    let size = book.meta.size;
    let top = root.rows.first().map(|r| r.moves[0].to_gtp(size));
    let json = serde_json::json!({
        "size": size.to_string(),
        "rules": book.meta.rules.to_string(),
        "engine": grower.engine.name(),
        "visits": args.visits,
        "quick_visits": args.quick_visits,
        "parallel": args.parallel,
        "threads": args.threads,
        "search_threads": args.search_threads,
        "seconds": secs,
        "iterations": iterations,
        "expansions": expanded,
        "book_nodes": book.len(),
        "nodes_per_sec": book.len() as f64 / secs,
        "engine_visits": visits,
        "visits_per_sec": per_sec(visits),
        "nn_evals": evals,
        "nn_evals_per_sec": per_sec(evals),
        "root_top_move": top,
        "root_black_winrate": root.black_winrate,
        "root_black_score": root.black_score,
    });
    if args.json {
        println!("{}", serde_json::to_string(&json)?);
    } else {
        let rate = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.1}"));
        println!(
            "{} nodes in {secs:.1} s ({} expansions, {iterations} iterations): {:.2} nodes/s, {} visits/s, \
             {} network evaluations/s; root {} {:.1}% {:+.2}",
            book.len(),
            expanded,
            book.len() as f64 / secs,
            rate(per_sec(visits)),
            rate(per_sec(evals)),
            top.as_deref().unwrap_or("-"),
            100.0 * root.black_winrate,
            root.black_score
        );
    }
    Ok(ExitCode::SUCCESS)
}
