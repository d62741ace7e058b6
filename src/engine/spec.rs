//! Engine specifications as users type them (`--engine rollout`, `katago`, `gtp:gnugo --level 10`,
//! `onnx:MODEL`, `pool:4:katago`) turned into engines. New backends add a prefix here and nowhere else.

use super::gtp::GtpEngine;
use super::katago::{KataGoConfig, KataGoEngine, Perspective};
use super::pool::EnginePool;
use super::rollout::RolloutEngine;
use super::{Engine, EngineError};
use std::sync::Arc;

/// Settings the specification string does not carry.
#[derive(Debug, Clone, Default)]
pub struct SpecOptions {
    /// Search threads for the embedded engine (0: all cores).
    pub threads: usize,
    /// KataGo's analysis config and network, for the plain `katago` specification.
    pub katago_config: Option<String>,
    pub katago_model: Option<String>,
    /// The KataGo binary (default `katago` from the PATH).
    pub katago_binary: Option<String>,
}

/// The specifications `build` understands, for help texts.
pub const KNOWN: &str =
    "rollout | katago | katago:COMMAND… | gtp[:COMMAND…] | onnx:MODEL | pool:N:SPEC";

/// Builds the engine a specification names.
pub fn build(spec: &str, opts: &SpecOptions) -> Result<Box<dyn Engine>, EngineError> {
    let spec = spec.trim();
    let (kind, rest) = match spec.split_once(':') {
        Some((k, r)) => (k, Some(r.trim())),
        None => (spec, None),
    };
    let unknown = || EngineError::BadQuery(format!("unknown engine `{spec}`: use {KNOWN}"));
    match (kind, rest) {
        ("rollout", None) => Ok(Box::new(RolloutEngine::new(opts.threads))),
        ("katago", None) => {
            let (Some(config), Some(model)) = (&opts.katago_config, &opts.katago_model) else {
                return Err(EngineError::Unavailable {
                    engine: "katago".into(),
                    detail: "give --katago-config and --katago-model, or the whole command as `katago:COMMAND`".into(),
                });
            };
            let binary = opts.katago_binary.as_deref().unwrap_or("katago");
            Ok(Box::new(KataGoEngine::new(KataGoConfig::standard(
                binary, config, model,
            ))))
        }
        ("katago", Some(command)) => {
            let argv = split_command(command)?;
            // A hand-written command may not force Black's view: force it here unless it says otherwise.
            let mut argv = argv;
            if !argv.iter().any(|a| a.contains("reportAnalysisWinratesAs")) {
                argv.extend([
                    "-override-config".into(),
                    "reportAnalysisWinratesAs=BLACK".into(),
                ]);
            }
            Ok(Box::new(KataGoEngine::new(KataGoConfig::new(
                argv,
                Perspective::Black,
            ))))
        }
        ("gtp" | "gnugo", None) => Ok(Box::new(GtpEngine::new(gnugo_command(&[])))),
        ("gtp", Some(command)) => Ok(Box::new(GtpEngine::new(gtp_command(command)?))),
        ("onnx", Some(model)) => {
            let engine =
                super::mcts::MctsEngine::open(std::path::Path::new(model), Default::default())?;
            Ok(Box::new(engine))
        }
        ("pool", Some(rest)) => {
            let (n, inner) = rest.split_once(':').ok_or_else(unknown)?;
            let n: usize = n.trim().parse().map_err(|_| unknown())?;
            // Build one member now so that a bad inner specification fails here, not later.
            build(inner, opts)?;
            let (inner, opts) = (inner.to_string(), opts.clone());
            let factory: super::pool::EngineFactory =
                Arc::new(move |_| match build(&inner, &opts) {
                    Ok(engine) => Arc::from(engine),
                    Err(error) => Arc::new(Unbuildable(error)) as Arc<dyn Engine>,
                });
            Ok(Box::new(EnginePool::new(n, 2, factory)))
        }
        _ => Err(unknown()),
    }
}

/// A pool member that could not be rebuilt: every query fails with the reason.
struct Unbuildable(EngineError);

impl Engine for Unbuildable {
    fn name(&self) -> String {
        "unbuildable engine".into()
    }

    fn analyze(&self, _query: super::Query) -> super::Analysis {
        super::Analysis::failed(self.0.clone())
    }
}

/// Splits a command line on whitespace (no shell: no quoting, globbing or variables).
pub fn split_command(command: &str) -> Result<Vec<String>, EngineError> {
    let argv: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    if argv.is_empty() {
        Err(EngineError::BadQuery("an empty engine command".into()))
    } else {
        Ok(argv)
    }
}

/// A GTP command line; `gnugo …` gets GNU Go's path and `--mode gtp` when they are missing.
pub fn gtp_command(command: &str) -> Result<Vec<String>, EngineError> {
    let argv = split_command(command)?;
    if argv[0] == "gnugo" || argv[0].ends_with("/gnugo") {
        Ok(gnugo_command(&argv[1..]))
    } else {
        Ok(argv)
    }
}

/// GNU Go in GTP mode with extra arguments; Debian installs it outside root's PATH, in `/usr/games`.
fn gnugo_command(extra: &[String]) -> Vec<String> {
    let debian = "/usr/games/gnugo";
    let program = if std::path::Path::new(debian).exists() {
        debian
    } else {
        "gnugo"
    };
    let mut argv = vec![program.to_string()];
    if !extra.iter().any(|a| a == "--mode") {
        argv.extend(["--mode".into(), "gtp".into()]);
    }
    argv.extend(extra.iter().cloned());
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifications_build_or_say_why_not() {
        let opts = SpecOptions {
            threads: 1,
            ..SpecOptions::default()
        };
        assert!(
            build("rollout", &opts)
                .unwrap()
                .name()
                .starts_with("rollout")
        );
        assert!(
            build("pool:2:rollout", &opts)
                .unwrap()
                .name()
                .starts_with("pool of 2")
        );
        let err = |spec: &str| {
            build(spec, &opts)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(err("onnx:no-such-model.onnx").contains("no-such-model.onnx"));
        assert!(err("katago").contains("--katago-model"));
        assert!(err("bogus").contains("unknown engine"));
        assert!(err("pool:x:rollout").contains("unknown engine"));
        assert_eq!(
            gtp_command("gnugo --level 10").unwrap()[1..],
            ["--mode", "gtp", "--level", "10"]
        );
        assert_eq!(gtp_command("leela --gtp").unwrap(), ["leela", "--gtp"]);
    }
}
