//! Manual marks, the "forced deepening" of a book: BONUS b (the node and its subtree cost b less), EXPAND e
//! (the node's own expansion costs e less), VISITS v (push the node until it has v visits) and BRANCH k
//! (force k searched children). They are stored in the book and read from KataGo's bonus files: SGF
//! comments with `BONUS x` / `EXPAND x` / `VISITS x` / `BRANCH x`, or lines `<64-hex hash> KIND value`.

use super::dag::{Book, NodeId};
use crate::go::{BookHash, Game};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Marks {
    pub bonus: f64,
    pub expand: f64,
    pub visits: f64,
    pub branch: u32,
}

/// One kind of mark and its value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Mark {
    Bonus(f64),
    Expand(f64),
    Visits(f64),
    Branch(u32),
}

#[derive(Debug, thiserror::Error)]
pub enum MarkError {
    #[error("{file}:{line}: {message}")]
    Bad {
        file: String,
        line: usize,
        message: String,
    },
    #[error("cannot read {file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Sgf(String),
    #[error("{kind} {value} is out of range ({range})")]
    Range {
        kind: &'static str,
        value: f64,
        range: &'static str,
    },
}

impl Mark {
    /// Parses `BONUS 2.5`-style text (KataGo's keywords, any case).
    pub fn parse(kind: &str, value: &str) -> Option<Mark> {
        let v: f64 = value.trim().parse().ok()?;
        match kind.trim().to_ascii_uppercase().as_str() {
            "BONUS" => Some(Mark::Bonus(v)),
            "EXPAND" => Some(Mark::Expand(v)),
            "VISITS" => Some(Mark::Visits(v)),
            "BRANCH" => Some(Mark::Branch(v.round().max(0.0) as u32)),
            _ => None,
        }
    }

    /// Parses a mark the user typed (`bonus 5`, `EXPAND 1`, `visits 1000`, `branch 3`); unlike a bonus
    /// file's value, a typed VISITS or BRANCH amount must be a whole number.
    pub fn parse_typed(kind: &str, amount: &str) -> Result<Mark, String> {
        let bad = || format!("`{amount}` is not a valid amount for {kind}");
        let whole = match kind.to_ascii_lowercase().as_str() {
            "bonus" | "expand" => true,
            "visits" => amount.parse::<u64>().is_ok(),
            "branch" => amount.parse::<u32>().is_ok(),
            _ => {
                return Err(format!(
                    "unknown mark `{kind}`: use bonus, expand, visits or branch"
                ));
            }
        };
        match Mark::parse(kind, amount) {
            Some(mark) if whole => Ok(mark),
            _ => Err(bad()),
        }
    }

    /// KataGo's bonus-file keyword.
    pub fn keyword(&self) -> &'static str {
        match self {
            Mark::Bonus(_) => "BONUS",
            Mark::Expand(_) => "EXPAND",
            Mark::Visits(_) => "VISITS",
            Mark::Branch(_) => "BRANCH",
        }
    }

    /// Short form for tables: `B5`, `E1`, `V1000`, `K3`.
    pub fn short(&self) -> String {
        match self {
            Mark::Bonus(b) => format!("B{b}"),
            Mark::Expand(e) => format!("E{e}"),
            Mark::Visits(v) => format!("V{v}"),
            Mark::Branch(k) => format!("K{k}"),
        }
    }

    pub fn same_kind(&self, other: &Mark) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// KataGo's ranges: BONUS −10000..10000, EXPAND 0..10000, VISITS ≥ 0, BRANCH 0..200.
    pub fn check(self) -> Result<Mark, MarkError> {
        let bad = |kind, value, range| Err(MarkError::Range { kind, value, range });
        match self {
            Mark::Bonus(v) if !(-10000.0..=10000.0).contains(&v) => {
                bad("BONUS", v, "-10000..10000")
            }
            Mark::Expand(v) if !(0.0..=10000.0).contains(&v) => bad("EXPAND", v, "0..10000"),
            Mark::Visits(v) if v < 0.0 || !v.is_finite() => bad("VISITS", v, "0 or more"),
            Mark::Branch(k) if k > 200 => bad("BRANCH", k as f64, "0..200"),
            m => Ok(m),
        }
    }
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        *self == Marks::default()
    }

    /// Sets one mark (replacing the previous value of that kind).
    pub fn set(&mut self, mark: Mark) {
        match mark {
            Mark::Bonus(v) => self.bonus = v,
            Mark::Expand(v) => self.expand = v,
            Mark::Visits(v) => self.visits = v,
            Mark::Branch(k) => self.branch = k,
        }
    }

    /// Merges a mark from a bonus file: duplicates keep the larger value, as KataGo does.
    pub fn merge_max(&mut self, mark: Mark) {
        match mark {
            Mark::Bonus(v) => self.bonus = self.bonus.max(v),
            Mark::Expand(v) => self.expand = self.expand.max(v),
            Mark::Visits(v) => self.visits = self.visits.max(v),
            Mark::Branch(k) => self.branch = self.branch.max(k),
        }
    }

    /// The marks that are set, in the order BONUS, EXPAND, VISITS, BRANCH.
    pub fn list(&self) -> Vec<Mark> {
        let mut out = Vec::new();
        if self.bonus != 0.0 {
            out.push(Mark::Bonus(self.bonus));
        }
        if self.expand != 0.0 {
            out.push(Mark::Expand(self.expand));
        }
        if self.visits != 0.0 {
            out.push(Mark::Visits(self.visits));
        }
        if self.branch != 0 {
            out.push(Mark::Branch(self.branch));
        }
        out
    }

    /// Short text for tables: `B2 E1 V5000 K3`.
    pub fn label(&self) -> String {
        let parts: Vec<String> = self.list().iter().map(Mark::short).collect();
        parts.join(" ")
    }
}

