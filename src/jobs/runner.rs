//! The job scheduler: one tokio task that owns the queue, starts jobs by priority up to K at a time,
//! keeps background expansion topped up with the K cheapest nodes, and turns everything into
//! [`JobEvent`]s for the app. Searches run on the engine's own threads; book updates run in
//! `spawn_blocking`, so neither ever holds up the thread that draws the screen.

mod shared;

use super::metered::Metered;
use super::{JobEvent, JobId, JobKind, Priority};
use crate::book::expand::{self, ExpandSettings};
use crate::book::marks::Mark;
use crate::book::{Book, NodeId};
use crate::engine::{CancelToken, Engine, EngineError};
use crate::go::Move;
pub use shared::SharedBook;
use shared::{export, pick_nodes, set_marks};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;

#[derive(Debug, Clone, PartialEq)]
pub struct RunnerConfig {
    /// K: jobs running at once.
    pub concurrent: usize,
    pub expand_visits: u64,
    pub analyze_visits: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    StartExpansion,
    PauseExpansion,
    StopExpansion,
    AnalyzeLine {
        line: Vec<Move>,
        priority: Priority,
    },
    SetMarks {
        line: Vec<Move>,
        marks: Vec<Mark>,
    },
    Endgame {
        request: Box<super::endgame::Request>,
        priority: Priority,
    },
    Cancel(JobId),
    Retry(JobId),
    /// Write the line from the root (and with `subtree`, everything below it) as SGF, as `book export
    /// --sgf` does; the outcome comes back as a notice.
    Export {
        file: std::path::PathBuf,
        line: Vec<Move>,
        subtree: bool,
    },
    /// Evaluate the position after `line` once with the engine's network (ownership and policy for the
    /// board's overlays); the answer comes back as [`JobEvent::Evaluated`].
    Evaluate {
        line: Vec<Move>,
    },
    StopAll,
}

pub struct Runner {
    tx: mpsc::UnboundedSender<Request>,
}

impl Runner {
    /// Starts the scheduler on the current tokio runtime.
    pub fn spawn(
        shared: Arc<SharedBook>,
        engine: Arc<dyn Engine>,
        config: RunnerConfig,
        started: Instant,
        events: mpsc::UnboundedSender<JobEvent>,
    ) -> Runner {
        let (tx, rx) = mpsc::unbounded_channel();
        let scheduler = Scheduler {
            shared,
            engine,
            config,
            started,
            events,
            queue: Vec::new(),
            running: HashMap::new(),
            kinds: HashMap::new(),
            next_id: 1,
            expansion: ExpansionMode::Stopped,
            given_up: HashSet::new(),
            analyzers: Arc::default(),
        };
        tokio::spawn(scheduler.run(rx));
        Runner { tx }
    }

