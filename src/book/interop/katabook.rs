//! Reads KataGo `.katabook` files (versions 1–3, `facts/katago-book.md` §9) into a tengen book.
//!
//! Node ids and each node's orientation are KataGo's; the structure is rebuilt by walking moves and
//! symmetries from the root, which also gives every node tengen's own hash (so an imported book can be
//! grown by tengen). KataGo's values "not in book" are taken as they are; recursive values and costs are
//! recomputed, exactly as KataGo does when it loads a book.

use crate::book::cost::CostParams;
use crate::book::dag::{
    Book, BookMeta, Edge, Node, NodeId, ParentLink, SearchValues, SymmetrySet, transform_game,
};
use crate::go::{
    BoardSize, BookHash, Color, Game, KoRule, Komi, Move, Rules, Scoring, Symmetry, Tax,
};
use serde_json::Value;
use std::collections::VecDeque;
use std::path::Path;

mod shape;
mod write;

pub use write::{export, export_string};

#[derive(Debug, thiserror::Error)]
pub enum KatabookError {
    #[error("cannot read {file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}: {message}")]
    Bad {
        file: String,
        line: usize,
        message: String,
    },
}

/// What the import found besides the book.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    pub version: u32,
    /// KataGo's hash of each node, indexed by node id (the id is KataGo's too).
    pub katago_hashes: Vec<BookHash>,
    /// Nodes no walk from the root reached (kept, but without a tengen hash check).
    pub unreachable: usize,
    /// Nodes whose paths disagree about tengen's hash (KataGo merged what tengen would keep apart).
    pub hash_conflicts: usize,
}

struct RawNode {
    to_move: Color,
    syms: Vec<Symmetry>,
    values: SearchValues,
    can_expand: bool,
    moves: Vec<(Move, Symmetry, usize, f64)>,
    parents: Vec<(usize, Move)>,
}

/// Reads a `.katabook` file.
pub fn import(path: &Path) -> Result<(Book, ImportReport), KatabookError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| KatabookError::Io {
        file: file.clone(),
        source,
    })?;
    import_str(&text, &file)
}

/// Reads `.katabook` text; `file` names it in errors.
pub fn import_str(text: &str, file: &str) -> Result<(Book, ImportReport), KatabookError> {
    let bad = |line: usize, message: String| bad_at(file, line, message);
    let mut lines = text.lines().enumerate();
    let (_, header_line) = lines
        .next()
        .ok_or_else(|| bad(1, "the file is empty".into()))?;
    let header: Value = serde_json::from_str(header_line)
        .map_err(|e| bad(1, format!("header is not JSON: {e}")))?;
    let version = header["version"]
        .as_u64()
        .ok_or_else(|| bad(1, "no `version` in the header".into()))? as u32;
    if !(1..=3).contains(&version) {
        return Err(bad(
            1,
            format!("book version {version} is not supported (1..3 are)"),
        ));
    }
    let meta = read_meta(&header).map_err(|m| bad(1, m))?;
    let params = read_params(&header).map_err(|m| bad(1, m))?;
    let (hashes, raw) = read_nodes(&mut lines, version, meta.size, file)?;
    check_links(&raw, file)?;
    let mut report = ImportReport {
        version,
        ..ImportReport::default()
    };
    let tengen = tengen_identities(&raw, &meta, &mut report);
    let mut book = Book::empty(meta, params, raw.len());
    for (id, n) in raw.iter().enumerate() {
        let (hash, to_canonical) = match tengen[id] {
            Some(t) => t,
            None => {
                report.unreachable += 1;
                (hashes[id], Symmetry::IDENTITY)
            }
        };
        // Two KataGo nodes tengen would merge keep KataGo's identity for the second one.
        let hash = if book.find(&hash).is_some() {
            hashes[id]
        } else {
            hash
        };
        book.push_node(stored_node(n, hash, to_canonical));
    }
    report.katago_hashes = hashes;
    // KataGo grew the book; which network it used, a `.katabook` does not say.
    let katago =
        crate::engine::EngineId::program(crate::engine::EngineKind::KataGo, "katago", None);
    let by = book
        .register_engine(&katago)
        .map_err(|e| bad(1, e.to_string()))?;
    book.attribute_all(by);
    crate::book::recompute_everything(&mut book);
    Ok((book, report))
}

fn bad_at(file: &str, line: usize, message: String) -> KatabookError {
    KatabookError::Bad {
        file: file.to_string(),
        line,
        message,
    }
}

