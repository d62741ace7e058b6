//! `katago`: KataGo's analysis engine as a child process speaking JSON lines.
//!
//! One process serves many queries at once, matched by id (and turn). The process is started on the first
//! query with `query_version` as the handshake, and again on the next query after it dies; a death fails
//! every query in flight with the exit status and the last lines of its stderr, so nothing is lost
//! silently. Cancelling an analysis (or dropping it, or reaching its time limit) sends `terminate`, after
//! which KataGo still sends the final reply with what it found.

pub mod protocol;

pub use protocol::Perspective;

use super::line::{CappedLines, GTP_MAX_LINE, KATAGO_MAX_LINE, LineError};
use super::{Analysis, Engine, EngineError, Query, Report};
use crate::go::{BoardSize, Color};
use protocol::{Reply, classify, query_json, report_from};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

/// The oldest KataGo whose analysis engine has everything this client uses (`terminate`,
/// `reportDuringSearchEvery`, `avoidMoves` with `untilDepth`).
pub const MIN_VERSION: (u32, u32) = (1, 9);

/// Lines of stderr kept for error messages.
const STDERR_LINES: usize = 40;

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

/// A running KataGo.
struct Process {
    /// `None` once closed: KataGo then finishes its queued queries and exits.
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    waiting: Mutex<HashMap<String, Waiting>>,
    alive: AtomicBool,
    pid: Option<u32>,
    version: Mutex<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    name: String,
    perspective: Perspective,
    /// Why the reader stopped, when KataGo's output itself was at fault (a reply line without end).
    garbled: Mutex<Option<String>>,
}

type ReportSender = mpsc::Sender<Result<Report, EngineError>>;

enum Waiting {
    /// An action's echo (`query_version`).
    Action(oneshot::Sender<Value>),
    /// An analysis query: one stream per turn.
    Turns {
        size: BoardSize,
        to_move: Color,
        turns: HashMap<usize, ReportSender>,
    },
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

async fn start(config: &KataGoConfig) -> Result<Arc<Process>, EngineError> {
    let name = config.command.first().cloned().unwrap_or_default();
    let unavailable = |detail: String| EngineError::Unavailable {
        engine: "katago".into(),
        detail,
    };
    if name.is_empty() {
        return Err(unavailable("no command given".into()));
    }
    let mut child: Child = Command::new(&name)
        .args(&config.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            unavailable(format!(
                "could not run `{}`: {e} (check the path and permissions)",
                config.command.join(" ")
            ))
        })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(unavailable(
            "its standard streams could not be opened".into(),
        ));
    };
    let stderr_lines = Arc::new(Mutex::new(VecDeque::new()));
    let stderr_task = {
        let lines = Arc::clone(&stderr_lines);
        tokio::spawn(async move {
            let mut reader = CappedLines::new(BufReader::new(stderr), GTP_MAX_LINE);
            while let Ok(Some(line)) = reader.next_line_lossy().await {
                push_line(&lines, line);
            }
        })
    };
    let process = Arc::new(Process {
        stdin: tokio::sync::Mutex::new(Some(stdin)),
        waiting: Mutex::new(HashMap::new()),
        alive: AtomicBool::new(true),
        pid: child.id(),
        version: Mutex::new(String::new()),
        stderr: Arc::clone(&stderr_lines),
        name: "katago".into(),
        perspective: config.perspective,
        garbled: Mutex::new(None),
    });
    tokio::spawn(read_replies(Arc::clone(&process), child, stdout));

    let (tx, rx) = oneshot::channel();
    let version_id = "tengen-version".to_string();
    process
        .lock_waiting()
        .insert(version_id.clone(), Waiting::Action(tx));
    let handshake = async {
        process
            .write(&json!({"id": version_id, "action": "query_version"}))
            .await
            .ok();
        rx.await
    };
    let reply = match tokio::time::timeout(config.startup_timeout, handshake).await {
        Ok(Ok(reply)) => reply,
        Ok(Err(_)) => {
            // The process ended before answering: let stderr drain, then show it.
            let _ = tokio::time::timeout(Duration::from_secs(2), stderr_task).await;
            let garbled = process
                .garbled
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            let why = match garbled {
                Some(why) => format!("wrote no KataGo reply: {why}; it was stopped"),
                None => "exited during start-up".into(),
            };
            return Err(unavailable(format!(
                "`{}` {why}{}",
                config.command.join(" "),
                stderr_tail(&stderr_lines)
            )));
        }
        Err(_) => {
            return Err(unavailable(format!(
                "no answer to `query_version` within {:?}{}",
                config.startup_timeout,
                stderr_tail(&stderr_lines)
            )));
        }
    };
    let version = reply
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if !version_at_least(&version, MIN_VERSION) {
        return Err(unavailable(format!(
            "KataGo {version} is too old: tengen needs {}.{} or newer",
            MIN_VERSION.0, MIN_VERSION.1
        )));
    }
    *process.version.lock().unwrap_or_else(|e| e.into_inner()) = version;
    Ok(process)
}

