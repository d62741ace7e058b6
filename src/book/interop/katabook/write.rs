//! Writes a tengen book as a KataGo `.katabook`, format version 3 (`facts/katago-book.md` §9): a JSON
//! header with the metadata and every cost parameter, the node count, one hash per node, then one JSON
//! line per node with its "not in book" values, moves and parents.
//!
//! Node ids are tengen's arena ids (the root is 0, as KataGo requires) and each node keeps its own
//! orientation, so a move's `sym` is the edge's symmetry into the child, which is what KataGo stores.
//! The hashes listed are tengen's: KataGo keys its nodes by them, so it reads the book, but a position
//! KataGo reaches by its own search is matched by KataGo's hash and is not merged with tengen's node.
//! Values are written in full precision (KataGo rounds them), so that reading the file back gives the
//! same book. Recursive values, costs and marks are not part of the format.

use super::KatabookError;
use crate::book::dag::{Book, Node};
use crate::go::{Color, KoRule, Move, Point, Scoring, Tax};
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::path::Path;

/// The text of the book as a version-3 `.katabook`.
pub fn export_string(book: &Book) -> Result<String, KatabookError> {
    let mut out = String::new();
    let header = header(book).map_err(|message| KatabookError::Bad {
        file: "(book header)".into(),
        line: 1,
        message,
    })?;
    out.push_str(&header.to_string());
    out.push('\n');
    let _ = writeln!(out, "{}", book.len());
    for (_, node) in book.nodes() {
        let _ = writeln!(out, "{}", node.hash);
    }
    for (id, node) in book.nodes() {
        out.push_str(&node_line(book, id.0, node).to_string());
        out.push('\n');
    }
    Ok(out)
}

/// Writes the book to `path` whole or not at all; returns the number of nodes written.
pub fn export(book: &Book, path: &Path) -> Result<usize, KatabookError> {
    let text = export_string(book)?;
    crate::files::write_whole(path, text.as_bytes()).map_err(|source| KatabookError::Io {
        file: path.display().to_string(),
        source,
    })?;
    Ok(book.len())
}

fn header(book: &Book) -> Result<Value, String> {
    let meta = &book.meta;
    let size = meta.size;
    let mut stones = String::new();
    for y in 0..size.height() {
        for x in 0..size.width() {
            let p = Point::new(x, y);
            stones.push(if meta.setup_black.contains(&p) {
                'X'
            } else if meta.setup_white.contains(&p) {
                'O'
            } else {
                '.'
            });
        }
        stones.push('|');
    }
    let rules = &meta.rules;
    let mut h: Map<String, Value> = match serde_json::to_value(&book.params) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err("the cost parameters are not a JSON object".into()),
        Err(e) => return Err(format!("the cost parameters do not encode: {e}")),
    };
    let komi: f64 = rules.komi.halves() as f64 / 2.0;
    let entries = [
        ("version", json!(3)),
        (
            "initialBoard",
            json!({
                "xSize": size.width(),
                "ySize": size.height(),
                "stones": stones,
                "koLoc": "null",
                "numBlackCaptures": 0,
                "numWhiteCaptures": 0,
            }),
        ),
        (
            "initialRules",
            json!({
                "ko": match rules.ko {
                    KoRule::Simple => "SIMPLE",
                    KoRule::Positional => "POSITIONAL",
                    KoRule::Situational => "SITUATIONAL",
                },
                "scoring": match rules.scoring {
                    Scoring::Area => "AREA",
                    Scoring::Territory => "TERRITORY",
                },
                "tax": match rules.tax {
                    Tax::None => "NONE",
                    Tax::Seki => "SEKI",
                    Tax::All => "ALL",
                },
                "suicide": rules.multi_stone_suicide,
                "hasButton": rules.has_button,
                "komi": komi,
                "whiteHandicapBonus": "0",
                "friendlyPassOk": false,
            }),
        ),
        (
            "initialPla",
            json!(if meta.first_player == Color::White {
                "White"
            } else {
                "Black"
            }),
        ),
        ("repBound", json!(meta.rep_bound)),
        ("alwaysComputePassAliveUnderSuicideRules", json!(false)),
        ("initialSymmetry", json!(0)),
    ];
    for (k, v) in entries {
        h.insert(k.to_string(), v);
    }
    Ok(Value::Object(h))
}

