//! The live workbench: the terminal, the event loop, the file watcher and the jobs, connected through
//! [`Action`]s. Every action goes through the recorder (when there is one) and then [`update`]; the
//! effects it returns are carried out here. The terminal is restored on quit, on panic (ratatui's hook),
//! on Ctrl-C (raw mode delivers it as a key) and on SIGTERM/SIGHUP.

use super::action::{Action, Effect, Key};
use super::app::App;
use super::config::{Config, Dirs};
use super::render;
use super::theme::Theme;
use super::update::update;
use crate::book::view::BookView;
use crate::jobs::runner::{Request, Runner};
use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures::StreamExt;
use notify::Watcher;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Called with every action the app consumes, and the milliseconds since the session started.
pub type Recorder = Box<dyn FnMut(u64, &Action) + Send>;

pub struct Options {
    pub book: BookView,
    /// Runs expansion and analysis; `None` when no engine could be started (the reason goes in `notices`).
    pub runner: Option<RunnerStart>,
    pub config: Config,
    pub dirs: Option<Dirs>,
    pub recorder: Option<Recorder>,
    /// Messages for the status line at start (config warnings, engine problems).
    pub notices: Vec<(String, bool)>,
    /// The engine the runner uses, for the status line and the caution before growing the book.
    pub engine: Option<super::app::EngineStatus>,
    /// The book's file, for `:compare` (none for a shipped book opened from memory).
    pub book_file: Option<PathBuf>,
}

/// What it takes to start the job runner once the runtime (and its clock) exists.
pub type RunnerStart =
    Box<dyn FnOnce(Instant, mpsc::UnboundedSender<crate::jobs::JobEvent>) -> Runner + Send>;

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Files the watcher reports.
enum Watched {
    Keymap,
    Theme(String),
}

/// Runs the workbench until the user quits. Must be called inside a tokio runtime.
pub async fn run(options: Options) -> Result<(), RuntimeError> {
    let mut terminal = ratatui::try_init()?;
    // Clicks and the wheel come as events; the terminal gets them back when we stop, on a panic too
    // (ratatui's own hook, which runs after this one, restores the rest).
    crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture)?;
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
        previous(info);
    }));
    let result = event_loop(&mut terminal, options).await;
    let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
    ratatui::restore();
    result
}

/// The app and what its effects reach: every action goes through [`Driver::apply`], which records it,
/// updates the app and carries out the effects.
struct Driver {
    app: App,
    runner: Option<Runner>,
    dirs: Option<Dirs>,
    recorder: Option<Recorder>,
    started: Instant,
    theme_name: String,
}

impl Driver {
    fn apply(&mut self, action: Action) {
        let Driver {
            app,
            runner,
            dirs,
            recorder,
            started,
            theme_name,
        } = self;
        let started = *started;
        let mut dispatch =
            |app: &mut App, action: Action, theme_name: &mut String| -> Vec<Effect> {
                if let Some(rec) = recorder.as_mut() {
                    rec(started.elapsed().as_millis() as u64, &action);
                }
                let effects = update(app, action);
                if let Some(Effect::LoadTheme(name)) =
                    effects.iter().find(|e| matches!(e, Effect::LoadTheme(_)))
                {
                    *theme_name = name.clone();
                }
                effects
            };
        let effects = dispatch(app, action, theme_name);
        perform(
            effects,
            runner.as_ref(),
            dirs.as_ref(),
            app,
            &mut dispatch,
            theme_name,
        );
    }

