//! `tengen bench nn` (raw network evaluations per second by batch size) and `tengen bench search`
//! (visits and network evaluations per second of the `mcts` engine). Figures for the README, never
//! assertions in tests.

use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tengen::engine::mcts::{MctsEngine, SearchParams};
use tengen::engine::{CancelToken, Query};
use tengen::go::playout::{FastRng, random_move};
use tengen::go::{BoardSize, Game, Move, Rules};
use tengen::nn::{BatchOptions, Evaluator, Features, SessionOptions, encode};

#[derive(Args)]
pub struct NnBenchArgs {
    /// The ONNX network
    #[arg(long)]
    model: PathBuf,
    #[arg(long, default_value = "9x9")]
    size: String,
    /// Batch sizes to measure, comma-separated
    #[arg(long, default_value = "1,8,32", value_delimiter = ',')]
    batch: Vec<usize>,
    /// Sessions of the network to measure, comma-separated (0: one per core, as the engines do)
    #[arg(long, default_value = "0", value_delimiter = ',')]
    sessions: Vec<usize>,
    #[command(flatten)]
    ort: OrtArgs,
    /// Seconds per batch size
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct SearchBenchArgs {
    /// Engine spec: onnx:PATH
    #[arg(long)]
    engine: String,
    #[command(flatten)]
    position: super::args::PositionSpec,
    #[arg(long, default_value_t = 2000)]
    visits: u64,
    /// Leaves per network call
    #[arg(long, default_value_t = 8)]
    batch: usize,
    /// Search threads (each keeps two batches in flight; more than one is not deterministic)
    #[arg(long, default_value_t = 1)]
    search_threads: usize,
    /// Sessions of the network (0: one per core)
    #[arg(long, default_value_t = 0)]
    sessions: usize,
    #[command(flatten)]
    ort: OrtArgs,
    /// Seconds of raw evaluation before and after the search, for the ratio (0: skip)
    #[arg(long, default_value_t = 2.0)]
    raw_seconds: f64,
    #[arg(long)]
    json: bool,
}

/// How each ONNX Runtime session runs: `--threads`, `--spin`, `--device`.
#[derive(Args)]
pub struct OrtArgs {
    /// ONNX Runtime intra-op threads per session
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Let idle ORT threads spin (off by default: it loses on small busy machines)
    #[arg(long)]
    spin: bool,
    /// cpu, cuda or cuda:N
    #[arg(long, default_value = "cpu")]
    device: String,
}

pub(crate) fn session(
    sessions: usize,
    threads: usize,
    spin: bool,
    device: &str,
) -> Result<SessionOptions> {
    Ok(SessionOptions {
        sessions,
        intra_threads: threads.max(1),
        spinning: spin,
        device: tengen::nn::Device::parse(device).with_context(|| format!("--device {device}"))?,
    })
}

/// Positions from random games of varied length, so that the features are not all alike.
fn sample_positions(size: BoardSize, count: usize) -> Vec<Features> {
    let mut rng = FastRng::new(7);
    (0..count)
        .map(|i| {
            let mut game = Game::new(size, Rules::tromp_taylor());
            for _ in 0..(i * 3) % (size.area() / 2).max(1) {
                let Some(p) = random_move(game.board(), game.to_move(), &mut rng) else {
                    break;
                };
                if game.play(Move::Play(p)).is_err() {
                    break;
                }
            }
            encode(&game)
        })
        .collect()
}

/// CPU seconds this process has used (user + system), from `/proc/self/stat` (Linux; 0 elsewhere).
/// On a shared machine evaluations per CPU-second vary less than per wall second.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which is in parentheses and may contain spaces).
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name; 100 ticks/s.
    (ticks(11) + ticks(12)) / 100.0
}

/// CPU seconds of this process's network session threads (`tengen-nn-*`), from `/proc/self/task` (Linux;
/// 0 elsewhere): the rest of the process's CPU time is the search's own work.
fn network_cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    tasks
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|name| name.starts_with("tengen-nn"))
        })
        .filter_map(|t| {
            let stat = std::fs::read_to_string(t.path().join("stat")).ok()?;
            let rest = stat.rsplit_once(')')?.1.to_string();
            let fields: Vec<f64> = rest
                .split_whitespace()
                .map(|f| f.parse().unwrap_or(0.0))
                .collect();
            Some((fields.get(11)? + fields.get(12)?) / 100.0)
        })
        .sum()
}

