//! `tengen bench ui`: how fast the workbench draws and answers keys.
//!
//! - Render: one whole frame at 200x60 from an app holding a 1,000,000-node book view (a 10-ary tree on
//!   19x19), walked three moves in, with the line preview on.
//! - Latency: the runtime's loop without the terminal (a `TestBackend` of the same size): keys arrive every
//!   20 ms while two expansion jobs of the `rollout` engine grow the default book and stream their events
//!   into the same loop; the time from a key's arrival to its frame being drawn, p50 and p99.

use anyhow::Result;
use clap::Args;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tengen::book::NodeId;
use tengen::book::interop::katabook;
use tengen::book::view::book_view;
use tengen::book::view::{BlackValues, BookView, EdgeView, InitialPosition, NodeView, OtherMoves};
use tengen::engine::rollout::RolloutEngine;
use tengen::go::{BoardSize, Color, Move, Point, Rules, Symmetry};
use tengen::jobs::Request;
use tengen::jobs::runner::SharedBook;
use tengen::jobs::{Runner, RunnerConfig};
use tengen::tui::action::{Action, Key};
use tengen::tui::app::App;
use tengen::tui::render;
use tengen::tui::update::update;

#[derive(Args)]
pub struct UiArgs {
    /// Nodes in the synthetic book for the render measurement
    #[arg(long, default_value_t = 1_000_000)]
    nodes: u32,
    /// Frames to render
    #[arg(long, default_value_t = 2000)]
    frames: usize,
    /// Keys to send for the latency measurement
    #[arg(long, default_value_t = 500)]
    keys: usize,
}

pub fn run(args: UiArgs) -> Result<ExitCode> {
    let built = Instant::now();
    let book = synthetic_book(args.nodes);
    println!(
        "built a {}-node book view in {:.2} s",
        book.node_count(),
        built.elapsed().as_secs_f64()
    );
    let mut app = App::new();
    update(
        &mut app,
        Action::Resize {
            width: 200,
            height: 60,
        },
    );
    update(&mut app, Action::BookLoaded(Box::new(book)));
    for key in ["l", "j", "l", "j", "j", "l"] {
        update(&mut app, Action::Key(Key(key.into())));
    }
    let area = Rect::new(0, 0, 200, 60);
    let mut times = Vec::with_capacity(args.frames);
    for _ in 0..args.frames {
        let mut buf = Buffer::empty(area);
        let t = Instant::now();
        render::draw(&app, area, &mut buf);
        times.push(t.elapsed());
        std::hint::black_box(&buf);
    }
    report("render 200x60, 1M-node book", &mut times);

    let rt = super::args::runtime(None)?;
    let mut latencies = rt.block_on(latency(args.keys))?;
    report("key-to-frame with 2 expansion jobs", &mut latencies);
    Ok(ExitCode::SUCCESS)
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    let mean = times.iter().map(|d| ms(*d)).sum::<f64>() / times.len() as f64;
    println!(
        "{what}: n={} mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        times.len(),
        mean,
        ms(at(0.5)),
        ms(at(0.99)),
        ms(at(1.0))
    );
}

async fn latency(keys: usize) -> Result<Vec<Duration>> {
    let text = include_str!("../../books/7x7-tt-k9.katabook");
    let (book, _) = katabook::import_str(text, "books/7x7-tt-k9.katabook")?;
    let view = book_view(&book, "7x7-tt-k9");
    let shared = SharedBook::new(book, None);
    let started = Instant::now();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    // Large searches keep both jobs busy for the whole measurement.
    let config = RunnerConfig {
        concurrent: 2,
        expand_visits: 20_000,
        analyze_visits: 20_000,
    };
    let runner = Runner::spawn(shared, Arc::new(RolloutEngine::new(1)), config, started, tx);
    let mut app = App::new();
    let mut terminal = Terminal::new(TestBackend::new(200, 60))?;
    update(
        &mut app,
        Action::Resize {
            width: 200,
            height: 60,
        },
    );
    update(&mut app, Action::BookLoaded(Box::new(view)));
    for effect in update(&mut app, Action::Key(Key("space".into()))) {
        if effect == tengen::tui::action::Effect::Job(Request::StartExpansion) {
            runner.send(tengen::jobs::Request::StartExpansion);
        }
    }
    let mut key_tick = tokio::time::interval(Duration::from_millis(20));
    let mut latencies = Vec::with_capacity(keys);
    let mut job_events = 0usize;
    let cycle = ["j", "l", "h", "k", "down", "up"];
    while latencies.len() < keys {
        tokio::select! {
            _ = key_tick.tick() => {
                let arrived = Instant::now();
                let key = cycle[latencies.len() % cycle.len()];
                let _ = update(&mut app, Action::Key(Key(key.into())));
                terminal.draw(|f| render::render(&app, f))?;
                latencies.push(arrived.elapsed());
            }
            Some(event) = rx.recv() => {
                job_events += 1;
                update(&mut app, Action::Job(event));
            }
        }
    }
    runner.send(tengen::jobs::Request::StopAll);
    let running = app.jobs.iter().filter(|j| !j.state.is_finished()).count();
    println!(
        "({job_events} job events consumed during the measurement; {running} jobs running at the end)"
    );
    Ok(latencies)
}

/// A 10-ary tree of `count` nodes on 19x19: the children of node i are 10i+1..=10i+10, and the move into
/// a child at depth d is played on row d, so every line is legal.
fn synthetic_book(count: u32) -> BookView {
    let size = BoardSize::square(19).expect("19x19 is a valid size");
    let depth_of = |mut i: u32| {
        let mut d = 0;
        while i > 0 {
            i = (i - 1) / 10;
            d += 1;
        }
        d
    };
    let nodes = (0..count)
        .map(|i| {
            let depth = depth_of(i);
            let edges = (0..10u32)
                .filter(|j| 10 * i + 1 + j < count)
                .map(|j| EdgeView {
                    mv: Move::Play(Point::new(2 + j as usize, depth as usize)),
                    to_child: Symmetry::IDENTITY,
                    child: NodeId(10 * i + 1 + j),
                    prior: 0.1,
                    values: BlackValues {
                        winrate: 0.5 - j as f64 * 0.03,
                        score: 1.0 - j as f64,
                        winrate_uncertainty: 0.02,
                        score_uncertainty: 1.5,
                    },
                    visits: 1000.0 / (j + 1) as f64,
                    adjusted_visits: 900.0 / (j + 1) as f64,
                    cost: Some(j as f64 * 0.7),
                    games: 0,
                })
                .collect();
            NodeView {
                id: NodeId(i),
                to_move: if depth % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
                self_symmetries: vec![Symmetry::IDENTITY],
                edges,
                other: Some(OtherMoves {
                    values: BlackValues {
                        winrate: 0.3,
                        score: -4.0,
                        ..Default::default()
                    },
                    max_prior: 0.05,
                    visits: 200.0,
                }),
                values: BlackValues {
                    winrate: 0.5,
                    score: 1.0,
                    ..Default::default()
                },
                visits: 5000.0,
                marks: Vec::new(),
                parent_count: 1,
                min_depth: depth,
                expansion_cost: Some(depth as f64),
                path_cost: depth as f64,
            }
        })
        .collect();
    BookView {
        name: "synthetic-1M".into(),
        size,
        rules: Rules::chinese(),
        initial: InitialPosition::default(),
        root: NodeId(0),
        nodes,
    }
}
