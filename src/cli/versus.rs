//! `tengen match`: an engine against a GTP opponent (GNU Go by default), colours alternating, games
//! played to two passes and scored by tengen under the match's rules (area scoring counts every stone on
//! the board, so each side must capture what it claims is dead).

use anyhow::{Context, Result, bail};
use clap::Args;
use std::process::ExitCode;
use std::time::Instant;
use tengen::engine::gtp::{GenMove, GtpClient, gnugo_rule_flags};
use tengen::engine::spec::{self, SpecOptions};
use tengen::engine::{Engine, Query};
use tengen::go::score::final_score;
use tengen::go::{Color, Game, Move};

#[derive(Args)]
pub struct MatchArgs {
    #[arg(long, default_value = "7x7")]
    size: String,
    #[arg(long, default_value = "tromp-taylor")]
    rules: String,
    #[arg(long, default_value_t = 9.0, allow_hyphen_values = true)]
    komi: f64,
    #[arg(long, default_value_t = 20)]
    games: usize,
    #[arg(long, default_value = "rollout", help = format!("tengen's engine: {}", spec::KNOWN))]
    engine: String,
    /// Visits per move for tengen's engine
    #[arg(long, default_value_t = 20_000)]
    visits: u64,
    /// The opponent's GTP command (no shell); `gnugo …` gets `--mode gtp`, the rules and a seed per game
    #[arg(long, default_value = "gnugo --level 10")]
    opponent: String,
    /// Search threads for the rollout engine (0: all cores)
    #[arg(long, default_value_t = 0)]
    threads: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

struct Outcome {
    engine_color: Color,
    black_lead: f64,
    moves: usize,
    note: Option<String>,
}

pub fn run(args: MatchArgs) -> Result<ExitCode> {
    let position = super::args::PositionSpec {
        size: args.size.clone(),
        rules: args.rules.clone(),
        komi: Some(args.komi),
        moves: String::new(),
    };
    let start_game = position.game()?;
    let opts = SpecOptions {
        threads: args.threads,
        ..SpecOptions::default()
    };
    let engine = spec::build(&args.engine, &opts)?;
    let runtime = tokio::runtime::Runtime::new()?;
    println!(
        "{} ({} visits) vs `{}` — {}, {}, {} games",
        engine.name(),
        args.visits,
        args.opponent,
        start_game.size(),
        start_game.rules(),
        args.games
    );
    let mut outcomes = Vec::new();
    for g in 0..args.games {
        let engine_color = if g % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let started = Instant::now();
        let outcome = runtime.block_on(play_game(
            &args,
            engine.as_ref(),
            start_game.clone(),
            engine_color,
            g,
        ))?;
        let won = engine_won(&outcome);
        println!(
            "game {:>2}: tengen {} — {} after {} moves, tengen {} ({:.0} s){}",
            g + 1,
            if engine_color == Color::Black {
                "Black"
            } else {
                "White"
            },
            result_text(outcome.black_lead),
            outcome.moves,
            if won { "wins" } else { "loses" },
            started.elapsed().as_secs_f64(),
            outcome
                .note
                .as_deref()
                .map(|n| format!(" [{n}]"))
                .unwrap_or_default(),
        );
        outcomes.push(outcome);
    }
    let wins = outcomes.iter().filter(|o| engine_won(o)).count();
    let by = |c: Color| {
        let games: Vec<&Outcome> = outcomes.iter().filter(|o| o.engine_color == c).collect();
        (games.iter().filter(|o| engine_won(o)).count(), games.len())
    };
    let (bw, bn) = by(Color::Black);
    let (ww, wn) = by(Color::White);
    println!(
        "tengen won {wins} of {} ({:.1}%): {bw}/{bn} as Black, {ww}/{wn} as White",
        outcomes.len(),
        100.0 * wins as f64 / outcomes.len().max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}

fn engine_won(o: &Outcome) -> bool {
    (o.black_lead > 0.0) == (o.engine_color == Color::Black) && o.black_lead != 0.0
}

fn result_text(black_lead: f64) -> String {
    match black_lead {
        x if x == f64::INFINITY => "B+R".into(),
        x if x == f64::NEG_INFINITY => "W+R".into(),
        x if x > 0.0 => format!("B+{x}"),
        x if x < 0.0 => format!("W+{}", -x),
        _ => "draw".into(),
    }
}

async fn play_game(
    args: &MatchArgs,
    engine: &dyn Engine,
    mut game: Game,
    engine_color: Color,
    index: usize,
) -> Result<Outcome> {
    let size = game.size();
    let mut command = spec::gtp_command(&args.opponent)?;
    if command[0].ends_with("gnugo") {
        command.extend(gnugo_rule_flags(game.rules()));
        command.extend(["--seed".into(), (args.seed + index as u64).to_string()]);
    }
    let mut opponent = GtpClient::start(&command).await?;
    opponent.timeout = std::time::Duration::from_secs(600);
    opponent.new_game(size, game.rules()).await?;
    let max_moves = 3 * size.area();
    let mut note = None;
    while !game.is_over() && game.moves().len() < max_moves {
        let color = game.to_move();
        if color == engine_color {
            let mut query = Query::from_game(&game).with_visits(args.visits);
            query.seed = args
                .seed
                .wrapping_mul(1000)
                .wrapping_add((index * 1000 + game.moves().len()) as u64);
            let report = engine.analyze(query).final_report().await?;
            let mv = report.moves.first().map_or(Move::Pass, |m| m.mv);
            game.play(mv).with_context(|| {
                format!("tengen's engine chose the illegal {}", mv.to_gtp(size))
            })?;
            if let Err(e) = opponent.play(color, mv, size).await {
                note = Some(format!(
                    "the opponent refused {}: {e}; scored as it stands",
                    mv.to_gtp(size)
                ));
                break;
            }
        } else {
            match opponent.genmove(color, size).await? {
                GenMove::Resign => {
                    let lead = if color == Color::Black {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    };
                    opponent.quit().await;
                    return Ok(Outcome {
                        engine_color,
                        black_lead: lead,
                        moves: game.moves().len(),
                        note,
                    });
                }
                GenMove::Play(mv) => {
                    if let Err(e) = game.play(mv) {
                        let lead = if color == Color::Black {
                            f64::NEG_INFINITY
                        } else {
                            f64::INFINITY
                        };
                        note = Some(format!(
                            "the opponent played the illegal {} ({e}) and forfeits",
                            mv.to_gtp(size)
                        ));
                        opponent.quit().await;
                        return Ok(Outcome {
                            engine_color,
                            black_lead: lead,
                            moves: game.moves().len(),
                            note,
                        });
                    }
                }
            }
        }
    }
    if !game.is_over() && note.is_none() {
        note = Some(format!("stopped at the {max_moves}-move cap"));
    }
    opponent.quit().await;
    if game.moves().is_empty() {
        bail!("the game ended before it began");
    }
    Ok(Outcome {
        engine_color,
        black_lead: final_score(&game),
        moves: game.moves().len(),
        note,
    })
}
