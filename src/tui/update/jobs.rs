//! Background work seen from the app: expansion, deep analysis, the jobs list, marks, and the events
//! jobs send back.

use super::{error, info};
use crate::book::marks::Mark;
use crate::book::view::NodeView;
use crate::jobs::{JobEvent, JobKind, JobState, Request};
use crate::tui::action::{Command, Effect};
use crate::tui::app::{App, Expansion, JobView, Status};

/// Finished jobs beyond this many are dropped from the list, oldest first.
const KEPT_FINISHED_JOBS: usize = 100;
/// Finished expansion steps the jobs list keeps before folding them into a count.
const KEPT_EXPANSIONS: usize = 5;

/// Runs a command about jobs ([`super::run`] sends only those here).
pub(super) fn run(app: &mut App, command: Command) -> Vec<Effect> {
    match command {
        Command::AnalyzeLine(priority) => {
            info(
                app,
                format!(
                    "deep analysis of this line queued (priority {})",
                    priority.0
                ),
            );
            return vec![Effect::Job(Request::AnalyzeLine {
                line: app.line(),
                priority,
            })];
        }
        Command::ExpandStart => {
            if crate::tui::confirm::ask(app, &Command::ExpandStart) {
                return Vec::new();
            }
            app.expansion = Expansion::Running;
            info(app, "expansion running".into());
            return vec![Effect::Job(Request::StartExpansion)];
        }
        Command::ExpandPause if app.expansion == Expansion::Running => {
            app.expansion = Expansion::Paused;
            info(
                app,
                "expansion paused: running searches finish, no new ones start".into(),
            );
            return vec![Effect::Job(Request::PauseExpansion)];
        }
        Command::ExpandStop if app.expansion != Expansion::Stopped => {
            app.expansion = Expansion::Stopped;
            info(app, "expansion stopped".into());
            return vec![Effect::Job(Request::StopExpansion)];
        }
        Command::ExpandToggle => {
            let next = if app.expansion == Expansion::Running {
                Command::ExpandPause
            } else {
                Command::ExpandStart
            };
            return super::run(app, next);
        }
        Command::JobUp => app.job_cursor = app.job_cursor.saturating_sub(1),
        Command::JobDown => {
            app.job_cursor = (app.job_cursor + 1).min(app.jobs.len().saturating_sub(1))
        }
        Command::CancelJob => match app.selected_job() {
            Some(job) if !job.state.is_finished() => {
                return vec![Effect::Job(Request::Cancel(job.id))];
            }
            Some(_) => info(app, "that job has already finished".into()),
            None => info(app, "no job selected".into()),
        },
        Command::RetryJob => match app.selected_job() {
            Some(job) if matches!(job.state, JobState::Failed | JobState::Cancelled) => {
                return vec![Effect::Job(Request::Retry(job.id))];
            }
            Some(_) => info(app, "only failed or cancelled jobs can be retried".into()),
            None => info(app, "no job selected".into()),
        },
        _ => {}
    }
    Vec::new()
}

pub(super) fn set_mark(app: &mut App, mark: Option<Mark>) -> Vec<Effect> {
    let Some(node_id) = app.path.last().map(|s| s.node) else {
        return Vec::new();
    };
    let line = app.line();
    let Some(book) = &mut app.book else {
        return Vec::new();
    };
    let Some(node) = book.nodes.get_mut(node_id.index()) else {
        return Vec::new();
    };
    match mark {
        Some(mark) => {
            node.marks.retain(|m| !m.same_kind(&mark));
            node.marks.push(mark);
        }
        None => node.marks.clear(),
    }
    let marks = node.marks.clone();
    let text = match mark {
        Some(m) => format!(
            "marked {} {} (the next expansion favours it)",
            m.keyword(),
            &m.short()[1..]
        ),
        None => "marks removed".into(),
    };
    info(app, text);
    vec![Effect::Job(Request::SetMarks { line, marks })]
}

pub(super) fn on_job(app: &mut App, event: JobEvent) {
    // The highlight follows its job when jobs change places (a cancelled job moves to the finished ones),
    // so that Ctrl-R then retries the job just cancelled.
    let selected = app.selected_job().map(|j| j.id);
    job_event(app, event);
    if let Some(id) = selected
        && let Some(row) = app.job_order().iter().position(|&i| app.jobs[i].id == id)
    {
        app.job_cursor = row;
    }
    app.job_cursor = app.job_cursor.min(app.jobs.len().saturating_sub(1));
}

