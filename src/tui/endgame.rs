//! The endgame pane's state and commands: the position and its painted region, the board cursor, one or
//! two columns (a method each, for side-by-side comparison) with their runs and results, and the folding
//! of each column's variation tree. State changes only in [`run`], [`loaded`] and [`on_job`], which
//! `update` calls; the pane draws it in `panes/endgame/`.

use super::action::Effect;
use super::app::{App, Status};
use crate::go::{Move, Point};
use crate::jobs::endgame::{Method, Position, Report, Request, TreeNode};
use crate::jobs::{JobEvent, JobId, JobKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dir {
    Left,
    Right,
    Up,
    Down,
}

/// What `E`, `:endgame …` and the pane's keys ask for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum EndgameCommand {
    /// Open the pane (on the book's current position, unless it already holds a problem or this
    /// position).
    Open,
    /// Read a problem file (SGF with an `SQ` region).
    Load(String),
    Close,
    Cursor(Dir),
    /// Add the point under the cursor to the region, or take it out.
    Toggle,
    /// First press: anchor a rectangle at the cursor; second press: add the rectangle to the region.
    Rect,
    Clear,
    /// Take the book's current position again.
    Position,
    Run,
    /// Set the method of the focused column, or cycle it.
    Method(Option<Method>),
    /// Set the comparison column's method, cycle it, or close the column.
    Compare(Compare),
    TreeDown,
    TreeUp,
    TreeToggle,
    /// Expand every node of the focused tree, or fold them all when some are open.
    TreeAll,
    /// Move the focus to the other column.
    Column,
    Cancel,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Compare {
    Cycle,
    Off,
    To(Method),
}

const USAGE: &str = "usage: endgame [load FILE | close | run | cancel | toggle | rect | clear | position | \
    cursor left|right|up|down | method [NAME] | compare [NAME|off] | tree down|up|toggle|all | column]";

impl EndgameCommand {
    /// Parses the words after `endgame`.
    pub fn parse(args: &[&str]) -> Result<EndgameCommand, String> {
        use EndgameCommand as C;
        let method = |m: &str| m.parse::<Method>().map_err(|e| e.to_string());
        Ok(match args {
            [] | ["open"] => C::Open,
            ["load", file @ ..] if !file.is_empty() => C::Load(file.join(" ")),
            ["close"] => C::Close,
            ["cursor", "left"] => C::Cursor(Dir::Left),
            ["cursor", "right"] => C::Cursor(Dir::Right),
            ["cursor", "up"] => C::Cursor(Dir::Up),
            ["cursor", "down"] => C::Cursor(Dir::Down),
            ["toggle"] => C::Toggle,
            ["rect"] => C::Rect,
            ["clear"] => C::Clear,
            ["position"] => C::Position,
            ["run"] => C::Run,
            ["method"] => C::Method(None),
            ["method", m] => C::Method(Some(method(m)?)),
            ["compare"] => C::Compare(Compare::Cycle),
            ["compare", "off"] => C::Compare(Compare::Off),
            ["compare", m] => C::Compare(Compare::To(method(m)?)),
            ["tree", "down"] => C::TreeDown,
            ["tree", "up"] => C::TreeUp,
            ["tree", "toggle"] => C::TreeToggle,
            ["tree", "all"] => C::TreeAll,
            ["column"] => C::Column,
            ["cancel"] => C::Cancel,
            _ => return Err(USAGE.into()),
        })
    }
}

/// Where a column's last run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    Idle,
    /// Sent to the jobs; `JobEvent::Queued` will tell its id.
    Waiting,
    Running,
    Done(Box<Report>),
    Failed(String),
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub method: Method,
    pub run: Run,
    /// The tag of the run whose answers this column takes (older runs' answers are dropped).
    pub tag: u32,
    pub job: Option<JobId>,
    /// The region's revision the run saw: a later edit makes the result stale.
    pub revision: u32,
    /// Paths (child indices from the root) of the tree nodes shown open.
    pub expanded: BTreeSet<Vec<usize>>,
    pub tree_cursor: usize,
}

impl Column {
    fn new(method: Method) -> Column {
        Column {
            method,
            run: Run::Idle,
            tag: 0,
            job: None,
            revision: 0,
            expanded: BTreeSet::new(),
            tree_cursor: 0,
        }
    }

    pub fn report(&self) -> Option<&Report> {
        match &self.run {
            Run::Done(r) => Some(r),
            _ => None,
        }
    }

