//! `gtp`: any engine speaking the Go Text Protocol, e.g. GNU Go or KataGo's GTP mode.
//!
//! [`GtpClient`] is the protocol: one command at a time over a child process run from an argv (never a
//! shell), responses up to the blank line, `?` answers turned into typed errors with the engine's words.
//! [`GtpEngine`] puts a client behind the [`Engine`] trait: it sets the position up from scratch for each
//! query and analyses with `kata-analyze` or `lz-analyze` when the engine has one (banned moves become
//! `avoid`), else asks for its one choice and values it with its own score estimate ([`choose`]).

use super::line::{CappedLines, GTP_MAX_LINE, LineError};
use super::process::StderrTail;
use super::{Analysis, CancelToken, Engine, EngineError, Query, Report};
use crate::go::{BoardSize, Color, KoRule, Move, Rules, Scoring};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::mpsc;

/// What `genmove` answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenMove {
    Play(Move),
    Resign,
}

/// A running GTP engine.
pub struct GtpClient {
    child: Child,
    stdin: ChildStdin,
    stdout: CappedLines<BufReader<ChildStdout>>,
    stderr: StderrTail,
    known: HashSet<String>,
    name: String,
    /// The task copying stderr; it ends when the engine's stderr closes (waited for when the engine
    /// dies, so that the error shows its last words).
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    /// The longest any one command may take before the engine counts as hung.
    pub timeout: Duration,
}

impl GtpClient {
    /// Starts the engine and asks for its name, version and commands.
    pub async fn start(command: &[String]) -> Result<GtpClient, EngineError> {
        let label = command.join(" ");
        let unavailable = |detail: String| EngineError::Unavailable {
            engine: label.clone(),
            detail,
        };
        let spawned = super::process::spawn(command, unavailable)?;
        let mut client = GtpClient {
            child: spawned.child,
            stdin: spawned.stdin,
            stdout: CappedLines::new(BufReader::new(spawned.stdout), GTP_MAX_LINE),
            stderr: spawned.stderr,
            known: HashSet::new(),
            name: label.clone(),
            stderr_task: Some(spawned.stderr_task),
            timeout: Duration::from_secs(60),
        };
        let name = match client.command("name").await {
            Ok(n) => n,
            Err(e) => {
                // Stop it and read its stderr to the end, so that the start-up error shows why.
                let _ = client.child.start_kill();
                client.wait_for_stderr().await;
                return Err(unavailable(format!(
                    "it did not answer `name` ({e}){}",
                    client.stderr_tail()
                )));
            }
        };
        let version = client.command("version").await.unwrap_or_default();
        client.name = format!("{name} {version}").trim().to_string();
        let list = client.command("list_commands").await?;
        client.known = list.lines().map(|l| l.trim().to_string()).collect();
        Ok(client)
    }

