//! `tengen book trim`: take one engine's work out of a book; and the provenance pieces other `book`
//! subcommands share (the mixed-engine guard, the engine of `book show`).

use anyhow::{Result, bail};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tengen::book::store::BookStore;
use tengen::book::trim::trim;
use tengen::book::{Book, EngineRef};
use tengen::engine::EngineId;
use tengen::engine::spec::{self, SpecOptions};

#[derive(Args)]
pub struct TrimArgs {
    file: PathBuf,
    /// The engine whose work goes, as `--engine` names it (`rollout`, `onnx`, `onnx:MODEL`,
    /// `gtp:gnugo`, `katago`, `pool:N:SPEC`)
    #[arg(long, required_unless_present = "id", conflicts_with = "id")]
    engine: Option<String>,
    /// The engine by its number in the book's engine list (`tengen book show` lists them)
    #[arg(long)]
    id: Option<u16>,
    /// Write the trimmed book to this new file and leave FILE as it is (default: trim FILE in place)
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(a: TrimArgs) -> Result<ExitCode> {
    // Opening for growing holds the book's lock: nothing else may write it while it is trimmed.
    let (mut store, book, _) = BookStore::open(&a.file)?;
    let remove: Vec<EngineRef> = match (&a.engine, a.id) {
        (_, Some(i)) => {
            if i as usize >= book.engines.len() || i == 0 {
                bail!(
                    "{} lists engines 1 to {}; `tengen book show` names them",
                    a.file.display(),
                    book.engines.len() - 1
                );
            }
            vec![EngineRef(i)]
        }
        (Some(s), None) => {
            let wanted = spec::identify(s, &SpecOptions::default())?;
            (1..book.engines.len() as u16)
                .map(EngineRef)
                .filter(|&r| book.engine(r).matches(&wanted))
                .collect()
        }
        (None, None) => bail!("give --engine SPEC or --id N"),
    };
    let used = book.grown_by();
    let remove: Vec<EngineRef> = remove.into_iter().filter(|r| used.contains(r)).collect();
    if remove.is_empty() {
        bail!(
            "no part of {} was grown by that engine; it was grown by {}",
            a.file.display(),
            engines_line(&book)
        );
    }
    let (trimmed, report) = trim(&book, &remove);
    match &a.output {
        // A new file is written whole (temporary file, sync, rename) and the original stays untouched.
        Some(out) => {
            if out.exists() {
                bail!("{} already exists; choose another name", out.display());
            }
            BookStore::create(out, &trimmed)?;
        }
        // In place: the store writes the new snapshot whole, then starts a new log; until the rename, the
        // book on disk is the old one, complete.
        None => store.compact(&trimmed)?,
    }
    let names: Vec<String> = remove
        .iter()
        .map(|&r| format!("`{}`", book.engine(r)))
        .collect();
    println!(
        "{}: removed what {} added: {} nodes and {} moves; {} nodes got back earlier values; {} nodes \
         and {} moves left",
        a.output.as_deref().unwrap_or(&a.file).display(),
        names.join(" and "),
        report.nodes_removed,
        report.moves_removed,
        report.values_restored,
        trimmed.len(),
        trimmed.edge_count()
    );
    Ok(ExitCode::SUCCESS)
}

/// The engines that grew `book`, numbered as `--id` takes them.
pub fn engines_line(book: &Book) -> String {
    let used = book.grown_by();
    if used.is_empty() {
        return "nothing yet".into();
    }
    used.into_iter()
        .map(|r| format!("[{}] {}", r.0, book.engine(r)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The mixed-engine guard of commands that grow a book: refuses unless `allow`, with what to do.
pub fn check_mixing(book: &Book, engine: &EngineId, allow: bool, file: &Path) -> Result<()> {
    let Some(why) = book.mixing(engine) else {
        return Ok(());
    };
    if allow {
        eprintln!("warning: {}: {why}", file.display());
        return Ok(());
    }
    bail!(
        "{}: {why}. Pass --allow-mixed to grow it anyway (`tengen book trim --engine SPEC` takes one \
         engine's work out again)",
        file.display()
    )
}
