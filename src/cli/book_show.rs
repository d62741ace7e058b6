//! `tengen book show`: a node's moves as KataGo's pages show them (Black's view), as text or JSON.

use super::book::{emit, load, view_for};
use anyhow::{Context, Result};
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tengen::book::provenance::Provenance;
use tengen::book::{Book, MoveRow, NodeTable, OrientedNode, node_table};
use tengen::go::BookHash;

#[derive(Args)]
pub struct ShowArgs {
    pub file: PathBuf,
    /// Moves from the root, in GTP coordinates
    #[arg(long, default_value = "")]
    pub line: String,
    /// Show the node with this hash (in its own orientation) instead of a line, and its path from the root
    #[arg(long)]
    pub hash: Option<String>,
    /// Draw the position above the table
    #[arg(long)]
    pub board: bool,
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ShowArgs) -> Result<ExitCode> {
    let book = load(&a.file)?;
    let view = match &a.hash {
        Some(h) => {
            let hash: BookHash = h.parse().map_err(anyhow::Error::msg)?;
            let id = book
                .find(&hash)
                .with_context(|| format!("no node with hash {hash} in {}", a.file.display()))?;
            OrientedNode {
                id,
                to_view: tengen::go::Symmetry::IDENTITY,
            }
        }
        None => view_for(&book, &a.line)?,
    };
    let table = node_table(&book, view);
    if a.json {
        return emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json(&book, view, &table))?
        ));
    }
    let mut text = super::book_study::show_extras(&book, view, a.board, a.hash.is_some())?;
    write_table(&mut text, &book, view, &table);
    emit(&text)
}

/// A move's provenance: the engine that added it (the "other" row: the node's own values).
fn provenance(book: &Book, view: OrientedNode, r: &MoveRow) -> Provenance {
    match r.child {
        Some(child) => book
            .node(view.id)
            .edges
            .iter()
            .position(|e| e.child == child.id)
            .map_or_else(
                || book.provenance(child.id),
                |i| book.edge_provenance(view.id, i),
            ),
        None => book.provenance(view.id),
    }
}

fn json(book: &Book, view: OrientedNode, table: &NodeTable) -> serde_json::Value {
    let size = book.meta.size;
    let moves: Vec<serde_json::Value> = table
        .rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "provenance": provenance(book, view, r),
                "move": if r.is_other { "other".to_string() } else { r.moves[0].to_gtp(size) },
                "equivalents": r.moves.iter().map(|m| m.to_gtp(size)).collect::<Vec<_>>(),
                "black_winrate": r.black_winrate,
                "black_score": r.black_score,
                "winrate_uncertainty": r.win_loss_radius / 2.0,
                "score_uncertainty": r.score_radius,
                "visits": r.visits,
                "adjusted_visits": r.adjusted_visits,
                "prior": r.prior,
                "cost": r.cost,
                "marks": r.marks.map(|m| m.label()),
                "games": r.games,
            })
        })
        .collect();
    serde_json::json!({
        "hash": table.hash.to_string(),
        "to_move": if table.to_move == tengen::go::Color::Black { "B" } else { "W" },
        "black_winrate": table.black_winrate,
        "black_score": table.black_score,
        "visits": table.visits,
        "adjusted_visits": table.adjusted_visits,
        "path_cost": table.path_cost,
        "expansion_cost": table.expansion_cost,
        "depth": table.depth,
        "marks": table.marks.map(|m| m.label()),
        "games": table.games,
        "provenance": book.provenance(view.id),
        "engines": book.grown_by().iter().map(|&r| serde_json::json!({
            "id": r.0,
            "engine": book.engine(r).to_string(),
        })).collect::<Vec<_>>(),
        "moves": moves,
    })
}

/// The node's line, its values and provenance, and its moves table.
fn write_table(text: &mut String, book: &Book, view: OrientedNode, table: &NodeTable) {
    let size = book.meta.size;
    let _ = writeln!(
        text,
        "{} to play   hash {}",
        if table.to_move == tengen::go::Color::Black {
            "Black"
        } else {
            "White"
        },
        table.hash
    );
    let _ = writeln!(
        text,
        "Black {:.1}% {:+.2}   visits {:.0} (adjusted {:.0})   path cost {:.3}   depth {}",
        table.black_winrate * 100.0,
        table.black_score,
        table.visits,
        table.adjusted_visits,
        table.path_cost,
        table.depth
    );
    let own = book.provenance(view.id);
    let _ = writeln!(
        text,
        "values by {} ({:.0} visits)   book grown by {}",
        own.engine,
        own.visits,
        super::book_trim::engines_line(book)
    );
    let _ = writeln!(
        text,
        "{:>3}  {:<14} {:>6} {:>8} {:>7} {:>7} {:>7} {:>9} {:>9} {:>8}  {:<26} marks",
        "#",
        "move",
        "BWin%",
        "BScore",
        "±Win%",
        "±Score",
        "Prior%",
        "Visits",
        "AVisits",
        "Cost",
        "engine",
    );
    for (i, r) in table.rows.iter().enumerate() {
        let name = if r.is_other {
            "other".to_string()
        } else {
            r.moves
                .iter()
                .map(|m| m.to_gtp(size))
                .collect::<Vec<_>>()
                .join(",")
        };
        let radius = |x: f64, scale: f64, digits: usize| {
            if x == 0.0 {
                "-".to_string()
            } else {
                format!("{:.*}", digits, x * scale)
            }
        };
        let _ = writeln!(
            text,
            "{:>3}  {:<14} {:>6.1} {:>+8.2} {:>7} {:>7} {:>7.2} {:>9.0} {:>9.0} {:>8.3}  {:<26} {}",
            i + 1,
            name,
            r.black_winrate * 100.0,
            r.black_score,
            radius(r.win_loss_radius, 50.0, 1),
            radius(r.score_radius, 1.0, 2),
            r.prior * 100.0,
            r.visits,
            r.adjusted_visits,
            r.cost,
            provenance(book, view, r).engine,
            [
                r.marks.map(|m| m.label()),
                super::book_study::games_label(&r.games)
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("  ")
        );
    }
}