    /// The engine's name and version as it gives them.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    pub fn knows(&self, command: &str) -> bool {
        self.known.contains(command)
    }

    fn stderr_tail(&self) -> String {
        self.stderr.describe()
    }

    /// Waits (a little) until the engine's stderr is closed and read.
    async fn wait_for_stderr(&mut self) {
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
        }
    }

    fn died(&self, when: &str) -> EngineError {
        EngineError::Died {
            engine: self.name.clone(),
            detail: format!("{when}{}", self.stderr_tail()),
        }
    }

    async fn send_line(&mut self, line: &str) -> Result<(), EngineError> {
        let text = format!("{line}\n");
        let result = async {
            self.stdin.write_all(text.as_bytes()).await?;
            self.stdin.flush().await
        }
        .await;
        result.map_err(|e| self.died(&format!("writing `{line}` failed: {e}")))
    }

    async fn read_line(&mut self) -> Result<String, EngineError> {
        match tokio::time::timeout(self.timeout, self.stdout.next_line()).await {
            Ok(Ok(Some(line))) => Ok(line.replace('\r', "")),
            Ok(Err(e @ LineError::TooLong { .. })) => {
                // The conversation is out of step for good: stop the engine.
                let _ = self.child.start_kill();
                Err(EngineError::Refused {
                    engine: self.name.clone(),
                    message: format!("not a GTP answer: {e}"),
                })
            }
            Ok(Err(LineError::Io(e))) if e.kind() == std::io::ErrorKind::InvalidData => {
                Err(EngineError::Refused {
                    engine: self.name.clone(),
                    message: format!("it wrote bytes that are not text ({e}); is it a GTP engine?"),
                })
            }
            Ok(Ok(None)) | Ok(Err(_)) => {
                let status =
                    match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
                        Ok(Ok(s)) => s.to_string(),
                        _ => "no exit status".into(),
                    };
                self.wait_for_stderr().await;
                Err(self.died(&format!("the process ended ({status})")))
            }
            Err(_) => Err(EngineError::TimedOut {
                engine: self.name.clone(),
                after: self.timeout,
            }),
        }
    }

    /// Sends one command and returns the answer's text (without `=`); a `?` answer is a refusal.
    pub async fn command(&mut self, command: &str) -> Result<String, EngineError> {
        self.send_line(command).await?;
        self.read_response(command).await
    }

    async fn read_response(&mut self, command: &str) -> Result<String, EngineError> {
        let mut lines = vec![self.read_line().await?];
        while lines[0].trim().is_empty() {
            lines[0] = self.read_line().await?;
        }
        loop {
            let line = self.read_line().await?;
            if line.trim().is_empty() {
                break;
            }
            if lines.len() == MAX_ANSWER_LINES {
                return Err(EngineError::Refused {
                    engine: self.name.clone(),
                    message: format!(
                        "`{command}`: the answer runs past {MAX_ANSWER_LINES} lines without ending"
                    ),
                });
            }
            lines.push(line);
        }
        match parse_answer(&lines) {
            Answer::Success(text) => Ok(text),
            Answer::Failure(text) => Err(EngineError::Refused {
                engine: self.name.clone(),
                message: format!("`{command}`: {text}"),
            }),
            Answer::NotAnswer(first) => Err(EngineError::Refused {
                engine: self.name.clone(),
                message: format!("`{command}`: not a GTP answer: {first}"),
            }),
        }
    }

    /// Sets the board size (`rectangular_boardsize` for rectangles), clears it and sets komi and rules.
    pub async fn new_game(&mut self, size: BoardSize, rules: Rules) -> Result<(), EngineError> {
        if size.is_square() {
            self.command(&format!("boardsize {}", size.width())).await?;
        } else if self.knows("rectangular_boardsize") {
            self.command(&format!(
                "rectangular_boardsize {} {}",
                size.width(),
                size.height()
            ))
            .await?;
        } else {
            return Err(EngineError::BadQuery(format!(
                "{} does not play on rectangular boards ({size})",
                self.name
            )));
        }
        self.command("clear_board").await?;
        self.command(&format!("komi {}", rules.komi.value()))
            .await?;
        if self.knows("kata-set-rules") {
            let name = katago_rules_name(rules);
            self.command(&format!("kata-set-rules {name}")).await?;
        }
        Ok(())
    }

    pub async fn play(
        &mut self,
        color: Color,
        mv: Move,
        size: BoardSize,
    ) -> Result<(), EngineError> {
        self.command(&format!("play {} {}", color.letter(), mv.to_gtp(size)))
            .await
            .map(|_| ())
    }

    pub async fn genmove(&mut self, color: Color, size: BoardSize) -> Result<GenMove, EngineError> {
        let answer = self.command(&format!("genmove {}", color.letter())).await?;
        self.parse_genmove(&answer, size)
    }

    fn parse_genmove(&self, answer: &str, size: BoardSize) -> Result<GenMove, EngineError> {
        if answer.eq_ignore_ascii_case("resign") {
            return Ok(GenMove::Resign);
        }
        Move::parse_gtp(answer, size)
            .map(GenMove::Play)
            .map_err(|e| EngineError::Refused {
                engine: self.name.clone(),
                message: format!("genmove answered `{answer}`: {e}"),
            })
    }

    /// The engine's score of the current position, Black's lead (`B+3.5` → 3.5, `W+2` → -2, `0` → 0).
    pub async fn final_score(&mut self) -> Result<f64, EngineError> {
        let answer = self.command("final_score").await?;
        parse_score(&answer).ok_or_else(|| EngineError::Refused {
            engine: self.name.clone(),
            message: format!("final_score answered `{answer}`"),
        })
    }

    pub async fn quit(mut self) {
        let _ = self.command("quit").await;
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
    }

    /// Sets up `query`'s position: size, rules, setup stones and moves.
    async fn set_position(&mut self, query: &Query) -> Result<(), EngineError> {
        let size = query.size;
        self.new_game(size, query.rules).await?;
        for &p in &query.setup.black {
            self.play(Color::Black, Move::Play(p), size).await?;
        }
        for &p in &query.setup.white {
            self.play(Color::White, Move::Play(p), size).await?;
        }
        for &(color, mv) in &query.moves {
            self.play(color, mv, size).await?;
        }
        Ok(())
    }

    /// Runs `kata-analyze`/`lz-analyze` on the position until the visit or time limit or a cancel, sending
    /// reports as they come; returns the last one (final).
    async fn analyze_streaming(
        &mut self,
        query: &Query,
        kata: bool,
        cancel: &CancelToken,
        tx: &mpsc::Sender<Result<Report, EngineError>>,
    ) -> Result<Report, EngineError> {
        let to_move = query.to_move();
        let interval_cs = query
            .report_every
            .map_or(10, |d| (d.as_millis() / 10).max(1));
        let mut cmd = format!(
            "{} {} interval {interval_cs}",
            if kata { "kata-analyze" } else { "lz-analyze" },
            to_move.letter()
        );
        if !query.avoid.is_empty() {
            let moves: Vec<String> = query.avoid.iter().map(|m| m.to_gtp(query.size)).collect();
            cmd.push_str(&format!(
                " avoid {} {} 1",
                to_move.letter(),
                moves.join(",")
            ));
        }
        if kata {
            cmd.push_str(" rootInfo true");
            if query.include_ownership {
                cmd.push_str(" ownership true");
            }
        }
        self.send_line(&cmd).await?;
        let mut first = self.read_line().await?;
        while first.trim().is_empty() {
            first = self.read_line().await?;
        }
        if let Some(words) = first.strip_prefix('?') {
            return Err(EngineError::Refused {
                engine: self.name.clone(),
                message: format!("`{cmd}`: {}", words.trim()),
            });
        }
        let deadline = query.max_time.map(|t| tokio::time::Instant::now() + t);
        let mut last = Report::default();
        let mut stopping = false;
        loop {
            let line = tokio::select! {
                line = self.read_line() => line?,
                _ = cancel.cancelled(), if !stopping => String::from("\u{0}stop"),
                _ = async { match deadline { Some(d) => tokio::time::sleep_until(d).await, None => std::future::pending().await } }, if !stopping => String::from("\u{0}stop"),
            };
            if line == "\u{0}stop" {
                // Any new line stops the analysis; the engine then ends its answer with a blank line.
                self.send_line("").await?;
                stopping = true;
                continue;
            }
            if line.trim().is_empty() {
                break;
            }
            if let Some(report) = parse_analysis(&line, query.size, to_move, kata) {
                let done = query.max_visits.is_some_and(|v| report.root.visits >= v);
                last = report;
                if query.report_every.is_some() {
                    let _ = tx.try_send(Ok(last.clone()));
                }
                if done && !stopping {
                    self.send_line("").await?;
                    stopping = true;
                }
            }
        }
        last.is_final = true;
        Ok(last)
    }
}