    pub fn send(&self, request: Request) {
        // After the scheduler has stopped (quitting) there is nobody left to tell.
        let _ = self.tx.send(request);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExpansionMode {
    Stopped,
    Running,
    Paused,
}

struct Pending {
    id: JobId,
    kind: JobKind,
    priority: Priority,
}

type Outcome = Result<String, JobFailure>;

enum JobFailure {
    Cancelled,
    Failed(String),
}

impl From<EngineError> for JobFailure {
    fn from(e: EngineError) -> JobFailure {
        match e {
            EngineError::Cancelled => JobFailure::Cancelled,
            e => JobFailure::Failed(e.to_string()),
        }
    }
}

struct Scheduler {
    shared: Arc<SharedBook>,
    engine: Arc<dyn Engine>,
    config: RunnerConfig,
    started: Instant,
    events: mpsc::UnboundedSender<JobEvent>,
    queue: Vec<Pending>,
    running: HashMap<JobId, (JobKind, CancelToken)>,
    kinds: HashMap<JobId, (JobKind, Priority)>,
    next_id: u32,
    expansion: ExpansionMode,
    given_up: HashSet<NodeId>,
    /// The endgame jobs' analyzers, whose networks stay open from one job to the next.
    analyzers: Arc<super::endgame::Analyzers>,
}

impl Scheduler {
    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn emit(&self, event: JobEvent) {
        let _ = self.events.send(event);
    }

    async fn run(mut self, mut requests: mpsc::UnboundedReceiver<Request>) {
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(JobId, Outcome)>();
        loop {
            tokio::select! {
                request = requests.recv() => match request {
                    None | Some(Request::StopAll) => {
                        for (_, cancel) in self.running.values() { cancel.cancel(); }
                        return;
                    }
                    Some(request) => self.handle(request).await,
                },
                Some((id, outcome)) = done_rx.recv() => {
                    let finished = self.running.remove(&id);
                    if let (Some((JobKind::Expand { node, .. }, _)), Err(JobFailure::Failed(_))) = (&finished, &outcome) {
                        self.given_up.insert(*node);
                    }
                    let at_ms = self.now();
                    self.emit(match outcome {
                        Ok(summary) => JobEvent::Finished { id, at_ms, summary },
                        Err(JobFailure::Cancelled) => JobEvent::Cancelled { id, at_ms },
                        Err(JobFailure::Failed(error)) => JobEvent::Failed { id, at_ms, error },
                    });
                }
            }
            self.schedule(&done_tx).await;
        }
    }

    async fn handle(&mut self, request: Request) {
        match request {
            Request::StartExpansion => self.expansion = ExpansionMode::Running,
            Request::PauseExpansion => self.expansion = ExpansionMode::Paused,
            Request::StopExpansion => {
                self.expansion = ExpansionMode::Stopped;
                let at_ms = self.now();
                let (dropped, kept): (Vec<Pending>, Vec<Pending>) = self
                    .queue
                    .drain(..)
                    .partition(|p| matches!(p.kind, JobKind::Expand { .. }));
                self.queue = kept;
                for p in dropped {
                    self.emit(JobEvent::Cancelled { id: p.id, at_ms });
                }
                for (kind, cancel) in self.running.values() {
                    if matches!(kind, JobKind::Expand { .. }) {
                        cancel.cancel();
                    }
                }
            }
            Request::AnalyzeLine { line, priority } => {
                self.enqueue(JobKind::AnalyzeLine { line }, priority)
            }
            Request::Endgame { request, priority } => {
                self.enqueue(JobKind::Endgame(request), priority)
            }
            Request::SetMarks { line, marks } => {
                let shared = Arc::clone(&self.shared);
                let result =
                    tokio::task::spawn_blocking(move || set_marks(&shared, &line, &marks)).await;
                match result {
                    Ok(Ok(events)) => events.into_iter().for_each(|e| self.emit(e)),
                    Ok(Err(e)) => self.emit(JobEvent::Notice {
                        text: format!("marks not saved: {e}"),
                        is_error: true,
                    }),
                    Err(e) => self.emit(JobEvent::Notice {
                        text: format!("marks not saved: {e}"),
                        is_error: true,
                    }),
                }
            }
            Request::Cancel(id) => {
                if let Some(i) = self.queue.iter().position(|p| p.id == id) {
                    self.queue.remove(i);
                    self.emit(JobEvent::Cancelled {
                        id,
                        at_ms: self.now(),
                    });
                } else if let Some((_, cancel)) = self.running.get(&id) {
                    cancel.cancel();
                }
            }
            Request::Retry(id) => {
                if let Some((kind, priority)) = self.kinds.get(&id).cloned() {
                    self.enqueue(kind, priority);
                }
            }
            Request::Export {
                file,
                line,
                subtree,
            } => {
                let shared = Arc::clone(&self.shared);
                let result =
                    tokio::task::spawn_blocking(move || export(&shared, &file, &line, subtree))
                        .await
                        .map_err(|e| e.to_string())
                        .and_then(|r| r);
                self.emit(match result {
                    Ok(text) => JobEvent::Notice {
                        text,
                        is_error: false,
                    },
                    Err(e) => JobEvent::Notice {
                        text: format!("export: {e}"),
                        is_error: true,
                    },
                });
            }
            Request::Evaluate { line } => super::evaluate::spawn(
                Arc::clone(&self.shared),
                Arc::clone(&self.engine),
                self.events.clone(),
                line,
            ),
            Request::StopAll => {}
        }
    }

    fn enqueue(&mut self, kind: JobKind, priority: Priority) {
        let id = JobId(self.next_id);
        self.next_id += 1;
        let target_visits = match &kind {
            // The full search plus the quick ones of a typical step (one new child).
            JobKind::Expand { .. } => {
                self.config.expand_visits + 2 * self.config.expand_visits.div_ceil(2)
            }
            JobKind::AnalyzeLine { line } => {
                (self.config.analyze_visits + 2 * self.config.analyze_visits.div_ceil(2))
                    * (line.len() as u64 + 1)
            }
            // The exact search's position budget, which its progress counts against.
            JobKind::Endgame(request) => {
                super::endgame::position_budget(request.method).map_or(1, |b| b as u64)
            }
        };
        self.emit(JobEvent::Queued {
            id,
            kind: kind.clone(),
            priority,
            target_visits,
        });
        self.kinds.insert(id, (kind.clone(), priority));
        self.queue.push(Pending { id, kind, priority });
    }

    /// Tops up expansion, then starts what fits.
    async fn schedule(&mut self, done_tx: &mpsc::UnboundedSender<(JobId, Outcome)>) {
        let k = self.config.concurrent.max(1);
        if self.expansion == ExpansionMode::Running {
            let in_flight: HashSet<NodeId> = self
                .queue
                .iter()
                .map(|p| &p.kind)
                .chain(self.running.values().map(|(kind, _)| kind))
                .filter_map(|kind| match kind {
                    JobKind::Expand { node, .. } => Some(*node),
                    _ => None,
                })
                .collect();
            if in_flight.len() < k {
                let shared = Arc::clone(&self.shared);
                let want = k - in_flight.len();
                // Nodes whose expansion failed this run are not picked again (no retry loop).
                let exclude: HashSet<NodeId> = in_flight.union(&self.given_up).copied().collect();
                let picked =
                    tokio::task::spawn_blocking(move || pick_nodes(&shared, want, &exclude))
                        .await
                        .unwrap_or_default();
                if picked.is_empty() && in_flight.is_empty() {
                    self.expansion = ExpansionMode::Stopped;
                    self.emit(JobEvent::ExpansionIdle {
                        reason: "no position of the book can be expanded".into(),
                    });
                }
                for (node, line) in picked {
                    self.enqueue(JobKind::Expand { node, line }, Priority(0));
                }
            }
        }
        while self.running.len() < k {
            let paused = self.expansion != ExpansionMode::Running;
            let next = self
                .queue
                .iter()
                .enumerate()
                .filter(|(_, p)| !(paused && matches!(p.kind, JobKind::Expand { .. })))
                .max_by_key(|(_, p)| (p.priority, std::cmp::Reverse(p.id)))
                .map(|(i, _)| i);
            let Some(i) = next else { break };
            let job = self.queue.remove(i);
            self.start(job, done_tx.clone());
        }
    }

    fn start(&mut self, job: Pending, done_tx: mpsc::UnboundedSender<(JobId, Outcome)>) {
        let cancel = CancelToken::default();
        self.running
            .insert(job.id, (job.kind.clone(), cancel.clone()));
        self.emit(JobEvent::Started {
            id: job.id,
            at_ms: self.now(),
        });
        let context = JobContext {
            id: job.id,
            shared: Arc::clone(&self.shared),
            engine: Arc::clone(&self.engine),
            config: self.config.clone(),
            events: self.events.clone(),
            cancel,
            analyzers: Arc::clone(&self.analyzers),
        };
        tokio::spawn(async move {
            let outcome = match job.kind {
                JobKind::Expand { node, .. } => context.expand(NodeId(node.0)).await,
                JobKind::AnalyzeLine { line } => context.analyze_line(&line).await,
                JobKind::Endgame(request) => context.endgame(*request).await,
            };
            let _ = done_tx.send((job.id, outcome));
        });
    }
}

struct JobContext {
    id: JobId,
    shared: Arc<SharedBook>,
    engine: Arc<dyn Engine>,
    config: RunnerConfig,
    events: mpsc::UnboundedSender<JobEvent>,
    cancel: CancelToken,
    analyzers: Arc<super::endgame::Analyzers>,
}

impl JobContext {
    /// Runs a book step off the async threads.
    async fn with_book<T: Send + 'static>(
        &self,
        step: impl FnOnce(&SharedBook, &mut Book) -> T + Send + 'static,
    ) -> Result<T, JobFailure> {
        let shared = Arc::clone(&self.shared);
        tokio::task::spawn_blocking(move || {
            let mut book = shared.lock();
            step(&shared, &mut book)
        })
        .await
        .map_err(|e| JobFailure::Failed(format!("book update failed: {e}")))
    }

    /// One expansion step of the book at `node` with `max_visits` for its full search; `base` visits
    /// were done by earlier steps of the same job. Returns the moves added (GTP).
    async fn expand_step(
        &self,
        node: NodeId,
        max_visits: u64,
        base: u64,
    ) -> Result<Vec<String>, JobFailure> {
        if self.cancel.is_cancelled() {
            return Err(JobFailure::Cancelled);
        }
        let plan = self
            .with_book(move |_, book| expand::plan(book, node))
            .await?;
        let plan = match plan {
            Ok(plan) => plan,
            Err(e) => {
                // A node whose history cannot be rebuilt must not be picked again and again; its view
                // stops offering an expansion cost.
                let views = self
                    .with_book(move |shared, book| {
                        book.node_mut(node).can_expand = false;
                        shared.changed_views(book, &[node])
                    })
                    .await?;
                if !views.is_empty() {
                    let _ = self.events.send(JobEvent::NodesChanged(views));
                }
                return Err(JobFailure::Failed(e.to_string()));
            }
        };
        let mut settings = ExpandSettings::new(max_visits);
        settings.seed = self.id.0 as u64;
        let meter = Metered::new(Arc::clone(&self.engine), self.id, self.events.clone(), base);
        let outcome = expand::run_searches(&meter, plan, settings, &self.cancel).await?;
        let (moves, views) = self
            .with_book(move |shared, book| {
                let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
                let report =
                    expand::commit(book, store.as_mut(), outcome).map_err(|e| e.to_string())?;
                Ok::<_, String>((report.moves, shared.changed_views(book, &report.changed)))
            })
            .await?
            .map_err(JobFailure::Failed)?;
        if !views.is_empty() {
            let _ = self.events.send(JobEvent::NodesChanged(views));
        }
        Ok(moves)
    }

    async fn expand(&self, node: NodeId) -> Outcome {
        let moves = self.expand_step(node, self.config.expand_visits, 0).await?;
        Ok(if moves.is_empty() {
            "nothing left to add: position closed".into()
        } else {
            format!("added {}", moves.join(" "))
        })
    }

    /// The endgame pane's analysis (`endgame::run_watched`), its exact search's positions sent as progress.
    async fn endgame(&self, request: super::endgame::Request) -> Outcome {
        let analyzers = Arc::clone(&self.analyzers);
        let progress = |visits| {
            let _ = self.events.send(JobEvent::Progress {
                id: self.id,
                visits,
            });
        };
        let report = super::endgame::run_watched(analyzers, request, &self.cancel, progress)
            .await
            .map_err(|stop| match stop {
                super::endgame::Stopped::Cancelled => JobFailure::Cancelled,
                super::endgame::Stopped::Failed(e) => JobFailure::Failed(e),
            })?;
        let summary = report.summary();
        let _ = self.events.send(JobEvent::EndgameReport {
            id: self.id,
            report: Box::new(report),
        });
        Ok(summary)
    }

    /// Deep analysis of a line: an expansion step with the large budget at every position of the line,
    /// so the book gains each position's best new moves and fresher "other moves" values.
    async fn analyze_line(&self, line: &[Move]) -> Outcome {
        let visits = self.config.analyze_visits;
        // The full search plus the quick ones of a typical step (one new child).
        let per_step = visits + 2 * visits.div_ceil(2);
        let mut added = 0;
        for n in 0..=line.len() {
            let prefix = line[..n].to_vec();
            let node = self
                .with_book(move |_, book| {
                    book.follow_line(&prefix)
                        .map(|v| v.id)
                        .map_err(|e| e.to_string())
                })
                .await?
                .map_err(JobFailure::Failed)?;
            added += self
                .expand_step(node, visits, n as u64 * per_step)
                .await?
                .len();
        }
        Ok(format!(
            "{} positions searched, {added} moves added",
            line.len() + 1
        ))
    }
}

#[cfg(test)]
mod tests;