/// Wall and CPU rates of a measured run.
struct Rate {
    per_sec: f64,
    per_cpu_sec: f64,
}

/// Raw evaluations per second at one batch size, through the evaluator, with two groups in flight per
/// session so that every session has one to run while the next is queued.
fn raw_rate(
    evaluator: &Evaluator,
    positions: &[Features],
    batch: usize,
    seconds: f64,
) -> Result<Rate> {
    let batch = batch.max(1);
    let group: Vec<Features> = positions.iter().cycle().take(batch).cloned().collect();
    // Warm-up: ORT plans the shapes on each session's first run.
    let warm: Vec<_> = (0..evaluator.sessions())
        .map(|_| evaluator.submit(group.clone()))
        .collect::<Result<_, _>>()?;
    for pending in warm {
        pending.wait()?;
    }
    let depth = 2 * evaluator.sessions();
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let mut in_flight = std::collections::VecDeque::new();
    let mut done = 0usize;
    while start.elapsed() < Duration::from_secs_f64(seconds) {
        while in_flight.len() < depth {
            in_flight.push_back(evaluator.submit(group.clone())?);
        }
        if let Some(oldest) = in_flight.pop_front() {
            oldest.wait()?;
            done += batch;
        }
    }
    for pending in in_flight {
        pending.wait()?;
        done += batch;
    }
    let cpu = (cpu_seconds() - cpu_start).max(0.01);
    Ok(Rate {
        per_sec: done as f64 / start.elapsed().as_secs_f64(),
        per_cpu_sec: done as f64 / cpu,
    })
}