/// The hash list (versions 2 and 3) and the node lines. Version 1 names nodes by hash, so its links are
/// resolved once every line is read.
fn read_nodes<'t>(
    lines: &mut impl Iterator<Item = (usize, &'t str)>,
    version: u32,
    size: BoardSize,
    file: &str,
) -> Result<(Vec<BookHash>, Vec<RawNode>), KatabookError> {
    let bad = |line: usize, message: String| bad_at(file, line, message);
    let mut hashes: Vec<BookHash> = Vec::new();
    if version >= 2 {
        let (i, count_line) = lines
            .next()
            .ok_or_else(|| bad(2, "missing the node count".into()))?;
        let count: usize = count_line
            .trim()
            .parse()
            .map_err(|_| bad(i + 1, format!("`{count_line}` is not a node count")))?;
        for _ in 0..count {
            let (i, l) = lines
                .next()
                .ok_or_else(|| bad(i + 1, "the hash list ends early".into()))?;
            hashes.push(l.trim().parse().map_err(|m: String| bad(i + 1, m))?);
        }
    }
    let mut raw: Vec<Option<RawNode>> = (0..hashes.len()).map(|_| None).collect();
    let mut v1_ids: std::collections::HashMap<BookHash, usize> = Default::default();
    let mut v1_pending: Vec<(usize, Value)> = Vec::new();
    for (i, l) in lines {
        if l.trim().is_empty() {
            break;
        }
        let data: Value = serde_json::from_str(l)
            .map_err(|e| bad(i + 1, format!("node line is not JSON: {e}")))?;
        if version >= 2 {
            let id = data["id"]
                .as_u64()
                .ok_or_else(|| bad(i + 1, "node without `id`".into()))?
                as usize;
            if id >= raw.len() {
                return Err(bad(
                    i + 1,
                    format!("node id {id} is beyond the {} hashes listed", raw.len()),
                ));
            }
            raw[id] = Some(
                read_node(&data, version, size, |x| x.as_u64().map(|v| v as usize))
                    .map_err(|m| bad(i + 1, format!("node {id}: {m}")))?,
            );
        } else {
            let hash: BookHash = data["hash"]
                .as_str()
                .ok_or_else(|| bad(i + 1, "node without `hash`".into()))?
                .parse()
                .map_err(|m: String| bad(i + 1, m))?;
            v1_ids.insert(hash, hashes.len());
            hashes.push(hash);
            raw.push(None);
            v1_pending.push((i + 1, data));
        }
    }
    for (line, data) in v1_pending {
        let hash: BookHash = data["hash"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(line, "bad hash".into()))?;
        let id = v1_ids[&hash];
        let lookup = |x: &Value| {
            x.as_str()
                .and_then(|s| s.parse::<BookHash>().ok())
                .and_then(|h| v1_ids.get(&h).copied())
        };
        raw[id] = Some(
            read_node(&data, version, size, lookup)
                .map_err(|m| bad(line, format!("node {id}: {m}")))?,
        );
    }
    let raw: Vec<RawNode> = raw
        .into_iter()
        .enumerate()
        .map(|(i, n)| n.ok_or_else(|| bad(0, format!("node {i} is listed but has no data line"))))
        .collect::<Result<_, _>>()?;
    if raw.is_empty() {
        return Err(bad(0, "the book has no nodes".into()));
    }
    Ok((hashes, raw))
}

/// Every move and parent names a node of the book, and the moves form no cycle.
fn check_links(raw: &[RawNode], file: &str) -> Result<(), KatabookError> {
    for (i, n) in raw.iter().enumerate() {
        for &(_, _, child, _) in &n.moves {
            if child >= raw.len() {
                return Err(bad_at(
                    file,
                    0,
                    format!("node {i} has a move to node {child}, which does not exist"),
                ));
            }
        }
        for &(parent, _) in &n.parents {
            if parent >= raw.len() {
                return Err(bad_at(
                    file,
                    0,
                    format!("node {i} has parent {parent}, which does not exist"),
                ));
            }
        }
    }
    let children: Vec<Vec<usize>> = raw
        .iter()
        .map(|n| n.moves.iter().map(|m| m.2).collect())
        .collect();
    shape::acyclic(&children).map_err(|m| bad_at(file, 0, m))
}

/// tengen's hash and orientation of each node, from a walk from the root (node 0, the initial position)
/// that gives each node a concrete game in its own orientation. `None` for nodes the walk never reaches.
fn tengen_identities(
    raw: &[RawNode],
    meta: &BookMeta,
    report: &mut ImportReport,
) -> Vec<Option<(BookHash, Symmetry)>> {
    let mut games: Vec<Option<Game>> = vec![None; raw.len()];
    games[0] = Some(meta.initial_game());
    let mut queue = VecDeque::from([0usize]);
    let mut tengen: Vec<Option<(BookHash, Symmetry)>> = vec![None; raw.len()];
    while let Some(id) = queue.pop_front() {
        let game = games[id].clone().unwrap_or_else(|| meta.initial_game());
        let canonical = crate::go::hash::canonical(&game, meta.rep_bound);
        tengen[id] = Some((canonical.hash, canonical.to_canonical));
        for &(mv, sym, child, _) in &raw[id].moves {
            let mut next = game.clone();
            // KataGo replays book moves tolerantly too.
            let _ = next.play_tolerant(next.to_move(), mv);
            let child_game = transform_game(&next, sym);
            match &games[child] {
                None => {
                    games[child] = Some(child_game);
                    queue.push_back(child);
                }
                Some(_) => {
                    let other = crate::go::hash::canonical(&child_game, meta.rep_bound).hash;
                    if tengen[child].is_some_and(|(h, _)| h != other) {
                        report.hash_conflicts += 1;
                    }
                }
            }
        }
    }
    tengen
}

