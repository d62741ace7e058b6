//! `tengen bench recording`: how many bytes a session recording grows by per minute of continuous
//! expansion, and whether its replay draws the frames the session drew.
//!
//! The shipped 7x7 book grows with the chosen engine (the default network unless told otherwise) while
//! job events go through the workbench's own [`JobFeed`] and clock, into a real recording file; with
//! `--key-every MS` a key (j / k in turn) arrives that often, as when someone walks the book during the
//! expansion. `--raw` records every job event as it comes (what sessions recorded before the feed).

use anyhow::{Result, bail};
use clap::Args;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tengen::book::interop::katabook;
use tengen::book::view::book_view;
use tengen::engine::spec::{self, SpecOptions};
use tengen::jobs::runner::SharedBook;
use tengen::jobs::{Request, Runner, RunnerConfig};
use tengen::session::{self, Recorder, replay};
use tengen::tui::action::{Action, Effect, Key};
use tengen::tui::app::App;
use tengen::tui::feed::JobFeed;
use tengen::tui::render;
use tengen::tui::update::update;

#[derive(Args)]
pub struct RecordingArgs {
    /// Engine specification (as for `tengen open --engine`)
    #[arg(long, default_value = "onnx")]
    engine: String,
    /// Seconds of expansion
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
    /// Parallel expansion jobs
    #[arg(long, default_value_t = 2)]
    parallel: usize,
    /// Visits of each expansion's full search (the workbench's default is 200)
    #[arg(long, default_value_t = 200)]
    visits: u64,
    /// Send a key this often (milliseconds); 0 sends none
    #[arg(long, default_value_t = 0)]
    key_every: u64,
    /// Record every job event as it comes, without the feed
    #[arg(long)]
    raw: bool,
}

pub fn run(args: RecordingArgs) -> Result<ExitCode> {
    if args.seconds.is_nan() || args.seconds <= 0.0 {
        bail!("--seconds must be above 0 (got {})", args.seconds);
    }
    let rt = super::args::runtime(None)?;
    let _inside = rt.enter();
    let options = SpecOptions {
        threads: 1,
        ..SpecOptions::default()
    };
    let chosen = spec::build_default(&args.engine, &options)?;
    if let Some(why) = &chosen.fallback {
        eprintln!("note: {why}");
    }
    let dir = std::env::temp_dir().join(format!("tengen-bench-recording-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("bench.tengen-session");
    let live = rt.block_on(session_run(&args, Arc::from(chosen.engine), &path))?;
    let bytes = std::fs::metadata(&path)?.len();
    let records = session::read(&path)?;
    let replayed = std::cell::RefCell::new(Vec::new());
    replay::frames(&records, |_, text| {
        replayed.borrow_mut().push(text.to_string())
    });
    let replayed = replayed.into_inner();
    let minutes = args.seconds / 60.0;
    println!(
        "engine {} · {} s of expansion · {} actions recorded ({} raw job events) · {} bytes",
        chosen.spec,
        args.seconds,
        records.len(),
        live.events,
        bytes
    );
    println!(
        "recording: {:.3} MB per minute of expansion ({} nodes added)",
        bytes as f64 / 1e6 / minutes,
        live.nodes_added
    );
    let first_difference = live.frames.iter().zip(&replayed).position(|(a, b)| a != b);
    match first_difference {
        None if live.frames.len() == replayed.len() => {
            println!("replay: all {} frames identical", replayed.len())
        }
        None => println!(
            "replay: {} frames live, {} replayed",
            live.frames.len(),
            replayed.len()
        ),
        Some(i) => println!("replay: frame {i} differs"),
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(ExitCode::SUCCESS)
}

struct Live {
    frames: Vec<String>,
    events: usize,
    nodes_added: usize,
}

async fn session_run(
    args: &RecordingArgs,
    engine: Arc<dyn tengen::engine::Engine>,
    path: &std::path::Path,
) -> Result<Live> {
    let text = include_str!("../../books/7x7-tt-k9.katabook");
    let (book, _) = katabook::import_str(text, "books/7x7-tt-k9.katabook")?;
    let view = book_view(&book, "7x7-tt-k9");
    let start_nodes = view.node_count();
    let shared = SharedBook::new(book, None);
    let started = Instant::now();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let config = RunnerConfig {
        concurrent: args.parallel,
        expand_visits: args.visits,
        analyze_visits: args.visits,
    };
    let runner = Runner::spawn(shared, engine, config, started, tx);
    let mut recorder = Recorder::create(path)?;
    let mut app = App::new();
    let mut frames = Vec::new();
    let mut consume = |app: &mut App, action: Action| -> Result<Vec<Effect>> {
        recorder.record(started.elapsed().as_millis() as u64, &action)?;
        let effects = update(app, action);
        frames.push(frame(app));
        Ok(effects)
    };
    consume(
        &mut app,
        Action::Resize {
            width: 120,
            height: 40,
        },
    )?;
    consume(&mut app, Action::BookLoaded(Box::new(view)))?;
    for effect in consume(&mut app, Action::Key(Key("space".into())))? {
        if effect == Effect::Job(Request::StartExpansion) {
            runner.send(Request::StartExpansion);
        }
    }
    let mut feed = JobFeed::new();
    let mut clock = tokio::time::interval(Duration::from_millis(500));
    let key_every = Duration::from_millis(args.key_every.max(1));
    let mut keys = tokio::time::interval(key_every);
    let end = tokio::time::sleep(Duration::from_secs_f64(args.seconds));
    tokio::pin!(end);
    let mut events = 0;
    let mut sent_keys = 0usize;
    loop {
        tokio::select! {
            _ = &mut end => break,
            _ = clock.tick() => {
                for action in feed.tick(&app) {
                    consume(&mut app, action)?;
                }
                consume(&mut app, Action::Tick { now_ms: started.elapsed().as_millis() as u64 })?;
            }
            _ = keys.tick(), if args.key_every > 0 => {
                for action in feed.before_input(&app) {
                    consume(&mut app, action)?;
                }
                let key = if sent_keys.is_multiple_of(2) { "j" } else { "k" };
                sent_keys += 1;
                consume(&mut app, Action::Key(Key(key.into())))?;
                for action in feed.after_input(&app) {
                    consume(&mut app, action)?;
                }
            }
            Some(event) = rx.recv() => {
                events += 1;
                let now = if args.raw { vec![Action::Job(event)] } else { feed.push(event) };
                for action in now {
                    consume(&mut app, action)?;
                }
            }
        }
    }
    runner.send(Request::StopAll);
    for action in feed.take_all() {
        consume(&mut app, action)?;
    }
    let nodes_added = app
        .book
        .as_ref()
        .map_or(0, |b| b.node_count().saturating_sub(start_nodes));
    Ok(Live {
        frames,
        events,
        nodes_added,
    })
}

fn frame(app: &App) -> String {
    let area = Rect::new(0, 0, app.width, app.height);
    let mut buf = Buffer::empty(area);
    render::draw(app, area, &mut buf);
    render::buffer_text(&buf)
}