fn node_line(book: &Book, id: u32, node: &Node) -> Value {
    let size = book.meta.size;
    let name = |m: Move| m.to_gtp(size);
    let v = &node.not_in_book;
    let moves: Vec<Value> = node
        .edges
        .iter()
        .map(|e| {
            json!({
                "m": name(e.mv),
                "sym": e.to_child.id(),
                "id": e.child.0,
                "rP": e.prior as f64,
            })
        })
        .collect();
    let parents: Vec<Value> = node
        .parents
        .iter()
        .map(|p| json!({"id": p.parent.0, "loc": name(p.mv)}))
        .collect();
    json!({
        "id": id,
        "pla": if node.to_move == Color::White { "W" } else { "B" },
        "syms": node.self_symmetries.iter().map(|s| s.id()).collect::<Vec<_>>(),
        "wl": v.win_loss,
        "sM": v.score_mean,
        "ssM": v.sharp_score,
        "wlE": v.win_loss_error,
        "sE": v.score_error,
        "sStd": v.score_stdev,
        "maxP": v.max_policy,
        "w": v.weight,
        "v": v.visits,
        "cEx": node.can_expand,
        "mvs": moves,
        "par": parents,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{import, import_str};
    use super::*;
    use crate::book::dag::NodeId;

    const BOOK: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/katabook/7x7-tt-k9-146.katabook"
    );

    fn same_book(a: &Book, b: &Book) {
        assert_eq!(a.len(), b.len());
        assert_eq!(a.meta, b.meta);
        assert_eq!(a.params, b.params);
        for ((id, x), (_, y)) in a.nodes().zip(b.nodes()) {
            assert_eq!(x.hash, y.hash, "node {id:?}");
            assert_eq!(x.not_in_book, y.not_in_book, "node {id:?}");
            assert_eq!(x.values, y.values, "node {id:?}");
            assert_eq!(x.can_expand, y.can_expand, "node {id:?}");
            assert_eq!(x.self_symmetries, y.self_symmetries, "node {id:?}");
            let moves = |n: &Node| {
                n.edges
                    .iter()
                    .map(|e| (e.mv, e.to_child, e.child, e.prior))
                    .collect::<Vec<_>>()
            };
            assert_eq!(moves(x), moves(y), "node {id:?}");
            assert_eq!(x.parents, y.parents, "node {id:?}");
            assert!(
                (x.cost.total() - y.cost.total()).abs() < 1e-9,
                "node {id:?}: cost {:?} against {:?}",
                x.cost,
                y.cost
            );
        }
    }

    /// import → export → import gives the same values on every node of KataGo's 7x7 book, and the file
    /// is a version-3 book with KataGo's layout.
    #[test]
    fn katago_book_round_trips() {
        let (book, report) = import(Path::new(BOOK)).unwrap();
        let text = export_string(&book).unwrap();
        let mut lines = text.lines();
        let head: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(head["version"], 3);
        assert_eq!(head["initialRules"]["komi"], 9.0);
        assert_eq!(lines.next(), Some("146"));
        assert_eq!(text.lines().count(), 2 + 2 * 146);
        let original: Value = serde_json::from_str(
            std::fs::read_to_string(BOOK)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        for (k, v) in original.as_object().unwrap() {
            if v.is_number() {
                assert_eq!(head[k].as_f64(), v.as_f64(), "header key {k}");
            }
        }
        let (again, report2) = import_str(&text, "exported.katabook").unwrap();
        assert_eq!((report2.unreachable, report2.hash_conflicts), (0, 0));
        assert_eq!(report.version, 3);
        same_book(&book, &again);
        // A second trip changes nothing either.
        assert_eq!(export_string(&again).unwrap(), text);
        assert_eq!(again.node(NodeId(0)).parents.len(), 0);
    }

    /// A book tengen built itself (its own nodes and orientations, a transposition) survives the trip too.
    #[test]
    fn a_tengen_book_round_trips() {
        use crate::go::{BoardSize, Move, Rules};
        use crate::records::tree::{Outcome, RecordTree};
        let size = BoardSize::square(9).unwrap();
        let mut tree = RecordTree::new(size);
        for (line, outcome) in [
            ("E5 C3 G7 G3", Outcome::BlackWin),
            ("E5 G3 G7 C3", Outcome::WhiteWin),
            ("E5 C4 D3 pass", Outcome::Draw),
            ("C3 E5", Outcome::WhiteWin),
        ] {
            let moves = Move::alternating(&Move::parse_list(line, size).unwrap());
            tree.add_game(&moves, Some(outcome), 16);
        }
        let params = crate::book::CostParams::default();
        let (book, _) =
            crate::records::book::to_book(&tree, Rules::tromp_taylor(), params).unwrap();
        assert!(book.nodes().any(|(_, n)| n.parents.len() > 1));
        let (again, report) = import_str(&export_string(&book).unwrap(), "records").unwrap();
        assert_eq!((report.unreachable, report.hash_conflicts), (0, 0));
        same_book(&book, &again);
    }
}