    /// The tree rows shown: each node's path, depth and node, parents before children.
    pub fn rows(&self) -> Vec<(Vec<usize>, &TreeNode)> {
        let mut out = Vec::new();
        if let Some(report) = self.report() {
            walk(&report.tree, &mut Vec::new(), &self.expanded, &mut out);
        }
        out
    }
}

fn walk<'a>(
    nodes: &'a [TreeNode],
    path: &mut Vec<usize>,
    expanded: &BTreeSet<Vec<usize>>,
    out: &mut Vec<(Vec<usize>, &'a TreeNode)>,
) {
    for (i, node) in nodes.iter().enumerate() {
        path.push(i);
        out.push((path.clone(), node));
        if expanded.contains(path) {
            walk(&node.children, path, expanded, out);
        }
        path.pop();
    }
}

fn all_paths(nodes: &[TreeNode], path: &mut Vec<usize>, out: &mut BTreeSet<Vec<usize>>) {
    for (i, node) in nodes.iter().enumerate() {
        path.push(i);
        if !node.children.is_empty() {
            out.insert(path.clone());
            all_paths(&node.children, path, out);
        }
        path.pop();
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct EndgameState {
    pub open: bool,
    pub position: Position,
    /// The book line the position was taken at; `None` for a problem file.
    pub book_line: Option<Vec<Move>>,
    pub cursor: Point,
    /// The corner of a rectangle being marked.
    pub anchor: Option<Point>,
    /// One column, or two when comparing methods.
    pub columns: Vec<Column>,
    pub focus: usize,
    /// Bumped by every edit of the region.
    pub revision: u32,
    pub next_tag: u32,
}

impl EndgameState {
    pub fn new(position: Position, book_line: Option<Vec<Move>>) -> EndgameState {
        let cursor = position
            .region
            .first()
            .copied()
            .unwrap_or_else(|| Point::new(position.width / 2, position.height / 2));
        EndgameState {
            open: true,
            position,
            book_line,
            cursor,
            anchor: None,
            columns: vec![Column::new(Method::Exact)],
            focus: 0,
            revision: 0,
            next_tag: 1,
        }
    }

    pub fn in_region(&self, p: Point) -> bool {
        self.position.region.contains(&p)
    }

    /// The points of the rectangle from the anchor to the cursor, when one is being marked.
    pub fn pending_rect(&self) -> Vec<Point> {
        let Some(a) = self.anchor else {
            return Vec::new();
        };
        let (x0, x1) = (a.x().min(self.cursor.x()), a.x().max(self.cursor.x()));
        let (y0, y1) = (a.y().min(self.cursor.y()), a.y().max(self.cursor.y()));
        (y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| Point::new(x, y)))
            .collect()
    }

    fn edited(&mut self) {
        self.revision += 1;
        self.position.region.sort();
        self.position.region.dedup();
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

/// The book's current position as an endgame position with an empty region.
fn book_position(app: &App) -> Option<Position> {
    let game = app.game.as_ref()?;
    let board = game.board();
    let size = board.size();
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for p in size.points() {
        match board.color_at(p) {
            Some(crate::go::Color::Black) => black.push(p),
            Some(crate::go::Color::White) => white.push(p),
            None => {}
        }
    }
    let book = app.book.as_ref().map_or("board", |b| b.name.as_str());
    Some(Position {
        name: format!("{book} · move {}", app.line().len()),
        width: size.width(),
        height: size.height(),
        black,
        white,
        region: Vec::new(),
        file: None,
        answer: None,
    })
}

/// Runs an endgame command.
pub fn run(app: &mut App, command: EndgameCommand) -> Vec<Effect> {
    use EndgameCommand as C;
    match command {
        C::Open => {
            let line = app.line();
            let keep = app
                .endgame
                .as_ref()
                .is_some_and(|s| s.book_line.as_ref().is_none_or(|l| *l == line));
            if keep {
                if let Some(s) = &mut app.endgame {
                    s.open = true;
                }
            } else if let Some(position) = book_position(app) {
                app.endgame = Some(EndgameState::new(position, Some(line)));
            }
            info(
                app,
                "endgame: paint the region (hjkl move, x point, v rectangle, X clear), r runs"
                    .into(),
            );
            return Vec::new();
        }
        C::Load(file) => return vec![Effect::LoadEndgame(file)],
        _ => {}
    }
    let Some(state) = app.endgame.as_mut().filter(|s| s.open) else {
        error(app, "the endgame pane is not open (E opens it)".into());
        return Vec::new();
    };
    let mut effects = Vec::new();
    let mut message: Option<(String, bool)> = None;
    match command {
        C::Open | C::Load(_) => {}
        C::Close => state.open = false,
        C::Cursor(_) | C::Toggle | C::Rect | C::Clear => message = paint(state, command),
        C::Position => {
            if let Some(position) = book_position(app) {
                let line = app.line();
                if let Some(s) = &mut app.endgame {
                    let columns = s.columns.iter().map(|c| Column::new(c.method)).collect();
                    *s = EndgameState::new(position, Some(line));
                    s.columns = columns;
                }
            }
            return Vec::new();
        }
        C::Run => message = Some(run_columns(state, &mut effects)),
        C::Method(m) => {
            let focus = state.focus.min(state.columns.len() - 1);
            let column = &mut state.columns[focus];
            column.method = m.unwrap_or_else(|| column.method.next());
            message = Some((
                format!("method {} (r runs it)", column.method.name()),
                false,
            ));
        }
        C::Compare(how) => message = Some(compare(state, how)),
        C::TreeDown | C::TreeUp | C::TreeToggle | C::TreeAll => message = tree(state, command),
        C::Column => state.focus = (state.focus + 1) % state.columns.len(),
        C::Cancel => {
            for column in &state.columns {
                if let (Some(id), Run::Waiting | Run::Running) = (column.job, &column.run) {
                    effects.push(Effect::Job(crate::jobs::Request::Cancel(id)));
                }
            }
            if effects.is_empty() {
                message = Some(("no endgame analysis is running".into(), false));
            }
        }
    }
    if let Some((text, is_error)) = message {
        app.status = Status { text, is_error };
    }
    effects
}

/// Painting the region: the cursor, a point, a rectangle, or clearing it.
fn paint(state: &mut EndgameState, command: EndgameCommand) -> Option<(String, bool)> {
    use EndgameCommand as C;
    let (w, h) = (state.position.width, state.position.height);
    match command {
        C::Cursor(dir) => {
            let (x, y) = (state.cursor.x(), state.cursor.y());
            let (x, y) = match dir {
                Dir::Left => (x.saturating_sub(1), y),
                Dir::Right => ((x + 1).min(w - 1), y),
                Dir::Up => (x, y.saturating_sub(1)),
                Dir::Down => (x, (y + 1).min(h - 1)),
            };
            state.cursor = Point::new(x, y);
        }
        C::Toggle => {
            let p = state.cursor;
            if let Some(i) = state.position.region.iter().position(|&q| q == p) {
                state.position.region.remove(i);
            } else {
                state.position.region.push(p);
            }
            state.edited();
        }
        C::Rect => {
            if state.anchor.is_none() {
                state.anchor = Some(state.cursor);
                return Some((
                    "rectangle: move to the opposite corner and press v again".into(),
                    false,
                ));
            }
            let rect = state.pending_rect();
            let n = rect.len();
            state.position.region.extend(rect);
            state.anchor = None;
            state.edited();
            return Some((format!("{n} points added to the region"), false));
        }
        C::Clear => {
            state.position.region.clear();
            state.anchor = None;
            state.edited();
        }
        _ => {}
    }
    None
}

/// Queues every column's method on the region.
fn run_columns(state: &mut EndgameState, effects: &mut Vec<Effect>) -> (String, bool) {
    if state.position.region.is_empty() {
        return (
            "the region is empty: paint it first (x toggles a point, v marks a rectangle)".into(),
            true,
        );
    }
    for column in &mut state.columns {
        let tag = state.next_tag;
        state.next_tag += 1;
        column.tag = tag;
        column.job = None;
        column.run = Run::Waiting;
        column.revision = state.revision;
        effects.push(Effect::Job(crate::jobs::Request::Endgame {
            request: Box::new(Request {
                tag,
                method: column.method,
                position: state.position.clone(),
            }),
            // Asked for by the user who is waiting for it: ahead of background expansion.
            priority: crate::jobs::Priority(10),
        }));
    }
    (
        format!(
            "endgame analysis queued ({} of {} region points empty)",
            state.position.empty_in_region(),
            state.position.region.len()
        ),
        false,
    )
}

/// Opens, changes or closes the second column.
fn compare(state: &mut EndgameState, how: Compare) -> (String, bool) {
    let next = match (how, state.columns.get(1).map(|c| c.method)) {
        (Compare::Off, _) => None,
        (Compare::To(m), _) => Some(m),
        (Compare::Cycle, None) => Some(state.columns[0].method.next()),
        (Compare::Cycle, Some(m)) => {
            let n = m.next();
            // The cycle ends with the column closed.
            (n != Method::ALL[0]).then_some(n)
        }
    };
    match next {
        None => {
            state.columns.truncate(1);
            state.focus = 0;
            ("comparison closed".into(), false)
        }
        Some(m) => {
            if state.columns.len() < 2 {
                state.columns.push(Column::new(m));
            } else {
                state.columns[1].method = m;
            }
            (format!("comparing with {} (r runs both)", m.name()), false)
        }
    }
}

/// Walks, opens and folds the focused column's variation tree.
fn tree(state: &mut EndgameState, command: EndgameCommand) -> Option<(String, bool)> {
    use EndgameCommand as C;
    let focus = state.focus.min(state.columns.len() - 1);
    let column = &mut state.columns[focus];
    let rows = column.rows();
    let n = rows.len();
    let at = rows
        .get(column.tree_cursor)
        .map(|(p, node)| (p.clone(), node.children.is_empty()));
    let mut message = None;
    match command {
        C::TreeDown => column.tree_cursor = (column.tree_cursor + 1).min(n.saturating_sub(1)),
        C::TreeUp => column.tree_cursor = column.tree_cursor.saturating_sub(1),
        C::TreeToggle => match at {
            Some((path, false)) => {
                if column.expanded.contains(&path) {
                    column.expanded.remove(&path);
                } else {
                    column.expanded.insert(path);
                }
            }
            Some((_, true)) => message = Some(("no moves after this one".into(), false)),
            None => {}
        },
        _ => {
            if column.expanded.is_empty() {
                if let Some(report) = column.report() {
                    let mut all = BTreeSet::new();
                    all_paths(&report.tree, &mut Vec::new(), &mut all);
                    column.expanded = all;
                }
            } else {
                // Folding everything keeps the cursor on the top-level move it was under.
                let top = at.and_then(|(p, _)| p.first().copied()).unwrap_or(0);
                column.expanded.clear();
                column.tree_cursor = top;
            }
        }
    }
    let n = column.rows().len();
    column.tree_cursor = column.tree_cursor.min(n.saturating_sub(1));
    message
}

/// The last two parts of a path (`06-value-of-ko/05.sgf`): what tells problems apart.
pub fn short_name(name: &str) -> String {
    let parts: Vec<&str> = name.split('/').collect();
    if parts.len() > 2 {
        parts[parts.len() - 2..].join("/")
    } else {
        name.to_string()
    }
}

/// A problem file was read.
pub fn loaded(app: &mut App, position: Position) {
    let name = short_name(&position.name);
    let (points, empty) = (position.region.len(), position.empty_in_region());
    let columns = app
        .endgame
        .as_ref()
        .map(|s| s.columns.iter().map(|c| Column::new(c.method)).collect());
    let mut state = EndgameState::new(position, None);
    if let Some(columns) = columns {
        state.columns = columns;
    }
    app.endgame = Some(state);
    info(
        app,
        format!("{name}: region of {points} points ({empty} empty) · r runs the analysis"),
    );
}

/// Job events that concern the pane's columns (matched by the tag the app gave each run).
pub fn on_job(app: &mut App, event: &JobEvent) {
    let Some(state) = app.endgame.as_mut() else {
        return;
    };
    let by_id = |state: &mut EndgameState, id: JobId| {
        state.columns.iter_mut().position(|c| c.job == Some(id))
    };
    match event {
        JobEvent::Queued {
            id,
            kind: JobKind::Endgame(request),
            ..
        } => {
            if let Some(c) = state.columns.iter_mut().find(|c| c.tag == request.tag) {
                c.job = Some(*id);
            }
        }
        JobEvent::Started { id, .. } => {
            if let Some(i) = by_id(state, *id) {
                state.columns[i].run = Run::Running;
            }
        }
        JobEvent::EndgameReport { id, report } => {
            if let Some(i) = by_id(state, *id) {
                let column = &mut state.columns[i];
                column.run = Run::Done(report.clone());
                column.expanded.clear();
                column.tree_cursor = 0;
                let text = format!("endgame {}", report.summary());
                info(app, text);
            }
        }
        JobEvent::Failed { id, error, .. } => {
            if let Some(i) = by_id(state, *id) {
                state.columns[i].run = Run::Failed(error.clone());
            }
        }
        JobEvent::Cancelled { id, .. } => {
            if let Some(i) = by_id(state, *id) {
                state.columns[i].run = Run::Cancelled;
            }
        }
        _ => {}
    }
}
