//! Reads KataGo's `.katabook` (format version 2 and 3) into a [`BookView`], so that the workbench can open
//! the books KataGo writes. Values are backed up by plain minimax over the book moves and each node's
//! "not in book" values; KataGo's own backup also mixes in uncertainty and adjusted visits, so the numbers
//! can differ from KataGo's pages in the last digit or where LCBs matter.

use super::book_port::{BlackValues, BookView, EdgeView, InitialPosition, NodeId, NodeView, OtherMoves};
use crate::go::{BoardSize, Color, KoRule, Komi, Move, Point, Rules, Scoring, Symmetry, Tax};
use serde::Deserialize;
use std::collections::VecDeque;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum KatabookError {
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}:{line}: {message}")]
    Format { path: String, line: usize, message: String },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header {
    version: u32,
    initial_board: InitialBoard,
    initial_rules: serde_json::Value,
    initial_pla: String,
    #[serde(default)]
    utility_per_score: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitialBoard {
    x_size: usize,
    y_size: usize,
    stones: String,
}

#[derive(Deserialize)]
struct NodeLine {
    id: u32,
    pla: String,
    syms: Vec<u8>,
    wl: f64,
    #[serde(rename = "sM")]
    score_mean: f64,
    #[serde(rename = "ssM")]
    sharp_score_mean: f64,
    #[serde(rename = "wlE")]
    winloss_error: f64,
    #[serde(rename = "sE")]
    score_error: f64,
    #[serde(rename = "maxP")]
    max_policy: f64,
    v: f64,
    mvs: Vec<MoveLine>,
    par: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct MoveLine {
    m: String,
    sym: u8,
    id: u32,
    #[serde(rename = "rP")]
    raw_policy: f64,
}

/// Reads a `.katabook` file.
pub fn read(path: &Path) -> Result<BookView, KatabookError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| KatabookError::Io { path: path.display().to_string(), source })?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    parse(&text, &name).map_err(|(line, message)| KatabookError::Format {
        path: path.display().to_string(),
        line,
        message,
    })
}

/// Parses `.katabook` text; errors carry the 1-based line number.
pub fn parse(text: &str, name: &str) -> Result<BookView, (usize, String)> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines.next().ok_or((1, "the file is empty".to_string()))?;
    let header: Header = serde_json::from_str(first).map_err(|e| (1, format!("bad header: {e}")))?;
    if !(2..=3).contains(&header.version) {
        return Err((1, format!("book version {} is not supported (2 and 3 are)", header.version)));
    }
    let size = BoardSize::new(header.initial_board.x_size, header.initial_board.y_size)
        .map_err(|e| (1, e.to_string()))?;
    let rules = rules_from_json(&header.initial_rules).map_err(|m| (1, m))?;
    let initial = initial_position(&header.initial_board, &header.initial_pla, size).map_err(|m| (1, m))?;

    let (count_line, count_text) = lines.next().ok_or((2, "missing node count".to_string()))?;
    let count: usize = count_text.trim().parse().map_err(|_| (count_line, format!("bad node count `{count_text}`")))?;
    for _ in 0..count {
        lines.next().ok_or((count_line, "the hash table ends early".to_string()))?;
    }
    let mut raw: Vec<Option<(usize, NodeLine)>> = (0..count).map(|_| None).collect();
    for (line_no, line) in lines {
        if line.trim().is_empty() {
            break;
        }
        let node: NodeLine = serde_json::from_str(line).map_err(|e| (line_no, format!("bad node: {e}")))?;
        let id = node.id as usize;
        if id >= count {
            return Err((line_no, format!("node id {id} is not below the node count {count}")));
        }
        raw[id] = Some((line_no, node));
    }
    let mut nodes = Vec::with_capacity(count);
    for (id, entry) in raw.into_iter().enumerate() {
        let (line_no, node) = entry.ok_or((0, format!("node {id} is listed in the hash table but never defined")))?;
        nodes.push(node_view(node, size).map_err(|m| (line_no, m))?);
    }
    let mut book = BookView { name: name.to_string(), size, rules, initial, root: NodeId(0), nodes };
    back_up(&mut book, header.utility_per_score.unwrap_or(0.1));
    Ok(book)
}