fn version_at_least(version: &str, min: (u32, u32)) -> bool {
    let mut parts = version
        .split('.')
        .map(|p| p.trim().parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= min
}

fn push_line(lines: &Mutex<VecDeque<String>>, line: String) {
    let mut lines = lines.lock().unwrap_or_else(|e| e.into_inner());
    if lines.len() == STDERR_LINES {
        lines.pop_front();
    }
    lines.push_back(line);
}

fn stderr_tail(lines: &Mutex<VecDeque<String>>) -> String {
    let lines = lines.lock().unwrap_or_else(|e| e.into_inner());
    if lines.is_empty() {
        String::new()
    } else {
        let tail: Vec<&str> = lines
            .iter()
            .rev()
            .take(12)
            .rev()
            .map(String::as_str)
            .collect();
        format!("; its stderr ends with:\n  {}", tail.join("\n  "))
    }
}

/// Reads KataGo's stdout until it closes, delivering each reply; then fails whatever is still waiting.
async fn read_replies(
    process: Arc<Process>,
    mut child: Child,
    stdout: tokio::process::ChildStdout,
) {
    let mut lines = CappedLines::new(BufReader::new(stdout), KATAGO_MAX_LINE);
    let mut garbled = None;
    loop {
        match lines.next_line().await {
            Ok(Some(line)) => process.deliver(&line).await,
            Err(e @ LineError::TooLong { .. }) => {
                // Replies are out of step for good: stop the engine and fail what waits.
                garbled = Some(e.to_string());
                let _ = child.start_kill();
                break;
            }
            Ok(None) | Err(LineError::Io(_)) => break,
        }
    }
    process.alive.store(false, Ordering::SeqCst);
    let status = match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(Ok(status)) => status.to_string(),
        _ => "no exit status".to_string(),
    };
    // Give stderr a moment to flush its last lines into the message.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let error = match garbled {
        Some(why) => {
            *process.garbled.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.clone());
            EngineError::Refused {
                engine: process.name.clone(),
                message: format!("not a KataGo reply: {why}; the engine was stopped"),
            }
        }
        None => EngineError::Died {
            engine: process.name.clone(),
            detail: format!(
                "the process ended ({status}) with queries in flight{}",
                stderr_tail(&process.stderr)
            ),
        },
    };
    let waiting: Vec<Waiting> = process.lock_waiting().drain().map(|(_, w)| w).collect();
    for w in waiting {
        if let Waiting::Turns { turns, .. } = w {
            for tx in turns.values() {
                let _ = tx.send(Err(error.clone())).await;
            }
        }
    }
}

impl Process {
    fn lock_waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn version(&self) -> String {
        self.version
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn is_waiting_for(&self, id: &str, turn: usize) -> bool {
        matches!(self.lock_waiting().get(id), Some(Waiting::Turns { turns, .. }) if turns.contains_key(&turn))
    }

    fn died(&self, when: &str) -> EngineError {
        EngineError::Died {
            engine: self.name.clone(),
            detail: format!("the process ended {when}{}", stderr_tail(&self.stderr)),
        }
    }

    async fn write(&self, value: &Value) -> Result<(), EngineError> {
        let mut line = value.to_string();
        line.push('\n');
        let mut guard = self.stdin.lock().await;
        let result = async {
            let stdin = guard.as_mut().ok_or(std::io::ErrorKind::BrokenPipe)?;
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        }
        .await;
        result.map_err(|e| {
            self.alive.store(false, Ordering::SeqCst);
            self.died(&format!("(writing to it failed: {e})"))
        })
    }

    /// Fails every stream of query `id` with `error`.
    async fn fail(&self, id: &str, error: EngineError) {
        let removed = self.lock_waiting().remove(id);
        if let Some(Waiting::Turns { turns, .. }) = removed {
            for tx in turns.values() {
                let _ = tx.send(Err(error.clone())).await;
            }
        }
    }

    async fn deliver(&self, line: &str) {
        let Some(reply) = classify(line) else {
            push_line(&self.stderr, format!("(stdout) {line}"));
            return;
        };
        match reply {
            Reply::Action { id, value, .. } => {
                if let Some(Waiting::Action(tx)) = self.lock_waiting().remove(&id) {
                    let _ = tx.send(value);
                }
            }
            Reply::Error {
                id: Some(id),
                message,
                field,
            } => {
                let message = match field {
                    Some(f) => format!("{message} (field `{f}`)"),
                    None => message,
                };
                self.fail(
                    &id,
                    EngineError::Refused {
                        engine: self.name.clone(),
                        message,
                    },
                )
                .await;
            }
            Reply::Error {
                id: None, message, ..
            } => push_line(&self.stderr, format!("(error) {message}")),
            Reply::Warning { id, message, field } => push_line(
                &self.stderr,
                format!(
                    "(warning for {}) {message} {}",
                    id.unwrap_or_default(),
                    field.unwrap_or_default()
                ),
            ),
            Reply::Analysis { id, turn, value } => {
                let delivery =
                    {
                        let mut waiting = self.lock_waiting();
                        let Some(Waiting::Turns {
                            size,
                            to_move,
                            turns,
                        }) = waiting.get_mut(&id)
                        else {
                            return;
                        };
                        // Without analyzeTurns there is one stream, whatever turn number KataGo gives.
                        let key = match turn {
                            Some(t) if turns.contains_key(&t) => Some(t),
                            _ if turns.len() == 1 => turns.keys().next().copied(),
                            _ => None,
                        };
                        let Some(key) = key else { return };
                        let report = report_from(&value, *size, self.perspective, *to_move)
                            .map_err(|e| EngineError::Refused {
                                engine: self.name.clone(),
                                message: format!("unreadable reply: {e}"),
                            });
                        let done = report.as_ref().map_or(true, |r| r.is_final);
                        let tx = if done {
                            turns.remove(&key)
                        } else {
                            turns.get(&key).cloned()
                        };
                        if turns.is_empty() {
                            waiting.remove(&id);
                        }
                        tx.map(|tx| (tx, report, done))
                    };
                if let Some((tx, report, done)) = delivery {
                    if done {
                        let _ = tx.send(report).await;
                    } else {
                        // A slow reader loses reports sent during the search, never the final one.
                        let _ = tx.try_send(report);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
