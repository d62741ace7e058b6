//! `tengen` (no arguments) and `tengen open FILE`: start the workbench on a book with an engine.

use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use tengen::book::interop::katabook;
use tengen::book::store::{self, BookStore};
use tengen::book::view::book_view;
use tengen::engine::spec::{self, SpecOptions};
use tengen::engine::{Engine, EngineKind, Network};
use tengen::go::BoardSize;
use tengen::jobs::runner::SharedBook;
use tengen::jobs::{Runner, RunnerConfig};
use tengen::session::Recorder;
use tengen::tui::app::EngineStatus;
use tengen::tui::config::{Config, Dirs};
use tengen::tui::runtime::{self, Options};

/// A book shipped in `books/` and built into the binary, so that a fresh machine has it.
struct ShippedBook {
    size: &'static str,
    name: &'static str,
    contents: Shipped,
}

/// How a shipped book is stored: KataGo's own book as KataGo wrote it, or a book tengen grew.
enum Shipped {
    Katabook(&'static str),
    Tengen(&'static [u8]),
}

/// The shipped books by board size; the first is the default. `tengen open --size N` starts on the one for
/// its size.
const SHIPPED_BOOKS: &[ShippedBook] = &[
    ShippedBook {
        size: "7x7",
        name: "7x7-tt-k9",
        contents: Shipped::Katabook(include_str!("../../books/7x7-tt-k9.katabook")),
    },
    ShippedBook {
        size: "9x9",
        name: "9x9-cn-k7",
        contents: Shipped::Tengen(include_bytes!("../../books/9x9-cn-k7.tengenbook")),
    },
];

#[derive(Args, Default)]
pub struct OpenArgs {
    /// A tengen book, or a KataGo `.katabook` (grown in memory; tengen books keep what they learn)
    pub file: Option<PathBuf>,
    /// Open the book shipped for this board size instead of the default one (7x7)
    #[arg(long, conflicts_with = "file")]
    pub size: Option<String>,
    /// The engine for expansion and analysis: onnx (the shipped network) | onnx:MODEL | katago |
    /// katago:COMMAND… | gtp[:COMMAND…] | pool:N:SPEC | exact:SPEC | rollout (default: `engine` in
    /// config.toml, else onnx)
    #[arg(long)]
    pub engine: Option<String>,
    /// Don't record this session
    #[arg(long)]
    pub no_record: bool,
    /// Record the session to this file instead of the data directory
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

pub fn run(args: OpenArgs) -> Result<ExitCode> {
    let dirs = Dirs::find();
    let mut notices = Vec::new();
    let config = match &dirs {
        Some(d) => {
            let (config, warnings) = Config::load(&d.config_file())?;
            notices.extend(warnings.into_iter().map(|w| (w, true)));
            config
        }
        None => {
            notices.push((
                "no home directory: configuration and session recording are off".into(),
                true,
            ));
            Config::default()
        }
    };
    let book_file = match (&args.size, args.file.as_ref().or(config.book.as_ref())) {
        (None, Some(path)) => Some(path.clone()),
        _ => None,
    };
    let (book, store, name) = match (&args.size, args.file.as_ref().or(config.book.as_ref())) {
        (None, Some(path)) => open_book(path)?,
        (size, _) => open_shipped_book(shipped_book(size.as_deref())?, dirs.as_ref())?,
    };
    let size = book.meta.size;
    let rt = super::args::runtime(None)?;
    // Engines that run a process need the runtime while they start.
    let _inside = rt.enter();
    let engine_spec = args.engine.clone().unwrap_or_else(|| config.engine.clone());
    // One thread per search for the embedded engine: K searches already run side by side.
    let options = SpecOptions {
        threads: 1,
        ..SpecOptions::default()
    };
    let (engine, engine_status): (Option<Arc<dyn Engine>>, _) =
        match spec::build_default(&engine_spec, &options) {
            Ok(chosen) => {
                // A fallback to rollout on a large board says both why and what it means.
                let caution = spec::caution(&chosen.spec, size).map(|c| match &chosen.fallback {
                    Some(reason) => format!("{reason}; {c}"),
                    None => c,
                });
                if let Some(reason) = chosen.fallback {
                    notices.push((reason, true));
                }
                let status = EngineStatus {
                    name: chosen.engine.name(),
                    caution,
                    mixing: book.mixing(&chosen.engine.id()),
                };
                (Some(Arc::from(chosen.engine)), Some(status))
            }
            Err(e) => {
                notices.push((
                    format!("engine `{engine_spec}` did not start: {e} (jobs are off)"),
                    true,
                ));
                (None, None)
            }
        };
    let view = book_view(&book, &name);
    let shared = SharedBook::new(book, store);
    let runner_config = RunnerConfig {
        concurrent: config.jobs.concurrent,
        expand_visits: config.jobs.expand_visits,
        analyze_visits: config.jobs.analyze_visits,
    };
    let runner: Option<runtime::RunnerStart> = engine.map(|engine| {
        Box::new(move |started, events| {
            Runner::spawn(shared, engine, runner_config, started, events)
        }) as runtime::RunnerStart
    });
    let recorder = match (&args.record, &dirs) {
        (Some(path), _) => Some(Recorder::create(path)?),
        (None, Some(d)) if config.record_sessions && !args.no_record => {
            Some(Recorder::create_in(&d.sessions_dir())?)
        }
        _ => None,
    };
    let session_path = recorder.as_ref().map(|r| r.path().to_path_buf());
    let recorder = recorder.map(|mut r| {
        Box::new(move |at_ms: u64, action: &tengen::tui::action::Action| {
            // A failing disk must not take the session down; the recording just ends early.
            let _ = r.record(at_ms, action);
        }) as runtime::Recorder
    });
    let options = Options {
        book: view,
        runner,
        config,
        dirs,
        recorder,
        notices,
        engine: engine_status,
        book_file,
    };
    let rt = super::args::runtime(None)?;
    rt.block_on(runtime::run(options))?;
    if let Some(path) = session_path {
        eprintln!(
            "session recorded to {} (tengen replay FILE plays it back)",
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

type Opened = (tengen::book::Book, Option<BookStore>, String);

fn open_book(path: &Path) -> Result<Opened> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut magic = [0u8; 8];
    let is_tengen_book = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .map(|_| &magic == store::MAGIC)
        .unwrap_or(false);
    if !path.exists() {
        bail!(
            "{} does not exist; give a tengen book or a KataGo .katabook",
            path.display()
        );
    }
    if is_tengen_book {
        let (store, book, _) = BookStore::open(path)?;
        Ok((book, Some(store), name))
    } else {
        let (book, _) =
            katabook::import(path).with_context(|| format!("opening {}", path.display()))?;
        Ok((book, None, name))
    }
}

/// The shipped book for `size` (`None`: the default one).
fn shipped_book(size: Option<&str>) -> Result<&'static ShippedBook> {
    let Some(size) = size else {
        return Ok(&SHIPPED_BOOKS[0]);
    };
    let wanted = BoardSize::parse(size)?;
    SHIPPED_BOOKS
        .iter()
        .find(|b| BoardSize::parse(b.size).is_ok_and(|s| s == wanted))
        .with_context(|| {
            let sizes: Vec<&str> = SHIPPED_BOOKS.iter().map(|b| b.size).collect();
            format!(
                "no book is shipped for {wanted} (shipped: {}); create one with `tengen book new --size {wanted}` \
                 and open it",
                sizes.join(", ")
            )
        })
}

/// A shipped book lives in the data directory as a tengen book, so that what it learns is kept; the first
/// run creates it from the copy built into the binary. Without a home it is read into memory only.
fn open_shipped_book(shipped: &ShippedBook, dirs: Option<&Dirs>) -> Result<Opened> {
    let name = shipped.name.to_string();
    let Some(dirs) = dirs else {
        let book = match shipped.contents {
            Shipped::Katabook(text) => shipped_katabook(shipped.name, text)?,
            Shipped::Tengen(bytes) => {
                // The store reads files: a private copy, removed once read.
                let temp = std::env::temp_dir().join(format!(
                    "tengen-{}-{}.tengenbook",
                    shipped.name,
                    std::process::id()
                ));
                tengen::files::write_whole(&temp, bytes)?;
                let loaded = store::load(&temp);
                let _ = std::fs::remove_file(&temp);
                loaded?.0
            }
        };
        return Ok((book, None, name));
    };
    let dir = dirs.data.join("books");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(format!("{}.tengenbook", shipped.name));
    if !path.exists() {
        match shipped.contents {
            Shipped::Katabook(text) => {
                BookStore::create(&path, &shipped_katabook(shipped.name, text)?)?;
            }
            Shipped::Tengen(bytes) => tengen::files::write_whole(&path, bytes)?,
        }
    }
    let (store, book, _) = BookStore::open(&path)?;
    Ok((book, Some(store), name))
}

/// A shipped KataGo book, its engine named as the shipped network that grew it.
fn shipped_katabook(name: &str, text: &str) -> Result<tengen::book::Book> {
    let origin = format!("books/{name}.katabook");
    let (mut book, _) = katabook::import_str(text, &origin)?;
    // KataGo grew the shipped books with the shipped network (`models/g170-b6c96.md`).
    for engine in book
        .engines
        .iter_mut()
        .filter(|e| e.kind == EngineKind::KataGo)
    {
        engine.network = Some(Network::shipped());
    }
    Ok(book)
}
