//! Engine specifications as users type them (`--engine onnx`, `rollout`, `katago`, `gtp:gnugo --level 10`,
//! `onnx:MODEL`, `pool:4:katago`) turned into engines. New backends add a prefix here and nowhere else.
//!
//! [`DEFAULT`] is the shipped network searched by tengen's PUCT: every command that grows or analyses a
//! book uses it unless told otherwise. `rollout` needs no network runtime and is the fallback where none
//! can be had ([`build_default`]); it judges only tiny boards well ([`caution`]).

use super::exact::ExactEngine;
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
pub const KNOWN: &str = "onnx | onnx:MODEL | katago | katago:COMMAND… | gtp[:COMMAND…] | pool:N:SPEC | exact:SPEC | rollout";

/// The default engine: the network built into tengen (KataGo's g170 b6c96), searched by tengen's PUCT
/// through ONNX Runtime.
pub const DEFAULT: &str = "onnx";

/// The largest board side on which `rollout`'s values can be trusted: its light playouts reproduce the
/// proven values of 3x3 to 5x5, and misjudge 7x7 by points (`docs/rollout.md`).
pub const ROLLOUT_MAX_SIDE: usize = 5;

/// Builds the engine a specification names.
pub fn build(spec: &str, opts: &SpecOptions) -> Result<Box<dyn Engine>, EngineError> {
    let spec = spec.trim();
    let (kind, rest) = match spec.split_once(':') {
        Some((k, r)) => (k, Some(r.trim())),
        None => (spec, None),
    };
    let unknown = || EngineError::BadQuery(format!("unknown engine `{spec}`: use {KNOWN}"));
    match (kind, rest) {
        ("rollout", None) => Ok(Box::new(ExactEngine::new(Arc::new(RolloutEngine::new(
            opts.threads,
        ))))),
        ("exact", Some(inner)) => Ok(Box::new(ExactEngine::new(Arc::from(build(inner, opts)?)))),
        ("onnx", None) => Ok(Box::new(super::mcts::MctsEngine::open_shipped(
            Default::default(),
        )?)),
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

/// The identity of the engine `spec` names, without starting it (reads a network file to hash it):
/// what [`Engine::id`] of the built engine gives, for commands that look engines up in a book.
pub fn identify(spec: &str, opts: &SpecOptions) -> Result<super::EngineId, EngineError> {
    use super::{EngineId, EngineKind, Network};
    let spec = spec.trim();
    let unknown = || EngineError::BadQuery(format!("unknown engine `{spec}`: use {KNOWN}"));
    let (kind, rest) = match spec.split_once(':') {
        Some((k, r)) => (k, Some(r.trim())),
        None => (spec, None),
    };
    Ok(match (kind, rest) {
        ("rollout", None) => EngineId::new(EngineKind::Rollout).with_exact(),
        ("exact", Some(inner)) => identify(inner, opts)?.with_exact(),
        ("onnx", None) => EngineId::onnx(Network::shipped()),
        ("onnx", Some(model)) => EngineId::onnx(Network::of_file(std::path::Path::new(model))),
        ("katago", None) => EngineId::program(
            EngineKind::KataGo,
            opts.katago_binary.as_deref().unwrap_or("katago"),
            opts.katago_model
                .as_deref()
                .map(|m| Network::of_file(std::path::Path::new(m))),
        ),
        ("katago", Some(command)) => KataGoEngine::new(KataGoConfig::new(
            split_command(command)?,
            Perspective::Black,
        ))
        .id(),
        ("gtp" | "gnugo", None) => EngineId::program(EngineKind::Gtp, &gnugo_command(&[])[0], None),
        ("gtp", Some(command)) => {
            EngineId::program(EngineKind::Gtp, &gtp_command(command)?[0], None)
        }
        ("pool", Some(rest)) => {
            let (_, inner) = rest.split_once(':').ok_or_else(unknown)?;
            identify(inner, opts)?
        }
        _ => return Err(unknown()),
    })
}

/// An engine built for a command, with what the user should be told about it.
pub struct Chosen {
    pub engine: Box<dyn Engine>,
    /// The specification actually built (`rollout` after a fallback).
    pub spec: String,
    /// Why the default network is not in use, when it fell back to `rollout`.
    pub fallback: Option<String>,
}

/// Builds `spec`. When it is the [`DEFAULT`] network and that cannot start (no ONNX Runtime could be
/// found or installed), builds `rollout` instead and says why; any other specification that fails is an
/// error, since the user asked for that engine by name.
pub fn build_default(spec: &str, opts: &SpecOptions) -> Result<Chosen, EngineError> {
    match build(spec, opts) {
        Ok(engine) => Ok(Chosen {
            engine,
            spec: spec.trim().to_string(),
            fallback: None,
        }),
        Err(error) if spec.trim() == DEFAULT => Ok(Chosen {
            engine: build("rollout", opts)?,
            spec: "rollout".into(),
            fallback: Some(format!(
                "the shipped network did not start ({error}); using rollout instead"
            )),
        }),
        Err(error) => Err(error),
    }
}

/// Whether `spec` searches with `rollout` (alone, in a pool or with exact endings).
pub fn uses_rollout(spec: &str) -> bool {
    let spec = spec.trim();
    if spec == "rollout" {
        return true;
    }
    if let Some(inner) = spec.strip_prefix("exact:") {
        return uses_rollout(inner);
    }
    spec.strip_prefix("pool:")
        .and_then(|rest| rest.split_once(':'))
        .is_some_and(|(_, inner)| uses_rollout(inner))
}

/// What a user must know before growing a book of `size` with `spec`, if anything: `rollout` on a board
/// larger than 5x5 gives values far from the truth, and a book grown with them is misleading.
pub fn caution(spec: &str, size: crate::go::BoardSize) -> Option<String> {
    (uses_rollout(spec) && size.width().max(size.height()) > ROLLOUT_MAX_SIDE).then(|| {
        format!(
            "rollout is unreliable on {size}: its light playouts misjudge boards larger than 5x5 by points, \
             so a book grown with it is misleading (the default engine, `{DEFAULT}`, is a network)"
        )
    })
}

/// A pool member that could not be rebuilt: every query fails with the reason.
struct Unbuildable(EngineError);

impl Engine for Unbuildable {
    fn name(&self) -> String {
        "unbuildable engine".into()
    }

    fn id(&self) -> super::EngineId {
        super::EngineId::unknown()
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
        assert!(
            build_default("onnx:no-such-model.onnx", &opts).is_err(),
            "a network named by the user does not fall back"
        );
        assert!(err("katago").contains("--katago-model"));
        assert!(err("bogus").contains("unknown engine"));
        assert!(err("pool:x:rollout").contains("unknown engine"));
        assert_eq!(
            gtp_command("gnugo --level 10").unwrap()[1..],
            ["--mode", "gtp", "--level", "10"]
        );
        assert_eq!(gtp_command("leela --gtp").unwrap(), ["leela", "--gtp"]);
    }

    #[test]
    fn specifications_are_identified_as_their_engines_identify_themselves() {
        let opts = SpecOptions {
            threads: 1,
            ..SpecOptions::default()
        };
        for spec in [
            "rollout",
            "pool:2:rollout",
            "gtp:gnugo --level 3",
            "exact:gtp:gnugo",
        ] {
            assert_eq!(
                identify(spec, &opts).unwrap(),
                build(spec, &opts).unwrap().id(),
                "{spec}"
            );
        }
        let command = "katago analysis -model ../shared/no-such-model.bin.gz";
        assert_eq!(
            identify(&format!("katago:{command}"), &opts)
                .unwrap()
                .network
                .unwrap()
                .name,
            "no-such-model"
        );
        assert!(identify("bogus", &opts).is_err());
    }

    #[test]
    fn rollout_on_boards_over_5x5_comes_with_a_caution() {
        let size = |n| crate::go::BoardSize::square(n).unwrap();
        assert!(uses_rollout("rollout") && uses_rollout(" pool:2:rollout"));
        assert!(
            !uses_rollout("onnx") && !uses_rollout("gtp:gnugo") && !uses_rollout("pool:2:onnx")
        );
        assert!(caution("rollout", size(5)).is_none());
        assert!(caution(DEFAULT, size(19)).is_none());
        let text = caution("pool:3:rollout", size(7)).unwrap();
        assert!(text.contains("rollout") && text.contains("7x7"), "{text}");
        let rectangle = crate::go::BoardSize::new(7, 5).unwrap();
        assert!(caution("rollout", rectangle).is_some());
    }
}
