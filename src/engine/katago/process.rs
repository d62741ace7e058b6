//! The KataGo process behind [`super::KataGoEngine`]: starting it and checking its version, writing
//! queries, and routing its replies (by query id and turn) to the searches waiting for them.

use super::protocol::{Reply, classify, report_from};
use super::{KataGoConfig, MIN_VERSION, Perspective};
use crate::engine::line::{CappedLines, KATAGO_MAX_LINE, LineError};
use crate::engine::process::StderrTail;
use crate::engine::{EngineError, Report};
use crate::go::{BoardSize, Color};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{mpsc, oneshot};

/// A running KataGo.
pub(super) struct Process {
    /// `None` once closed: KataGo then finishes its queued queries and exits.
    pub(super) stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    pub(super) waiting: Mutex<HashMap<String, Waiting>>,
    pub(super) alive: AtomicBool,
    pub(super) pid: Option<u32>,
    pub(super) version: Mutex<String>,
    pub(super) stderr: StderrTail,
    pub(super) name: String,
    pub(super) perspective: Perspective,
    /// Why the reader stopped, when KataGo's output itself was at fault (a reply line without end).
    pub(super) garbled: Mutex<Option<String>>,
}

pub(super) type ReportSender = mpsc::Sender<Result<Report, EngineError>>;

pub(super) enum Waiting {
    /// An action's echo (`query_version`).
    Action(oneshot::Sender<Value>),
    /// An analysis query: one stream per turn.
    Turns {
        size: BoardSize,
        to_move: Color,
        turns: HashMap<usize, ReportSender>,
    },
}

pub(super) async fn start(config: &KataGoConfig) -> Result<Arc<Process>, EngineError> {
    let unavailable = |detail: String| EngineError::Unavailable {
        engine: "katago".into(),
        detail,
    };
    let crate::engine::process::Spawned {
        child,
        stdin,
        stdout,
        stderr: stderr_lines,
        stderr_task,
    } = crate::engine::process::spawn(&config.command, unavailable)?;
    let process = Arc::new(Process {
        stdin: tokio::sync::Mutex::new(Some(stdin)),
        waiting: Mutex::new(HashMap::new()),
        alive: AtomicBool::new(true),
        pid: child.id(),
        version: Mutex::new(String::new()),
        stderr: stderr_lines.clone(),
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
                stderr_lines.describe()
            )));
        }
        Err(_) => {
            return Err(unavailable(format!(
                "no answer to `query_version` within {:?}{}",
                config.startup_timeout,
                stderr_lines.describe()
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

pub(super) fn version_at_least(version: &str, min: (u32, u32)) -> bool {
    let mut parts = version
        .split('.')
        .map(|p| p.trim().parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= min
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
                process.stderr.describe()
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
    pub(super) fn lock_waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn version(&self) -> String {
        self.version
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(super) fn is_waiting_for(&self, id: &str, turn: usize) -> bool {
        matches!(self.lock_waiting().get(id), Some(Waiting::Turns { turns, .. }) if turns.contains_key(&turn))
    }

    pub(super) fn died(&self, when: &str) -> EngineError {
        EngineError::Died {
            engine: self.name.clone(),
            detail: format!("the process ended {when}{}", self.stderr.describe()),
        }
    }

    pub(super) async fn write(&self, value: &Value) -> Result<(), EngineError> {
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
    pub(super) async fn fail(&self, id: &str, error: EngineError) {
        let removed = self.lock_waiting().remove(id);
        if let Some(Waiting::Turns { turns, .. }) = removed {
            for tx in turns.values() {
                let _ = tx.send(Err(error.clone())).await;
            }
        }
    }

    pub(super) async fn deliver(&self, line: &str) {
        let Some(reply) = classify(line) else {
            self.stderr.push(format!("(stdout) {line}"));
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
            } => self.stderr.push(format!("(error) {message}")),
            Reply::Warning { id, message, field } => self.stderr.push(format!(
                "(warning for {}) {message} {}",
                id.unwrap_or_default(),
                field.unwrap_or_default()
            )),
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
