//! Arguments several subcommands share: a position given as size, rules, komi and GTP moves; the engine of
//! a command that grows or analyses a book.

use anyhow::Result;
use clap::Args;
use std::time::Duration;
use tengen::engine::spec::{self, SpecOptions};
use tengen::engine::{CancelToken, Engine};
use tengen::go::{BoardSize, Game, Komi, Rules};

#[derive(Args, Clone, Debug)]
pub struct PositionSpec {
    /// Board size: 9, 9x9, 7x5
    #[arg(long, default_value = "9x9")]
    pub size: String,
    /// Rules by KataGo's names: tromp-taylor, chinese, japanese, aga, new-zealand, … or koSIMPLEscoreAREA…
    #[arg(long, default_value = "tromp-taylor")]
    pub rules: String,
    /// Komi, an integer or half-integer (default: the rules' usual komi)
    #[arg(long, allow_hyphen_values = true)]
    pub komi: Option<f64>,
    /// Moves played from the empty board, alternately from Black, in GTP form: "D4 D5 pass"
    #[arg(long, default_value = "")]
    pub moves: String,
}

impl PositionSpec {
    /// The rules with `--komi` applied.
    pub fn rules(&self) -> Result<Rules> {
        let rules = Rules::parse(&self.rules)?;
        Ok(match self.komi {
            Some(k) => rules.with_komi(Komi::from_f64(k)?),
            None => rules,
        })
    }

    pub fn size(&self) -> Result<BoardSize> {
        Ok(BoardSize::parse(&self.size)?)
    }

    /// The game after `--moves`, each checked under the rules.
    pub fn game(&self) -> Result<Game> {
        Ok(Game::from_gtp_moves(
            self.size()?,
            self.rules()?,
            &self.moves,
        )?)
    }
}

/// The engine of a command that grows or analyses a book.
#[derive(Args, Clone, Debug)]
pub struct EngineArgs {
    /// The engine: onnx (the shipped network, the default) | onnx:MODEL | katago | katago:COMMAND… |
    /// gtp[:COMMAND…] | pool:N:SPEC | rollout
    #[arg(long, default_value = spec::DEFAULT)]
    pub engine: String,
    /// Engine threads per search, for rollout (0: all cores)
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// KataGo's analysis config, for `--engine katago`
    #[arg(long)]
    pub katago_config: Option<String>,
    /// KataGo's network, for `--engine katago`
    #[arg(long)]
    pub katago_model: Option<String>,
    /// The KataGo binary, for `--engine katago` (default: `katago` on the PATH)
    #[arg(long)]
    pub katago_binary: Option<String>,
}

impl EngineArgs {
    /// The engine for growing a book of `size`, with what the user must know said on stderr: the default
    /// network falling back to rollout, rollout on a board it misjudges. Must be called inside a tokio
    /// runtime (engines that run a process start it at once).
    pub fn build_for_book(&self, size: BoardSize) -> Result<Box<dyn Engine>> {
        let opts = SpecOptions {
            threads: self.threads,
            katago_config: self.katago_config.clone(),
            katago_model: self.katago_model.clone(),
            katago_binary: self.katago_binary.clone(),
        };
        let chosen = spec::build_default(&self.engine, &opts)?;
        if let Some(reason) = &chosen.fallback {
            eprintln!("warning: {reason}");
        }
        if let Some(caution) = spec::caution(&chosen.spec, size) {
            eprintln!("warning: {caution}");
        }
        Ok(chosen.engine)
    }
}

/// The board and rules of a new book: `--size`, `--rules` (KataGo's names) and `--komi`.
#[derive(Args, Clone, Debug)]
pub struct BookSetup {
    #[arg(long, default_value = "7x7")]
    pub size: String,
    #[arg(long, default_value = "tromp-taylor")]
    pub rules: String,
    #[arg(long, default_value_t = 9.0, allow_negative_numbers = true)]
    pub komi: f64,
}

impl BookSetup {
    /// The board size and the rules with the komi, checked.
    pub fn parse(&self) -> Result<(BoardSize, Rules)> {
        let size = BoardSize::parse(&self.size)?;
        let rules = Rules::parse(&self.rules)?.with_komi(Komi::from_f64(self.komi)?);
        Ok((size, rules))
    }
}

/// A multi-threaded tokio runtime with `workers` threads (`None`: tokio's default, one per core).
pub fn runtime(workers: Option<usize>) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = workers {
        builder.worker_threads(n);
    }
    builder.enable_all().build()
}

/// `--seconds` checked: a positive, finite number of seconds.
pub fn time_limit(seconds: Option<f64>) -> Result<Option<Duration>> {
    seconds
        .map(|s| {
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero() && s < 1e9)
                .ok_or_else(|| {
                    anyhow::anyhow!("--seconds must be a positive number of seconds, not {s}")
                })
        })
        .transpose()
}

/// Cancels `cancel` on SIGINT or SIGTERM, or once `limit` has passed, saying so on stderr: searches in flight are
/// dropped, finished expansions stay. Must be called inside a tokio runtime.
pub fn stop_on_interrupt_or_after(cancel: &CancelToken, limit: Option<Duration>) {
    if let Some(limit) = limit {
        let stop = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(limit).await;
            eprintln!(
                "{} s are up: searches in flight are dropped, finished expansions are saved",
                limit.as_secs_f64()
            );
            stop.cancel();
        });
    }
    let stop = cancel.clone();
    tokio::spawn(async move {
        let signal = super::edge::interrupted().await;
        eprintln!(
            "{signal}: stopping; searches in flight are dropped, finished expansions are saved"
        );
        stop.cancel();
    });
}
