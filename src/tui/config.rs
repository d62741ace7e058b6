//! The configuration file (`config.toml` in the config directory) and where tengen keeps its files.
//!
//! Keys (all optional):
//! - `book`: the book `tengen` opens without arguments (default: the 7x7 book built into the binary)
//! - `engine`: the engine for expansion and analysis (default `onnx`, the shipped network; `rollout` where
//!   no network runtime can be had)
//! - `theme`: `dark`, `light`, `high-contrast`, `colorblind`, or a user theme in `themes/` (default `dark`)
//! - `record_sessions`: record every session to the data directory (default `true`)
//! - `[jobs] concurrent`: how many expansions run at once, K (default 2; at most four per core)
//! - `[jobs] expand_visits`: visits per expansion search (default 200; at most [`MAX_VISITS`])
//! - `[jobs] analyze_visits`: visits per position of a deep analysis (default 2000; at most
//!   [`MAX_VISITS`])
//!
//! Unknown keys are reported in the status line, not fatal; a value out of its range is an error naming
//! the file and the key. A theme that is not a name (`../x`) is reported and the default theme kept.
//! `TENGEN_CONFIG` and `TENGEN_DATA` override the directories.

use std::path::{Path, PathBuf};

/// The most visits a configured search may ask for.
pub const MAX_VISITS: u64 = 100_000_000;

