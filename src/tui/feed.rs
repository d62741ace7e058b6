//! How job events reach the app (and so the recording): results at once, progress and changed nodes
//! coalesced. A growing book changes hundreds of node views per expansion (every cost moves when the root's
//! values do) and each search reports its visits ten times a second; handing all of that to the app would
//! record megabytes a second for frames that only ever show a few of those nodes.
//!
//! So [`JobFeed`] holds progress (latest per job) and node views (latest per node) back. Each clock tick
//! lets the progress through, and once a second the held nodes that the screen shows
//! ([`App::shown_nodes`]). Before an input (a key, a click) the app gets every held node whose shape it
//! does not know (new nodes, new moves, marks), so that walking goes where the book goes, and after it the
//! nodes the screen now shows. A node whose only news is its values stays held until it is shown. Because
//! what the app consumes is exactly what is recorded, a replay still draws the session's frames.

use super::action::Action;
use super::app::App;
use crate::book::NodeId;
use crate::book::view::NodeView;
use crate::jobs::{JobEvent, JobId};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct JobFeed {
    progress: BTreeMap<JobId, u64>,
    nodes: BTreeMap<NodeId, NodeView>,
    ticks: u64,
}

impl JobFeed {
    pub fn new() -> JobFeed {
        JobFeed::default()
    }

    /// Takes an event from a job; returns what the app must consume now, in order.
    pub fn push(&mut self, event: JobEvent) -> Vec<Action> {
        match event {
            JobEvent::Progress { id, visits } => {
                self.progress.insert(id, visits);
                Vec::new()
            }
            JobEvent::NodesChanged(views) => {
                for view in views {
                    self.nodes.insert(view.id, view);
                }
                Vec::new()
            }
            // The end of a job makes its progress moot; its summary is the result.
            JobEvent::Finished { id, .. }
            | JobEvent::Failed { id, .. }
            | JobEvent::Cancelled { id, .. } => {
                self.progress.remove(&id);
                vec![Action::Job(event)]
            }
            JobEvent::Queued { .. } | JobEvent::Started { .. } | JobEvent::Evaluated { .. } => {
                vec![Action::Job(event)]
            }
            // Rare events that may touch what the held nodes describe (a mark, the end of expansion):
            // the nodes go first, so that nothing older lands after them.
            JobEvent::MarksChanged { .. }
            | JobEvent::Notice { .. }
            | JobEvent::ExpansionIdle { .. }
            | JobEvent::EndgameReport { .. } => {
                let mut out = self.take_all();
                out.push(Action::Job(event));
                out
            }
        }
    }

    /// On a clock tick: the latest progress of each job, and (every other tick, so once a second) the held
    /// nodes that the screen shows.
    pub fn tick(&mut self, app: &App) -> Vec<Action> {
        self.ticks += 1;
        let mut out = self.take_progress();
        if self.ticks.is_multiple_of(2) {
            out.extend(self.take_shown(app));
        }
        out
    }

    /// Before an input (a key, a click): the progress, the nodes the screen shows, and every held node
    /// whose shape the app does not know yet (a new node, new moves, marks, transpositions), so that
    /// walking the book goes where the book goes. Nodes whose only news is their values stay held until
    /// the screen shows them ([`JobFeed::after_input`]).
    pub fn before_input(&mut self, app: &App) -> Vec<Action> {
        let mut out = self.take_progress();
        let shown = app.shown_nodes();
        let book = app.book.as_ref();
        let mut views = Vec::new();
        self.nodes.retain(|id, view| {
            let known = book.and_then(|b| b.node(*id));
            let keep = shown.as_ref().is_some_and(|s| !s.contains(id))
                && known.is_some_and(|k| same_shape(k, view));
            if !keep {
                views.push(view.clone());
            }
            keep
        });
        if !views.is_empty() {
            out.push(Action::Job(JobEvent::NodesChanged(views)));
        }
        out
    }

    /// After an input: the held nodes the screen shows now.
    pub fn after_input(&mut self, app: &App) -> Vec<Action> {
        self.take_shown(app)
    }

    fn take_progress(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.progress)
            .into_iter()
            .map(|(id, visits)| Action::Job(JobEvent::Progress { id, visits }))
            .collect()
    }

    fn take_shown(&mut self, app: &App) -> Vec<Action> {
        let views: Vec<NodeView> = match app.shown_nodes() {
            Some(ids) => ids.iter().filter_map(|id| self.nodes.remove(id)).collect(),
            None => std::mem::take(&mut self.nodes).into_values().collect(),
        };
        if views.is_empty() {
            Vec::new()
        } else {
            vec![Action::Job(JobEvent::NodesChanged(views))]
        }
    }

    /// Everything held.
    pub fn take_all(&mut self) -> Vec<Action> {
        let mut out = self.take_progress();
        if !self.nodes.is_empty() {
            let views = std::mem::take(&mut self.nodes).into_values().collect();
            out.push(Action::Job(JobEvent::NodesChanged(views)));
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.progress.is_empty() && self.nodes.is_empty()
    }
}

