//! `katago`: KataGo's analysis engine as a child process speaking JSON lines.
//!
//! One process serves many queries at once, matched by id (and turn). The process is started on the first
//! query with `query_version` as the handshake, and again on the next query after it dies; a death fails
//! every query in flight with the exit status and the last lines of its stderr, so nothing is lost
//! silently. Cancelling an analysis (or dropping it, or reaching its time limit) sends `terminate`, after
//! which KataGo still sends the final reply with what it found.

pub mod protocol;

pub use protocol::Perspective;

use super::{Analysis, Engine, EngineError, Query};
use crate::go::{BoardSize, Color};
use protocol::query_json;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The oldest KataGo whose analysis engine has everything this client uses (`terminate`,
/// `reportDuringSearchEvery`, `avoidMoves` with `untilDepth`).
pub const MIN_VERSION: (u32, u32) = (1, 9);

/// How to run KataGo.
#[derive(Debug, Clone)]
pub struct KataGoConfig {
    /// The program and its arguments, e.g. `["katago", "analysis", "-config", "a.cfg", "-model", "m.bin.gz"]`;
    /// run directly, never through a shell. A remote engine is `["ssh", "host", "katago", ...]`.
    pub command: Vec<String>,
    /// The `reportAnalysisWinratesAs` of the config KataGo runs with (see [`KataGoConfig::standard`]).
    pub perspective: Perspective,
    /// How long start-up may take (loading a large network on a GPU can take a minute).
    pub startup_timeout: Duration,
}

impl KataGoConfig {
    /// The usual command line: `BINARY analysis -config CONFIG -model MODEL`, with the reporting perspective
    /// forced to Black so that values need no guessing.
    pub fn standard(binary: &str, config: &str, model: &str) -> KataGoConfig {
        let command = [binary, "analysis", "-config", config, "-model", model]
            .iter()
            .map(|s| s.to_string())
            .chain([
                "-override-config".into(),
                "reportAnalysisWinratesAs=BLACK".into(),
            ])
            .collect();
        KataGoConfig::new(command, Perspective::Black)
    }

    pub fn new(command: Vec<String>, perspective: Perspective) -> KataGoConfig {
        KataGoConfig {
            command,
            perspective,
            startup_timeout: Duration::from_secs(120),
        }
    }
}

/// Options of KataGo's protocol that tengen's [`Query`] does not carry.
#[derive(Debug, Clone, Default)]
pub struct KataGoOptions {
    /// Turns to analyse (0 = the setup position); each gets its own [`Analysis`]. `None`: the last only.
    pub turns: Option<Vec<usize>>,
    /// Higher runs first among queries not yet started.
    pub priority: Option<i64>,
}

pub struct KataGoEngine {
    config: KataGoConfig,
    shared: Arc<Shared>,
    /// Worked out on first use: it hashes the network file, which may be large.
    id: Arc<std::sync::OnceLock<super::EngineId>>,
}

struct Shared {
    process: tokio::sync::Mutex<Option<Arc<Process>>>,
    next_id: AtomicU64,
    starts: AtomicU64,
}

impl KataGoEngine {
    pub fn new(config: KataGoConfig) -> KataGoEngine {
        KataGoEngine {
            config,
            shared: Arc::new(Shared {
                process: tokio::sync::Mutex::new(None),
                next_id: AtomicU64::new(1),
                starts: AtomicU64::new(0),
            }),
            id: Arc::default(),
        }
    }

    /// Starts KataGo now rather than on the first query, returning its version.
    pub async fn start(&self) -> Result<String, EngineError> {
        let p = self.process().await?;
        Ok(p.version())
    }

    /// How many times a KataGo process has been started (restarts after a death included).
    pub fn starts(&self) -> u64 {
        self.shared.starts.load(Ordering::SeqCst)
    }

    /// The process id of the running KataGo, if one runs.
    pub async fn pid(&self) -> Option<u32> {
        let guard = self.shared.process.lock().await;
        guard
            .as_ref()
            .filter(|p| p.alive.load(Ordering::SeqCst))
            .and_then(|p| p.pid)
    }

    /// Analyses a query with KataGo's extra options: one [`Analysis`] per analysed turn.
    pub fn analyze_with(&self, query: Query, options: KataGoOptions) -> Vec<Analysis> {
        let turns = options
            .turns
            .clone()
            .unwrap_or_else(|| vec![query.moves.len()]);
        let (id, json) = {
            let id = self.next_id();
            let json = query_json(&id, &query, options.turns.as_deref(), options.priority);
            (id, json)
        };
        self.submit(
            id,
            json,
            query.size,
            query.to_move(),
            turns,
            options.turns.is_some(),
            query.max_time,
        )
    }

    /// Sends a query written by hand (any key KataGo knows, e.g. `overrideSettings`); the `id` is set here.
    /// `turn` is the turn whose reply is expected (the number of moves, unless `analyzeTurns` says more).
    pub fn analyze_json(
        &self,
        mut json: Value,
        size: BoardSize,
        to_move: Color,
        turn: usize,
    ) -> Analysis {
        let id = self.next_id();
        if let Some(obj) = json.as_object_mut() {
            obj.insert("id".into(), json!(id));
        }
        self.submit(id, json, size, to_move, vec![turn], false, None)
            .remove(0)
    }

    fn next_id(&self) -> String {
        format!(
            "tengen-{}",
            self.shared.next_id.fetch_add(1, Ordering::SeqCst)
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn submit(
        &self,
        id: String,
        json: Value,
        size: BoardSize,
        to_move: Color,
        turns: Vec<usize>,
        per_turn_terminate: bool,
        max_time: Option<Duration>,
    ) -> Vec<Analysis> {
        let mut analyses = Vec::new();
        let mut senders = HashMap::new();
        let mut cancels = Vec::new();
        for &t in &turns {
            let (analysis, tx, cancel) = Analysis::channel();
            senders.insert(t, tx.clone());
            cancels.push((t, cancel, tx));
            analyses.push(analysis);
        }
        let shared = Arc::clone(&self.shared);
        let config = self.config.clone();
        tokio::spawn(async move {
            let process = match ensure_started(&shared, &config).await {
                Ok(p) => p,
                Err(e) => {
                    for tx in senders.values() {
                        let _ = tx.send(Err(e.clone())).await;
                    }
                    return;
                }
            };
            {
                let mut waiting = process.waiting.lock().unwrap_or_else(|e| e.into_inner());
                if !process.alive.load(Ordering::SeqCst) {
                    drop(waiting);
                    let e = process.died("before the query was sent");
                    for tx in senders.values() {
                        let _ = tx.send(Err(e.clone())).await;
                    }
                    return;
                }
                waiting.insert(
                    id.clone(),
                    Waiting::Turns {
                        size,
                        to_move,
                        turns: senders,
                    },
                );
            }
            if let Err(e) = process.write(&json).await {
                process.fail(&id, e).await;
                return;
            }
            for (turn, cancel, tx) in cancels {
                let process = Arc::clone(&process);
                let id = id.clone();
                // The watcher holds the stream weakly, so that the stream ends with its final report.
                let weak = tx.downgrade();
                drop(tx);
                tokio::spawn(async move {
                    let started = tokio::time::Instant::now();
                    loop {
                        tokio::select! {
                            _ = cancel.cancelled() => break,
                            _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                        }
                        if !process.is_waiting_for(&id, turn) {
                            return;
                        }
                        let dropped = weak.upgrade().is_none_or(|tx| tx.is_closed());
                        let time_up = max_time.is_some_and(|t| started.elapsed() >= t);
                        if dropped || time_up {
                            break;
                        }
                    }
                    if process.is_waiting_for(&id, turn) {
                        let mut term = json!({"id": format!("{id}-stop-{turn}"), "action": "terminate", "terminateId": id});
                        if per_turn_terminate {
                            term["turnNumbers"] = json!([turn]);
                        }
                        let _ = process.write(&term).await;
                    }
                });
            }
        });
        analyses
    }

    async fn process(&self) -> Result<Arc<Process>, EngineError> {
        ensure_started(&self.shared, &self.config).await
    }
}

impl Drop for KataGoEngine {
    /// Closes KataGo's stdin so that the process ends once its queries are answered.
    fn drop(&mut self) {
        if let Ok(guard) = self.shared.process.try_lock()
            && let Some(p) = guard.as_ref()
            && let Ok(mut stdin) = p.stdin.try_lock()
        {
            stdin.take();
        }
    }
}

impl Engine for KataGoEngine {
    fn name(&self) -> String {
        let version = self
            .shared
            .process
            .try_lock()
            .ok()
            .and_then(|g| g.as_ref().map(|p| p.version()));
        match version {
            Some(v) if !v.is_empty() => format!("katago {v}"),
            _ => "katago".to_string(),
        }
    }

    fn id(&self) -> super::EngineId {
        self.id
            .get_or_init(|| {
                let command = &self.config.command;
                // `ssh host katago …` runs KataGo elsewhere: the program is the one after the host.
                let program = command
                    .iter()
                    .find(|a| a.contains("katago"))
                    .or(command.first())
                    .map(String::as_str)
                    .unwrap_or("katago");
                let network = command
                    .iter()
                    .position(|a| a == "-model")
                    .and_then(|i| command.get(i + 1))
                    .map(|m| super::Network::of_file(std::path::Path::new(m)));
                super::EngineId::program(super::EngineKind::KataGo, program, network)
            })
            .clone()
    }

    fn analyze(&self, query: Query) -> Analysis {
        self.analyze_with(query, KataGoOptions::default()).remove(0)
    }
}

/// The running process, starting one (again) if there is none or it died.
async fn ensure_started(
    shared: &Shared,
    config: &KataGoConfig,
) -> Result<Arc<Process>, EngineError> {
    let mut guard = shared.process.lock().await;
    if let Some(p) = guard.as_ref()
        && p.alive.load(Ordering::SeqCst)
    {
        return Ok(Arc::clone(p));
    }
    *guard = None;
    shared.starts.fetch_add(1, Ordering::SeqCst);
    let process = start(config).await?;
    *guard = Some(Arc::clone(&process));
    Ok(process)
}

mod process;
use process::{Process, Waiting, start};
#[cfg(test)]
mod tests;