fn job_event(app: &mut App, event: JobEvent) {
    crate::tui::endgame::on_job(app, &event);
    match event {
        JobEvent::Queued {
            id,
            kind,
            priority,
            target_visits,
        } => {
            app.jobs.push(JobView {
                id,
                kind,
                priority,
                state: JobState::Queued,
                visits: 0,
                target_visits,
                started_ms: None,
                finished_ms: None,
                note: String::new(),
            });
            prune_jobs(app);
        }
        JobEvent::Started { id, at_ms } => {
            if let Some(j) = job_mut(app, id) {
                j.state = JobState::Running;
                j.started_ms = Some(at_ms);
            }
        }
        JobEvent::Progress { id, visits } => {
            // A cancelled search still reports while it winds down; its bar stays where it stopped.
            if let Some(j) = job_mut(app, id)
                && !j.state.is_finished()
            {
                j.visits = visits;
            }
        }
        JobEvent::Finished { id, at_ms, summary } => {
            if let Some(j) = job_mut(app, id) {
                j.state = JobState::Done;
                j.finished_ms = Some(at_ms);
                j.visits = j.target_visits.max(j.visits);
                j.note = summary;
            }
            fold_expansions(app);
        }
        JobEvent::Failed {
            id,
            at_ms,
            error: e,
        } => {
            if let Some(j) = job_mut(app, id) {
                j.state = JobState::Failed;
                j.finished_ms = Some(at_ms);
                j.note = e.clone();
            }
            error(app, format!("job {} failed: {e} (ctrl-r retries)", id.0));
        }
        JobEvent::Cancelled { id, at_ms } => {
            if let Some(j) = job_mut(app, id) {
                j.state = JobState::Cancelled;
                j.finished_ms = Some(at_ms);
            }
        }
        JobEvent::NodesChanged(nodes) => nodes_changed(app, nodes),
        JobEvent::MarksChanged { node, marks } => {
            if let Some(n) = app
                .book
                .as_mut()
                .and_then(|b| b.nodes.get_mut(node.index()))
            {
                n.marks = marks;
            }
        }
        JobEvent::Notice { text, is_error } => app.status = Status { text, is_error },
        // The endgame pane took it above.
        JobEvent::EndgameReport { .. } => {}
        JobEvent::Evaluated { line, eval } => crate::tui::overlay::evaluated(app, line, eval),
        JobEvent::ExpansionIdle { reason } => {
            app.expansion = Expansion::Stopped;
            info(app, format!("expansion stopped: {reason}"));
        }
    }
}

fn job_mut(app: &mut App, id: crate::jobs::JobId) -> Option<&mut JobView> {
    app.jobs.iter_mut().find(|j| j.id == id)
}

/// Finished expansion steps beyond the last few fold into [`App::expansions_done`]: background expansion
/// finishes several a second, and a list of thousands hides the jobs that matter.
fn fold_expansions(app: &mut App) {
    let done = |j: &JobView| j.state == JobState::Done && matches!(j.kind, JobKind::Expand { .. });
    let count = app.jobs.iter().filter(|j| done(j)).count();
    let mut excess = count.saturating_sub(KEPT_EXPANSIONS);
    if excess == 0 {
        return;
    }
    app.expansions_done += excess as u64;
    // `jobs` is in the order they were queued, so the oldest go first.
    app.jobs.retain(|j| {
        if excess > 0 && done(j) {
            excess -= 1;
            false
        } else {
            true
        }
    });
}

fn prune_jobs(app: &mut App) {
    let finished = app.jobs.iter().filter(|j| j.state.is_finished()).count();
    if finished > KEPT_FINISHED_JOBS {
        let mut excess = finished - KEPT_FINISHED_JOBS;
        app.jobs.retain(|j| {
            if excess > 0 && j.state.is_finished() {
                excess -= 1;
                false
            } else {
                true
            }
        });
        app.job_cursor = app.job_cursor.min(app.jobs.len().saturating_sub(1));
    }
}

/// A job changed nodes: replace them, keeping the highlighted move under the cursor.
fn nodes_changed(app: &mut App, nodes: Vec<NodeView>) {
    let highlighted = app.highlighted().map(|e| e.mv);
    if let Some(book) = &mut app.book {
        for node in nodes {
            book.upsert(node);
        }
    }
    if let Some(mv) = highlighted
        && let Some(row) = app
            .current()
            .and_then(|n| n.edges.iter().position(|e| e.mv == mv))
    {
        app.cursor = row;
    }
    let n = app.current().map_or(0, |n| n.edges.len());
    app.cursor = app.cursor.min(n.saturating_sub(1));
}
