//! `tengen book …`: create, grow, browse, mark, import and export opening books.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tengen::book::expand::{ExpandSettings, Progress, grow};
use tengen::book::interop::katabook;
use tengen::book::marks::{self, Mark};
use tengen::book::store::{self, BookStore};
use tengen::book::{Book, BookMeta, CostParams, OrientedNode, recompute_everything};
use tengen::engine::CancelToken;
use tengen::go::{BookHash, Move};

#[derive(Subcommand)]
pub enum BookCommand {
    /// Create an empty book (only the root)
    New(NewArgs),
    /// Grow a book: expand the cheapest nodes with an engine
    Expand(ExpandArgs),
    /// Show a node's moves as KataGo's pages do (Black's view)
    Show(super::book_show::ShowArgs),
    /// Set a manual mark on a node: bonus, expand, visits or branch
    Mark(MarkArgs),
    /// Read a KataGo `.katabook` file into a tengen book
    ImportKatabook(ImportArgs),
    /// Export static HTML pages or an SGF of the book
    Export(ExportArgs),
    /// Add every line of an SGF file to the book; new positions get a quick search each
    ImportSgf(ImportSgfArgs),
    /// Check a book: every node's history rebuilds to its hash; optionally that listed hashes are present
    Verify(VerifyArgs),
    /// Comment a game with the book: where it left the book, what the book prefers, what each move lost
    Annotate(super::book_annotate::AnnotateArgs),
    /// A book's shape: positions and moves by depth, branching, transpositions, unexpanded good moves
    Stats(super::book_study::StatsArgs),
    /// Where two books of one board and rules disagree (best move or values), deepest first
    Diff(super::book_study::DiffArgs),
    /// Refutation candidates: best moves on few visits, overlapping intervals, sharp-score gaps
    Disputed(super::book_study::DisputedArgs),
    /// Take out what one engine added (moves, positions, values) and recompute the book without it
    Trim(super::book_trim::TrimArgs),
}

#[derive(Args)]
pub struct NewArgs {
    #[command(flatten)]
    setup: super::args::BookSetup,
    /// History kept in node identities (KataGo's repBound; never change it for an existing book)
    #[arg(long, default_value_t = 9)]
    rep_bound: usize,
    #[arg(short = 'o', long)]
    output: PathBuf,
}

#[derive(Args)]
pub struct ExpandArgs {
    file: PathBuf,
    #[command(flatten)]
    engine: super::args::EngineArgs,
    /// Iterations of the growing batch (1, 3, 5, … nodes each, at most --parallel); default 10, or no
    /// limit with --seconds
    #[arg(long)]
    iterations: Option<u64>,
    /// Stop after this many seconds: finished expansions are kept, searches in flight are dropped
    #[arg(long)]
    seconds: Option<f64>,
    /// Nodes expanded at once (KataGo's numToExpandPerIteration)
    #[arg(long, default_value_t = 4)]
    parallel: usize,
    /// Visits of the full search per expansion (KataGo's maxVisits)
    #[arg(long, default_value_t = 400)]
    visits: u64,
    /// Visits of the quick re-searches and the threshold for adding more moves (maxVisitsForLeaves)
    #[arg(long)]
    quick_visits: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object per completed expansion instead of text
    #[arg(long)]
    json: bool,
    /// Grow the book even when another engine grew it (mixing the values of both)
    #[arg(long)]
    allow_mixed: bool,
}

#[derive(Args)]
pub struct MarkArgs {
    file: PathBuf,
    #[arg(long, default_value = "")]
    line: String,
    /// The node and its subtree cost this much less
    #[arg(long, allow_negative_numbers = true)]
    bonus: Option<f64>,
    /// The node's own expansion costs this much less
    #[arg(long)]
    expand: Option<f64>,
    /// Push the node until it has this many visits
    #[arg(long)]
    visits: Option<f64>,
    /// Force this many searched children
    #[arg(long)]
    branch: Option<u32>,
    /// A KataGo SGF bonus file (comments `BONUS x`, `EXPAND x`, `VISITS x`, `BRANCH x`)
    #[arg(long)]
    bonus_file: Option<PathBuf>,
    /// A KataGo hash bonus file (lines `<hash> BONUS|EXPAND|VISITS|BRANCH <value>`)
    #[arg(long)]
    hash_bonus_file: Option<PathBuf>,
}

