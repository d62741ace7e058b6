//! The job scheduler: one tokio task that owns the queue, starts jobs by priority up to K at a time,
//! keeps background expansion topped up with the K cheapest nodes, and turns everything into
//! [`JobEvent`]s for the app. Searches run on the engine's own threads; book updates run in
//! `spawn_blocking`, so neither ever holds up the thread that draws the screen.

use super::book_port::{Mark, NodeId as ViewId, NodeView};
use super::expand::{self, ExpandError};
use super::view::{marks_of, node_view, to_book_mark};
use super::{JobEvent, JobId, JobKind, Priority};
use crate::book::store::{BookStore, Record};
use crate::book::{self, Book, NodeId};
use crate::engine::{CancelToken, Engine, EngineError};
use crate::go::{Move, Symmetry};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::sync::mpsc;

/// Books up to this many nodes send every changed node view after a change; larger ones send the
/// changed nodes and their ancestors (costs elsewhere catch up with the next change that touches them).
const FULL_DIFF_LIMIT: usize = 20_000;

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
    AnalyzeLine { line: Vec<Move>, priority: Priority },
    SetMarks { line: Vec<Move>, marks: Vec<Mark> },
    Cancel(JobId),
    Retry(JobId),
    StopAll,
}

/// The book the jobs grow, its file (when it has one) and the views the app was last sent.
pub struct SharedBook {
    book: Mutex<Book>,
    store: Mutex<Option<BookStore>>,
    sent: Mutex<Vec<NodeView>>,
}

impl SharedBook {
    pub fn new(book: Book, store: Option<BookStore>) -> Arc<SharedBook> {
        let sent = if book.len() <= FULL_DIFF_LIMIT {
            (0..book.len())
                .map(|i| node_view(&book, NodeId(i as u32)))
                .collect()
        } else {
            Vec::new()
        };
        Arc::new(SharedBook {
            book: Mutex::new(book),
            store: Mutex::new(store),
            sent: Mutex::new(sent),
        })
    }

    pub fn lock(&self) -> MutexGuard<'_, Book> {
        // A panic in another job must not take the book with it: the data is still consistent between steps.
        self.book
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes `ids` durably (when the book has a file), then returns the views that changed.
    fn commit(&self, book: &Book, ids: &[NodeId]) -> Result<Vec<NodeView>, String> {
        if let Some(store) = self
            .store
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            store.append_nodes(book, ids).map_err(|e| e.to_string())?;
        }
        Ok(self.changed_views(book, ids))
    }

    fn changed_views(&self, book: &Book, ids: &[NodeId]) -> Vec<NodeView> {
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        if book.len() <= FULL_DIFF_LIMIT {
            let mut out = Vec::new();
            for i in 0..book.len() {
                let view = node_view(book, NodeId(i as u32));
                if sent.get(i) != Some(&view) {
                    if i < sent.len() {
                        sent[i] = view.clone();
                    } else {
                        sent.push(view.clone());
                    }
                    out.push(view);
                }
            }
            return out;
        }
        let mut seen: HashSet<NodeId> = HashSet::new();
        let mut stack: Vec<NodeId> = ids.to_vec();
        while let Some(id) = stack.pop() {
            if seen.insert(id) {
                stack.extend(book.node(id).parents.iter().map(|p| p.parent));
            }
        }
        let mut ids: Vec<NodeId> = seen.into_iter().collect();
        ids.sort();
        ids.into_iter().map(|id| node_view(book, id)).collect()
    }
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

impl From<ExpandError> for JobFailure {
    fn from(e: ExpandError) -> JobFailure {
        match e {
            ExpandError::Engine(EngineError::Cancelled) => JobFailure::Cancelled,
            e => JobFailure::Failed(e.to_string()),
        }
    }
}