/// A book node from a KataGo node, under tengen's identity.
fn stored_node(n: &RawNode, hash: BookHash, to_canonical: Symmetry) -> Node {
    let mut node = Node::new(
        hash,
        n.to_move,
        SymmetrySet::from_slice(&n.syms),
        to_canonical,
    );
    node.not_in_book = n.values;
    node.can_expand = n.can_expand;
    node.edges = n
        .moves
        .iter()
        .map(|&(mv, to_child, child, prior)| {
            Edge::new(
                mv,
                to_child,
                NodeId(child as u32),
                prior as f32,
                crate::book::EngineRef::UNKNOWN,
            )
        })
        .collect();
    node.parents = n
        .parents
        .iter()
        .map(|&(p, mv)| ParentLink {
            parent: NodeId(p as u32),
            mv,
        })
        .collect();
    node
}

fn read_node(
    data: &Value,
    version: u32,
    size: BoardSize,
    id_of: impl Fn(&Value) -> Option<usize>,
) -> Result<RawNode, String> {
    let short = version >= 2;
    let key = |s: &'static str, l: &'static str| if short { s } else { l };
    let num = |k: &str| {
        data[k]
            .as_f64()
            .ok_or_else(|| format!("node without a number `{k}`"))
    };
    let to_move = match data["pla"].as_str() {
        Some("B") | Some("Black") => Color::Black,
        Some("W") | Some("White") => Color::White,
        other => return Err(format!("bad player {other:?}")),
    };
    let syms = data[key("syms", "symmetries")]
        .as_array()
        .ok_or("node without symmetries")?
        .iter()
        .map(|s| {
            s.as_u64()
                .and_then(|v| Symmetry::from_id(v as u8))
                .ok_or("bad symmetry")
        })
        .collect::<Result<Vec<_>, _>>()?;
    let values = SearchValues {
        win_loss: num(key("wl", "winLossValue"))?,
        score_mean: num(key("sM", "scoreMean"))?,
        sharp_score: num(key("ssM", "sharpScoreMean"))?,
        win_loss_error: num(key("wlE", "winLossError"))?,
        score_error: num(key("sE", "scoreError"))?,
        score_stdev: num(key("sStd", "scoreStdev"))?,
        max_policy: num(key("maxP", "maxPolicy"))?,
        weight: num(key("w", "weight"))?,
        visits: num(key("v", "visits"))?,
    };
    // Version 1 books could wrongly record nodes as finished; KataGo forces them expandable.
    let can_expand = if short {
        data["cEx"].as_bool().ok_or("node without `cEx`")?
    } else {
        true
    };
    let parse_move = |v: &Value| -> Result<Move, String> {
        let t = v.as_str().ok_or("move is not text")?;
        Move::parse_gtp(t, size).map_err(|e| e.to_string())
    };
    let mut moves = Vec::new();
    for m in data[key("mvs", "moves")]
        .as_array()
        .ok_or("node without moves")?
    {
        let mv = parse_move(&m[key("m", "move")])?;
        let sym = m[key("sym", "symmetryToAlign")]
            .as_u64()
            .and_then(|v| Symmetry::from_id(v as u8))
            .ok_or("bad move symmetry")?;
        let child = id_of(&m[key("id", "hash")]).ok_or("move to an unknown node")?;
        let prior = m[key("rP", "rawPolicy")]
            .as_f64()
            .ok_or("move without a prior")?;
        moves.push((mv, sym, child, prior));
    }
    if let Some(mv) = shape::first_repeat(moves.iter().map(|m| m.0)) {
        return Err(format!("move {} is listed twice", mv.to_gtp(size)));
    }
    let mut parents = Vec::new();
    for p in data[key("par", "parents")]
        .as_array()
        .ok_or("node without parents")?
    {
        let parent = id_of(&p[key("id", "hash")]).ok_or("parent is an unknown node")?;
        parents.push((parent, parse_move(&p["loc"])?));
    }
    if let Some((parent, mv)) = shape::first_repeat(parents.iter().copied()) {
        return Err(format!(
            "parent {parent} by {} is listed twice",
            mv.to_gtp(size)
        ));
    }
    Ok(RawNode {
        to_move,
        syms,
        values,
        can_expand,
        moves,
        parents,
    })
}