/// The most expansions that may run at once: four per core (each holds a search's threads and memory).
pub fn max_concurrent() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()) * 4
}

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub book: Option<PathBuf>,
    pub engine: String,
    pub theme: String,
    pub record_sessions: bool,
    pub jobs: JobsConfig,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JobsConfig {
    pub concurrent: usize,
    pub expand_visits: u64,
    pub analyze_visits: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            book: None,
            engine: crate::engine::spec::DEFAULT.into(),
            theme: "dark".into(),
            record_sessions: true,
            jobs: JobsConfig {
                concurrent: 2,
                expand_visits: 200,
                analyze_visits: 2000,
            },
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl Config {
    /// Reads the config file if there is one; returns it with warnings about keys it does not know.
    pub fn load(path: &Path) -> Result<(Config, Vec<String>), ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok((Config::default(), Vec::new()))
            }
            Err(source) => Err(ConfigError::Io {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    pub fn parse(text: &str, origin: &str) -> Result<(Config, Vec<String>), ConfigError> {
        let bad = |message: String| ConfigError::Parse {
            path: origin.to_string(),
            message,
        };
        let table: toml::Table = toml::from_str(text).map_err(|e| bad(e.message().to_string()))?;
        let mut config = Config::default();
        let mut warnings = Vec::new();
        for (key, value) in &table {
            match (key.as_str(), value) {
                ("book", toml::Value::String(s)) => config.book = Some(PathBuf::from(s)),
                ("engine", toml::Value::String(s)) => config.engine = s.clone(),
                ("theme", toml::Value::String(s)) => match super::theme::check_name(s) {
                    Ok(()) => config.theme = s.clone(),
                    Err(why) => warnings.push(format!(
                        "{origin}: theme: {why}; keeping `{}`",
                        config.theme
                    )),
                },
                ("record_sessions", toml::Value::Boolean(b)) => config.record_sessions = *b,
                ("jobs", toml::Value::Table(jobs)) => {
                    for (key, value) in jobs {
                        let n = value.as_integer().filter(|n| *n > 0).map(|n| n as u64);
                        let max = match key.as_str() {
                            "concurrent" => max_concurrent() as u64,
                            _ => MAX_VISITS,
                        };
                        match (key.as_str(), n) {
                            ("concurrent" | "expand_visits" | "analyze_visits", Some(n))
                                if n > max =>
                            {
                                return Err(bad(format!(
                                    "jobs.{key} = {n} is above its limit {max}{}",
                                    if key == "concurrent" {
                                        " (four per core)"
                                    } else {
                                        ""
                                    }
                                )));
                            }
                            ("concurrent", Some(n)) => config.jobs.concurrent = n as usize,
                            ("expand_visits", Some(n)) => config.jobs.expand_visits = n,
                            ("analyze_visits", Some(n)) => config.jobs.analyze_visits = n,
                            ("concurrent" | "expand_visits" | "analyze_visits", None) => {
                                return Err(bad(format!(
                                    "jobs.{key} must be a positive whole number"
                                )));
                            }
                            _ => {
                                warnings.push(format!("{origin}: unknown key jobs.{key} (ignored)"))
                            }
                        }
                    }
                }
                ("book" | "engine" | "theme" | "record_sessions" | "jobs", _) => {
                    return Err(bad(format!(
                        "`{key}` has the wrong type; see the documented keys"
                    )));
                }
                _ => warnings.push(format!("{origin}: unknown key `{key}` (ignored)")),
            }
        }
        Ok((config, warnings))
    }
}

/// Where tengen reads configuration and writes sessions.
#[derive(Debug, Clone, PartialEq)]
pub struct Dirs {
    pub config: PathBuf,
    pub data: PathBuf,
}

impl Dirs {
    /// The platform's directories (`~/.config/tengen`, `~/.local/share/tengen` on Linux), or the
    /// `TENGEN_CONFIG` / `TENGEN_DATA` overrides; `None` when neither gives an answer (no home directory).
    pub fn find() -> Option<Dirs> {
        let project = directories::ProjectDirs::from("org", "tengen", "tengen");
        let config = std::env::var_os("TENGEN_CONFIG")
            .map(PathBuf::from)
            .or_else(|| project.as_ref().map(|p| p.config_dir().to_path_buf()))?;
        let data = std::env::var_os("TENGEN_DATA")
            .map(PathBuf::from)
            .or_else(|| project.as_ref().map(|p| p.data_dir().to_path_buf()))?;
        Some(Dirs { config, data })
    }

    pub fn config_file(&self) -> PathBuf {
        self.config.join("config.toml")
    }

    pub fn keymap_file(&self) -> PathBuf {
        self.config.join("keymap.toml")
    }

    pub fn themes_dir(&self) -> PathBuf {
        self.config.join("themes")
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.data.join("sessions")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_keys_parse_and_unknown_keys_are_reported() {
        let text = "engine = \"gnugo\"\ntheme = \"light\"\ncolour = 3\n[jobs]\nconcurrent = 4\nspeed = 9\n";
        let (config, warnings) = Config::parse(text, "config.toml").unwrap();
        assert_eq!(config.engine, "gnugo");
        assert_eq!(config.jobs.concurrent, 4);
        assert_eq!(config.jobs.expand_visits, 200);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("`colour`") && warnings[1].contains("jobs.speed"));
        let err = Config::parse("[jobs]\nconcurrent = 0\n", "config.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("config.toml") && err.contains("jobs.concurrent"),
            "{err}"
        );
        assert!(Config::parse("theme = 3", "c").is_err());
    }

    #[test]
    fn values_out_of_range_are_errors_and_a_theme_path_is_refused() {
        let err = Config::parse("[jobs]\nconcurrent = 100000\n", "config.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("config.toml") && err.contains("jobs.concurrent = 100000"),
            "{err}"
        );
        let most = format!("[jobs]\nconcurrent = {}\n", max_concurrent());
        assert!(Config::parse(&most, "c").is_ok());
        let err = Config::parse("[jobs]\nexpand_visits = 100000000000\n", "c")
            .unwrap_err()
            .to_string();
        assert!(err.contains("jobs.expand_visits"), "{err}");
        let (config, warnings) = Config::parse("theme = \"../../..\"\n", "config.toml").unwrap();
        assert_eq!(config.theme, "dark");
        assert!(
            warnings.len() == 1
                && warnings[0].contains("config.toml")
                && warnings[0].contains("not a name"),
            "{warnings:?}"
        );
    }
}
