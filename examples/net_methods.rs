//! The grown trees' proposers and breadths against the exact solver, on regions of our own (never the
//! course's): which tree `auto` should fall back to, and how `blend` should weigh its two networks.
//!
//! Draws walled corner and edge regions (`shared/walled.rs`, windows up to 7 × 4) and keeps those with
//! `MIN..=MAX` empty points whose thermograph the bounded exact solver finds within `BUDGET` positions;
//! cold ones are kept one time in four. Every configuration grows its tree on each region with the
//! default options otherwise (exact subtrees included), one analyzer for all (KataGo's evaluations are
//! shared). Per configuration: the move value (2T) right, as the endgame bench counts; the mean right;
//! a hot region answered 0 (the tree found no move worth playing); a best first move of the solver's
//! named for each colour (as the tree's best); the mean |error| of the value. The figures are in
//! `docs/research/endgame-net-defaults.md`.
//!
//! Run: `cargo run --release --example net_methods -- [REGIONS] [SEED] [MIN MAX] [BUDGET] [SET]` (defaults 30
//! regions, seed 404, 9–14 empty points, 20,000 positions, the set `proposers`; larger regions need a larger
//! budget to be finished). The set `subtrees` compares exact subtrees of 6, 8 and 9 empty points instead, `larger`
//! those of 9, 10 and 12. Each region's answers go to stderr as they come.

#[path = "shared/walled.rs"]
mod walled;

use anyhow::Result;
use std::time::Instant;
use tengen::endgame::analysis::{AnalysisOptions, Analyzer, LocalPosition, Method, ModelPaths};
use tengen::endgame::cgt::Rational;
use tengen::endgame::exact::{Progress, bounded};
use tengen::go::{BoardSize, Color, Point, Scoring};
use walled::{Rng, Window, generate};

const WINDOW: Window = Window { width: 7, depth: 4 };
/// The bounded solver's default budget for the reference value; a region it cannot finish is drawn again.
const BUDGET: usize = 20_000;

/// One tree configuration: its name, the method, `blend`'s policy weight, the root breadth and the exact
/// subtrees (the most empty points of a node the solver values, and its budget per node).
struct Config {
    name: &'static str,
    method: Method,
    policy_weight: f32,
    root_breadth: usize,
    subtrees: (usize, usize),
}

/// Exact subtrees of nodes of at most 6 empty points, 5,000 positions each (the default when the
/// proposers were compared).
const SUBTREES_OF_6: (usize, usize) = (6, 5_000);

/// The proposers and breadths (the set `proposers`).
const PROPOSERS: [Config; 6] = [
    Config {
        name: "net",
        method: Method::Net,
        policy_weight: 0.5,
        root_breadth: 2,
        subtrees: SUBTREES_OF_6,
    },
    Config {
        name: "net, root breadth 3",
        method: Method::Net,
        policy_weight: 0.5,
        root_breadth: 3,
        subtrees: SUBTREES_OF_6,
    },
    Config {
        name: "blend, policy 1/4",
        method: Method::Blend,
        policy_weight: 0.25,
        root_breadth: 2,
        subtrees: SUBTREES_OF_6,
    },
    Config {
        name: "blend, policy 1/2",
        method: Method::Blend,
        policy_weight: 0.5,
        root_breadth: 2,
        subtrees: SUBTREES_OF_6,
    },
    Config {
        name: "blend, policy 3/4",
        method: Method::Blend,
        policy_weight: 0.75,
        root_breadth: 2,
        subtrees: SUBTREES_OF_6,
    },
    Config {
        name: "policy",
        method: Method::Policy,
        policy_weight: 0.5,
        root_breadth: 2,
        subtrees: SUBTREES_OF_6,
    },
];

/// The `net` tree with exact subtrees of `subtrees` (empty points, positions per node).
const fn net_with(name: &'static str, subtrees: (usize, usize)) -> Config {
    Config {
        name,
        method: Method::Net,
        policy_weight: 0.5,
        root_breadth: 2,
        subtrees,
    }
}

/// The `net` tree with larger exact subtrees (the set `subtrees`).
const SUBTREES: [Config; 4] = [
    net_with("net, subtrees 6 / 5,000", SUBTREES_OF_6),
    net_with("net, subtrees 8 / 20,000", (8, 20_000)),
    net_with("net, subtrees 9 / 50,000", (9, 50_000)),
    Config {
        name: "blend, subtrees 8 / 20,000",
        method: Method::Blend,
        policy_weight: 0.5,
        root_breadth: 2,
        subtrees: (8, 20_000),
    },
];

/// The `net` tree with exact subtrees of 9 points and more (the set `larger`).
const LARGER: [Config; 3] = [
    net_with("net, subtrees 9 / 50,000", (9, 50_000)),
    net_with("net, subtrees 10 / 100,000", (10, 100_000)),
    net_with("net, subtrees 12 / 100,000", (12, 100_000)),
];