fn read_meta(header: &Value) -> Result<BookMeta, String> {
    let board = &header["initialBoard"];
    let w = board["xSize"].as_u64().ok_or("no initialBoard.xSize")? as usize;
    let h = board["ySize"].as_u64().ok_or("no initialBoard.ySize")? as usize;
    let size = BoardSize::new(w, h).map_err(|e| e.to_string())?;
    let mut meta = BookMeta::new(size, read_rules(&header["initialRules"])?);
    meta.rep_bound = shape::rep_bound(header["repBound"].as_u64())?;
    meta.first_player = match header["initialPla"].as_str() {
        Some("White") | Some("W") => Color::White,
        _ => Color::Black,
    };
    if let Some(stones) = board["stones"].as_str() {
        (meta.setup_black, meta.setup_white) = shape::setup_stones(stones, size)?;
    }
    Ok(meta)
}

fn read_rules(r: &Value) -> Result<Rules, String> {
    let ko = match r["ko"].as_str() {
        Some("SIMPLE") => KoRule::Simple,
        Some("POSITIONAL") => KoRule::Positional,
        Some("SITUATIONAL") => KoRule::Situational,
        other => return Err(format!("unknown ko rule {other:?}")),
    };
    let scoring = match r["scoring"].as_str() {
        Some("AREA") => Scoring::Area,
        Some("TERRITORY") => Scoring::Territory,
        other => return Err(format!("unknown scoring {other:?}")),
    };
    let tax = match r["tax"].as_str() {
        Some("NONE") | None => Tax::None,
        Some("SEKI") => Tax::Seki,
        Some("ALL") => Tax::All,
        other => return Err(format!("unknown tax {other:?}")),
    };
    let komi = Komi::from_f64(r["komi"].as_f64().ok_or("rules without komi")?)
        .map_err(|e| e.to_string())?;
    Ok(Rules {
        ko,
        scoring,
        tax,
        multi_stone_suicide: r["suicide"].as_bool().unwrap_or(false),
        has_button: r["hasButton"].as_bool().unwrap_or(false),
        komi,
    })
}

/// Cost parameters as KataGo's loader reads them: required keys must be present, optional ones fall back
/// to the loader's values (which differ from the config defaults for a few keys).
fn read_params(header: &Value) -> Result<CostParams, String> {
    const REQUIRED: [&str; 15] = [
        "errorFactor",
        "costPerMove",
        "costPerUCBWinLossLoss",
        "costPerUCBScoreLoss",
        "costPerLogPolicy",
        "costPerMovesExpanded",
        "costPerSquaredMovesExpanded",
        "costWhenPassFavored",
        "bonusPerWinLossError",
        "scoreLossCap",
        "utilityPerScore",
        "policyBoostSoftUtilityScale",
        "utilityPerPolicyForSorting",
        "repBound",
        "initialSymmetry",
    ];
    for k in REQUIRED {
        if header.get(k).is_none() {
            return Err(format!("the header has no `{k}`"));
        }
    }
    if header["initialSymmetry"].as_u64() != Some(0) {
        return Err("initialSymmetry is not 0; such books are not supported".into());
    }
    let fallback: [(&str, f64); 15] = [
        ("costPerUCBWinLossLossPow3", 0.0),
        ("costPerUCBWinLossLossPow7", 0.0),
        ("bonusPerScoreError", 0.0),
        ("bonusPerSharpScoreDiscrepancy", 0.0),
        ("bonusPerExcessUnexpandedPolicy", 0.0),
        ("bonusPerUnexpandedBestWinLoss", 0.0),
        ("bonusForWLPV1", 0.0),
        ("bonusForWLPV2", 0.0),
        ("bonusForWLPVFinalProp", 0.5),
        ("bonusForBiggestWLCost", 0.0),
        ("bonusBehindInVisitsScale", 0.0),
        ("earlyBookCostReductionFactor", 0.0),
        ("earlyBookCostReductionLambda", 0.0),
        ("maxVisitsForReExpansion", 0.0),
        ("visitsScale", 1.0),
    ];
    let mut obj = serde_json::Map::new();
    for (k, v) in fallback {
        obj.insert(k.to_string(), Value::from(v));
    }
    obj.insert("visitsScaleLeaves".into(), Value::from(1.0));
    obj.insert("adjustedVisitsWLScale".into(), Value::from(0.05));
    obj.insert("sharpScoreOutlierCap".into(), Value::from(10000.0));
    if let Some(h) = header.as_object() {
        for (k, v) in h {
            if v.is_number() {
                obj.insert(k.clone(), v.clone());
            }
        }
    }
    serde_json::from_value(Value::Object(obj)).map_err(|e| format!("bad cost parameters: {e}"))
}

#[cfg(test)]
mod tests;
