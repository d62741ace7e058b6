//! `tengen bench book`: the store and backup targets on a synthetic book: load a 1,000,000-node book in
//! under 1 s, under 200 bytes of resident memory per node plus per edge, and an expansion's backup plus
//! cost update in under 10 ms. With `--grow`, a book grown by an engine instead (`bench_grow.rs`).

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use tengen::book::store::{BookStore, load, load_without_recompute};
use tengen::book::synthetic::{build, expand_randomly};
use tengen::book::{NodeId, recompute_after_change, recompute_everything};
use tengen::go::playout::FastRng;

#[derive(Args)]
pub struct BookBenchArgs {
    #[arg(long, default_value_t = 1_000_000)]
    nodes: usize,
    /// Expansions whose backup and cost update are timed
    #[arg(long, default_value_t = 200)]
    expansions: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Internal: load this book in a fresh process and report time and memory
    #[arg(long, hide = true)]
    load_only: Option<PathBuf>,
    #[command(flatten)]
    grow: super::bench_grow::GrowArgs,
}

/// Field `k` of the calling thread's scheduler statistics in seconds (Linux): 0 is its CPU time, 1 the
/// time it was ready to run but waited for a CPU.
fn thread_schedstat_s(k: usize) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().nth(k)?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// CPU time of the calling thread in seconds (Linux), so figures hold on a busy shared machine.
fn thread_cpu_s() -> f64 {
    thread_schedstat_s(0)
}

/// Resident memory of this process in bytes (Linux), from /proc/self/statm.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

pub fn run(args: BookBenchArgs) -> Result<ExitCode> {
    if args.grow.grow {
        return super::bench_grow::run(args.grow, args.seed);
    }
    if let Some(path) = args.load_only {
        let before = rss_bytes().unwrap_or(0);
        // What `tengen book` does: read the snapshot with its cached values (and the log, empty here).
        let (start, cpu, waited) = (Instant::now(), thread_cpu_s(), thread_schedstat_s(1));
        let (book, _) = load(&path)?;
        let (secs, load_cpu) = (start.elapsed().as_secs_f64(), thread_cpu_s() - cpu);
        // On a shared machine wall time is CPU time plus the wait for a CPU; the rest is I/O.
        let load_cpu_wait = thread_schedstat_s(1) - waited;
        let after = rss_bytes().unwrap_or(0);
        // For comparison: the stored data alone, then KataGo's way, a full recompute.
        let (start, cpu) = (Instant::now(), thread_cpu_s());
        let (mut again, _) = load_without_recompute(&path)?;
        let (read_s, read_cpu) = (start.elapsed().as_secs_f64(), thread_cpu_s() - cpu);
        let (start, cpu) = (Instant::now(), thread_cpu_s());
        recompute_everything(&mut again);
        let (recompute_s, recompute_cpu) = (start.elapsed().as_secs_f64(), thread_cpu_s() - cpu);
        drop(again);
        let items = book.len() + book.edge_count();
        println!(
            "{}",
            serde_json::json!({
                "load_s": secs, "load_cpu_s": load_cpu, "load_waiting_for_cpu_s": load_cpu_wait,
                "without_cache": { "read_s": read_s, "read_cpu_s": read_cpu,
                    "full_recompute_s": recompute_s, "full_recompute_cpu_s": recompute_cpu },
                "rss_book_bytes": after.saturating_sub(before),
                "bytes_per_node_plus_edge": after.saturating_sub(before) as f64 / items as f64,
                "nodes": book.len(), "edges": book.edge_count(),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let start = Instant::now();
    let mut book = build(args.nodes, args.seed);
    let built = start.elapsed().as_secs_f64();
    let start = Instant::now();
    recompute_everything(&mut book);
    let full_recompute = start.elapsed().as_secs_f64();
    let dir = std::env::temp_dir().join(format!("tengen-bench-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("synthetic.tengenbook");
    let start = Instant::now();
    let store = BookStore::create(&path, &book)?;
    let save = start.elapsed().as_secs_f64();
    drop(store);
    let file_bytes = std::fs::metadata(&path)?.len();

    // Backup + cost update of single expansions at random nodes of the big book.
    let mut rng = FastRng::new(args.seed ^ 0xB00C);
    let mut times = Vec::with_capacity(args.expansions);
    let mut recomputed = Vec::with_capacity(args.expansions);
    for _ in 0..args.expansions {
        let at = NodeId(rng.below(book.len()) as u32);
        let changed = expand_randomly(&mut book, at, 1 + rng.below(3), &mut rng);
        // Wall time: the kernel's per-thread CPU clock only ticks every few milliseconds.
        let t = Instant::now();
        recomputed.push(recompute_after_change(&mut book, &changed).costs.len());
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    recomputed.sort();
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or(0.0)
    };

    // Loading and memory are measured in a fresh process, so that nothing built here is counted.
    let exe = std::env::current_exe()?;
    let out = std::process::Command::new(exe)
        .args(["bench", "book", "--load-only"])
        .arg(&path)
        .output()
        .context("running the load measurement")?;
    let loaded: serde_json::Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "load measurement failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::json!({
            "nodes": args.nodes,
            "edges": book.edge_count(),
            "build_s": built,
            "full_recompute_s": full_recompute,
            "save_s": save,
            "file_bytes": file_bytes,
            "load": loaded,
            "expansion_update_ms": { "mean": mean, "p50": pct(0.5), "p99": pct(0.99), "max": pct(1.0) },
            "nodes_recomputed_per_expansion": { "p50": recomputed.get(recomputed.len() / 2), "max": recomputed.last() },
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
