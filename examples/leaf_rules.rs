//! The grown trees' leaf rules against the exact solver, on regions of our own (never the course's).
//!
//! Draws walled corner and edge regions (`shared/walled.rs`, windows up to 6 × 4, larger than the training
//! data's) and keeps those with `MIN_EMPTY..=MAX_EMPTY` empty points that the exact solver finishes within
//! its budget. Two measurements (the figures are in `docs/research/endgame-net-defaults.md`):
//! - `leaves`: positions of the solver's tree (up to `PER_REGION` of each, drawn) are scored as leaves by each rule
//!   (`net::leaf_values`, as the grown trees score them) and compared with its exact value in the root's
//!   terms (the node's mean plus the prisoners taken on the way). Cold positions (temperature ≤ 0) are
//!   where a tree should stop, so a leaf rule must count them right.
//! - `trees`: the grown tree (`net`, `blend` or `policy`) on each region with every leaf configuration,
//!   one analyzer for all (KataGo's evaluations are shared). A tree is right when its move value (2T)
//!   equals the solver's, as the endgame bench counts; the mean is reported too.
//!
//! Run: `cargo run --release --example leaf_rules -- leaves [POSITIONS] [SEED]` or `… -- trees [POSITIONS]
//! [SEED] [METHOD] [MIN_EMPTY MAX_EMPTY]` (defaults 60 regions, seed 101, `net`, 4–10 empty points).

#[path = "shared/walled.rs"]
mod walled;

use anyhow::{Result, bail};
use std::time::Instant;
use tengen::endgame::analysis::{
    AnalysisOptions, Analyzer, LocalPosition, Method, ModelPaths, TreeLeaves, move_value,
};
use tengen::endgame::cgt::{Rational, Thermograph};
use tengen::endgame::exact::{self, Node, Solution};
use tengen::endgame::net::proposer::LocalState;
use tengen::endgame::net::{Networks, leaf_values};
use tengen::go::{BoardSize, Color, Scoring};
use walled::{Rng, Window, generate};

/// Windows up to 6 points wide and 4 deep: regions like the smaller course problems.
const LARGE: Window = Window { width: 6, depth: 4 };
/// The default range of empty points (`trees` takes another as its last two arguments).
const MIN_EMPTY: usize = 4;
const MAX_EMPTY: usize = 10;
/// The exact solver's budget for the reference value; a region it cannot finish is drawn again.
const BUDGET: usize = 30_000;

/// One leaf configuration: its name, the leaf rule, and the exact subtrees' size limit (0: off).
struct Config {
    name: &'static str,
    leaves: TreeLeaves,
    exact_subtrees: usize,
}

const CONFIGS: [Config; 5] = [
    Config {
        name: "ownership",
        leaves: TreeLeaves::Ownership,
        exact_subtrees: 0,
    },
    Config {
        name: "finished",
        leaves: TreeLeaves::Finished,
        exact_subtrees: 0,
    },
    Config {
        name: "judged",
        leaves: TreeLeaves::Judged,
        exact_subtrees: 0,
    },
    Config {
        name: "ownership, exact subtrees 6",
        leaves: TreeLeaves::Ownership,
        exact_subtrees: 6,
    },
    Config {
        name: "judged, exact subtrees 6",
        leaves: TreeLeaves::Judged,
        exact_subtrees: 6,
    },
];

/// The next region of the stream that the solver finishes, with its empty points and solution.
fn draw(
    rng: &mut Rng,
    size: BoardSize,
    empties: &std::ops::RangeInclusive<usize>,
) -> (LocalPosition, usize, Solution) {
    loop {
        let drawn = generate(rng, size, LARGE);
        let empty = drawn.region.empty_points(&drawn.board).len();
        if !empties.contains(&empty) {
            continue;
        }
        if let Ok(solution) =
            exact::solve_within(&drawn.board, &drawn.region, Scoring::Territory, BUDGET)
        {
            return (
                LocalPosition::new(drawn.board, drawn.region),
                empty,
                solution,
            );
        }
    }
}

/// Every position of the solver's tree reachable by real moves (ko retakes valued by rule have no
/// position), with its exact game's mean and temperature in the root's terms; each position once.
fn positions(root: &Node, board: &tengen::go::Board) -> Vec<(LocalState, Rational, Rational)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![(root, LocalState::root(board), 0i64)];
    while let Some((node, state, prisoners)) = stack.pop() {
        if !seen.insert(state.board().stone_hash()) {
            continue;
        }
        let thermograph = Thermograph::of(&node.game);
        let mean = thermograph.mean + Rational::integer(prisoners);
        for colour in [Color::Black, Color::White] {
            for branch in node.branches(colour) {
                let (Some(child), Some(next)) = (&branch.child, state.play(colour, branch.point))
                else {
                    continue;
                };
                stack.push((child.as_ref(), next, prisoners + branch.prisoners));
            }
        }
        out.push((state, mean, thermograph.temperature));
    }
    out
}

/// Positions scored per region (`leaves`).
const PER_REGION: usize = 24;

/// Counts of one leaf rule over the solver's positions.
#[derive(Default)]
struct LeafTally {
    cold_right: usize,
    cold: usize,
    /// Sum of |count − exact mean| over the cold positions, and over the hot ones.
    cold_error: f64,
    hot_error: f64,
    hot: usize,
}

const RULES: [(&str, TreeLeaves); 3] = [
    ("ownership", TreeLeaves::Ownership),
    ("finished", TreeLeaves::Finished),
    ("judged", TreeLeaves::Judged),
];