    fn apply_all(&mut self, actions: Vec<Action>) {
        for action in actions {
            self.apply(action);
        }
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// The actions a session starts with: the screen size, the book, the user's keymap and theme, the notices
/// from start-up and the engine.
fn initial_actions(
    size: ratatui::layout::Size,
    book: BookView,
    dirs: Option<&Dirs>,
    theme_name: &str,
    notices: Vec<(String, bool)>,
    engine: Option<super::app::EngineStatus>,
) -> Vec<Action> {
    let mut initial = vec![
        Action::Resize {
            width: size.width,
            height: size.height,
        },
        Action::BookLoaded(Box::new(book)),
    ];
    if let Some(action) = dirs.and_then(keymap_action) {
        initial.push(action);
    }
    if theme_name != "dark" || dirs.is_some_and(|d| d.themes_dir().join("dark.toml").exists()) {
        initial.push(theme_action(dirs, theme_name));
    }
    for (text, is_error) in notices {
        initial.push(Action::Notice { text, is_error });
    }
    if let Some(engine) = engine {
        initial.push(Action::Engine(engine));
    }
    initial
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    options: Options,
) -> Result<(), RuntimeError> {
    let Options {
        book,
        runner,
        config,
        dirs,
        recorder,
        notices,
        engine,
        book_file,
    } = options;
    let started = Instant::now();
    let mut app = App::new();
    app.book_file = book_file;
    let (job_tx, mut job_rx) = mpsc::unbounded_channel();
    let runner = runner.map(|start| start(started, job_tx));
    let (watch_tx, mut watch_rx) = mpsc::unbounded_channel();
    let _watcher = dirs.as_ref().and_then(|d| watch(d, watch_tx));
    let initial = initial_actions(
        terminal.size()?,
        book,
        dirs.as_ref(),
        &config.theme,
        notices,
        engine,
    );
    let mut driver = Driver {
        app,
        runner,
        dirs,
        recorder,
        started,
        theme_name: config.theme.clone(),
    };
    driver.apply_all(initial);

    let mut events = EventStream::new();
    let mut frame_tick = tokio::time::interval(Duration::from_millis(33));
    frame_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut clock_tick = tokio::time::interval(Duration::from_millis(500));
    clock_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut terminate = unix_signal(tokio::signal::unix::SignalKind::terminate());
    let mut hangup = unix_signal(tokio::signal::unix::SignalKind::hangup());
    let mut dirty = true;
    let mut feed = super::feed::JobFeed::new();
    while !driver.app.quit {
        let action = tokio::select! {
            _ = frame_tick.tick() => {
                if dirty {
                    terminal.draw(|f| render::render(&driver.app, f))?;
                    dirty = false;
                }
                continue;
            }
            _ = clock_tick.tick() => {
                // The clock only matters while something runs; idle sessions record no ticks.
                let busy = driver.app.jobs.iter().any(|j| !j.state.is_finished());
                if !busy && feed.is_empty() { continue; }
                let due = feed.tick(&driver.app);
                driver.apply_all(due);
                if !busy { dirty = true; continue; }
                Action::Tick { now_ms: driver.now_ms() }
            }
            ev = events.next() => match ev {
                Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => match key_text(&k) {
                    Some(key) if key.0 == "ctrl-c" => Action::Terminate,
                    Some(key) => Action::Key(key),
                    None => continue,
                },
                Some(Ok(Event::Resize(width, height))) => Action::Resize { width, height },
                // Resolved against the screen as drawn; the command it means is what gets recorded.
                Some(Ok(Event::Mouse(m))) => match super::mouse::action(&driver.app, &m) {
                    Some(action) => action,
                    None => continue,
                },
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
                None => Action::Terminate,
            },
            Some(event) = job_rx.recv() => {
                let mut now = feed.push(event);
                let Some(last) = now.pop() else { continue };
                driver.apply_all(now);
                last
            }
            Some(watched) = watch_rx.recv() => {
                match watched_action(&mut driver, watched, &mut watch_rx).await {
                    Some(action) => action,
                    None => {
                        dirty = true;
                        continue;
                    }
                }
            }
            Some(()) = recv_signal(&mut terminate) => Action::Terminate,
            Some(()) = recv_signal(&mut hangup) => Action::Terminate,
        };
        let input = is_input(&action);
        if input {
            let held = feed.before_input(&driver.app);
            driver.apply_all(held);
        }
        driver.apply(action);
        if input {
            let held = feed.after_input(&driver.app);
            driver.apply_all(held);
        }
        dirty = true;
    }
    if let Some(r) = &driver.runner {
        r.send(Request::StopAll);
    }
    Ok(())
}

/// A change to the keymap or theme files: the keymap is reloaded here, the theme comes back as the action
/// to apply (none when the change is to a theme not in use).
async fn watched_action(
    driver: &mut Driver,
    first: Watched,
    watch_rx: &mut mpsc::UnboundedReceiver<Watched>,
) -> Option<Action> {
    // Editors write in bursts; let the burst settle, then read once.
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut all = vec![first];
    while let Ok(more) = watch_rx.try_recv() {
        all.push(more);
    }
    let d = driver.dirs.clone()?;
    if all.iter().any(|w| matches!(w, Watched::Keymap))
        && let Some(a) = keymap_action(&d)
    {
        driver.apply(a);
    }
    let theme_name = &driver.theme_name;
    all.iter()
        .any(|w| matches!(w, Watched::Theme(n) if n == theme_name))
        .then(|| theme_action(Some(&d), theme_name))
}

/// Inputs that may change what the screen shows (the job feed hands over held nodes around them).
fn is_input(action: &Action) -> bool {
    matches!(
        action,
        Action::Key(_) | Action::Resize { .. } | Action::GameFile { .. } | Action::Run(_)
    )
}

fn unix_signal(kind: tokio::signal::unix::SignalKind) -> Option<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(kind).ok()
}

async fn recv_signal(signal: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
    match signal {
        Some(s) => s.recv().await,
        None => std::future::pending().await,
    }
}

fn perform(
    effects: Vec<Effect>,
    runner: Option<&Runner>,
    dirs: Option<&Dirs>,
    app: &mut App,
    dispatch: &mut impl FnMut(&mut App, Action, &mut String) -> Vec<Effect>,
    theme_name: &mut String,
) {
    for effect in effects {
        let request = match effect {
            Effect::Job(Request::Evaluate { line }) if runner.is_none() => {
                // Answered here, so the overlay says why it is off instead of waiting.
                let event = crate::jobs::JobEvent::Evaluated {
                    line,
                    eval: Err("no engine is running".into()),
                };
                let more = dispatch(app, Action::Job(event), theme_name);
                debug_assert!(more.is_empty());
                continue;
            }
            Effect::Job(request) => request,
            Effect::LoadTheme(name) => {
                let action = theme_action(dirs, &name);
                // A theme is a file read: it goes through the recorder like any other input.
                let more = dispatch(app, action, theme_name);
                debug_assert!(more.is_empty());
                continue;
            }
            Effect::Quit => continue,
            Effect::ReadGame(path) => {
                // Read here, handed back as an action: a replay sees the same text without the file.
                let text = std::fs::read(&path)
                    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                    .map_err(|e| e.to_string());
                let more = dispatch(app, Action::GameFile { path, text }, theme_name);
                debug_assert!(more.is_empty());
                continue;
            }
            Effect::Compare(path) => {
                // Read and compared here, handed back as an action: a replay sees the same marks.
                let result = compare(app.book_file.as_deref(), &path);
                let more = dispatch(app, Action::Compared { path, result }, theme_name);
                debug_assert!(more.is_empty());
                continue;
            }
            Effect::LoadEndgame(file) => {
                // A small file read, like a theme's; its content goes through the recorder.
                let action = endgame_file_action(&file);
                let more = dispatch(app, action, theme_name);
                debug_assert!(more.is_empty());
                continue;
            }
        };
        match runner {
            Some(r) => r.send(request),
            None if matches!(request, Request::SetMarks { .. }) => {}
            None => {
                let text =
                    "no engine is running, so jobs cannot start (see the message at start-up)"
                        .to_string();
                let more = dispatch(
                    app,
                    Action::Notice {
                        text,
                        is_error: true,
                    },
                    theme_name,
                );
                debug_assert!(more.is_empty());
            }
        }
    }
}

/// An endgame problem file as an action: its position and region, or what is wrong with it.
fn endgame_file_action(file: &str) -> Action {
    match crate::endgame::problem::Problem::read(std::path::Path::new(file)) {
        Ok(problem) => Action::EndgameLoaded(Box::new(
            crate::jobs::endgame::Position::from_problem(&problem),
        )),
        Err(e) => Action::Notice {
            text: format!("endgame: {e}"),
            is_error: true,
        },
    }
}

/// The user's keymap file as an action (`None` text when there is no file).
fn keymap_action(dirs: &Dirs) -> Option<Action> {
    let path = dirs.keymap_file();
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(Action::KeymapFile {
            path: path.display().to_string(),
            text: Some(text),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(Action::KeymapFile {
            path: path.display().to_string(),
            text: None,
        }),
        Err(e) => Some(Action::Notice {
            text: format!("cannot read {}: {e}", path.display()),
            is_error: true,
        }),
    }
}

/// A theme by name: the user's file in the config directory first, then the built-in one.
fn theme_action(dirs: Option<&Dirs>, name: &str) -> Action {
    if let Err(why) = crate::tui::theme::check_name(name) {
        return Action::Notice {
            text: format!("theme: {why}; the current theme is kept"),
            is_error: true,
        };
    }
    if let Some(d) = dirs {
        let path: PathBuf = d.themes_dir().join(format!("{name}.toml"));
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                return Action::ThemeFile {
                    name: name.to_string(),
                    text,
                };
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Action::Notice {
                    text: format!("cannot read {}: {e}", path.display()),
                    is_error: true,
                };
            }
            Err(_) => {}
        }
    }
    match Theme::built_in(name) {
        Some(text) => Action::ThemeFile {
            name: name.to_string(),
            text: text.to_string(),
        },
        None => Action::Notice {
            text: format!(
                "no theme named `{name}` (built in: dark, light, high-contrast, colorblind, ascii)"
            ),
            is_error: true,
        },
    }
}