pub fn nn(args: NnBenchArgs) -> Result<ExitCode> {
    let size = BoardSize::parse(&args.size)?;
    let positions = sample_positions(size, 64);
    let mut results = Vec::new();
    for &sessions in &args.sessions {
        let options = session(sessions, args.ort.threads, args.ort.spin, &args.ort.device)?;
        for &batch in &args.batch {
            let evaluator = Evaluator::open(
                &args.model,
                &options,
                BatchOptions {
                    max_batch: batch.max(1),
                    ..BatchOptions::default()
                },
            )?;
            if let Some(reason) = evaluator.fallback() {
                eprintln!("tengen: {reason}");
            }
            let rate = raw_rate(&evaluator, &positions, batch, args.seconds)?;
            if !args.json {
                println!(
                    "sessions {:>2} x {} thread(s), batch {batch:>3}: {:>8.1} evals/s, {:>8.1} evals per CPU-second",
                    evaluator.sessions(),
                    args.ort.threads,
                    rate.per_sec,
                    rate.per_cpu_sec
                );
            }
            results.push(serde_json::json!({
                "sessions": evaluator.sessions(),
                "batch": batch,
                "fallback": evaluator.fallback(),
                "evals_per_sec": rate.per_sec,
                "evals_per_cpu_sec": rate.per_cpu_sec,
            }));
        }
    }
    if args.json {
        let json = serde_json::json!({
            "model": args.model.display().to_string(),
            "size": size.to_string(),
            "threads": args.ort.threads,
            "spinning": args.ort.spin,
            "device": args.ort.device,
            "results": results,
        });
        println!("{}", serde_json::to_string(&json)?);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn search(args: SearchBenchArgs) -> Result<ExitCode> {
    let Some(model) = args.engine.strip_prefix("onnx:") else {
        bail!(
            "--engine {}: this bench measures network engines, give onnx:PATH",
            args.engine
        );
    };
    let game = args.position.game()?;
    let size = game.size();
    let options = session(
        args.sessions,
        args.ort.threads,
        args.ort.spin,
        &args.ort.device,
    )?;
    let params = SearchParams {
        batch_size: args.batch.max(1),
        pipelined: args.batch > 1,
        threads: args.search_threads.max(1),
        ..SearchParams::default()
    };
    let batch_options = BatchOptions {
        max_batch: params.batch_size,
        ..BatchOptions::default()
    };
    let model = tengen::nn::import::onnx_for(PathBuf::from(model).as_path())?;
    let evaluator = Evaluator::open(&model, &options, batch_options)?;
    if let Some(reason) = evaluator.fallback() {
        eprintln!("tengen: {reason}");
    }
    let engine = MctsEngine::new(evaluator.clone(), params);

    // The raw rate at the same batch size, measured in the same run before and after the search (the
    // machine's load drifts), for the ratio.
    let positions = sample_positions(size, 64);
    let measure_raw = |evaluator: &Evaluator| -> Result<Option<Rate>> {
        if args.raw_seconds <= 0.0 {
            return Ok(None);
        }
        raw_rate(evaluator, &positions, params.batch_size, args.raw_seconds).map(Some)
    };
    let raw_before = measure_raw(&evaluator)?;

    let query = Query::from_game(&game).with_visits(args.visits);
    let before = evaluator.stats().positions.load(Ordering::Relaxed);
    let start = Instant::now();
    let (cpu_start, nn_cpu_start) = (cpu_seconds(), network_cpu_seconds());
    let report = engine.search(&query, &CancelToken::default(), None)?;
    let secs = start.elapsed().as_secs_f64();
    let cpu = (cpu_seconds() - cpu_start).max(0.01);
    let nn_cpu = network_cpu_seconds() - nn_cpu_start;
    let evals = evaluator.stats().positions.load(Ordering::Relaxed) - before;
    let visits_per_sec = report.root.visits as f64 / secs;
    let visits_per_cpu_sec = report.root.visits as f64 / cpu;
    let evals_per_sec = evals as f64 / secs;

    let raw_after = measure_raw(&evaluator)?;
    let (raw, raw_cpu) = match (raw_before, raw_after) {
        (Some(a), Some(b)) => (
            (a.per_sec + b.per_sec) / 2.0,
            (a.per_cpu_sec + b.per_cpu_sec) / 2.0,
        ),
        _ => (f64::NAN, f64::NAN),
    };
    let best = report
        .moves
        .first()
        .map(|m| m.mv.to_gtp(size))
        .unwrap_or_default();
    if args.json {
        let json = serde_json::json!({
            "size": size.to_string(),
            "visits": report.root.visits,
            "seconds": secs,
            "visits_per_sec": visits_per_sec,
            "nn_evals": evals,
            "nn_evals_per_sec": evals_per_sec,
            "visits_per_cpu_sec": visits_per_cpu_sec,
            // Where the CPU went: the network's session threads per evaluation, everything else per visit.
            "network_cpu_us_per_eval": 1e6 * nn_cpu / evals.max(1) as f64,
            "search_cpu_us_per_visit": 1e6 * (cpu - nn_cpu).max(0.0) / report.root.visits.max(1) as f64,
            "raw_evals_per_sec_same_batch": raw,
            "raw_evals_per_cpu_sec_same_batch": raw_cpu,
            "visits_vs_raw": visits_per_sec / raw,
            "visits_vs_raw_per_cpu_sec": visits_per_cpu_sec / raw_cpu,
            "batch": params.batch_size,
            "sessions": evaluator.sessions(),
            "threads": args.ort.threads,
            "search_threads": params.threads,
            "device": args.ort.device,
            "fallback": evaluator.fallback(),
            "best_move": best,
        });
        println!("{}", serde_json::to_string(&json)?);
    } else {
        println!(
            "{} visits in {secs:.2} s ({} session(s), {} search thread(s)): {visits_per_sec:.1} visits/s \
             ({visits_per_cpu_sec:.1} per CPU-second), {evals} network evaluations ({evals_per_sec:.1}/s); \
             best {best}",
            report.root.visits,
            evaluator.sessions(),
            params.threads,
        );
        if !raw.is_nan() {
            println!(
                "raw rate at batch {}: {raw:.1}/s ({raw_cpu:.1} per CPU-second); search/raw {:.0}% wall, {:.0}% CPU",
                params.batch_size,
                100.0 * visits_per_sec / raw,
                100.0 * visits_per_cpu_sec / raw_cpu
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
