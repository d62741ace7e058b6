//! `update(&mut App, Action) -> Vec<Effect>`: the only place the workbench's state changes. It does no I/O;
//! what needs the world (jobs, files) comes back as [`Effect`]s for the runtime.

use super::action::{Action, Command, Effect, Key};
use super::annotation;
use super::app::{App, Expansion, JobView, Mode, Status, Step};
use super::keymap::Keymap;
use super::theme::Theme;
use crate::book::NodeId;
use crate::book::marks::Mark;
use crate::book::view::NodeView;
use crate::go::{Move, Symmetry};
use crate::jobs::{JobEvent, JobKind, JobState};

/// Finished jobs beyond this many are dropped from the list, oldest first.
const KEPT_FINISHED_JOBS: usize = 100;
/// Finished expansion steps the jobs list keeps before folding them into a count.
const KEPT_EXPANSIONS: usize = 5;

pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    let mut effects = apply(app, action);
    // Whatever changed the position, an overlay that is on asks for the new one's evaluation.
    effects.extend(super::overlay::request(app));
    effects
}

fn apply(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) => on_key(app, key),
        Action::Resize { width, height } => {
            app.width = width;
            app.height = height;
            Vec::new()
        }
        Action::Tick { now_ms } => {
            app.now_ms = app.now_ms.max(now_ms);
            Vec::new()
        }
        Action::BookLoaded(book) => {
            let root = book.root;
            let (name, count) = (book.name.clone(), book.node_count());
            app.game = Some(App::initial_game(&book));
            app.book = Some(*book);
            app.path = vec![Step {
                node: root,
                to_root: Symmetry::IDENTITY,
                mv: None,
            }];
            app.cursor = 0;
            app.history = vec![Vec::new()];
            app.history_pos = 0;
            info(app, format!("{name}: {count} positions · ? for help"));
            Vec::new()
        }
        Action::KeymapFile { path, text } => {
            match text {
                None => app.keymap = Keymap::defaults(),
                Some(text) => match Keymap::with_user(&text, &path) {
                    Ok(keymap) => {
                        app.keymap = keymap;
                        info(app, format!("keymap loaded from {path}"));
                    }
                    Err(e) => error(app, format!("keymap not reloaded, previous kept: {e}")),
                },
            }
            Vec::new()
        }
        Action::ThemeFile { name, text } => {
            match Theme::parse(&name, &text, &format!("theme {name}")) {
                Ok(theme) => {
                    app.theme = theme;
                    info(app, format!("theme {name}"));
                }
                Err(e) => error(app, format!("theme not loaded, previous kept: {e}")),
            }
            Vec::new()
        }
        Action::Notice { text, is_error } => {
            app.status = Status { text, is_error };
            Vec::new()
        }
        Action::Job(event) => {
            on_job(app, event);
            Vec::new()
        }
        Action::Terminate => {
            app.quit = true;
            vec![Effect::Quit]
        }
        Action::GameFile { path, text } => {
            game_file(app, &path, text);
            Vec::new()
        }
        Action::EndgameLoaded(position) => {
            super::endgame::loaded(app, *position);
            Vec::new()
        }
        Action::Engine(engine) => {
            super::confirm::engine_ready(app, engine);
            Vec::new()
        }
        Action::Compared { path, result } => {
            match result {
                Ok(ids) => {
                    info(
                        app,
                        format!(
                            "{} positions disagree with {path}; moves into them are marked",
                            ids.len()
                        ),
                    );
                    app.compared = Some(ids.into_iter().map(NodeId).collect());
                }
                Err(e) => error(app, format!(":compare {path}: {e}")),
            }
            Vec::new()
        }
        Action::Run(command) => run(app, command),
    }
}

fn info(app: &mut App, text: String) {
    app.status = Status {
        text,
        is_error: false,
    };
}

fn error(app: &mut App, text: String) {
    app.status = Status {
        text,
        is_error: true,
    };
}

