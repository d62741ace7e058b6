//! `tengen model import` (KataGo `.bin.gz` → ONNX), `tengen nn eval` (one raw evaluation, in KataGo's
//! `kata-raw-nn` terms) and `tengen setup` (installs ONNX Runtime into tengen's data directory).

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tengen::go::Game;
use tengen::nn::runtime::{self, ORT_VERSION, RuntimeConfig};
use tengen::nn::{BatchOptions, Evaluator, NnEval};

#[derive(Subcommand)]
pub enum ModelCommand {
    /// Convert a KataGo network (.bin.gz, model version 8) to ONNX
    Import(ImportArgs),
}

#[derive(Args)]
pub struct ImportArgs {
    /// The KataGo model file
    input: PathBuf,
    /// Where to write the ONNX graph
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(Subcommand)]
pub enum NnCommand {
    /// Evaluate one position with a network and print its raw outputs (White's point of view)
    Eval(EvalArgs),
}

#[derive(Args)]
pub struct EvalArgs {
    /// The ONNX network (from `tengen model import`)
    #[arg(long)]
    model: PathBuf,
    #[command(flatten)]
    position: super::args::PositionSpec,
    /// cpu, cuda or cuda:N (overrides the config)
    #[arg(long)]
    device: Option<String>,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct SetupArgs {
    /// Install onnxruntime-gpu (CUDA 13 + cuDNN 9) instead of the CPU build
    #[arg(long)]
    gpu: bool,
    /// The Python interpreter that creates the venv
    #[arg(long, default_value = "python3")]
    python: String,
}

pub fn run_model(cmd: ModelCommand) -> Result<ExitCode> {
    match cmd {
        ModelCommand::Import(args) => {
            let summary = tengen::nn::import::import(&args.input, &args.output)?;
            println!(
                "{}: model version {}, {} blocks x {} channels, {} parameters -> {} ({} bytes)",
                summary.name,
                summary.version,
                summary.blocks,
                summary.trunk_channels,
                summary.parameters,
                args.output.display(),
                summary.onnx_bytes
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Session options from the config, with a command-line device override.
pub fn session_options(device: Option<&str>) -> Result<tengen::nn::SessionOptions> {
    let mut options = RuntimeConfig::load()?.session_options()?;
    if let Some(d) = device {
        options.device = tengen::nn::Device::parse(d)
            .with_context(|| format!("--device {d}: expected cpu, cuda or cuda:N"))?;
    }
    Ok(options)
}

pub fn run_nn(cmd: NnCommand) -> Result<ExitCode> {
    match cmd {
        NnCommand::Eval(args) => eval(args),
    }
}

fn eval(args: EvalArgs) -> Result<ExitCode> {
    let game = args.position.game()?;
    let mut options = session_options(args.device.as_deref())?;
    // One position: one session is enough, whatever the config says for searches.
    options.sessions = 1;
    let evaluator = Evaluator::open(&args.model, &options, BatchOptions::default())?;
    if let Some(reason) = evaluator.fallback() {
        eprintln!("tengen: {reason}");
    }
    let out = evaluator.evaluate(&game)?;
    if args.json {
        println!("{}", serde_json::to_string(&out)?);
    } else {
        print_eval(&game, &out);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_eval(game: &Game, out: &NnEval) {
    let size = game.size();
    println!(
        "whiteWin {:.4}  whiteLoss {:.4}  noResult {:.4}  whiteLead {:.2}  whiteScoreMean {:.2}  stdev {:.2}",
        out.white_win,
        out.white_loss,
        out.no_result,
        out.white_lead,
        out.white_score_mean,
        out.white_score_stdev
    );
    println!(
        "policy (per mille; - illegal), pass {:.1}",
        out.policy_pass * 1000.0
    );
    for y in 0..size.height() {
        let row: Vec<String> = (0..size.width())
            .map(|x| match out.policy[y * size.width() + x] {
                Some(p) => format!("{:4.0}", p * 1000.0),
                None => "   -".to_string(),
            })
            .collect();
        println!("{:>2} {}", size.height() - y, row.join(""));
    }
    println!("whiteOwnership (x100)");
    for y in 0..size.height() {
        let row: Vec<String> = (0..size.width())
            .map(|x| format!("{:4.0}", out.white_ownership[y * size.width() + x] * 100.0))
            .collect();
        println!("{:>2} {}", size.height() - y, row.join(""));
    }
}

pub fn run_setup(args: SetupArgs) -> Result<ExitCode> {
    let package = if args.gpu {
        "onnxruntime-gpu"
    } else {
        "onnxruntime"
    };
    eprintln!("installing {package}=={ORT_VERSION} into tengen's data directory");
    let library = runtime::install(args.gpu, &args.python)?;
    println!("ONNX Runtime {ORT_VERSION}: {}", library.display());
    Ok(ExitCode::SUCCESS)
}