fn node_view(node: NodeLine, size: BoardSize) -> Result<NodeView, String> {
    let to_move = Color::parse(&node.pla).map_err(|e| e.to_string())?;
    let self_symmetries = node
        .syms
        .iter()
        .map(|&s| Symmetry::from_id(s).ok_or(format!("bad symmetry {s}")))
        .collect::<Result<Vec<_>, _>>()?;
    let other_values = BlackValues {
        winrate: (1.0 - node.wl) / 2.0,
        // KataGo's pages show the mean of the score mean and the sharp score mean, negated for Black.
        score: -(node.score_mean + node.sharp_score_mean) / 2.0,
        winrate_uncertainty: if node.winloss_error >= 0.0 { node.winloss_error / 2.0 } else { 0.0 },
        score_uncertainty: node.score_error.max(0.0),
    };
    let edges = node
        .mvs
        .iter()
        .map(|m| {
            Ok(EdgeView {
                mv: Move::parse_gtp(&m.m, size).map_err(|e| e.to_string())?,
                to_child: Symmetry::from_id(m.sym).ok_or(format!("bad symmetry {}", m.sym))?,
                child: NodeId(m.id),
                prior: m.raw_policy,
                values: BlackValues::default(),
                visits: 0.0,
                adjusted_visits: 0.0,
                cost: None,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(NodeView {
        id: NodeId(node.id),
        to_move,
        self_symmetries,
        edges,
        other: Some(OtherMoves { values: other_values, max_prior: node.max_policy, visits: node.v }),
        values: other_values,
        visits: node.v,
        marks: Vec::new(),
        parent_count: node.par.len() as u32,
        min_depth: 0,
        expansion_cost: None,
    })
}

/// Minimax values and visit sums from the leaves up, then depths from the root down.
pub fn back_up(book: &mut BookView, score_weight: f64) {
    let n = book.nodes.len();
    let mut done = vec![false; n];
    // Iterative post-order so that deep books do not overflow the stack.
    let mut stack = vec![(book.root, false)];
    while let Some((id, children_done)) = stack.pop() {
        let i = id.index();
        if i >= n || done[i] {
            continue;
        }
        if !children_done {
            stack.push((id, true));
            for e in &book.nodes[i].edges {
                if e.child.index() < n && !done[e.child.index()] {
                    stack.push((e.child, false));
                }
            }
            continue;
        }
        recompute_node(book, id, score_weight);
        done[i] = true;
    }
    let mut depth = vec![u32::MAX; n];
    let mut queue = VecDeque::from([book.root]);
    if book.root.index() < n {
        depth[book.root.index()] = 0;
    }
    while let Some(id) = queue.pop_front() {
        let d = depth[id.index()];
        book.nodes[id.index()].min_depth = d;
        for e in book.nodes[id.index()].edges.clone() {
            let c = e.child.index();
            if c < n && depth[c] == u32::MAX {
                depth[c] = d + 1;
                queue.push_back(e.child);
            }
        }
    }
}

/// Recomputes one node from its children's current values: edge values, sort order, node value, visits.
pub fn recompute_node(book: &mut BookView, id: NodeId, score_weight: f64) {
    let i = id.index();
    let mut node = book.nodes[i].clone();
    for e in &mut node.edges {
        if let Some(child) = book.nodes.get(e.child.index()) {
            e.values = child.values;
            e.visits = child.visits;
            // KataGo's adjusted visits discount moves far from the best; without its formula they equal visits.
            e.adjusted_visits = child.visits;
        }
    }
    node.sort_edges(score_weight);
    let pla = node.to_move;
    let mut best = node.other.map(|o| o.values);
    for e in &node.edges {
        let better = match best {
            None => true,
            Some(b) => e.values.utility_for(pla, score_weight) > b.utility_for(pla, score_weight),
        };
        if better {
            best = Some(e.values);
        }
    }
    node.values = best.unwrap_or_default();
    node.visits = node.other.map_or(0.0, |o| o.visits) + node.edges.iter().map(|e| e.visits).sum::<f64>();
    book.nodes[i] = node;
}

fn rules_from_json(value: &serde_json::Value) -> Result<Rules, String> {
    let text = |key: &str| value.get(key).and_then(|v| v.as_str()).unwrap_or("").to_ascii_uppercase();
    let ko = match text("ko").as_str() {
        "SIMPLE" => KoRule::Simple,
        "POSITIONAL" => KoRule::Positional,
        "SITUATIONAL" => KoRule::Situational,
        other => return Err(format!("unknown ko rule `{other}` in initialRules")),
    };
    let scoring = match text("scoring").as_str() {
        "AREA" => Scoring::Area,
        "TERRITORY" => Scoring::Territory,
        other => return Err(format!("unknown scoring `{other}` in initialRules")),
    };
    let tax = match text("tax").as_str() {
        "NONE" | "" => Tax::None,
        "SEKI" => Tax::Seki,
        "ALL" => Tax::All,
        other => return Err(format!("unknown tax `{other}` in initialRules")),
    };
    let komi = value.get("komi").and_then(|k| k.as_f64()).ok_or("initialRules has no komi")?;
    Ok(Rules {
        ko,
        scoring,
        tax,
        multi_stone_suicide: value.get("suicide").and_then(|s| s.as_bool()).unwrap_or(false),
        has_button: value.get("hasButton").and_then(|s| s.as_bool()).unwrap_or(false),
        komi: Komi::from_f64(komi).map_err(|e| e.to_string())?,
    })
}

fn initial_position(board: &InitialBoard, pla: &str, size: BoardSize) -> Result<InitialPosition, String> {
    let mut initial = InitialPosition {
        first_player: Some(if pla.eq_ignore_ascii_case("white") { Color::White } else { Color::Black }),
        ..InitialPosition::default()
    };
    for (y, row) in board.stones.split('|').filter(|r| !r.is_empty()).enumerate() {
        for (x, c) in row.chars().enumerate() {
            if !size.contains(x, y) {
                return Err(format!("initial stone at column {x}, row {y} is off the {size} board"));
            }
            match c {
                'X' => initial.black.push(Point::new(x, y)),
                'O' => initial.white.push(Point::new(x, y)),
                _ => {}
            }
        }
    }
    Ok(initial)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/katabook/7x7-tt-k9-146.katabook");

    #[test]
    fn reads_the_real_7x7_book_and_matches_katago_root_page() {
        let book = read(Path::new(SAMPLE)).unwrap();
        assert_eq!(book.node_count(), 146);
        assert_eq!(book.size, BoardSize::square(7).unwrap());
        assert_eq!(book.rules.komi.value(), 9.0);
        let root = book.node(book.root).unwrap();
        let size = book.size;
        let first = &root.edges[0];
        assert_eq!(first.mv.to_gtp(size), "D4");
        // KataGo's root page: D4 54.3% / +0.42, E4 20.0% / -3.55, E5 8.6% / -5.60, other 6.9% / -11.80.
        assert!((first.values.winrate - 0.543).abs() < 0.002, "D4 win rate {}", first.values.winrate);
        assert!((first.values.score - 0.42).abs() < 0.02, "D4 score {}", first.values.score);
        let e4 = root.edges.iter().find(|e| e.mv.to_gtp(size) == "E4").unwrap();
        assert!((e4.values.winrate - 0.200).abs() < 0.002, "E4 win rate {}", e4.values.winrate);
        let other = root.other.unwrap();
        assert!((other.values.winrate - 0.069).abs() < 0.001);
        assert!((other.values.score + 11.80).abs() < 0.01);
        assert_eq!(root.min_depth, 0);
        assert!(book.nodes.iter().filter(|n| n.is_transposition()).count() >= 8);
    }

    #[test]
    fn a_broken_node_line_names_the_line() {
        let text = std::fs::read_to_string(SAMPLE).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[150] = "{not json";
        let err = parse(&lines.join("\n"), "x").unwrap_err();
        assert_eq!(err.0, 151);
    }
}