/// What the solver says about one region.
struct Reference {
    value: Rational,
    mean: Rational,
    best: [Vec<Point>; 2],
}

/// The next region of the stream with `empties` empty points that the bounded solver finishes.
fn draw(
    rng: &mut Rng,
    size: BoardSize,
    empties: &std::ops::RangeInclusive<usize>,
    budget: usize,
) -> (LocalPosition, usize, Reference) {
    loop {
        let drawn = generate(rng, size, WINDOW);
        let empty = drawn.region.empty_points(&drawn.board).len();
        if !empties.contains(&empty) {
            continue;
        }
        let Ok(solved) = bounded::solve_bounded(
            &drawn.board,
            &drawn.region,
            Scoring::Territory,
            budget,
            &Progress::default(),
        ) else {
            continue;
        };
        let reference = Reference {
            value: tengen::endgame::analysis::move_value(solved.temperature()),
            mean: solved.thermograph().mean,
            best: [
                solved.best_moves(Color::Black),
                solved.best_moves(Color::White),
            ],
        };
        return (
            LocalPosition::new(drawn.board, drawn.region),
            empty,
            reference,
        );
    }
}

#[derive(Default)]
struct Tally {
    value: usize,
    mean: usize,
    /// Hot regions the tree answered 0.
    silent: usize,
    /// Colours (two per hot region) whose tree's best move is one of the solver's best.
    first_move: usize,
    value_error: f64,
    seconds: f64,
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(Ok(30), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(404), |a| a.parse())?;
    let min: usize = args.next().map_or(Ok(9), |a| a.parse())?;
    let max: usize = args.next().map_or(Ok(14), |a| a.parse())?;
    let budget: usize = args.next().map_or(Ok(BUDGET), |a| a.parse())?;
    let configs: &[Config] = match args.next().as_deref() {
        None | Some("proposers") => &PROPOSERS,
        Some("subtrees") => &SUBTREES,
        Some("larger") => &LARGER,
        Some(other) => anyhow::bail!("unknown set {other:?}: proposers | subtrees | larger"),
    };
    let size = BoardSize::square(19)?;
    let mut rng = Rng(seed);
    let mut analyzer = Analyzer::new(ModelPaths::default(), AnalysisOptions::default());
    let mut tallies: Vec<Tally> = configs.iter().map(|_| Tally::default()).collect();
    let (mut kept, mut hot) = (0usize, 0usize);
    let started = Instant::now();
    while kept < count {
        let (position, empty, reference) = draw(&mut rng, size, &(min..=max), budget);
        let is_hot = reference.value > Rational::ZERO;
        // Cold regions are the easy majority: keep one in four, as the hot ones are the question.
        if !is_hot && !rng.chance(0.25) {
            continue;
        }
        kept += 1;
        hot += usize::from(is_hot);
        let mut line = format!(
            "{kept:3} empty {empty:2} exact {} (mean {})",
            reference.value, reference.mean
        );
        for (config, tally) in configs.iter().zip(&mut tallies) {
            analyzer.options.blend_policy_weight = config.policy_weight;
            analyzer.options.tree.root_breadth = config.root_breadth;
            (
                analyzer.options.exact_subtrees,
                analyzer.options.subtree_positions,
            ) = config.subtrees;
            let t = Instant::now();
            let found = analyzer.analyze(&position, config.method)?;
            tally.seconds += t.elapsed().as_secs_f64();
            tally.value += usize::from(found.value == reference.value);
            tally.mean += usize::from(found.mean == reference.mean);
            tally.value_error += (found.value.to_f64() - reference.value.to_f64()).abs();
            if is_hot {
                tally.silent += usize::from(found.value == Rational::ZERO);
                for (colour, best) in [Color::Black, Color::White]
                    .into_iter()
                    .zip(&reference.best)
                {
                    let named = found.best_moves(colour).first();
                    tally.first_move += usize::from(named.is_some_and(|p| best.contains(p)));
                }
            }
            line.push_str(&format!(" | {}", found.value));
        }
        eprintln!("{line} ({:.0} s)", started.elapsed().as_secs_f64());
    }
    println!(
        "{kept} regions ({hot} hot), {min}–{max} empty points, seed {seed}, budget {budget}, {:.0} s",
        started.elapsed().as_secs_f64()
    );
    println!(
        "| tree | value right | mean right | hot answered 0 | best first move (of {}) | mean value error | seconds |",
        2 * hot
    );
    println!("|---|---|---|---|---|---|---|");
    for (config, t) in configs.iter().zip(&tallies) {
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.0} |",
            config.name,
            t.value,
            t.mean,
            t.silent,
            t.first_move,
            t.value_error / kept.max(1) as f64,
            t.seconds
        );
    }
    Ok(())
}
