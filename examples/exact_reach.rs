//! The bounded exact search's reach on regions of our own (never the course's): how many it finishes
//! within a budget, the positions it needs, and its time, by the number of empty points.
//!
//! Draws walled corner and edge regions (`shared/walled.rs`, windows up to 7 × 4) with `MIN..=MAX` empty
//! points, hot and cold alike, and solves each with `--method exact`'s search. Each region's line (empty
//! points, positions or "gave up", value, milliseconds) goes to stdout, then a table by size. Positions do
//! not depend on the machine's load, so two builds compare by them; times only on a quiet machine.
//!
//! Run: `cargo run --release --example exact_reach -- [REGIONS] [SEED] [MIN MAX] [BUDGET]` (defaults 40
//! regions, seed 909, 9–12 empty points, 200,000 positions).

#[path = "shared/walled.rs"]
mod walled;

use anyhow::Result;
use std::collections::BTreeMap;
use std::time::Instant;
use tengen::endgame::exact::Progress;
use tengen::endgame::exact::bounded::{self, DEFAULT_BUDGET};
use tengen::go::{BoardSize, Scoring};
use walled::{Rng, Window, generate};

const WINDOW: Window = Window { width: 7, depth: 4 };

/// One size's tally: regions, finished, the positions of the finished ones, their milliseconds.
#[derive(Default)]
struct Size {
    regions: usize,
    positions: Vec<usize>,
    millis: Vec<f64>,
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(Ok(40), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(909), |a| a.parse())?;
    let min: usize = args.next().map_or(Ok(9), |a| a.parse())?;
    let max: usize = args.next().map_or(Ok(12), |a| a.parse())?;
    let budget: usize = args.next().map_or(Ok(DEFAULT_BUDGET), |a| a.parse())?;
    let size = BoardSize::square(19)?;
    let mut rng = Rng(seed);
    let mut sizes: BTreeMap<usize, Size> = BTreeMap::new();
    let mut drawn = 0;
    while drawn < count {
        let position = generate(&mut rng, size, WINDOW);
        let empty = position.region.empty_points(&position.board).len();
        if !(min..=max).contains(&empty) {
            continue;
        }
        drawn += 1;
        let started = Instant::now();
        let solved = bounded::solve_bounded(
            &position.board,
            &position.region,
            Scoring::Territory,
            budget,
            &Progress::default(),
        );
        let millis = started.elapsed().as_secs_f64() * 1000.0;
        let tally = sizes.entry(empty).or_default();
        tally.regions += 1;
        match solved {
            Ok(s) => {
                println!(
                    "{drawn:3} empty {empty:2} positions {:7} value {} mean {} {millis:.0} ms",
                    s.positions,
                    s.value(),
                    s.mean()
                );
                tally.positions.push(s.positions);
                tally.millis.push(millis);
            }
            Err(_) => println!("{drawn:3} empty {empty:2} gave up {millis:.0} ms"),
        }
    }
    println!("seed {seed}, budget {budget}");
    println!("| empty points | regions | finished | positions (sum) | median ms |");
    println!("|---|---|---|---|---|");
    for (empty, tally) in &mut sizes {
        let sum: usize = tally.positions.iter().sum();
        println!(
            "| {empty} | {} | {} | {sum} | {:.0} |",
            tally.regions,
            tally.positions.len(),
            median(&mut tally.millis)
        );
    }
    Ok(())
}