fn on_key(app: &mut App, key: Key) -> Vec<Effect> {
    match app.mode.clone() {
        Mode::Confirm { then, .. } => super::confirm::on_key(app, &key, then),
        Mode::Help(scroll) => {
            let rows = app.keymap.help_rows().len();
            app.mode = match key.0.as_str() {
                "j" | "down" => Mode::Help((scroll + 1).min(rows.saturating_sub(1))),
                "k" | "up" => Mode::Help(scroll.saturating_sub(1)),
                "pagedown" | "space" => Mode::Help((scroll + 10).min(rows.saturating_sub(1))),
                "pageup" => Mode::Help(scroll.saturating_sub(10)),
                _ => Mode::Normal,
            };
            Vec::new()
        }
        Mode::Command(mut text) => match key.0.as_str() {
            "enter" => {
                app.mode = Mode::Normal;
                match Command::parse(&text) {
                    Ok(command) => run(app, command),
                    Err(e) => {
                        error(app, format!(":{text}: {e}"));
                        Vec::new()
                    }
                }
            }
            "esc" | "ctrl-c" => {
                app.mode = Mode::Normal;
                Vec::new()
            }
            "backspace" => {
                if text.pop().is_none() {
                    app.mode = Mode::Normal;
                } else {
                    app.mode = Mode::Command(text);
                }
                Vec::new()
            }
            k => {
                let typed = if k == "space" {
                    Some(' ')
                } else {
                    single_char(k)
                };
                if let Some(c) = typed {
                    text.push(c);
                    app.mode = Mode::Command(text);
                }
                Vec::new()
            }
        },
        Mode::Normal => match app
            .keymap
            .lookup_in(app.endgame_open().is_some(), &key)
            .map(|b| b.command.clone())
        {
            Some(command) => run(app, command),
            None => {
                error(
                    app,
                    format!("{} is not bound to anything (? lists the keys)", key.0),
                );
                Vec::new()
            }
        },
    }
}

