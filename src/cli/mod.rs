//! Subcommands of the `tengen` binary. Each file parses its arguments into library calls and prints.

mod analyze;
mod bench;
mod position;
mod versus;

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
    /// Search a position with an engine and print the moves it found
    Analyze(analyze::AnalyzeArgs),
    /// Play an engine against a GTP opponent (GNU Go by default), colours alternating
    Match(versus::MatchArgs),
    /// Measure speed: random playouts, and more as engines arrive
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Position(args)) => position::run(args),
        Some(Command::Analyze(args)) => analyze::run(args),
        Some(Command::Match(args)) => versus::run(args),
        Some(Command::Bench(cmd)) => bench::run(cmd),
        None => {
            use clap::CommandFactory;
            Cli::command().print_help()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
