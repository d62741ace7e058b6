//! Everything the app consumes, as one enum: key presses, terminal resizes, clock ticks, the book when it
//! is loaded, configuration files as they change, and job events. A recording of these reproduces a
//! session exactly, because [`crate::tui::update::update`] is the only place state changes.
//!
//! [`Command`] is the user-facing vocabulary: what keymap entries `run` and what the `:` line accepts.

use crate::book::marks::Mark;
use crate::book::view::BookView;
use crate::jobs::{JobEvent, Priority, Request};
use serde::{Deserialize, Serialize};

/// A key press in its text form: `j`, `J`, `ctrl-r`, `alt-left`, `enter`, `esc`, `f1`, `space`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Key(pub String);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Action {
    Key(Key),
    Resize {
        width: u16,
        height: u16,
    },
    /// The clock, so that elapsed times and ETAs are part of the state (milliseconds since the start).
    Tick {
        now_ms: u64,
    },
    BookLoaded(Box<BookView>),
    /// The user's keymap file changed: its text, or `None` when there is none.
    KeymapFile {
        path: String,
        text: Option<String>,
    },
    /// A theme file was read: its name and text (built-in or user).
    ThemeFile {
        name: String,
        text: String,
    },
    /// Something the app should tell the user (configuration warnings, engine messages).
    Notice {
        text: String,
        is_error: bool,
    },
    Job(JobEvent),
    /// Ctrl-C, SIGTERM or SIGHUP from outside the keymap.
    Terminate,
    /// A game file read for `:annotate`: its text, or why it could not be read. (Appended last so that
    /// older recordings keep their variant numbers.)
    GameFile {
        path: String,
        text: Result<String, String>,
    },
    /// An endgame problem file as read (`:endgame load FILE`).
    EndgameLoaded(Box<crate::jobs::endgame::Position>),
    /// The engine that jobs run on, when it has started.
    Engine(super::app::EngineStatus),
    /// `:compare FILE` done: the ids of the positions where the books disagree, or why it failed.
    Compared {
        path: String,
        result: Result<Vec<u32>, String>,
    },
    /// A command from the mouse, already resolved against the screen's layout ([`super::mouse`]): the
    /// recording keeps what the click meant, so a replay needs no layout of its own.
    Run(Command),
}

/// A named command, with arguments where it takes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Play the highlighted move.
    Into,
    /// Back to the parent position, highlighting the move we came by.
    Parent,
    CursorUp,
    CursorDown,
    /// Replace the last move by the next / previous move of the parent.
    NextSibling,
    PrevSibling,
    /// Follow the best move until the book ends.
    BestLine,
    Root,
    HistoryBack,
    HistoryForward,
    BookmarkToggle,
    BookmarkNext,
    BookmarkPrev,
    /// Go to the line given as GTP moves from the root.
    Goto(Vec<String>),
    /// Rotate the view by 90 degrees.
    Rotate,
    /// Mirror the view left to right.
    Reflect,
    ResetView,
    Mark(Mark),
    Unmark,
    AnalyzeLine(Priority),
    ExpandStart,
    ExpandPause,
    ExpandStop,
    ExpandToggle,
    JobUp,
    JobDown,
    CancelJob,
    RetryJob,
    TogglePv,
    /// Show or hide the winrate and score graph along the line.
    ToggleGraph,
    Help,
    CommandLine,
    Theme(String),
    Quit,
    /// Annotate the game in this SGF file against the book; without a file, close the annotation.
    Annotate(Option<String>),
    /// Step the annotated game one move forward / back; the book walk follows it.
    AnnotateNext,
    AnnotatePrev,
    /// The endgame pane: `endgame` opens it, `endgame SUBCOMMAND …` works in it.
    Endgame(super::endgame::EndgameCommand),
    /// Mark the positions where the book disagrees with the one in this file; without a file, clear.
    Compare(Option<String>),
    /// Write the current line (and with `subtree`, the book below it) to an SGF file.
    Export {
        file: String,
        subtree: bool,
    },
    /// The board's overlay from the network: ownership, policy or off; without one, the next in turn.
    Overlay(Option<super::overlay::Overlay>),
}

