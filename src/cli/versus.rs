//! `tengen match`: an engine against a GTP opponent (GNU Go by default, or KataGo's `gtp`), colours
//! alternating, games played to two passes or a resignation and scored by tengen under the match's rules
//! (area scoring counts every stone on the board, so each side must capture what it claims is dead). The
//! score counts a draw as half a win.

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
    #[arg(long, default_value = spec::DEFAULT, help = format!("tengen's engine: {}", spec::KNOWN))]
    engine: String,
    /// Visits per move for tengen's engine
    #[arg(long, default_value_t = 20_000)]
    visits: u64,
    /// The opponent's GTP command (no shell); `gnugo …` gets `--mode gtp`, the rules and a seed per game.
    /// KataGo: `PATH/katago gtp -config gtp.cfg -model MODEL -override-config maxVisits=200,…` (it gets the
    /// board size, komi and rules over GTP)
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
            engine_result(&outcome).verb(),
            started.elapsed().as_secs_f64(),
            outcome
                .note
                .as_deref()
                .map(|n| format!(" [{n}]"))
                .unwrap_or_default(),
        );
        outcomes.push(outcome);
    }
    println!("{}", summary(&outcomes));
    Ok(ExitCode::SUCCESS)
}

/// A game's result for tengen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GameResult {
    Win,
    Draw,
    Loss,
}

impl GameResult {
    fn verb(self) -> &'static str {
        match self {
            GameResult::Win => "wins",
            GameResult::Draw => "draws",
            GameResult::Loss => "loses",
        }
    }

    /// Points for tengen: a draw counts half.
    fn points(self) -> f64 {
        match self {
            GameResult::Win => 1.0,
            GameResult::Draw => 0.5,
            GameResult::Loss => 0.0,
        }
    }
}

fn engine_result(o: &Outcome) -> GameResult {
    if o.black_lead == 0.0 {
        GameResult::Draw
    } else if (o.black_lead > 0.0) == (o.engine_color == Color::Black) {
        GameResult::Win
    } else {
        GameResult::Loss
    }
}

/// Wins, draws and losses of some games.
fn tally<'a>(outcomes: impl Iterator<Item = &'a Outcome>) -> (usize, usize, usize) {
    outcomes.fold((0, 0, 0), |(w, d, l), o| match engine_result(o) {
        GameResult::Win => (w + 1, d, l),
        GameResult::Draw => (w, d + 1, l),
        GameResult::Loss => (w, d, l + 1),
    })
}

/// The match's last line: the score with draws counting half, then wins, draws and losses by colour.
fn summary(outcomes: &[Outcome]) -> String {
    let points: f64 = outcomes.iter().map(|o| engine_result(o).points()).sum();
    let (w, d, l) = tally(outcomes.iter());
    let by = |c: Color| {
        let (w, d, l) = tally(outcomes.iter().filter(|o| o.engine_color == c));
        format!("{w}-{d}-{l}")
    };
    format!(
        "tengen scored {points} of {} ({:.1}%, draws count half): {w} wins, {d} draws, {l} losses; \
         as Black {}, as White {} (wins-draws-losses)",
        outcomes.len(),
        100.0 * points / outcomes.len().max(1) as f64,
        by(Color::Black),
        by(Color::White),
    )
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
            // The opponent loses at once when it resigns or plays an illegal move.
            let forfeit = match opponent.genmove(color, size).await? {
                GenMove::Resign => Some(note.take()),
                GenMove::Play(mv) => game.play(mv).err().map(|e| {
                    Some(format!(
                        "the opponent played the illegal {} ({e}) and forfeits",
                        mv.to_gtp(size)
                    ))
                }),
            };
            if let Some(note) = forfeit {
                opponent.quit().await;
                let black_lead = if color == Color::Black {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
                return Ok(Outcome {
                    engine_color,
                    black_lead,
                    moves: game.moves().len(),
                    note,
                });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(engine_color: Color, black_lead: f64) -> Outcome {
        Outcome {
            engine_color,
            black_lead,
            moves: 60,
            note: None,
        }
    }

    #[test]
    fn a_draw_is_a_draw_and_counts_half() {
        let draw = outcome(Color::White, 0.0);
        assert_eq!(engine_result(&draw), GameResult::Draw);
        assert_eq!(engine_result(&draw).verb(), "draws");
        assert_eq!(result_text(0.0), "draw");
        assert_eq!(engine_result(&outcome(Color::Black, 2.0)), GameResult::Win);
        assert_eq!(engine_result(&outcome(Color::White, 2.0)), GameResult::Loss);
        assert_eq!(
            engine_result(&outcome(Color::White, f64::NEG_INFINITY)),
            GameResult::Win,
            "Black resigned"
        );
        let games = [
            outcome(Color::Black, 1.0),
            outcome(Color::White, 0.0),
            outcome(Color::Black, 0.0),
            outcome(Color::White, 3.0),
        ];
        let line = summary(&games);
        assert!(
            line.starts_with(
                "tengen scored 2 of 4 (50.0%, draws count half): 1 wins, 2 draws, 1 losses"
            ),
            "{line}"
        );
        assert!(line.contains("as Black 1-1-0, as White 0-1-1"), "{line}");
    }
}