#[derive(Args)]
pub struct ImportArgs {
    input: PathBuf,
    #[arg(short = 'o', long)]
    output: PathBuf,
}

#[derive(Args)]
pub struct ExportArgs {
    file: PathBuf,
    /// Write KataGo-style static HTML pages into this directory
    #[arg(long)]
    html: Option<PathBuf>,
    /// Write the book (or the subtree at --line) as SGF
    #[arg(long)]
    sgf: Option<PathBuf>,
    /// Write the book as a KataGo `.katabook` (format version 3)
    #[arg(long)]
    katabook: Option<PathBuf>,
    #[arg(long, default_value = "")]
    line: String,
    /// Skip nodes with fewer visits in the HTML export
    #[arg(long, default_value_t = 0.0)]
    min_visits: f64,
}

#[derive(Args)]
pub struct ImportSgfArgs {
    file: PathBuf,
    /// The SGF whose lines (main line and variations) are added
    #[arg(long)]
    sgf: PathBuf,
    #[command(flatten)]
    engine: super::args::EngineArgs,
    /// Visits of the quick search of each new position
    #[arg(long, default_value_t = 200)]
    visits: u64,
    /// Evaluate with the engine even when another engine grew the book (mixing the values of both)
    #[arg(long)]
    allow_mixed: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    file: PathBuf,
    /// A file of book hashes (one per line) that must all be in the book
    #[arg(long)]
    expect: Option<PathBuf>,
    /// Copy everything readable to a new book, FILE.repaired (never over FILE), and list what was dropped
    #[arg(long)]
    repair: bool,
    /// Succeed when the log ends in a torn record (an interrupted write: it was never reported as done)
    #[arg(long)]
    allow_torn_tail: bool,
}

pub fn run(cmd: BookCommand) -> Result<ExitCode> {
    match cmd {
        BookCommand::New(a) => new(a),
        BookCommand::Expand(a) => expand(a),
        BookCommand::Show(a) => super::book_show::run(a),
        BookCommand::Mark(a) => mark(a),
        BookCommand::ImportKatabook(a) => import(a),
        BookCommand::Export(a) => export(a),
        BookCommand::ImportSgf(a) => import_sgf(a),
        BookCommand::Verify(a) => verify(a),
        BookCommand::Annotate(a) => super::book_annotate::run(a),
        BookCommand::Stats(a) => super::book_study::stats_cmd(a),
        BookCommand::Diff(a) => super::book_study::diff_cmd(a),
        BookCommand::Disputed(a) => super::book_study::disputed_cmd(a),
        BookCommand::Trim(a) => super::book_trim::run(a),
    }
}

fn new(a: NewArgs) -> Result<ExitCode> {
    let (size, rules) = a.setup.parse()?;
    if !(3..=1000).contains(&a.rep_bound) {
        bail!("--rep-bound must be within 3..1000 (KataGo's range)");
    }
    let mut meta = BookMeta::new(size, rules);
    meta.rep_bound = a.rep_bound;
    let mut book = Book::new(meta, CostParams::default());
    recompute_everything(&mut book);
    BookStore::create(&a.output, &book)?;
    println!(
        "created {} ({size}, {rules}, komi {})",
        a.output.display(),
        rules.komi
    );
    Ok(ExitCode::SUCCESS)
}

pub(super) fn load(file: &Path) -> Result<Book> {
    let (book, report) = store::load(file)?;
    if report.torn_bytes > 0 {
        eprintln!(
            "note: {} ends with {} bytes of an interrupted write ({}); they are ignored",
            store::log_path(file).display(),
            report.torn_bytes,
            report.torn_reason.as_deref().unwrap_or("torn")
        );
    }
    Ok(book)
}

fn parse_line(book: &Book, line: &str) -> Result<Vec<Move>> {
    Move::parse_list(line, book.meta.size).with_context(|| format!("reading the line `{line}`"))
}

pub(super) fn view_for(book: &Book, line: &str) -> Result<OrientedNode> {
    let moves = parse_line(book, line)?;
    book.follow_line(&moves)
        .with_context(|| format!("following `{line}` from the root"))
}