/// Whether two views of a node lead to the same places: the same moves to the same children, the same
/// marks and the same transposition count. Values, visits and costs may differ.
fn same_shape(a: &NodeView, b: &NodeView) -> bool {
    let moves = |n: &NodeView| {
        let mut m: Vec<_> = n
            .edges
            .iter()
            .map(|e| (e.mv, e.child, e.to_child))
            .collect();
        m.sort_by_key(|&(mv, child, _)| (mv, child));
        m
    };
    a.to_move == b.to_move
        && a.parent_count == b.parent_count
        && a.marks == b.marks
        && a.self_symmetries == b.self_symmetries
        && a.expansion_cost.is_some() == b.expansion_cost.is_some()
        && moves(a) == moves(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::interop::katabook;
    use crate::book::view::book_view;
    use crate::engine::rollout::RolloutEngine;
    use crate::jobs::runner::SharedBook;
    use crate::jobs::{Request, Runner, RunnerConfig};
    use crate::session::{self, Recorder, replay};
    use crate::tui::action::Key;
    use crate::tui::update::update;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    const SAMPLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/katabook/7x7-tt-k9-146.katabook"
    );

    /// A real expansion (the rollout engine growing the 7x7 book) fed through the feed with keys
    /// arriving: the recording replays to the same frames, and once the feed hands over what it holds
    /// the app's book is the book the jobs reported, node for node.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fed_expansion_replays_frame_exactly_and_loses_no_node() {
        let (book, _) = katabook::import(std::path::Path::new(SAMPLE)).unwrap();
        let view = book_view(&book, "7x7");
        let mut reported = view.clone();
        let shared = SharedBook::new(book, None);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let config = RunnerConfig {
            concurrent: 2,
            expand_visits: 60,
            analyze_visits: 60,
        };
        let started = Instant::now();
        let runner = Runner::spawn(shared, Arc::new(RolloutEngine::new(1)), config, started, tx);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.tengen-session");
        let mut recorder = Recorder::create(&path).unwrap();
        let mut app = App::new();
        let mut frames = Vec::new();
        let mut consume = |app: &mut App, action: Action| {
            recorder
                .record(started.elapsed().as_millis() as u64, &action)
                .unwrap();
            let effects = update(app, action);
            frames.push(replay::frame_text(app));
            effects
        };
        consume(
            &mut app,
            Action::Resize {
                width: 100,
                height: 30,
            },
        );
        consume(&mut app, Action::BookLoaded(Box::new(view)));
        let effects = consume(&mut app, Action::Key(Key("space".into())));
        assert!(effects.contains(&crate::tui::action::Effect::Job(
            crate::jobs::Request::StartExpansion
        )));
        runner.send(Request::StartExpansion);
        let mut feed = JobFeed::new();
        let mut clock = tokio::time::interval(Duration::from_millis(100));
        let mut keys = tokio::time::interval(Duration::from_millis(300));
        let cycle = ["l", "j", "h", "k", "j", "l", "h"];
        let (mut sent, mut raw_views, mut finished) = (0, 0, 0);
        let end = tokio::time::sleep(Duration::from_secs(4));
        tokio::pin!(end);
        loop {
            tokio::select! {
                _ = &mut end => break,
                _ = clock.tick() => {
                    for a in feed.tick(&app) { consume(&mut app, a); }
                    consume(&mut app, Action::Tick { now_ms: started.elapsed().as_millis() as u64 });
                }
                _ = keys.tick() => {
                    for a in feed.before_input(&app) { consume(&mut app, a); }
                    consume(&mut app, Action::Key(Key(cycle[sent % cycle.len()].into())));
                    sent += 1;
                    for a in feed.after_input(&app) { consume(&mut app, a); }
                }
                Some(event) = rx.recv() => {
                    if let JobEvent::NodesChanged(views) = &event {
                        raw_views += views.len();
                        for v in views { reported.upsert(v.clone()); }
                    }
                    finished += matches!(event, JobEvent::Finished { .. }) as usize;
                    for a in feed.push(event) { consume(&mut app, a); }
                }
            }
        }
        runner.send(Request::StopAll);
        for a in feed.take_all() {
            consume(&mut app, a);
        }
        assert!(
            finished >= 2,
            "the expansion ran ({finished} jobs finished)"
        );
        assert!(reported.node_count() > 146, "the book grew");
        assert_eq!(app.book.as_ref().unwrap().nodes, reported.nodes);
        let records = session::read(&path).unwrap();
        let recorded_views: usize = records
            .iter()
            .map(|r| match &r.action {
                Action::Job(JobEvent::NodesChanged(v)) => v.len(),
                _ => 0,
            })
            .sum();
        assert!(
            recorded_views < raw_views,
            "{recorded_views} views recorded of {raw_views} reported"
        );
        let mut replayed = Vec::new();
        replay::frames(&records, |_, text| replayed.push(text.to_string()));
        assert_eq!(replayed.len(), frames.len());
        if let Some(i) = frames.iter().zip(&replayed).position(|(a, b)| a != b) {
            panic!("frame {i} differs:\n{}\n---\n{}", frames[i], replayed[i]);
        }
    }
}