fn leaves(count: usize, seed: u64) -> Result<()> {
    let size = BoardSize::square(19)?;
    let mut rng = Rng(seed);
    let nets = Networks::new(ModelPaths::default());
    let mut tallies: Vec<LeafTally> = RULES.iter().map(|_| LeafTally::default()).collect();
    let started = Instant::now();
    for _ in 0..count {
        let (position, _, solution) = draw(&mut rng, size, &(MIN_EMPTY..=MAX_EMPTY));
        let mut found = positions(&solution.root, &position.board);
        // A large tree has thousands of positions: a seeded sample keeps every region's weight alike.
        while found.len() > PER_REGION {
            let drop = rng.range(0, found.len() - 1);
            found.swap_remove(drop);
        }
        for chunk in found.chunks(64) {
            let states: Vec<&LocalState> = chunk.iter().map(|(s, _, _)| s).collect();
            for ((_, rule), tally) in RULES.iter().zip(&mut tallies) {
                let values = leaf_values(&nets, &position, Scoring::Territory, *rule, &states)?;
                for ((_, mean, t), v) in chunk.iter().zip(values) {
                    let error = (v.to_f64() - mean.to_f64()).abs();
                    if *t <= Rational::ZERO {
                        tally.cold += 1;
                        tally.cold_right += usize::from(v == *mean);
                        tally.cold_error += error;
                    } else {
                        tally.hot += 1;
                        tally.hot_error += error;
                    }
                }
            }
        }
    }
    println!(
        "{count} regions, {MIN_EMPTY}–{MAX_EMPTY} empty points, seed {seed}, up to {PER_REGION} positions of each solver's tree, {:.0} s",
        started.elapsed().as_secs_f64()
    );
    println!("| leaf rule | cold positions counted right | mean error, cold | mean error, hot |");
    println!("|---|---|---|---|");
    for ((name, _), t) in RULES.iter().zip(&tallies) {
        println!(
            "| {name} | {} of {} ({:.1}%) | {:.2} | {:.2} ({} positions) |",
            t.cold_right,
            t.cold,
            100.0 * t.cold_right as f64 / t.cold.max(1) as f64,
            t.cold_error / t.cold.max(1) as f64,
            t.hot_error / t.hot.max(1) as f64,
            t.hot
        );
    }
    Ok(())
}

#[derive(Default)]
struct Tally {
    value: usize,
    mean: usize,
    both: usize,
    /// Sum of |mean − exact mean| (points).
    mean_error: f64,
    seconds: f64,
}

fn trees(
    count: usize,
    seed: u64,
    method: Method,
    empties: std::ops::RangeInclusive<usize>,
) -> Result<()> {
    let size = BoardSize::square(19)?;
    let mut rng = Rng(seed);
    let mut analyzer = Analyzer::new(ModelPaths::default(), AnalysisOptions::default());
    let mut tallies: Vec<Tally> = CONFIGS.iter().map(|_| Tally::default()).collect();
    let mut hot = 0usize;
    let started = Instant::now();
    let mut kept = 0;
    while kept < count {
        let (position, empty, solution) = draw(&mut rng, size, &empties);
        let (value, mean) = (move_value(solution.temperature()), solution.mean());
        // Cold regions are the easy majority: keep one in four, as the hot ones are the question.
        if value <= Rational::ZERO && !rng.chance(0.25) {
            continue;
        }
        kept += 1;
        hot += usize::from(value > Rational::ZERO);
        let mut line = format!("{kept:3} empty {empty:2} exact {value} (mean {mean})");
        for (config, tally) in CONFIGS.iter().zip(&mut tallies) {
            analyzer.options.tree_leaves = config.leaves;
            analyzer.options.exact_subtrees = config.exact_subtrees;
            let t = Instant::now();
            let found = analyzer.analyze(&position, method)?;
            tally.seconds += t.elapsed().as_secs_f64();
            let (v, m) = (found.value == value, found.mean == mean);
            tally.value += usize::from(v);
            tally.mean += usize::from(m);
            tally.both += usize::from(v && m);
            tally.mean_error += (found.mean.to_f64() - mean.to_f64()).abs();
            line.push_str(&format!(" | {}", found.value));
        }
        eprintln!("{line} ({:.0} s)", started.elapsed().as_secs_f64());
    }
    println!(
        "{kept} regions ({hot} hot), {}–{} empty points, seed {seed}, method {method}, {:.0} s",
        empties.start(),
        empties.end(),
        started.elapsed().as_secs_f64()
    );
    println!("| leaves | value right | mean right | both | mean error | seconds |");
    println!("|---|---|---|---|---|---|");
    for (config, t) in CONFIGS.iter().zip(&tallies) {
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.0} |",
            config.name,
            t.value,
            t.mean,
            t.both,
            t.mean_error / kept.max(1) as f64,
            t.seconds
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let count: usize = args.next().map_or(Ok(60), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(101), |a| a.parse())?;
    match mode.as_str() {
        "leaves" => leaves(count, seed),
        "trees" => {
            let method: Method = match args.next() {
                Some(m) => m.parse().map_err(|e| anyhow::anyhow!("{e}"))?,
                None => Method::Net,
            };
            if !matches!(method, Method::Net | Method::Blend | Method::Policy) {
                bail!("METHOD must be net, blend or policy (a grown tree)");
            }
            let min: usize = args.next().map_or(Ok(MIN_EMPTY), |a| a.parse())?;
            let max: usize = args.next().map_or(Ok(MAX_EMPTY), |a| a.parse())?;
            trees(count, seed, method, min..=max)
        }
        _ => bail!(
            "usage: leaf_rules leaves [POSITIONS] [SEED] | trees [POSITIONS] [SEED] [METHOD] [MIN MAX]"
        ),
    }
}
