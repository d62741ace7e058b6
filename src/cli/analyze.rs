//! `tengen analyze`: one position searched by any engine, the moves table streamed, the final report
//! printed (as JSON with `--json`).

use anyhow::{Context, Result};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;
use tengen::engine::spec::{self, SpecOptions};
use tengen::engine::{Query, Report};
use tengen::go::{BoardSize, Color, Game, Move};

#[derive(Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    position: super::args::PositionSpec,
    /// Root moves the engine may not play: "C3 E5"
    #[arg(long, default_value = "")]
    avoid: String,
    #[arg(long, default_value = spec::DEFAULT, help = format!("The engine: {}", spec::KNOWN))]
    engine: String,
    /// Visits (playouts) to search
    #[arg(long, default_value_t = 10_000)]
    visits: u64,
    /// Stop after this many seconds even if the visits are not reached
    #[arg(long)]
    seconds: Option<f64>,
    /// Print the final report as JSON
    #[arg(long)]
    json: bool,
    /// Search threads for the rollout engine (0: all cores)
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Seed for the rollout engine
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also report ownership
    #[arg(long)]
    ownership: bool,
    /// KataGo's analysis config, for `--engine katago`
    #[arg(long)]
    katago_config: Option<String>,
    /// KataGo's network, for `--engine katago`
    #[arg(long)]
    katago_model: Option<String>,
    /// How many moves the table shows
    #[arg(long, default_value_t = 10)]
    top: usize,
}

/// The position the arguments describe.
pub fn run(args: AnalyzeArgs) -> Result<ExitCode> {
    let game = args.position.game()?;
    let size = game.size();
    let avoid = Move::parse_list(&args.avoid, size).context("in --avoid")?;
    let opts = SpecOptions {
        threads: args.threads,
        katago_config: args.katago_config.clone(),
        katago_model: args.katago_model.clone(),
        katago_binary: None,
    };
    let engine = spec::build(&args.engine, &opts)?;
    let mut query = Query::from_game(&game)
        .with_visits(args.visits)
        .avoiding(&avoid);
    query.max_time = args.seconds.map(Duration::from_secs_f64);
    query.seed = args.seed;
    query.include_ownership = args.ownership;
    let live = !args.json && std::io::stderr().is_terminal();
    if live {
        query.report_every = Some(Duration::from_millis(250));
    }
    let runtime = tokio::runtime::Runtime::new()?;
    let report = runtime.block_on(async {
        let mut analysis = engine.analyze(query);
        let mut last = None;
        while let Some(item) = analysis.next().await {
            let report = item?;
            if live && !report.is_final {
                eprint!("\r\x1b[K{}", progress_line(&report, size));
                let _ = std::io::stderr().flush();
            }
            if report.is_final {
                last = Some(report);
                break;
            }
        }
        if live {
            eprint!("\r\x1b[K");
        }
        last.ok_or_else(|| anyhow::anyhow!("{} finished without a final report", engine.name()))
    })?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report_json(&report, &game, &engine.name()))?
        );
    } else {
        print_table(&report, &game, &engine.name(), args.top);
    }
    Ok(ExitCode::SUCCESS)
}

fn progress_line(report: &Report, size: BoardSize) -> String {
    let best = report.moves.first();
    format!(
        "{} visits  best {}  Black {:.1}%  lead {:+.1}",
        report.root.visits,
        best.map_or("-".into(), |m| m.mv.to_gtp(size)),
        100.0 * best.map_or(report.root.winrate, |m| m.winrate),
        best.map_or(report.root.score_lead, |m| m.score_lead),
    )
}

/// The final report as JSON: moves best first with GTP coordinates, values from Black's view.
pub fn report_json(report: &Report, game: &Game, engine: &str) -> serde_json::Value {
    let size = game.size();
    let moves: Vec<serde_json::Value> = report
        .moves
        .iter()
        .map(|m| {
            serde_json::json!({
                "move": m.mv.to_gtp(size),
                "visits": m.visits,
                "winrate": m.winrate,
                "score_lead": m.score_lead,
                "prior": m.prior,
                "lcb": m.lcb,
                "pv": m.pv.iter().map(|p| p.to_gtp(size)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut json = serde_json::json!({
        "engine": engine,
        "size": size.to_string(),
        "rules": game.rules().to_string(),
        "komi": game.rules().komi.value(),
        "to_move": game.to_move().letter().to_string(),
        "moves": moves,
        "root": report.root,
    });
    if let Some(own) = &report.ownership {
        json["ownership"] = serde_json::json!(own);
    }
    json
}

fn print_table(report: &Report, game: &Game, engine: &str, top: usize) {
    let size = game.size();
    let to_move = if game.to_move() == Color::Black {
        "Black"
    } else {
        "White"
    };
    println!(
        "{engine} — {size}, {}, {to_move} to play; values are Black's",
        game.rules()
    );
    println!(
        "{:<6} {:>9} {:>8} {:>8} {:>7}  pv",
        "move", "visits", "Black%", "lead", "prior%"
    );
    for m in report.moves.iter().take(top) {
        let pv: Vec<String> = m.pv.iter().take(8).map(|p| p.to_gtp(size)).collect();
        println!(
            "{:<6} {:>9} {:>8.1} {:>+8.1} {:>7.1}  {}",
            m.mv.to_gtp(size),
            m.visits,
            100.0 * m.winrate,
            m.score_lead,
            100.0 * m.prior,
            pv.join(" ")
        );
    }
    let r = &report.root;
    println!(
        "root: {} visits, Black {:.1}%, lead {:+.1} (score {:+.1} ± {:.1})",
        r.visits,
        100.0 * r.winrate,
        r.score_lead,
        r.score_mean,
        r.score_stdev
    );
}
