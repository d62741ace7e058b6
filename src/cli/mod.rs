//! Subcommands of the `tengen` binary. Each file parses its arguments into library calls and prints.

mod bench;
mod endgame;
mod position;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "tengen",
    version,
    about = "A terminal workbench for Go opening books and endgame temperatures"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Show a position: board, player to move, legal moves, canonical hash, symmetries, score
    Position(position::PositionArgs),
    /// Measure speed: random playouts, and more as engines arrive
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Endgame temperatures: solve problem files, score a folder of them
    #[command(subcommand)]
    Endgame(endgame::EndgameCommand),
}

pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Position(args)) => position::run(args),
        Some(Command::Bench(cmd)) => bench::run(cmd),
        Some(Command::Endgame(cmd)) => endgame::run(cmd),
        None => {
            use clap::CommandFactory;
            Cli::command().print_help()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