/// Watches the config directory and its `themes/`; a watch on the directory (not the file) survives
/// editors that save by renaming a temporary file over the original.
fn watch(dirs: &Dirs, tx: mpsc::UnboundedSender<Watched>) -> Option<notify::RecommendedWatcher> {
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let Ok(event) = res else { return };
        if event.kind.is_access() {
            return;
        }
        for path in &event.paths {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let in_themes = path
                .parent()
                .and_then(|p| p.file_name())
                .is_some_and(|n| n == "themes");
            if name == "keymap.toml" && !in_themes {
                let _ = tx.send(Watched::Keymap);
            } else if in_themes && let Some(theme) = name.strip_suffix(".toml") {
                let _ = tx.send(Watched::Theme(theme.to_string()));
            }
        }
    })
    .ok()?;
    let _ = std::fs::create_dir_all(dirs.themes_dir());
    watcher
        .watch(&dirs.config, notify::RecursiveMode::NonRecursive)
        .ok()?;
    let _ = watcher.watch(&dirs.themes_dir(), notify::RecursiveMode::NonRecursive);
    Some(watcher)
}

/// A crossterm key in the keymap's text form.
pub fn key_text(key: &KeyEvent) -> Option<Key> {
    let m = key.modifiers;
    let mut prefix = String::new();
    if m.contains(KeyModifiers::CONTROL) {
        prefix.push_str("ctrl-");
    }
    if m.contains(KeyModifiers::ALT) {
        prefix.push_str("alt-");
    }
    let base = match key.code {
        KeyCode::Char(' ') => "space".to_string(),
        KeyCode::Char(c) if m.contains(KeyModifiers::CONTROL) => c.to_ascii_lowercase().to_string(),
        // Shifted characters arrive already shifted (`J`, `?`); the modifier adds nothing.
        KeyCode::Char(c) => return Some(Key(format!("{prefix}{c}"))),
        KeyCode::Enter => "enter".into(),
        KeyCode::Esc => "esc".into(),
        KeyCode::Tab => "tab".into(),
        KeyCode::BackTab => return Some(Key(format!("{prefix}backtab"))),
        KeyCode::Backspace => "backspace".into(),
        KeyCode::Delete => "delete".into(),
        KeyCode::Insert => "insert".into(),
        KeyCode::Home => "home".into(),
        KeyCode::End => "end".into(),
        KeyCode::PageUp => "pageup".into(),
        KeyCode::PageDown => "pagedown".into(),
        KeyCode::Up => "up".into(),
        KeyCode::Down => "down".into(),
        KeyCode::Left => "left".into(),
        KeyCode::Right => "right".into(),
        KeyCode::F(n) => format!("f{n}"),
        _ => return None,
    };
    let shift = if m.contains(KeyModifiers::SHIFT) {
        "shift-"
    } else {
        ""
    };
    Some(Key(format!("{prefix}{shift}{base}")))
}