/// A two-worker runtime and the engine that grows `book` (stored in `file`), refused when it would mix
/// engines in the book without `allow_mixed`.
fn runtime_and_engine(
    book: &Book,
    engine: &super::args::EngineArgs,
    allow_mixed: bool,
    file: &std::path::Path,
) -> Result<(tokio::runtime::Runtime, Box<dyn tengen::engine::Engine>)> {
    let runtime = super::args::runtime(Some(2))?;
    let engine = {
        let _inside = runtime.enter();
        engine.build_for_book(book.meta.size)?
    };
    super::book_trim::check_mixing(book, &engine.id(), allow_mixed, file)?;
    Ok((runtime, engine))
}

fn expand(a: ExpandArgs) -> Result<ExitCode> {
    let time_limit = super::args::time_limit(a.seconds)?;
    let (mut store, mut book, _) = BookStore::open(&a.file)?;
    let settings = ExpandSettings {
        max_visits: a.visits,
        quick_visits: a.quick_visits.unwrap_or(a.visits.div_ceil(2)),
        seed: a.seed,
    };
    let (runtime, engine) = runtime_and_engine(&book, &a.engine, a.allow_mixed, &a.file)?;
    let cancel = CancelToken::default();
    let json = a.json;
    let iterations = match (a.iterations, time_limit) {
        (Some(n), _) => n,
        (None, Some(_)) => u64::MAX,
        (None, None) => 10,
    };
    let start = std::time::Instant::now();
    let result = runtime.block_on(async {
        super::args::stop_on_interrupt_or_after(&cancel, time_limit);
        // Nobody reads the lines any more (`| head`): stop as on Ctrl-C, so the book is compacted.
        let say = |line: String| {
            if let Err(e) = super::edge::print_line(&line) {
                if e.kind() != std::io::ErrorKind::BrokenPipe && !cancel.is_cancelled() {
                    eprintln!("stdout: {e}; stopping, finished expansions are saved");
                }
                cancel.cancel();
            }
        };
        // A line is printed only after its expansion is durable in the book's log.
        let report = |p: &Progress| match p {
            Progress::Iteration { iteration, batch } if !json => {
                eprintln!("iteration {iteration}: expanding {batch} node(s)");
            }
            Progress::Expanded(e) if json => {
                let line = serde_json::json!({
                    "node": e.hash.to_string(),
                    "moves": e.moves,
                    "children": e.children.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
                    "book_nodes": e.book_nodes,
                });
                say(line.to_string());
            }
            Progress::Expanded(e) => say(format!(
                "expanded {}: +{} ({} new, {} transposed; {} nodes, {} costs updated)",
                e.hash,
                e.moves.join(" +"),
                e.new_nodes,
                e.transpositions,
                e.book_nodes,
                e.costs_recomputed
            )),
            Progress::Failed { node, error } => eprintln!("node {node:?} skipped: {error}"),
            Progress::Iteration { .. } => {}
        };
        grow(
            &mut book,
            Some(&mut store),
            engine.as_ref(),
            settings,
            iterations,
            a.parallel,
            &cancel,
            report,
        )
        .await
    });
    let expanded = result?;
    store.compact(&book)?;
    eprintln!(
        "{expanded} expansions in {:.1} s; the book has {} nodes and {} moves",
        start.elapsed().as_secs_f64(),
        book.len(),
        book.edge_count()
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints, treating a closed pipe (`| head`) as the reader having seen enough.
pub(super) fn emit(text: &str) -> Result<ExitCode> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn mark(a: MarkArgs) -> Result<ExitCode> {
    let (mut store, mut book, _) = BookStore::open(&a.file)?;
    let mut changed = Vec::new();
    let manual: Vec<Mark> = [
        a.bonus.map(Mark::Bonus),
        a.expand.map(Mark::Expand),
        a.visits.map(Mark::Visits),
        a.branch.map(Mark::Branch),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !manual.is_empty() {
        let view = view_for(&book, &a.line)?;
        for m in manual {
            marks::set_mark(&mut book, view.id, m.check()?);
        }
        changed.push(view.id);
    }
    let mut from_files = Vec::new();
    if let Some(f) = &a.bonus_file {
        from_files.extend(marks::read_sgf_file(&book, f)?);
    }
    if let Some(f) = &a.hash_bonus_file {
        from_files.extend(marks::read_hash_file(f)?);
    }
    if !from_files.is_empty() {
        let matched = marks::apply_by_hash(&mut book, &from_files);
        changed.extend(from_files.iter().filter_map(|(h, _)| book.find(h)));
        println!(
            "{} marks read, {matched} on nodes of the book",
            from_files.len()
        );
    }
    if changed.is_empty() {
        bail!(
            "nothing to mark: give --bonus, --expand, --visits, --branch, --bonus-file or --hash-bonus-file"
        );
    }
    changed.sort();
    changed.dedup();
    store.append_marks(&book, &changed)?;
    for id in changed {
        println!(
            "{}: {}",
            book.node(id).hash,
            book.marks
                .get(&id)
                .map(|m| m.label())
                .unwrap_or_else(|| "no marks".into())
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn import(a: ImportArgs) -> Result<ExitCode> {
    let (book, report) = katabook::import(&a.input)?;
    BookStore::create(&a.output, &book)?;
    println!(
        "imported {} (version {}): {} nodes, {} moves{}",
        a.input.display(),
        report.version,
        book.len(),
        book.edge_count(),
        if report.hash_conflicts + report.unreachable > 0 {
            format!(
                "; {} unreachable, {} merged differently by tengen",
                report.unreachable, report.hash_conflicts
            )
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}

fn export(a: ExportArgs) -> Result<ExitCode> {
    let book = load(&a.file)?;
    if a.html.is_none() && a.sgf.is_none() && a.katabook.is_none() {
        bail!("give --html DIR, --sgf FILE or --katabook FILE");
    }
    if let Some(file) = &a.katabook {
        let n = katabook::export(&book, file)?;
        println!(
            "wrote {} ({n} positions, KataGo book format 3)",
            file.display()
        );
    }
    if let Some(dir) = &a.html {
        let n = tengen::book::interop::html::export(&book, dir, a.min_visits)?;
        println!("exported {n} pages to {}", dir.display());
    }
    if let Some(file) = &a.sgf {
        let view = view_for(&book, &a.line)?;
        let text = tengen::book::interop::sgf::export(&book, view)?;
        tengen::files::write_whole(file, text.as_bytes())?;
        println!("wrote {}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn import_sgf(a: ImportSgfArgs) -> Result<ExitCode> {
    let (mut store, mut book, _) = BookStore::open(&a.file)?;
    let before = book.len();
    let (runtime, engine) = runtime_and_engine(&book, &a.engine, a.allow_mixed, &a.file)?;
    let import = tengen::book::interop::sgf::import_lines(&mut book, &a.sgf)?;
    for cut in &import.cut {
        eprintln!(
            "note: {}: move {} ({}) is not imported, nor the rest of its line: {}",
            a.sgf.display(),
            cut.number,
            cut.mv,
            cut.reason
        );
    }
    let (new_nodes, touched) = (import.new_nodes, import.touched);
    let cancel = CancelToken::default();
    runtime.block_on(tengen::book::expand::evaluate(
        &mut book,
        Some(&mut store),
        engine.as_ref(),
        &new_nodes,
        &touched,
        a.visits,
        &cancel,
    ))?;
    store.compact(&book)?;
    println!(
        "{}: {} new positions from {} ({} nodes now)",
        a.file.display(),
        book.len() - before,
        a.sgf.display(),
        book.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn verify(a: VerifyArgs) -> Result<ExitCode> {
    if a.repair {
        return super::book_verify::repair(&a.file);
    }
    let (book, report) = store::load(&a.file)?;
    let torn = super::book_verify::torn_tail(&a.file, &report, a.allow_torn_tail);
    let mut bad = 0;
    for (id, node) in book.nodes() {
        if let Err(e) = book.game_at(id) {
            bad += 1;
            eprintln!("node {} ({:?}): {e}", node.hash, id);
        }
    }
    let mut missing = 0;
    if let Some(f) = &a.expect {
        let text =
            std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
        for (i, l) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let h: BookHash = l
                .trim()
                .parse()
                .map_err(|e: String| anyhow::anyhow!("{}:{}: {e}", f.display(), i + 1))?;
            if book.find(&h).is_none() {
                missing += 1;
                eprintln!("missing: {h}");
            }
        }
    }
    println!(
        "{}: {} nodes, {} moves, {} log records, {} torn bytes, {bad} bad histories, {missing} expected nodes missing, \
         {} nodes of unknown origin; grown by {}",
        a.file.display(),
        book.len(),
        book.edge_count(),
        report.log_records,
        report.torn_bytes,
        book.of_unknown_origin(),
        super::book_trim::engines_line(&book)
    );
    Ok(if bad + missing == 0 && !torn {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
