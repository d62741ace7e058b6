//! `tengen records build -o FILE.book`: the record tree written as a tengen book.

use anyhow::{Context, Result};
use std::path::Path;
use tengen::book::CostParams;
use tengen::book::store::BookStore;
use tengen::go::{Komi, Rules};
use tengen::records::RecordTree;
use tengen::records::book::{RecordsBookReport, to_book};

/// What was written.
pub struct Written {
    pub nodes: usize,
    pub moves: usize,
    pub games: u32,
    pub report: RecordsBookReport,
}

/// Converts `tree` into a book of the given rules and creates `output` (never over an existing file).
pub fn write(tree: &RecordTree, output: &Path, rules: &str, komi: f64) -> Result<Written> {
    let rules = Rules::parse(rules)?.with_komi(Komi::from_f64(komi)?);
    let (book, report) = to_book(tree, rules, CostParams::default())?;
    BookStore::create(output, &book).with_context(|| format!("writing {}", output.display()))?;
    Ok(Written {
        nodes: book.len(),
        moves: book.edge_count(),
        games: book.games_through(book.root()).games,
        report,
    })
}

pub fn summary_json(w: &Written) -> serde_json::Value {
    serde_json::json!({
        "nodes": w.nodes,
        "moves": w.moves,
        "games": w.games,
        "transpositions": w.report.transpositions,
        "dropped": w.report.dropped,
    })
}

pub fn summary_text(w: &Written) -> String {
    format!(
        "book:            {} positions, {} moves, {} games at the root, {} transpositions, {} moves dropped",
        w.nodes, w.moves, w.games, w.report.transpositions, w.report.dropped
    )
}
