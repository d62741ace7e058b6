//! An engine run as a child process (GTP engines, KataGo's analysis engine): started directly, never
//! through a shell, with piped streams, killed when dropped, and the last lines of its stderr kept so that
//! an error can say why the engine stopped.

use super::EngineError;
use super::line::{CappedLines, GTP_MAX_LINE};
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::BufReader;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

/// Lines of stderr kept for error messages.
const STDERR_LINES: usize = 40;

/// The last lines an engine wrote to stderr.
#[derive(Debug, Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    pub fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// "; its stderr ends with: …" (its last 12 lines), or nothing when it wrote none.
    pub fn describe(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if lines.is_empty() {
            return String::new();
        }
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

/// A started engine process and its streams.
pub struct Spawned {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: StderrTail,
    /// Reads stderr until the process closes it.
    pub stderr_task: JoinHandle<()>,
}

/// Starts `command` (program and arguments). `unavailable` wraps a reason into the caller's error.
pub fn spawn(
    command: &[String],
    unavailable: impl Fn(String) -> EngineError,
) -> Result<Spawned, EngineError> {
    let program = command
        .first()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| unavailable("no command given".into()))?;
    let mut child = Command::new(program)
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            unavailable(format!(
                "could not run `{}`: {e} (check the path and permissions)",
                command.join(" ")
            ))
        })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(unavailable(
            "its standard streams could not be opened".into(),
        ));
    };
    let tail = StderrTail::default();
    let stderr_task = {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut reader = CappedLines::new(BufReader::new(stderr), GTP_MAX_LINE);
            while let Ok(Some(line)) = reader.next_line_lossy().await {
                tail.push(line);
            }
        })
    };
    Ok(Spawned {
        child,
        stdin,
        stdout,
        stderr: tail,
        stderr_task,
    })
}
