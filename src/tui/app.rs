//! The workbench's state. It changes only in [`super::update::update`]; rendering reads it.

use super::action::Command;
use super::annotation::Annotation;
use super::keymap::Keymap;
use super::theme::Theme;
use crate::book::NodeId;
use crate::book::view::{BookView, EdgeView, NodeView};
use crate::go::{Color, Game, Move, Setup, Symmetry};
use crate::jobs::{JobId, JobKind, JobState, Priority};

/// One position on the path from the root.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub node: NodeId,
    /// Maps the node's own orientation onto the root's.
    pub to_root: Symmetry,
    /// The move that led here, in the root's orientation (`None` at the root).
    pub mv: Option<Move>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Normal,
    /// Typing a `:` command.
    Command(String),
    /// The help overlay, scrolled down by this many rows.
    Help(usize),
    /// A yes/no question on the status line; `y` runs `then`.
    Confirm {
        question: String,
        then: Command,
    },
}

/// The engine that grows the book, as the workbench shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EngineStatus {
    pub name: String,
    /// What the user must know before growing this book with it (`engine::spec::caution`).
    pub caution: Option<String>,
    /// Why growing this book with it mixes engines, when another engine grew it (`Book::mixing`).
    pub mixing: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expansion {
    Stopped,
    Running,
    Paused,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JobView {
    pub id: JobId,
    pub kind: JobKind,
    pub priority: Priority,
    pub state: JobState,
    pub visits: u64,
    pub target_visits: u64,
    pub started_ms: Option<u64>,
    pub finished_ms: Option<u64>,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Status {
    pub text: String,
    pub is_error: bool,
}

pub struct App {
    pub book: Option<BookView>,
    pub path: Vec<Step>,
    /// The position at the end of the path, kept in step with it.
    pub game: Option<Game>,
    /// Highlighted row of the moves table.
    pub cursor: usize,
    /// The user's orientation: maps the root's orientation onto the screen.
    pub view: Symmetry,
    pub show_pv: bool,
    /// The winrate and score graph along the line (`w`).
    pub show_graph: bool,
    /// Lines visited, for back/forward.
    pub history: Vec<Vec<Move>>,
    pub history_pos: usize,
    pub bookmarks: Vec<Vec<Move>>,
    pub jobs: Vec<JobView>,
    pub job_cursor: usize,
    pub expansion: Expansion,
    pub mode: Mode,
    pub status: Status,
    pub keymap: Keymap,
    pub theme: Theme,
    pub now_ms: u64,
    pub width: u16,
    pub height: u16,
    pub quit: bool,
    /// A game loaded with `:annotate`, shown against the book.
    pub annotation: Option<Annotation>,
    /// The book's file, and the positions `:compare` found in disagreement with another book.
    pub book_file: Option<std::path::PathBuf>,
    pub compared: Option<std::collections::HashSet<NodeId>>,
    /// The endgame pane (kept when closed, so reopening shows the last results).
    pub endgame: Option<super::endgame::EndgameState>,
    /// The engine jobs run on, once the runtime has it.
    pub engine: Option<EngineStatus>,
    /// The user said yes to the engine's caution this session.
    pub caution_accepted: bool,
    /// Finished expansion steps folded out of the jobs list (the list keeps the last few).
    pub expansions_done: u64,
    /// The board's overlay (`o`, `:overlay`), and the network's evaluations it draws from.
    pub overlay: super::overlay::Overlay,
    pub evals: super::overlay::Evals,
}

impl Default for App {
    fn default() -> App {
        App::new()
    }
}

impl App {
    pub fn new() -> App {
        App {
            book: None,
            path: Vec::new(),
            game: None,
            cursor: 0,
            view: Symmetry::IDENTITY,
            show_pv: false,
            show_graph: false,
            history: Vec::new(),
            history_pos: 0,
            bookmarks: Vec::new(),
            jobs: Vec::new(),
            job_cursor: 0,
            expansion: Expansion::Stopped,
            mode: Mode::Normal,
            status: Status {
                text: "loading the book…".into(),
                is_error: false,
            },
            keymap: Keymap::defaults(),
            theme: Theme::dark(),
            now_ms: 0,
            width: 80,
            height: 24,
            quit: false,
            annotation: None,
            book_file: None,
            compared: None,
            endgame: None,
            engine: None,
            caution_accepted: false,
            expansions_done: 0,
            overlay: super::overlay::Overlay::Off,
            evals: super::overlay::Evals::default(),
        }
    }

    pub fn current(&self) -> Option<&NodeView> {
        let book = self.book.as_ref()?;
        book.node(self.path.last()?.node)
    }

    pub fn current_step(&self) -> Option<&Step> {
        self.path.last()
    }

    /// The moves from the root, in the root's orientation.
    pub fn line(&self) -> Vec<Move> {
        self.path.iter().filter_map(|s| s.mv).collect()
    }

    pub fn highlighted(&self) -> Option<&EdgeView> {
        self.current()?.edges.get(self.cursor)
    }

    /// A book move of the current node, in the root's orientation.
    pub fn edge_move_in_root(&self, edge: &EdgeView) -> Move {
        let to_root = self
            .current_step()
            .map_or(Symmetry::IDENTITY, |s| s.to_root);
        let size = self.book.as_ref().map(|b| b.size);
        match size {
            Some(size) => to_root.apply_move(size, edge.mv),
            None => edge.mv,
        }
    }

    /// A move as the user sees it (after the view's rotation), in GTP form.
    pub fn screen_text(&self, mv_in_root: Move) -> String {
        match &self.book {
            Some(book) => self
                .view
                .apply_move(book.size, mv_in_root)
                .to_gtp(book.size),
            None => String::new(),
        }
    }

    /// The points where a book move shows on the board (all its images under the node's self-symmetries),
    /// in the root's orientation.
    pub fn edge_points_in_root(&self, node: &NodeView, step: &Step, edge: &EdgeView) -> Vec<Move> {
        let Some(book) = &self.book else {
            return Vec::new();
        };
        let mut out: Vec<Move> = node
            .self_symmetries
            .iter()
            .map(|t| {
                step.to_root
                    .apply_move(book.size, t.apply_move(book.size, edge.mv))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The highlighted move followed by the best moves of the book after it, in the root's orientation:
    /// what the board previews as numbers.
    pub fn preview_line(&self, limit: usize) -> Vec<Move> {
        let (Some(book), Some(step), Some(edge)) =
            (&self.book, self.current_step(), self.highlighted())
        else {
            return Vec::new();
        };
        let mut line = vec![step.to_root.apply_move(book.size, edge.mv)];
        let mut to_root = edge.to_child.inverse().then(step.to_root);
        let mut node = book.node(edge.child);
        while let Some(n) = node {
            if line.len() >= limit {
                break;
            }
            let Some(best) = n.edges.first() else { break };
            line.push(to_root.apply_move(book.size, best.mv));
            to_root = best.to_child.inverse().then(to_root);
            node = book.node(best.child);
        }
        line
    }

    /// The nodes the screen can show without a new input: the path, the current node's children, and with
    /// the preview on, the highlighted move's best line. `None` when a pane may show any node (a game being annotated).
    pub fn shown_nodes(&self) -> Option<std::collections::BTreeSet<NodeId>> {
        if self.annotation.is_some() {
            return None;
        }
        let mut ids: std::collections::BTreeSet<NodeId> =
            self.path.iter().map(|s| s.node).collect();
        let (Some(book), Some(current)) = (&self.book, self.current()) else {
            return Some(ids);
        };
        ids.extend(current.edges.iter().map(|e| e.child));
        if !self.show_pv {
            return Some(ids);
        }
        let mut node = self.highlighted().and_then(|e| book.node(e.child));
        // The preview follows the best moves; a cycle cannot occur, but the walk is bounded anyway.
        for _ in 0..super::panes::board::PREVIEW_MOVES {
            let Some(best) = node.and_then(|n| n.edges.first()) else {
                break;
            };
            ids.insert(best.child);
            node = book.node(best.child);
        }
        Some(ids)
    }

    /// The endgame pane, when it is open (its keys come first then).
    pub fn endgame_open(&self) -> Option<&super::endgame::EndgameState> {
        self.endgame.as_ref().filter(|s| s.open)
    }

    pub fn to_move(&self) -> Color {
        self.game.as_ref().map_or(Color::Black, |g| g.to_move())
    }

    /// A new game at the book's initial position.
    pub fn initial_game(book: &BookView) -> Game {
        Game::with_setup(
            book.size,
            book.rules,
            Setup {
                black: book.initial.black.clone(),
                white: book.initial.white.clone(),
                first_player: book.initial.first_player,
            },
        )
    }

    /// The order the jobs pane lists jobs in: unfinished ones by id, then finished ones newest first.
    pub fn job_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.jobs.len())
            .filter(|&i| !self.jobs[i].state.is_finished())
            .collect();
        order.extend(
            (0..self.jobs.len())
                .rev()
                .filter(|&i| self.jobs[i].state.is_finished()),
        );
        order
    }

    /// The job under the jobs pane's cursor.
    pub fn selected_job(&self) -> Option<&JobView> {
        self.job_order()
            .get(self.job_cursor)
            .map(|&i| &self.jobs[i])
    }
}
