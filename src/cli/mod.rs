//! Subcommands of the `tengen` binary. Each file parses its arguments into library calls and prints.

mod analyze;
mod args;
mod bench;
mod bench_book;
mod bench_grow;
mod bench_nn;
mod bench_recording;
mod bench_ui;
mod book;
mod book_annotate;
mod book_show;
mod book_study;
mod book_trim;
mod book_verify;
pub mod edge;
mod endgame;
mod nn;
mod position;
mod records;
mod records_book;
mod replay;
mod versus;
mod workbench;

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
    /// Opening books: create, grow, browse, mark, import KataGo books, export HTML and SGF
    #[command(subcommand)]
    Book(book::BookCommand),
    /// Search a position with an engine and print the moves it found
    Analyze(analyze::AnalyzeArgs),
    /// Play an engine against a GTP opponent (GNU Go by default), colours alternating
    Match(versus::MatchArgs),
    /// Measure speed: random playouts, and more as engines arrive
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Open a book in the workbench (without a subcommand, `tengen` opens the default book)
    Open(workbench::OpenArgs),
    /// Play back a recorded workbench session, on screen or headless into text frames
    Replay(replay::ReplayArgs),
    /// Networks: import KataGo models
    #[command(subcommand)]
    Model(nn::ModelCommand),
    /// Networks: evaluate positions
    #[command(subcommand)]
    Nn(nn::NnCommand),
    /// Install ONNX Runtime (the network runtime) into tengen's data directory
    Setup(nn::SetupArgs),
    /// Books from game records: merge, trim, solution trees, MCST text
    #[command(subcommand)]
    Records(records::RecordsCommand),
    /// Endgame temperatures: solve problem files, score a folder of them
    #[command(subcommand)]
    Endgame(endgame::EndgameCommand),
}

pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Position(args)) => position::run(args),
        Some(Command::Book(cmd)) => book::run(cmd),
        Some(Command::Analyze(args)) => analyze::run(args),
        Some(Command::Match(args)) => versus::run(args),
        Some(Command::Bench(cmd)) => bench::run(cmd),
        Some(Command::Model(cmd)) => nn::run_model(cmd),
        Some(Command::Nn(cmd)) => nn::run_nn(cmd),
        Some(Command::Setup(args)) => nn::run_setup(args),
        Some(Command::Records(cmd)) => records::run(cmd),
        Some(Command::Endgame(cmd)) => endgame::run(cmd),
        Some(Command::Open(args)) => workbench::run(args),
        Some(Command::Replay(args)) => replay::run(args),
        None => workbench::run(workbench::OpenArgs::default()),
    }
}

#[cfg(test)]
mod tests {
    /// clap checks argument definitions (unique names and groups, valid defaults) only when asked.
    #[test]
    fn every_subcommand_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