impl Command {
    /// Parses a `run` string or a `:` command line: a name, then arguments separated by spaces.
    pub fn parse(text: &str) -> Result<Command, String> {
        let mut words = text.split_whitespace();
        let name = words.next().ok_or("empty command")?.replace('-', "_");
        let args: Vec<&str> = words.collect();
        let no_args = |c: Command| {
            if args.is_empty() {
                Ok(c)
            } else {
                Err(format!("`{name}` takes no arguments"))
            }
        };
        match name.as_str() {
            "into" => no_args(Command::Into),
            "parent" => no_args(Command::Parent),
            "cursor_up" => no_args(Command::CursorUp),
            "cursor_down" => no_args(Command::CursorDown),
            "next_sibling" => no_args(Command::NextSibling),
            "prev_sibling" => no_args(Command::PrevSibling),
            "best_line" => no_args(Command::BestLine),
            "root" => no_args(Command::Root),
            "history_back" => no_args(Command::HistoryBack),
            "history_forward" => no_args(Command::HistoryForward),
            "bookmark_toggle" => no_args(Command::BookmarkToggle),
            "bookmark_next" => no_args(Command::BookmarkNext),
            "bookmark_prev" => no_args(Command::BookmarkPrev),
            "goto" => Ok(Command::Goto(args.iter().map(|s| s.to_string()).collect())),
            "rotate" => no_args(Command::Rotate),
            "reflect" => no_args(Command::Reflect),
            "reset_view" => no_args(Command::ResetView),
            "mark" => match args.as_slice() {
                [kind, amount] => Mark::parse_typed(kind, amount).map(Command::Mark),
                _ => Err("usage: mark bonus|expand|visits|branch AMOUNT".into()),
            },
            "unmark" => no_args(Command::Unmark),
            "analyze_line" => match args.as_slice() {
                [] => Ok(Command::AnalyzeLine(Priority(0))),
                [p] => p
                    .parse()
                    .map(|p| Command::AnalyzeLine(Priority(p)))
                    .map_err(|_| format!("priority `{p}` is not a whole number")),
                _ => Err("usage: analyze_line [PRIORITY]".into()),
            },
            "expand_start" => no_args(Command::ExpandStart),
            "expand_pause" => no_args(Command::ExpandPause),
            "expand_stop" => no_args(Command::ExpandStop),
            "expand_toggle" => no_args(Command::ExpandToggle),
            "job_up" => no_args(Command::JobUp),
            "job_down" => no_args(Command::JobDown),
            "cancel_job" => no_args(Command::CancelJob),
            "retry_job" => no_args(Command::RetryJob),
            "toggle_pv" => no_args(Command::TogglePv),
            "toggle_graph" | "graph" => no_args(Command::ToggleGraph),
            "help" => no_args(Command::Help),
            "command_line" => no_args(Command::CommandLine),
            "theme" => match args.as_slice() {
                [name] => super::theme::check_name(name).map(|()| Command::Theme(name.to_string())),
                _ => {
                    Err("usage: theme NAME (dark, light, high-contrast, colorblind, ascii)".into())
                }
            },
            "quit" | "q" => no_args(Command::Quit),
            // A path may hold spaces; the words are joined back with one.
            "annotate" => Ok(Command::Annotate(
                (!args.is_empty()).then(|| args.join(" ")),
            )),
            "annotate_next" => no_args(Command::AnnotateNext),
            "annotate_prev" => no_args(Command::AnnotatePrev),
            "endgame" => super::endgame::EndgameCommand::parse(&args).map(Command::Endgame),
            "compare" => Ok(Command::Compare((!args.is_empty()).then(|| args.join(" ")))),
            "export" => match args.split_last() {
                Some((&"subtree", file)) if !file.is_empty() => Ok(Command::Export {
                    file: file.join(" "),
                    subtree: true,
                }),
                Some(_) => Ok(Command::Export {
                    file: args.join(" "),
                    subtree: false,
                }),
                None => Err("usage: export FILE.sgf [subtree]".into()),
            },
            "overlay" => match args.as_slice() {
                [] => Ok(Command::Overlay(None)),
                [kind] => super::overlay::Overlay::parse(kind).map(|k| Command::Overlay(Some(k))),
                _ => Err("usage: overlay [ownership|policy|off]".into()),
            },
            _ => Err(format!("unknown command `{name}` (press ? for the list)")),
        }
    }
}

/// Work the runtime does after an update: the only way the app reaches the world.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Work for the job runner: expansion, analyses, marks, endgame runs, exports, evaluations.
    Job(Request),
    LoadTheme(String),
    Quit,
    /// Compare the open book with the book in this file and hand the result back as
    /// [`Action::Compared`].
    Compare(String),
    /// Read this game file and hand its text back as [`Action::GameFile`].
    ReadGame(String),
    /// Read an endgame problem file.
    LoadEndgame(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_strings_parse_with_arguments() {
        assert_eq!(
            Command::parse("mark expand 1.5"),
            Ok(Command::Mark(Mark::Expand(1.5)))
        );
        assert_eq!(
            Command::parse("mark visits 1000"),
            Ok(Command::Mark(Mark::Visits(1000.0)))
        );
        assert_eq!(
            Command::parse("analyze-line 7"),
            Ok(Command::AnalyzeLine(Priority(7)))
        );
        assert_eq!(
            Command::parse("goto D4 E5"),
            Ok(Command::Goto(vec!["D4".into(), "E5".into()]))
        );
        assert!(
            Command::parse("into now")
                .unwrap_err()
                .contains("no arguments")
        );
        assert!(
            Command::parse("fly")
                .unwrap_err()
                .contains("unknown command `fly`")
        );
        assert!(Command::parse("mark visits many").is_err());
        assert_eq!(
            Command::parse("annotate games/my game.sgf"),
            Ok(Command::Annotate(Some("games/my game.sgf".into())))
        );
        assert_eq!(Command::parse("annotate"), Ok(Command::Annotate(None)));
        assert_eq!(
            Command::parse("export my line.sgf"),
            Ok(Command::Export {
                file: "my line.sgf".into(),
                subtree: false
            })
        );
        assert_eq!(
            Command::parse("export out.sgf subtree"),
            Ok(Command::Export {
                file: "out.sgf".into(),
                subtree: true
            })
        );
        assert!(Command::parse("export").is_err());
        assert_eq!(Command::parse("overlay"), Ok(Command::Overlay(None)));
        assert_eq!(
            Command::parse("overlay policy"),
            Ok(Command::Overlay(Some(
                super::super::overlay::Overlay::Policy
            )))
        );
        assert!(Command::parse("overlay heat").is_err());
    }
}
