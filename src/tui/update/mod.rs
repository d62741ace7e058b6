//! `update(&mut App, Action) -> Vec<Effect>`: the only place the workbench's state changes. It does no I/O;
//! what needs the world (jobs, files) comes back as [`Effect`]s for the runtime. The commands live by
//! concept: [`navigation`] (moving through the book, history, bookmarks, the view), [`jobs`] (expansion,
//! jobs, marks and what jobs report) and [`annotate`] (a game file stepped through against the book).

mod annotate;
mod jobs;
mod navigation;

use super::action::{Action, Command, Effect, Key};
use super::app::{App, Mode, Status, Step};
use super::keymap::Keymap;
use super::theme::Theme;
use crate::book::NodeId;
use crate::go::Symmetry;
use crate::jobs::Request;

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
            jobs::on_job(app, event);
            Vec::new()
        }
        Action::Terminate => {
            app.quit = true;
            vec![Effect::Quit]
        }
        Action::GameFile { path, text } => {
            annotate::game_file(app, &path, text);
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

pub(super) fn info(app: &mut App, text: String) {
    app.status = Status {
        text,
        is_error: false,
    };
}

pub(super) fn error(app: &mut App, text: String) {
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
        Command::Into
        | Command::Parent
        | Command::CursorUp
        | Command::CursorDown
        | Command::NextSibling
        | Command::PrevSibling
        | Command::BestLine
        | Command::Root
        | Command::HistoryBack
        | Command::HistoryForward
        | Command::BookmarkToggle
        | Command::BookmarkNext
        | Command::BookmarkPrev
        | Command::Goto(_)
        | Command::Rotate
        | Command::Reflect
        | Command::ResetView => navigation::run(app, command),
        Command::Mark(mark) => return jobs::set_mark(app, Some(mark)),
        Command::Unmark => return jobs::set_mark(app, None),
        Command::AnalyzeLine(_)
        | Command::ExpandStart
        | Command::ExpandPause
        | Command::ExpandStop
        | Command::ExpandToggle
        | Command::JobUp
        | Command::JobDown
        | Command::CancelJob
        | Command::RetryJob => return jobs::run(app, command),
        Command::TogglePv => app.show_pv = !app.show_pv,
        Command::ToggleGraph => app.show_graph = !app.show_graph,
        Command::Overlay(choice) => super::overlay::set(app, choice),
        Command::Export { file, subtree } => {
            return vec![Effect::Job(Request::Export {
                file: file.into(),
                line: app.line(),
                subtree,
            })];
        }
        Command::Help => app.mode = Mode::Help(0),
        Command::CommandLine => app.mode = Mode::Command(String::new()),
        Command::Theme(name) => return vec![Effect::LoadTheme(name)],
        Command::Quit => {
            app.quit = true;
            return vec![Effect::Quit];
        }
        Command::Annotate(_) | Command::AnnotateNext | Command::AnnotatePrev => {
            return annotate::run(app, command);
        }
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