/// The positions of the open book (by id) where it disagrees with the book in `other` (`book diff`).
fn compare(own: Option<&std::path::Path>, other: &str) -> Result<Vec<u32>, String> {
    use crate::book::study::diff::{DiffThresholds, diff};
    let own = own.ok_or("the open book has no file to compare from")?;
    let (a, _) = crate::book::store::load(own).map_err(|e| e.to_string())?;
    let other_path = std::path::Path::new(other);
    let b = if other.ends_with(".katabook") {
        crate::book::interop::katabook::import(other_path)
            .map_err(|e| e.to_string())?
            .0
    } else {
        crate::book::store::load(other_path)
            .map_err(|e| e.to_string())?
            .0
    };
    let d = diff(&a, &b, DiffThresholds::default()).map_err(|e| e.to_string())?;
    Ok(d.disagreements.iter().map(|x| x.a.0).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_events_match_the_keymap_spelling() {
        let k = |code, mods| key_text(&KeyEvent::new(code, mods)).unwrap().0;
        assert_eq!(k(KeyCode::Char('j'), KeyModifiers::NONE), "j");
        assert_eq!(k(KeyCode::Char('J'), KeyModifiers::SHIFT), "J");
        assert_eq!(k(KeyCode::Char('r'), KeyModifiers::CONTROL), "ctrl-r");
        assert_eq!(k(KeyCode::Left, KeyModifiers::ALT), "alt-left");
        assert_eq!(k(KeyCode::Down, KeyModifiers::SHIFT), "shift-down");
        assert_eq!(k(KeyCode::F(2), KeyModifiers::SHIFT), "shift-f2");
        assert_eq!(k(KeyCode::Char(' '), KeyModifiers::NONE), "space");
    }
}
