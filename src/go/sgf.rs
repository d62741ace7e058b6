//! SGF: a thin adapter over the `sgf-parse` crate.
//!
//! Reading goes through `sgf-parse`; this module turns its properties into tengen's types (points need the
//! board size, passes may be `B[]` or `B[tt]`), keeps every other property verbatim so nothing is lost,
//! and writes trees back deterministically. A malformed file gives an error with the file, line and column.

use super::coord::{BoardSize, Color, Move, Point};
use super::game::{Game, Setup};
use super::rules::{Komi, Rules};
use sgf_parse::SgfProp;
use sgf_parse::go::{Move as SgfMove, Point as SgfPoint, Prop};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

mod scan;
use scan::{line_column, scan};

/// Deeper trees are refused rather than risking the stack.
pub const MAX_DEPTH: usize = 4000;

/// The largest komi a record may give (tengen's rules allow ±400).
const MAX_KOMI: f64 = 400.0;

/// Properties tengen gives meaning to, whose malformed values are errors rather than unknown text.
const INTERPRETED: [&str; 8] = ["SZ", "KM", "B", "W", "AB", "AW", "AE", "PL"];

#[derive(Debug, thiserror::Error)]
pub enum SgfError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: malformed SGF: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: node {node}: {message}")]
    Content {
        path: PathBuf,
        node: usize,
        message: String,
    },
    #[error("{path}: move {number} ({mv}) is illegal: {reason}")]
    IllegalMove {
        path: PathBuf,
        number: usize,
        mv: String,
        reason: super::board::IllegalMove,
    },
}

/// Markup drawn on points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markup {
    Square,
    Triangle,
    Cross,
    Circle,
}

impl Markup {
    fn id(self) -> &'static str {
        match self {
            Markup::Square => "SQ",
            Markup::Triangle => "TR",
            Markup::Cross => "MA",
            Markup::Circle => "CR",
        }
    }
}

