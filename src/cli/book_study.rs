//! `tengen book stats | diff | disputed`, and what `book show` adds with `--board` and `--hash`: books
//! as research objects.

use anyhow::{Context, Result};
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tengen::book::dag::transform_game;
use tengen::book::interop::katabook;
use tengen::book::study::diff::{DiffThresholds, diff};
use tengen::book::study::disputed::{DisputedThresholds, disputed};
use tengen::book::study::{gtp_line, stats::stats};
use tengen::book::{Book, OrientedNode, store};

#[derive(Args)]
pub struct StatsArgs {
    /// A tengen book or a KataGo `.katabook`
    file: PathBuf,
    /// Unexpanded good moves listed
    #[arg(long, default_value_t = 10)]
    show: usize,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The first book (its lines are printed); a tengen book or a `.katabook`
    a: PathBuf,
    /// The second book, of the same board and rules
    b: PathBuf,
    /// Values differ when White's win/loss (−1..1) differs by more than this
    #[arg(long, default_value_t = 0.1)]
    win_loss: f64,
    /// …or the score by more than this many points
    #[arg(long, default_value_t = 2.0)]
    score: f64,
    /// Disagreements listed (deepest first); 0 lists all
    #[arg(long, default_value_t = 0)]
    limit: usize,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct DisputedArgs {
    /// A tengen book or a `.katabook`
    file: PathBuf,
    /// A best move on fewer visits than this is disputed
    #[arg(long, default_value_t = 100.0)]
    min_visits: f64,
    /// Sharp score and score further apart than this many points
    #[arg(long, default_value_t = 2.0)]
    sharp_gap: f64,
    /// Print KataGo hash bonus lines with this bonus (for `book mark --hash-bonus-file`) instead of lines
    #[arg(long, allow_negative_numbers = true)]
    bonus: Option<f64>,
    #[arg(long)]
    json: bool,
}

/// A tengen book, or a KataGo book read on the fly.
pub fn load_any(file: &Path) -> Result<Book> {
    if file.extension().and_then(|e| e.to_str()) == Some("katabook") {
        return Ok(katabook::import(file)?.0);
    }
    let (book, _) = store::load(file).with_context(|| format!("loading {}", file.display()))?;
    Ok(book)
}

pub fn stats_cmd(a: StatsArgs) -> Result<ExitCode> {
    let book = load_any(&a.file)?;
    let s = stats(&book, a.show);
    if a.json {
        return super::book::emit(&format!("{}\n", serde_json::to_string_pretty(&s)?));
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{} positions, {} moves, branching {:.2} moves per expanded position",
        s.nodes, s.moves, s.branching
    );
    let _ = writeln!(
        t,
        "transpositions: {} positions reached by {} extra moves",
        s.transposed_nodes, s.transposition_links
    );
    let sources: Vec<String> = s.sources.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let _ = writeln!(t, "positions by source: {}", sources.join(", "));
    if s.games > 0 {
        let _ = writeln!(t, "record games at the root: {}", s.games);
    }
    let _ = writeln!(
        t,
        "{:>5} {:>9} {:>9} {:>9}",
        "depth", "positions", "expanded", "moves"
    );
    for r in &s.by_depth {
        let _ = writeln!(
            t,
            "{:>5} {:>9} {:>9} {:>9}",
            r.depth, r.nodes, r.expanded, r.moves
        );
    }
    let _ = writeln!(
        t,
        "root: {} moves, Black's win rate spread {:.1}%, score spread {:.2}",
        s.root_moves.len(),
        s.root_winrate_spread * 100.0,
        s.root_score_spread
    );
    for m in &s.root_moves {
        let _ = writeln!(
            t,
            "  {:<5} B {:>5.1}% {:>+7.2}  visits {:.0}",
            m.mv,
            m.black_winrate * 100.0,
            m.black_score,
            m.visits
        );
    }
    let _ = writeln!(t, "shallowest unexpanded good moves:");
    for u in &s.unexpanded_good {
        let _ = writeln!(
            t,
            "  depth {:>2}  B {:>5.1}%  visits {:>6.0}  {}",
            u.depth,
            u.black_winrate * 100.0,
            u.visits,
            u.line
        );
    }
    super::book::emit(&t)
}

pub fn diff_cmd(a: DiffArgs) -> Result<ExitCode> {
    let (x, y) = (load_any(&a.a)?, load_any(&a.b)?);
    let t = DiffThresholds {
        win_loss: a.win_loss,
        score: a.score,
    };
    let mut d = diff(&x, &y, t)
        .with_context(|| format!("comparing {} with {}", a.a.display(), a.b.display()))?;
    if a.limit > 0 {
        d.disagreements.truncate(a.limit);
    }
    if a.json {
        return super::book::emit(&format!("{}\n", serde_json::to_string_pretty(&d)?));
    }
    let mut text = format!(
        "{} positions in both books ({} only in the first), {} disagreements, deepest first\n",
        d.common,
        d.only_in_a,
        d.disagreements.len()
    );
    for x in &d.disagreements {
        let best = x
            .best
            .as_ref()
            .map(|(p, q)| format!("  best {p} / {q}"))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "{:<30}  B {:>5.1}% / {:>5.1}%{best}  ({})",
            if x.line.is_empty() { "(root)" } else { &x.line },
            x.black_winrate.0 * 100.0,
            x.black_winrate.1 * 100.0,
            x.reasons.join(", ")
        );
    }
    super::book::emit(&text)
}

pub fn disputed_cmd(a: DisputedArgs) -> Result<ExitCode> {
    let book = load_any(&a.file)?;
    let t = DisputedThresholds {
        min_visits: a.min_visits,
        sharp_gap: a.sharp_gap,
    };
    let list = disputed(&book, t);
    if a.json {
        return super::book::emit(&format!("{}\n", serde_json::to_string_pretty(&list)?));
    }
    let mut text = String::new();
    for d in &list {
        match a.bonus {
            Some(b) => {
                let _ = writeln!(text, "# {}: {}", d.line, d.reasons.join("; "));
                let _ = writeln!(text, "{} BONUS {b}", d.hash);
            }
            // The line first, a tab, then why: `cut -f1` gives what `book mark --line` reads.
            None => {
                let _ = writeln!(
                    text,
                    "{}\t# best {}: {}",
                    d.line,
                    d.best,
                    d.reasons.join("; ")
                );
            }
        }
    }
    super::book::emit(&text)
}

/// A move's record games for the tables: count, then Black's and White's wins.
pub fn games_label(g: &tengen::book::GameCounts) -> Option<String> {
    (!g.is_empty()).then(|| {
        format!(
            "{} games (B {} W {})",
            g.games,
            g.black_wins(),
            g.white_wins()
        )
    })
}

/// What `book show --board` and `--hash` print before the table: the path from the root and the board.
pub fn show_extras(book: &Book, view: OrientedNode, board: bool, path: bool) -> Result<String> {
    let mut text = String::new();
    if let Some(games) = games_label(&book.games_through(view.id)) {
        let _ = writeln!(text, "record games through this position: {games}");
    }
    if path {
        let (moves, _) = book
            .line_to(view.id)
            .context("the node has no path back to the root")?;
        let _ = writeln!(
            text,
            "path from the root: {}",
            if moves.is_empty() {
                "(root)".to_string()
            } else {
                gtp_line(book, &moves)
            }
        );
    }
    if board {
        let game = transform_game(&book.game_at(view.id)?, view.to_view);
        let last = game.moves().last().and_then(|(_, m)| m.point());
        text.push_str(&game.board().render(last));
    }
    Ok(text)
}
