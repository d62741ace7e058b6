//! `tengen position`: the lens through which every later feature is debugged.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use tengen::go::{Game, hash, score, sgf};

#[derive(Args)]
pub struct PositionArgs {
    #[command(flatten)]
    position: super::args::PositionSpec,
    /// Read the position from an SGF file instead (main line)
    #[arg(long, conflicts_with = "moves")]
    sgf: Option<PathBuf>,
    /// With --sgf: stop after this many moves
    #[arg(long = "move", requires = "sgf")]
    move_number: Option<usize>,
    /// Repetition bound of the history hash (KataGo's repBound)
    #[arg(long, default_value_t = hash::DEFAULT_REP_BOUND)]
    rep_bound: usize,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

fn load(args: &PositionArgs) -> Result<Game> {
    let rules = args.position.rules()?;
    if let Some(path) = &args.sgf {
        let games = sgf::read_file(path)?;
        let record = games
            .first()
            .with_context(|| format!("{}: no game in the file", path.display()))?;
        let rules = if args.position.komi.is_some() {
            rules
        } else {
            record.rules_or(rules)
        };
        let line = record.main_line();
        let mut nodes = Vec::new();
        let mut moves = 0;
        for node in line {
            if node.get_move().is_some() {
                if args.move_number.is_some_and(|n| moves >= n) {
                    break;
                }
                moves += 1;
            }
            nodes.push(node);
        }
        return Ok(record.replay(&nodes, rules, false, path)?);
    }
    args.position.game()
}

pub fn run(args: PositionArgs) -> Result<ExitCode> {
    let game = load(&args)?;
    let size = game.size();
    let canon = hash::canonical(&game, args.rep_bound);
    let legal = game.legal_moves().len();
    let score = game.is_over().then(|| score::final_score(&game));
    let syms: Vec<String> = canon
        .self_symmetries
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    if args.json {
        let json = serde_json::json!({
            "size": size.to_string(),
            "rules": game.rules().to_compact(),
            "komi": game.rules().komi.value(),
            "to_move": game.to_move().letter().to_string(),
            "legal_moves": legal,
            "canonical_hash": canon.hash.to_string(),
            "to_canonical": canon.to_canonical.name(),
            "self_symmetries": syms,
            "moves_played": game.moves().len(),
            "captures": {"black": game.board().captures(tengen::go::Color::Black), "white": game.board().captures(tengen::go::Color::White)},
            "game_over": game.is_over(),
            "score": score,
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    let last = game.last_move().and_then(|m| m.point());
    print!("{}", game.board().render(last));
    println!("rules:          {}", game.rules());
    println!(
        "to move:        {}",
        if game.to_move() == tengen::go::Color::Black {
            "Black"
        } else {
            "White"
        }
    );
    println!("moves played:   {}", game.moves().len());
    println!("legal moves:    {legal} (pass included)");
    println!("canonical hash: {}", canon.hash);
    println!("to canonical:   {}", canon.to_canonical);
    println!("self-symmetries: {}", syms.join(", "));
    if let Some(s) = score {
        let text = if s > 0.0 {
            format!("B+{s}")
        } else if s < 0.0 {
            format!("W+{}", -s)
        } else {
            "draw".into()
        };
        println!("game over:      {text}");
    }
    Ok(ExitCode::SUCCESS)
}