/// One property of a node, in tengen's terms.
#[derive(Debug, Clone, PartialEq)]
pub enum Property {
    Move(Color, Move),
    /// `AB`, `AW` (with a colour) or `AE` (without).
    Setup(Option<Color>, Vec<Point>),
    ToMove(Color),
    Comment(String),
    Markup(Markup, Vec<Point>),
    Labels(Vec<(Point, String)>),
    Size(BoardSize),
    Komi(f64),
    Rules(String),
    /// Any other property, with its values as text (unescaped).
    Other(String, Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SgfNode {
    pub props: Vec<Property>,
    pub children: Vec<SgfNode>,
}

/// One game tree with its board size.
#[derive(Debug, Clone, PartialEq)]
pub struct SgfGame {
    pub size: BoardSize,
    pub root: SgfNode,
}

impl SgfNode {
    pub fn get_move(&self) -> Option<(Color, Move)> {
        self.props.iter().find_map(|p| match p {
            Property::Move(c, m) => Some((*c, *m)),
            _ => None,
        })
    }

    pub fn comment(&self) -> Option<&str> {
        self.props.iter().find_map(|p| match p {
            Property::Comment(c) => Some(c.as_str()),
            _ => None,
        })
    }

    pub fn markup(&self, kind: Markup) -> Vec<Point> {
        self.props
            .iter()
            .filter_map(|p| match p {
                Property::Markup(k, pts) if *k == kind => Some(pts.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    pub fn other(&self, id: &str) -> Option<&[String]> {
        self.props.iter().find_map(|p| match p {
            Property::Other(i, v) if i == id => Some(v.as_slice()),
            _ => None,
        })
    }
}

impl SgfGame {
    pub fn komi(&self) -> Option<f64> {
        self.root.props.iter().find_map(|p| match p {
            Property::Komi(k) => Some(*k),
            _ => None,
        })
    }

    pub fn rules_text(&self) -> Option<&str> {
        self.root.props.iter().find_map(|p| match p {
            Property::Rules(r) => Some(r.as_str()),
            _ => None,
        })
    }

    pub fn result(&self) -> Option<&str> {
        self.root
            .other("RE")
            .and_then(|v| v.first())
            .map(String::as_str)
    }

    /// The rules the record asks for (`RU`, then KataGo's compact form), defaulting to `default`; the
    /// komi from `KM`, rounded to a half point. Unknown rule names fall back to `default`: callers replaying
    /// records of unknown rules should pass simple-ko rules, which promise nothing about superko.
    pub fn rules_or(&self, default: Rules) -> Rules {
        let rules = self
            .rules_text()
            .and_then(|r| Rules::parse(r).ok())
            .unwrap_or(default);
        match self
            .komi()
            .and_then(|k| Komi::from_f64((k * 2.0).round() / 2.0).ok())
        {
            Some(komi) => rules.with_komi(komi),
            None => rules.with_komi(default.komi),
        }
    }

    /// The nodes of the main line (first children), root first.
    pub fn main_line(&self) -> Vec<&SgfNode> {
        let mut out = vec![&self.root];
        let mut node = &self.root;
        while let Some(child) = node.children.first() {
            out.push(child);
            node = child;
        }
        out
    }

    /// Replays nodes from the root into a game: setup properties, `PL`, and moves (a colour may move twice).
    /// `strict` applies the rules' superko; otherwise only occupied points and suicide without a capture
    /// are refused, as for records that break the rules on purpose.
    pub fn replay(
        &self,
        nodes: &[&SgfNode],
        rules: Rules,
        strict: bool,
        path: &Path,
    ) -> Result<Game, SgfError> {
        let mut game = Game::new(self.size, rules);
        let mut number = 0;
        for (i, node) in nodes.iter().enumerate() {
            let has_setup = node.props.iter().any(|p| matches!(p, Property::Setup(..)));
            if has_setup {
                game = with_setup_applied(&game, node, self.size);
            }
            for p in &node.props {
                match p {
                    Property::Move(color, mv) => {
                        number += 1;
                        if game.is_over() {
                            game.resume();
                        }
                        let result = if strict {
                            game.play_as(*color, *mv)
                        } else {
                            game.play_tolerant(*color, *mv)
                        };
                        result.map_err(|reason| SgfError::IllegalMove {
                            path: path.to_path_buf(),
                            number,
                            mv: format!("{color} {}", mv.to_gtp(self.size)),
                            reason,
                        })?;
                    }
                    Property::ToMove(c) => game.set_to_move(*c),
                    _ => {}
                }
            }
            let _ = i;
        }
        Ok(game)
    }

    /// Writes the tree as SGF text, deterministically (properties in order, point lists sorted).
    pub fn to_sgf(&self) -> String {
        let mut out = String::from("(");
        write_sequence(&self.root, self.size, &mut out, "FF[4]GM[1]CA[UTF-8]");
        out.push_str(")\n");
        out
    }
}

/// Setup stones change the position without history: the game restarts from the resulting board.
fn with_setup_applied(game: &Game, node: &SgfNode, size: BoardSize) -> Game {
    let board = game.board();
    let mut stones: Vec<(Color, Point)> = size
        .points()
        .filter_map(|p| board.color_at(p).map(|c| (c, p)))
        .collect();
    for prop in &node.props {
        if let Property::Setup(color, points) = prop {
            stones.retain(|(_, p)| !points.contains(p));
            if let Some(c) = color {
                stones.extend(points.iter().map(|&p| (*c, p)));
            }
        }
    }
    let setup = Setup {
        black: stones
            .iter()
            .filter(|(c, _)| *c == Color::Black)
            .map(|&(_, p)| p)
            .collect(),
        white: stones
            .iter()
            .filter(|(c, _)| *c == Color::White)
            .map(|&(_, p)| p)
            .collect(),
        first_player: Some(game.to_move()),
    };
    Game::with_setup(size, game.rules(), setup)
}

/// Writes a node and its descendants; `header` goes first in the first node (the root's file properties).
fn write_sequence(node: &SgfNode, size: BoardSize, out: &mut String, header: &str) {
    let mut node = node;
    out.push(';');
    out.push_str(header);
    loop {
        for p in &node.props {
            write_property(p, size, out);
        }
        match node.children.len() {
            0 => return,
            1 => {
                node = &node.children[0];
                out.push(';');
            }
            _ => {
                for child in &node.children {
                    out.push('(');
                    write_sequence(child, size, out, "");
                    out.push(')');
                }
                return;
            }
        }
    }
}

fn write_points(id: &str, points: &[Point], out: &mut String) {
    let mut sorted: Vec<String> = points.iter().map(|p| p.to_sgf()).collect();
    sorted.sort();
    out.push_str(id);
    for s in sorted {
        out.push_str(&format!("[{s}]"));
    }
}

fn write_property(p: &Property, size: BoardSize, out: &mut String) {
    match p {
        Property::Move(c, m) => out.push_str(&format!("{}[{}]", c.letter(), m.to_sgf())),
        Property::Setup(c, pts) => write_points(
            c.map_or("AE", |c| if c == Color::Black { "AB" } else { "AW" }),
            pts,
            out,
        ),
        Property::ToMove(c) => out.push_str(&format!("PL[{}]", c.letter())),
        Property::Comment(text) => out.push_str(&format!("C[{}]", escape(text))),
        Property::Markup(kind, pts) => write_points(kind.id(), pts, out),
        Property::Labels(labels) => {
            let mut sorted: Vec<String> = labels
                .iter()
                .map(|(p, l)| format!("[{}:{}]", p.to_sgf(), escape(l)))
                .collect();
            sorted.sort();
            out.push_str("LB");
            sorted.iter().for_each(|s| out.push_str(s));
        }
        Property::Size(s) => {
            if s.is_square() {
                out.push_str(&format!("SZ[{}]", s.width))
            } else {
                out.push_str(&format!("SZ[{}:{}]", s.width, s.height))
            }
        }
        Property::Komi(k) => out.push_str(&format!("KM[{k}]")),
        Property::Rules(r) => out.push_str(&format!("RU[{}]", escape(r))),
        Property::Other(id, values) => {
            out.push_str(id);
            values
                .iter()
                .for_each(|v| out.push_str(&format!("[{}]", escape(v))));
        }
    }
    let _ = size;
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// Removes SGF escapes and soft line breaks from escaped text (as `sgf-parse`'s `Display` writes it).
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // A soft line break: backslash, then a newline in either order of CR and LF.
            Some(nl @ ('\n' | '\r')) => {
                let pair = if nl == '\n' { '\r' } else { '\n' };
                if chars.peek() == Some(&pair) {
                    chars.next();
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Reads every game tree in an SGF file.
pub fn read_file(path: &Path) -> Result<Vec<SgfGame>, SgfError> {
    let bytes = std::fs::read(path).map_err(|source| SgfError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_str(&String::from_utf8_lossy(&bytes), path)
}

/// Parses SGF text; `path` names the source in errors.
pub fn parse_str(text: &str, path: &Path) -> Result<Vec<SgfGame>, SgfError> {
    let scanned = scan(text);
    if scanned.max_depth > MAX_DEPTH {
        let message = format!(
            "a line of {} nodes; tengen reads at most {MAX_DEPTH}",
            scanned.max_depth
        );
        return Err(SgfError::Content {
            path: path.to_path_buf(),
            node: MAX_DEPTH,
            message,
        });
    }
    let trees = sgf_parse::parse(text).map_err(|e| {
        let (line, column) = line_column(text, scanned.fault.unwrap_or(text.len()));
        SgfError::Syntax {
            path: path.to_path_buf(),
            line,
            column,
            message: e.to_string(),
        }
    })?;
    let mut games = Vec::new();
    for tree in trees {
        let root = match tree {
            sgf_parse::GameTree::GoGame(root) => root,
            sgf_parse::GameTree::Unknown(_) => {
                return Err(SgfError::Content {
                    path: path.to_path_buf(),
                    node: 0,
                    message: "not a game of Go (GM is not 1)".into(),
                });
            }
        };
        let bad_root = |message: String| SgfError::Content {
            path: path.to_path_buf(),
            node: 0,
            message,
        };
        let size = match root.get_property("SZ") {
            Some(Prop::SZ((w, h))) => {
                BoardSize::new(*w as usize, *h as usize).map_err(|e| bad_root(e.to_string()))?
            }
            Some(Prop::Invalid(_, values)) => {
                return Err(bad_root(format!(
                    "SZ[{}] is not a board size (SZ[19] or SZ[7:5])",
                    values.join("][")
                )));
            }
            _ => BoardSize::square(19).expect("19 is a valid size"),
        };
        let mut counter = 0;
        let root = convert(&root, size, path, &mut counter, 0)?;
        games.push(SgfGame { size, root });
    }
    Ok(games)
}

fn convert(
    node: &sgf_parse::SgfNode<Prop>,
    size: BoardSize,
    path: &Path,
    counter: &mut usize,
    depth: usize,
) -> Result<SgfNode, SgfError> {
    let here = *counter;
    *counter += 1;
    let err = |message: String| SgfError::Content {
        path: path.to_path_buf(),
        node: here,
        message,
    };
    if depth > MAX_DEPTH {
        return Err(err(format!("the tree is deeper than {MAX_DEPTH} nodes")));
    }
    let point = |p: &SgfPoint| -> Result<Point, SgfError> {
        let (x, y) = (p.x as usize, p.y as usize);
        if size.contains(x, y) {
            Ok(Point::new(x, y))
        } else {
            Err(err(format!("point {x},{y} is off the {size} board")))
        }
    };
    let points = |set: &HashSet<SgfPoint>| -> Result<Vec<Point>, SgfError> {
        let mut v = set.iter().map(point).collect::<Result<Vec<_>, _>>()?;
        v.sort();
        Ok(v)
    };
    let mv = |m: &SgfMove| -> Result<Move, SgfError> {
        match m {
            SgfMove::Pass => Ok(Move::Pass),
            SgfMove::Move(p)
                if p.x == 19 && p.y == 19 && size.width() <= 19 && size.height() <= 19 =>
            {
                Ok(Move::Pass)
            }
            SgfMove::Move(p) => point(p).map(Move::Play),
        }
    };
    let mut props = Vec::new();
    for prop in node.properties() {
        // The file format, game and charset are tengen's to write (FF[4], GM[1], UTF-8): not kept.
        if matches!(prop.identifier().as_str(), "FF" | "GM" | "CA") {
            continue;
        }
        let converted = match prop {
            Prop::B(m) => Property::Move(Color::Black, mv(m)?),
            Prop::W(m) => Property::Move(Color::White, mv(m)?),
            Prop::AB(s) => Property::Setup(Some(Color::Black), points(s)?),
            Prop::AW(s) => Property::Setup(Some(Color::White), points(s)?),
            Prop::AE(s) => Property::Setup(None, points(s)?),
            Prop::PL(c) => Property::ToMove(match c {
                sgf_parse::Color::Black => Color::Black,
                sgf_parse::Color::White => Color::White,
            }),
            Prop::C(t) => Property::Comment(t.text.clone()),
            Prop::SQ(s) => Property::Markup(Markup::Square, points(s)?),
            Prop::TR(s) => Property::Markup(Markup::Triangle, points(s)?),
            Prop::MA(s) => Property::Markup(Markup::Cross, points(s)?),
            Prop::CR(s) => Property::Markup(Markup::Circle, points(s)?),
            Prop::LB(labels) => {
                let mut v = labels
                    .iter()
                    .map(|(p, t)| Ok((point(p)?, t.text.clone())))
                    .collect::<Result<Vec<_>, SgfError>>()?;
                v.sort();
                Property::Labels(v)
            }
            Prop::SZ(_) => Property::Size(size),
            Prop::KM(k) if k.is_finite() && k.abs() <= MAX_KOMI => Property::Komi(*k),
            Prop::KM(k) => {
                return Err(err(format!(
                    "KM[{k}] is not a komi (a number within ±{MAX_KOMI})"
                )));
            }
            // A value of a property tengen reads that does not parse must not be read as its absence
            // (a default board, komi or move): the file is refused at the place.
            Prop::Invalid(id, values) if INTERPRETED.contains(&id.as_str()) => {
                return Err(err(format!(
                    "{id}[{}] is not a valid {}",
                    values.join("]["),
                    match id.as_str() {
                        "SZ" => "board size",
                        "KM" => "komi",
                        "PL" => "colour",
                        "B" | "W" => "move",
                        _ => "list of points",
                    }
                )));
            }
            Prop::RU(t) => Property::Rules(t.text.clone()),
            // An identifier with no capital letters (FF[3] lower case) means nothing in FF[4]: dropped.
            Prop::Unknown(id, _) | Prop::Invalid(id, _) if id.is_empty() => continue,
            Prop::Unknown(id, values) | Prop::Invalid(id, values) => {
                Property::Other(id.clone(), values.clone())
            }
            other => other_property(other),
        };
        props.push(converted);
    }
    let mut children = Vec::new();
    for child in node.children() {
        children.push(convert(child, size, path, counter, depth + 1)?);
    }
    Ok(SgfNode { props, children })
}

/// Keeps a property tengen does not interpret as its identifier and values (unescaped, as the lexer
/// gives every other value).
fn other_property(prop: &Prop) -> Property {
    let id = prop.identifier();
    let text = prop.to_string();
    let inner = text
        .strip_prefix(&format!("{id}["))
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or("");
    let mut values: Vec<String> = if inner.is_empty() {
        vec![String::new()]
    } else {
        split_values(inner).iter().map(|v| unescape(v)).collect()
    };
    if matches!(id.as_str(), "AR" | "LN" | "DD" | "SL" | "TB" | "TW" | "VW") {
        values.sort();
    }
    Property::Other(id, values)
}

/// Splits `a][b][c` at unescaped `][`.
fn split_values(inner: &str) -> Vec<String> {
    let mut values = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let last = values.last_mut().expect("values starts non-empty");
                last.push('\\');
                if let Some(n) = chars.next() {
                    last.push(n);
                }
            }
            ']' if chars.peek() == Some(&'[') => {
                chars.next();
                values.push(String::new());
            }
            _ => values.last_mut().expect("values starts non-empty").push(c),
        }
    }
    values
}

#[cfg(test)]
mod tests;