impl From<EngineError> for JobFailure {
    fn from(e: EngineError) -> JobFailure {
        JobFailure::from(ExpandError::Engine(e))
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
                    self.running.remove(&id);
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
            Request::SetMarks { line, marks } => {
                let shared = Arc::clone(&self.shared);
                let result =
                    tokio::task::spawn_blocking(move || set_marks(&shared, &line, &marks)).await;
                match result {
                    Ok(Ok(events)) => events.into_iter().for_each(|e| self.emit(e)),
                    Ok(Err(e)) => self.emit(JobEvent::ExpansionIdle {
                        reason: format!("marks not saved: {e}"),
                    }),
                    Err(e) => self.emit(JobEvent::ExpansionIdle {
                        reason: format!("marks not saved: {e}"),
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
            Request::StopAll => {}
        }
    }

    fn enqueue(&mut self, kind: JobKind, priority: Priority) {
        let id = JobId(self.next_id);
        self.next_id += 1;
        let target_visits = match &kind {
            JobKind::Expand { .. } => self.config.expand_visits * 2,
            JobKind::AnalyzeLine { line } => self.config.analyze_visits * (line.len() as u64 + 1),
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
            let in_flight: HashSet<ViewId> = self
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
                let exclude = in_flight.clone();
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
        };
        tokio::spawn(async move {
            let outcome = match job.kind {
                JobKind::Expand { node, .. } => context.expand(NodeId(node.0)).await,
                JobKind::AnalyzeLine { line } => context.analyze_line(&line).await,
            };
            let _ = done_tx.send((job.id, outcome));
        });
    }
}

/// The K cheapest expandable nodes not already in flight, with the line (root orientation) to each.
fn pick_nodes(
    shared: &SharedBook,
    want: usize,
    exclude: &HashSet<ViewId>,
) -> Vec<(ViewId, Vec<Move>)> {
    let book = shared.lock();
    book::cost::cheapest(&book, want + exclude.len())
        .into_iter()
        .filter(|id| !exclude.contains(&ViewId(id.0)))
        .take(want)
        .filter_map(|id| Some((ViewId(id.0), line_to(&book, id)?)))
        .collect()
}

/// The cheapest line from the root to `id`, as moves in the root's orientation.
pub fn line_to(book: &Book, id: NodeId) -> Option<Vec<Move>> {
    let path = book.path_from_root(id).ok()?;
    let size = book.meta.size;
    let mut root_to_node = Symmetry::IDENTITY;
    let mut line = Vec::new();
    for (parent, edge) in path {
        let e = &book.node(parent).edges[edge];
        line.push(root_to_node.inverse().apply_move(size, e.mv));
        root_to_node = root_to_node.then(e.to_child);
    }
    Some(line)
}

fn set_marks(shared: &SharedBook, line: &[Move], marks: &[Mark]) -> Result<Vec<JobEvent>, String> {
    let mut book = shared.lock();
    let id = book.follow_line(line).map_err(|e| e.to_string())?.id;
    book.marks.remove(&id);
    for &m in marks {
        let m = to_book_mark(m).check().map_err(|e| e.to_string())?;
        book::marks::set_mark(&mut book, id, m);
    }
    let stored = book.marks.get(&id).copied().unwrap_or_default();
    if let Some(store) = shared
        .store
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_mut()
    {
        store
            .append(&[Record::Marks(vec![(id.0, stored)])])
            .map_err(|e| e.to_string())?;
    }
    expand::recompute(&mut book, &[id]);
    let mut events = vec![JobEvent::MarksChanged {
        node: ViewId(id.0),
        marks: marks_of(stored),
    }];
    let views = shared.changed_views(&book, &[id]);
    if !views.is_empty() {
        events.push(JobEvent::NodesChanged(views));
    }
    Ok(events)
}

struct JobContext {
    id: JobId,
    shared: Arc<SharedBook>,
    engine: Arc<dyn Engine>,
    config: RunnerConfig,
    events: mpsc::UnboundedSender<JobEvent>,
    cancel: CancelToken,
}

impl JobContext {
    fn emit_views(&self, views: Vec<NodeView>) {
        if !views.is_empty() {
            let _ = self.events.send(JobEvent::NodesChanged(views));
        }
    }

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

    /// Searches `node` with its book moves banned; `done_before` visits count toward the progress bar.
    async fn search_node(
        &self,
        node: NodeId,
        visits: u64,
        done_before: u64,
    ) -> Result<(crate::go::Game, Vec<Move>, crate::engine::Report), JobFailure> {
        if self.cancel.is_cancelled() {
            return Err(JobFailure::Cancelled);
        }
        let seed = (self.id.0 as u64) << 32 | node.0 as u64;
        let (game, query) = self
            .with_book(move |_, book| expand::query_for(book, node, visits, seed))
            .await??;
        let avoided = query.avoid.clone();
        let analysis = self.engine.analyze(query);
        let (id, events) = (self.id, self.events.clone());
        let report = expand::search(analysis, &self.cancel, |v| {
            let _ = events.send(JobEvent::Progress {
                id,
                visits: done_before + v.min(visits),
            });
        })
        .await?;
        Ok((game, avoided, report))
    }

    async fn expand(&self, node: NodeId) -> Outcome {
        let visits = self.config.expand_visits;
        let (game, avoided, report) = self.search_node(node, visits, 0).await?;
        let Some(info) = expand::best_new_move(&report, &game, &avoided).cloned() else {
            let views = self
                .with_book(move |shared, book| {
                    book.node_mut(node).can_expand = false;
                    expand::recompute(book, &[node]);
                    shared.commit(book, &[node])
                })
                .await?
                .map_err(JobFailure::Failed)?;
            self.emit_views(views);
            return Ok("no legal new move: the position is closed".into());
        };
        let size = game.size();
        let played = info.mv;
        let (child, created, views) = self
            .with_book(move |shared, book| {
                let (child, created) = expand::add_edge(book, node, &game, &info)?;
                expand::recompute(book, &[node, child]);
                let views = shared
                    .commit(book, &[node, child])
                    .map_err(|e| ExpandError::Book {
                        node: node.0,
                        detail: e,
                    })?;
                Ok::<_, ExpandError>((child, created, views))
            })
            .await??;
        self.emit_views(views);
        let half = (visits / 2).max(1);
        if created {
            let (_, avoided, child_report) = self.search_node(child, half, visits).await?;
            let views = self
                .with_book(move |shared, book| {
                    book.node_mut(child).not_in_book =
                        expand::not_in_book_values(&child_report, &avoided);
                    expand::recompute(book, &[child]);
                    shared.commit(book, &[child])
                })
                .await?
                .map_err(JobFailure::Failed)?;
            self.emit_views(views);
        }
        let (_, avoided, again) = self.search_node(node, half, visits + half).await?;
        let views = self
            .with_book(move |shared, book| {
                book.node_mut(node).not_in_book = expand::not_in_book_values(&again, &avoided);
                expand::recompute(book, &[node]);
                shared.commit(book, &[node])
            })
            .await?
            .map_err(JobFailure::Failed)?;
        self.emit_views(views);
        let kind = if created {
            "new position"
        } else {
            "transposition"
        };
        Ok(format!("added {} ({kind})", played.to_gtp(size)))
    }

    /// Searches every position of the line with the large budget, refreshing its "other moves" values
    /// and adding the best new move where it beats every book move.
    async fn analyze_line(&self, line: &[Move]) -> Outcome {
        let visits = self.config.analyze_visits;
        let prefixes: Vec<Vec<Move>> = (0..=line.len()).map(|n| line[..n].to_vec()).collect();
        let mut added = 0;
        for (i, prefix) in prefixes.into_iter().enumerate() {
            let node = self
                .with_book(move |_, book| {
                    book.follow_line(&prefix)
                        .map(|v| v.id)
                        .map_err(|e| e.to_string())
                })
                .await?
                .map_err(JobFailure::Failed)?;
            let (game, avoided, report) = self.search_node(node, visits, i as u64 * visits).await?;
            let new_move = expand::best_new_move(&report, &game, &avoided).cloned();
            let (views, grew) = self
                .with_book(move |shared, book| {
                    let to_move = book.node(node).to_move;
                    let mover = |winrate: f64| {
                        if to_move == crate::go::Color::Black {
                            winrate
                        } else {
                            1.0 - winrate
                        }
                    };
                    let best_book = book
                        .node(node)
                        .edges
                        .iter()
                        .map(|e| mover((1.0 - book.node(e.child).values.win_loss) / 2.0))
                        .fold(f64::NEG_INFINITY, f64::max);
                    book.node_mut(node).not_in_book = expand::not_in_book_values(&report, &avoided);
                    let mut changed = vec![node];
                    let mut grew = false;
                    if let Some(info) = new_move.filter(|m| mover(m.winrate) > best_book) {
                        let (child, _) = expand::add_edge(book, node, &game, &info)?;
                        changed.push(child);
                        grew = true;
                    }
                    expand::recompute(book, &changed);
                    let views = shared
                        .commit(book, &changed)
                        .map_err(|e| ExpandError::Book {
                            node: node.0,
                            detail: e,
                        })?;
                    Ok::<_, ExpandError>((views, grew))
                })
                .await??;
            added += grew as usize;
            self.emit_views(views);
        }
        Ok(format!(
            "{} positions searched, {added} new moves",
            line.len() + 1
        ))
    }
}