/// Every `KIND value` pair in a comment (the value is the first word after the keyword).
pub fn marks_in_comment(comment: &str) -> Vec<Mark> {
    let words: Vec<&str> = comment.split_whitespace().collect();
    words
        .windows(2)
        .filter_map(|w| Mark::parse(w[0], w[1]))
        .collect()
}

/// Reads a hash bonus file: lines `<64-hex BookHash> BONUS|EXPAND|VISITS|BRANCH <value>`; blank lines and
/// `#` comments are skipped.
pub fn read_hash_file(path: &Path) -> Result<Vec<(BookHash, Mark)>, MarkError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| MarkError::Io {
        file: file.clone(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |message: String| MarkError::Bad {
            file: file.clone(),
            line: i + 1,
            message,
        };
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.len() != 3 {
            return Err(bad(
                "expected `<64-hex hash> BONUS|EXPAND|VISITS|BRANCH <value>`".into(),
            ));
        }
        let hash: BookHash = parts[0].parse().map_err(bad)?;
        let mark = Mark::parse(parts[1], parts[2])
            .ok_or_else(|| bad(format!("`{} {}` is not a mark", parts[1], parts[2])))?
            .check()
            .map_err(|e| bad(e.to_string()))?;
        out.push((hash, mark));
    }
    Ok(out)
}

/// Reads an SGF bonus file: every position whose comment holds marks, hashed under the book's rules.
/// Positions that are not in the book are returned separately (they apply once the book reaches them
/// only through their hash, which KataGo's files also allow).
pub fn read_sgf_file(book: &Book, path: &Path) -> Result<Vec<(BookHash, Mark)>, MarkError> {
    let games = crate::go::sgf::read_file(path).map_err(|e| MarkError::Sgf(e.to_string()))?;
    let mut out = Vec::new();
    for sgf in &games {
        walk_sgf(book, &sgf.root, book.meta.initial_game(), &mut out);
    }
    Ok(out)
}

fn walk_sgf(
    book: &Book,
    node: &crate::go::sgf::SgfNode,
    mut game: Game,
    out: &mut Vec<(BookHash, Mark)>,
) {
    if let Some((color, mv)) = node.get_move()
        && game.play_as(color, mv).is_err()
    {
        return;
    }
    if let Some(comment) = node.comment() {
        let marks = marks_in_comment(comment);
        if !marks.is_empty() {
            let hash = crate::go::hash::canonical(&game, book.meta.rep_bound).hash;
            out.extend(
                marks
                    .into_iter()
                    .filter_map(|m| m.check().ok())
                    .map(|m| (hash, m)),
            );
        }
    }
    for child in &node.children {
        walk_sgf(book, child, game.clone(), out);
    }
}

/// Applies file marks (by hash) to the book; returns how many matched a node.
pub fn apply_by_hash(book: &mut Book, marks: &[(BookHash, Mark)]) -> usize {
    let mut matched = 0;
    for &(hash, mark) in marks {
        if let Some(id) = book.find(&hash) {
            book.marks.entry(id).or_default().merge_max(mark);
            matched += 1;
        }
    }
    matched
}

/// Sets a mark on a node (replacing that kind).
pub fn set_mark(book: &mut Book, id: NodeId, mark: Mark) {
    let entry = book.marks.entry(id).or_default();
    entry.set(mark);
    if entry.is_empty() {
        book.marks.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_marks_take_the_first_word_after_the_keyword() {
        let marks = marks_in_comment("look here BONUS 2.5 and VISITS 5000 branch 3 EXPAND x");
        assert_eq!(
            marks,
            vec![Mark::Bonus(2.5), Mark::Visits(5000.0), Mark::Branch(3)]
        );
    }

    #[test]
    fn ranges_follow_katago() {
        assert!(Mark::Expand(-1.0).check().is_err());
        assert!(Mark::Branch(201).check().is_err());
        assert!(Mark::Bonus(-50.0).check().is_ok());
    }

    #[test]
    fn duplicates_keep_the_maximum() {
        let mut m = Marks::default();
        m.merge_max(Mark::Bonus(1.0));
        m.merge_max(Mark::Bonus(3.0));
        m.merge_max(Mark::Bonus(2.0));
        assert_eq!(m.bonus, 3.0);
        assert_eq!(m.label(), "B3");
    }
}