/// KataGo's name for tengen's rules (GTP `kata-set-rules`): a preset where one matches, else the compact form.
fn katago_rules_name(rules: Rules) -> String {
    let base = |r: Rules| r.with_komi(rules.komi) == rules;
    if base(Rules::tromp_taylor()) {
        "tromp-taylor".into()
    } else if base(Rules::japanese()) {
        "japanese".into()
    } else if base(Rules::chinese()) {
        "chinese".into()
    } else {
        rules.to_compact()
    }
}

/// The longest answer read (lines); an engine writing more without the closing blank line is broken.
const MAX_ANSWER_LINES: usize = 100_000;

/// A GTP engine behind the [`Engine`] trait. Queries run one at a time (GTP has one board).
pub struct GtpEngine {
    command: Vec<String>,
    client: Arc<tokio::sync::Mutex<Option<GtpClient>>>,
    /// The running process's id (0: none), readable while a query holds the client.
    pid: Arc<std::sync::atomic::AtomicU32>,
    id: super::EngineId,
}

impl GtpEngine {
    pub fn new(command: Vec<String>) -> GtpEngine {
        let program = command.first().map(String::as_str).unwrap_or_default();
        GtpEngine {
            id: super::EngineId::program(super::EngineKind::Gtp, program, None),
            command,
            client: Arc::new(tokio::sync::Mutex::new(None)),
            pid: Arc::new(std::sync::atomic::AtomicU32::new(0)),
        }
    }

