//! `tengen book annotate`: a game commented by a book.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use tengen::book::store;
use tengen::go::sgf;
use tengen::records::annotate::{annotate, write_comments};

#[derive(Args)]
pub struct AnnotateArgs {
    /// The book
    book: PathBuf,
    /// The game (SGF; its main line is annotated)
    game: PathBuf,
    /// Write the game with the book's comments here (otherwise a table is printed)
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn run(a: AnnotateArgs) -> Result<ExitCode> {
    let (book, _) = store::load(&a.book)?;
    let game = sgf::read_file(&a.game)?
        .into_iter()
        .next()
        .with_context(|| format!("{}: no game", a.game.display()))?;
    let notes = annotate(&book, &game)
        .with_context(|| format!("annotating {} with {}", a.game.display(), a.book.display()))?;
    let size = book.meta.size;
    if let Some(out) = &a.output {
        let text = write_comments(&book, &game, &notes).to_sgf();
        tengen::files::write_whole(out, text.as_bytes())?;
    }
    if a.json {
        let rows: Vec<serde_json::Value> = notes
            .iter()
            .map(|n| {
                let mut v = serde_json::to_value(n).unwrap_or_default();
                v["move"] = n.played.to_gtp(size).into();
                v["book_best"] = n.book_best.map(|m| m.to_gtp(size)).into();
                v
            })
            .collect();
        let left = notes.iter().find(|n| !n.in_book).map(|n| n.number);
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"moves": rows, "left_book_at": left})
            )?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if a.output.is_none() {
        println!(
            "{:>4}  {:<6} {:<6} {:>8} {:>8} {:>7}  note",
            "move", "played", "book", "B win%", "B score", "loss"
        );
        for n in &notes {
            println!(
                "{:>4}  {:<6} {:<6} {:>8.1} {:>+8.1} {:>7.1}  {}",
                n.number,
                format!("{} {}", n.color.letter(), n.played.to_gtp(size)),
                n.book_best.map_or("-".into(), |m| m.to_gtp(size)),
                n.played_black_winrate * 100.0,
                n.played_black_score,
                n.score_loss,
                if n.in_book { "" } else { "left the book" }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