fn single_char(key: &str) -> Option<char> {
    let mut chars = key.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

/// Runs a named command.
pub fn run(app: &mut App, command: Command) -> Vec<Effect> {
    if app.book.is_none()
        && !matches!(
            command,
            Command::Quit | Command::Help | Command::CommandLine | Command::Endgame(_)
        )
    {
        error(app, "no book is open yet".into());
        return Vec::new();
    }
    match command {
        Command::Into => {
            if !enter(app, app.cursor) {
                info(
                    app,
                    "no book move here: expand this position (space) to grow the book".into(),
                );
            } else {
                remember(app);
            }
        }
        Command::Parent => {
            if parent(app) {
                remember(app);
            }
        }
        Command::CursorUp => app.cursor = app.cursor.saturating_sub(1),
        Command::CursorDown => {
            let n = app.current().map_or(0, |n| n.edges.len());
            app.cursor = (app.cursor + 1).min(n.saturating_sub(1));
        }
        Command::NextSibling | Command::PrevSibling => {
            if app.path.len() < 2 {
                info(app, "the root has no siblings".into());
            } else {
                parent(app);
                let n = app.current().map_or(0, |n| n.edges.len());
                app.cursor = if command == Command::NextSibling {
                    (app.cursor + 1) % n.max(1)
                } else {
                    (app.cursor + n.max(1) - 1) % n.max(1)
                };
                enter(app, app.cursor);
                remember(app);
            }
        }
        Command::BestLine => {
            let mut steps = 0;
            // A book is a DAG, so this ends; the bound only guards against a corrupt one.
            while steps < 1000 && enter(app, 0) {
                steps += 1;
            }
            if steps > 0 {
                remember(app);
            }
        }
        Command::Root => {
            set_line(app, &[]);
            remember(app);
        }
        Command::HistoryBack => {
            if app.history_pos > 0 {
                app.history_pos -= 1;
                let line = app.history[app.history_pos].clone();
                set_line(app, &line);
            }
        }
        Command::HistoryForward => {
            if app.history_pos + 1 < app.history.len() {
                app.history_pos += 1;
                let line = app.history[app.history_pos].clone();
                set_line(app, &line);
            }
        }
        Command::BookmarkToggle => {
            let line = app.line();
            if let Some(i) = app.bookmarks.iter().position(|b| *b == line) {
                app.bookmarks.remove(i);
                info(app, "bookmark removed".into());
            } else {
                app.bookmarks.push(line);
                app.bookmarks.sort();
                info(app, format!("bookmarked ({} in all)", app.bookmarks.len()));
            }
        }
        Command::BookmarkNext | Command::BookmarkPrev => {
            if app.bookmarks.is_empty() {
                info(app, "no bookmarks yet (ctrl-b sets one)".into());
            } else {
                let line = app.line();
                let n = app.bookmarks.len();
                let i = app.bookmarks.iter().position(|b| *b == line);
                let next = match (i, command == Command::BookmarkNext) {
                    (Some(i), true) => (i + 1) % n,
                    (Some(i), false) => (i + n - 1) % n,
                    (None, true) => 0,
                    (None, false) => n - 1,
                };
                let target = app.bookmarks[next].clone();
                set_line(app, &target);
                remember(app);
            }
        }
        Command::Goto(words) => goto(app, &words),
        Command::Rotate | Command::Reflect => {
            let square = app.book.as_ref().is_some_and(|b| b.size.is_square());
            let by = if command == Command::Reflect {
                Symmetry::ALL[2]
            } else if square {
                Symmetry::ALL[5]
            } else {
                // Rectangles have no quarter turns; a half turn keeps them in shape.
                Symmetry::ALL[3]
            };
            app.view = app.view.then(by);
            info(app, format!("view: {}", app.view));
        }
        Command::ResetView => {
            app.view = Symmetry::IDENTITY;
            info(app, "view: as the book stores it".into());
        }
        Command::Mark(mark) => return set_mark(app, Some(mark)),
        Command::Unmark => return set_mark(app, None),
        Command::AnalyzeLine(priority) => {
            info(
                app,
                format!(
                    "deep analysis of this line queued (priority {})",
                    priority.0
                ),
            );
            return vec![Effect::AnalyzeLine {
                line: app.line(),
                priority,
            }];
        }
        Command::ExpandStart => {
            if super::confirm::ask(app, &Command::ExpandStart) {
                return Vec::new();
            }
            app.expansion = Expansion::Running;
            info(app, "expansion running".into());
            return vec![Effect::StartExpansion];
        }
        Command::ExpandPause => {
            if app.expansion == Expansion::Running {
                app.expansion = Expansion::Paused;
                info(
                    app,
                    "expansion paused: running searches finish, no new ones start".into(),
                );
                return vec![Effect::PauseExpansion];
            }
        }
        Command::ExpandStop => {
            if app.expansion != Expansion::Stopped {
                app.expansion = Expansion::Stopped;
                info(app, "expansion stopped".into());
                return vec![Effect::StopExpansion];
            }
        }
        Command::ExpandToggle => {
            let next = if app.expansion == Expansion::Running {
                Command::ExpandPause
            } else {
                Command::ExpandStart
            };
            return run(app, next);
        }
        Command::JobUp => app.job_cursor = app.job_cursor.saturating_sub(1),
        Command::JobDown => {
            app.job_cursor = (app.job_cursor + 1).min(app.jobs.len().saturating_sub(1))
        }
        Command::CancelJob => match app.selected_job() {
            Some(job) if !job.state.is_finished() => return vec![Effect::CancelJob(job.id)],
            Some(_) => info(app, "that job has already finished".into()),
            None => info(app, "no job selected".into()),
        },
        Command::RetryJob => match app.selected_job() {
            Some(job) if matches!(job.state, JobState::Failed | JobState::Cancelled) => {
                return vec![Effect::RetryJob(job.id)];
            }
            Some(_) => info(app, "only failed or cancelled jobs can be retried".into()),
            None => info(app, "no job selected".into()),
        },
        Command::TogglePv => app.show_pv = !app.show_pv,
        Command::ToggleGraph => app.show_graph = !app.show_graph,
        Command::Overlay(choice) => super::overlay::set(app, choice),
        Command::Export { file, subtree } => {
            return vec![Effect::Export {
                file,
                line: app.line(),
                subtree,
            }];
        }
        Command::Help => app.mode = Mode::Help(0),
        Command::CommandLine => app.mode = Mode::Command(String::new()),
        Command::Theme(name) => return vec![Effect::LoadTheme(name)],
        Command::Quit => {
            app.quit = true;
            return vec![Effect::Quit];
        }
        Command::Annotate(Some(path)) => {
            info(app, format!("reading {path}…"));
            return vec![Effect::ReadGame(path)];
        }
        Command::Annotate(None) => {
            app.annotation = None;
            info(app, "annotation closed".into());
        }
        Command::AnnotateNext => step_game(app, true),
        Command::AnnotatePrev => step_game(app, false),
        Command::Endgame(command) => return super::endgame::run(app, command),
        Command::Compare(Some(path)) => {
            info(app, format!("comparing with {path}…"));
            return vec![Effect::Compare(path)];
        }
        Command::Compare(None) => {
            app.compared = None;
            info(app, "comparison cleared".into());
        }
    }
    Vec::new()
}

/// Plays the book move in row `row` of the current node. False when there is none.
fn enter(app: &mut App, row: usize) -> bool {
    let (Some(book), Some(step)) = (&app.book, app.path.last()) else {
        return false;
    };
    let Some(edge) = book.node(step.node).and_then(|n| n.edges.get(row)) else {
        return false;
    };
    let mv = step.to_root.apply_move(book.size, edge.mv);
    let next = Step {
        node: edge.child,
        to_root: edge.to_child.inverse().then(step.to_root),
        mv: Some(mv),
    };
    if book.node(next.node).is_none() {
        return false;
    }
    if let Some(game) = &mut app.game
        && let Err(reason) = game.play(mv)
    {
        let text = format!(
            "the book move {} is illegal here: {reason}",
            mv.to_gtp(book.size)
        );
        error(app, text);
        return false;
    }
    app.path.push(next);
    app.cursor = 0;
    true
}

/// Steps back to the parent, highlighting the move we came by.
fn parent(app: &mut App) -> bool {
    if app.path.len() < 2 {
        return false;
    }
    let Some(left) = app.path.pop() else {
        return false;
    };
    rebuild_game(app);
    app.cursor = 0;
    if let (Some(node), Some(step), Some(mv)) =
        (app.current().cloned(), app.path.last().cloned(), left.mv)
        && let Some(row) = node
            .edges
            .iter()
            .position(|e| app.edge_points_in_root(&node, &step, e).contains(&mv))
    {
        app.cursor = row;
    }
    true
}

fn rebuild_game(app: &mut App) {
    let Some(book) = &app.book else { return };
    let mut game = App::initial_game(book);
    for mv in app.path.iter().filter_map(|s| s.mv) {
        if game.play(mv).is_err() {
            break;
        }
    }
    app.game = Some(game);
}

/// The step after playing `mv` (root orientation) at the end of the path, if the book has that move.
fn follow(app: &App, mv: Move) -> Option<Step> {
    let book = app.book.as_ref()?;
    super::annotation::follow(book, app.path.last()?, mv).map(|(step, _)| step)
}

/// Walks from the root along `line` (root orientation) as far as the book goes; says where it stopped.
fn set_line(app: &mut App, line: &[Move]) -> bool {
    let Some(book) = &app.book else { return false };
    app.path = vec![Step {
        node: book.root,
        to_root: Symmetry::IDENTITY,
        mv: None,
    }];
    app.game = Some(App::initial_game(book));
    app.cursor = 0;
    for (i, &mv) in line.iter().enumerate() {
        match follow(app, mv) {
            Some(step) if app.game.as_mut().is_some_and(|g| g.play(mv).is_ok()) => {
                app.path.push(step)
            }
            _ => {
                let text = format!(
                    "{} (move {}) is not in the book; stopped after move {i}",
                    app.screen_text(mv),
                    i + 1
                );
                error(app, text);
                rebuild_game(app);
                return false;
            }
        }
    }
    true
}

fn goto(app: &mut App, words: &[String]) {
    let Some(size) = app.book.as_ref().map(|b| b.size) else {
        return;
    };
    let mut line = Vec::new();
    for w in words {
        match Move::parse_gtp(w, size) {
            // Typed moves are in screen coordinates; the book walks in the root's orientation.
            Ok(mv) => line.push(app.view.inverse().apply_move(size, mv)),
            Err(e) => {
                error(app, format!("goto: {e}"));
                return;
            }
        }
    }
    if set_line(app, &line) {
        info(app, format!("at move {}", line.len()));
    }
    remember(app);
}

/// A game file for `:annotate` arrived: annotate it and go to the root, where the game starts.
fn game_file(app: &mut App, path: &str, text: Result<String, String>) {
    let Some(book) = &app.book else {
        error(app, "no book is open yet".into());
        return;
    };
    let loaded = text
        .map_err(|e| format!("{path}: {e}"))
        .and_then(|text| annotation::load(book, path, &text));
    match loaded {
        Ok(game) => {
            let summary = match game.left_book_at() {
                Some(n) => format!(
                    "{path}: {} moves, leaves the book at move {n} · . and , step through it",
                    game.moves.len()
                ),
                None => format!(
                    "{path}: {} moves, {} in the book · . and , step through it",
                    game.moves.len(),
                    game.book_moves()
                ),
            };
            app.annotation = Some(game);
            set_line(app, &[]);
            remember(app);
            info(app, summary);
        }
        Err(e) => error(app, format!("annotate: {e}")),
    }
}

/// One move forward or back in the annotated game; the book walk follows as far as the book goes.
fn step_game(app: &mut App, forward: bool) {
    let (Some(book), Some(game)) = (&app.book, &mut app.annotation) else {
        info(
            app,
            "no game to step through (:annotate FILE.sgf loads one)".into(),
        );
        return;
    };
    // Expansion may have grown the book since the game was loaded.
    game.notes = annotation::annotate(book, &game.moves);
    game.at = if forward {
        (game.at + 1).min(game.moves.len())
    } else {
        game.at.saturating_sub(1)
    };
    let (at, total, in_book, line) = (
        game.at,
        game.moves.len(),
        game.book_moves(),
        game.book_line(),
    );
    if set_line(app, &line) {
        let text = if at > in_book {
            format!(
                "game move {at} of {total}: out of the book since move {}",
                in_book + 1
            )
        } else {
            format!("game move {at} of {total}")
        };
        info(app, text);
    }
    remember(app);
}

/// Records the current line in the history (dropping anything forward of the current entry).
fn remember(app: &mut App) {
    let line = app.line();
    if app.history.get(app.history_pos) == Some(&line) {
        return;
    }
    app.history.truncate(app.history_pos + 1);
    app.history.push(line);
    app.history_pos = app.history.len() - 1;
}

fn set_mark(app: &mut App, mark: Option<Mark>) -> Vec<Effect> {
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
    vec![Effect::SetMarks { line, marks }]
}

fn on_job(app: &mut App, event: JobEvent) {
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
    super::endgame::on_job(app, &event);
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
        JobEvent::Evaluated { line, eval } => super::overlay::evaluated(app, line, eval),
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