    /// The process id of the running engine, if one has been started.
    pub fn pid(&self) -> Option<u32> {
        Some(self.pid.load(std::sync::atomic::Ordering::SeqCst)).filter(|&p| p != 0)
    }
}

impl Engine for GtpEngine {
    fn name(&self) -> String {
        self.client
            .try_lock()
            .ok()
            .and_then(|c| c.as_ref().map(|c| c.name().to_string()))
            .unwrap_or_else(|| self.command.join(" "))
    }

    fn id(&self) -> super::EngineId {
        self.id.clone()
    }

    fn analyze(&self, query: Query) -> Analysis {
        let (analysis, tx, cancel) = Analysis::channel();
        let client = Arc::clone(&self.client);
        let command = self.command.clone();
        let pid = Arc::clone(&self.pid);
        tokio::spawn(async move {
            let mut guard = client.lock().await;
            let result = run_query(&mut guard, &command, &query, &cancel, &tx, &pid).await;
            if matches!(
                result,
                Err(EngineError::Died { .. }) | Err(EngineError::TimedOut { .. })
            ) {
                // Start afresh next time.
                *guard = None;
            }
            let _ = tx.send(result).await;
        });
        analysis
    }
}

async fn run_query(
    slot: &mut Option<GtpClient>,
    command: &[String],
    query: &Query,
    cancel: &CancelToken,
    tx: &mpsc::Sender<Result<Report, EngineError>>,
    pid: &std::sync::atomic::AtomicU32,
) -> Result<Report, EngineError> {
    if slot.is_none() {
        let client = GtpClient::start(command).await?;
        pid.store(
            client.pid().unwrap_or(0),
            std::sync::atomic::Ordering::SeqCst,
        );
        *slot = Some(client);
    }
    let Some(client) = slot.as_mut() else {
        return Err(EngineError::Unavailable {
            engine: command.join(" "),
            detail: "not started".into(),
        });
    };
    client.set_position(query).await?;
    if client.knows("kata-analyze") {
        client.analyze_streaming(query, true, cancel, tx).await
    } else if client.knows("lz-analyze") {
        client.analyze_streaming(query, false, cancel, tx).await
    } else {
        client.choose(query).await
    }
}

/// Whether the rules are ones GNU Go can be asked for on its command line (area scoring is
/// `--chinese-rules`; GNU Go has no superko flag beyond `--positional-superko`).
pub fn gnugo_rule_flags(rules: Rules) -> Vec<String> {
    let mut flags = Vec::new();
    if rules.scoring == Scoring::Area {
        flags.push("--chinese-rules".to_string());
    }
    match rules.ko {
        KoRule::Positional => flags.push("--positional-superko".into()),
        KoRule::Situational => flags.push("--situational-superko".into()),
        KoRule::Simple => {}
    }
    flags
}

mod choose;
mod parse;
pub use parse::{Answer, parse_analysis, parse_answer, parse_score};
#[cfg(test)]
mod tests;
