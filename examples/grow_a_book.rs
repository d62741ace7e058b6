//! Using tengen as a library: grow a small 5x5 book with the embedded rollout engine, then print the root's
//! moves the way `tengen book show` does (Black's winrate and score, visits, cost).
//!
//! Run with `cargo run --release --example grow_a_book [ITERATIONS]`.

use tengen::book::dag::{Book, BookMeta, OrientedNode};
use tengen::book::expand::{ExpandSettings, grow};
use tengen::book::{CostParams, node_table, recompute_everything};
use tengen::engine::CancelToken;
use tengen::engine::rollout::RolloutEngine;
use tengen::go::{BoardSize, Komi, Rules, Symmetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let iterations: u64 = std::env::args().nth(1).map_or(Ok(20), |a| a.parse())?;
    let size = BoardSize::square(5)?;
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(24.0)?);
    let mut book = Book::new(BookMeta::new(size, rules), CostParams::default());
    recompute_everything(&mut book);
    let engine = RolloutEngine::new(0);
    let settings = ExpandSettings::new(2000);
    let expanded = grow(
        &mut book,
        None,
        &engine,
        settings,
        iterations,
        4,
        &CancelToken::default(),
        |_| {},
    )
    .await?;
    println!(
        "{expanded} expansions; the book has {} positions",
        book.len()
    );
    let table = node_table(
        &book,
        OrientedNode {
            id: book.root(),
            to_view: Symmetry::IDENTITY,
        },
    );
    println!(
        "{:<8} {:>7} {:>7} {:>8} {:>7}",
        "move", "B win%", "B lead", "visits", "cost"
    );
    for row in &table.rows {
        let name = if row.is_other {
            "other".to_string()
        } else {
            row.moves[0].to_gtp(size)
        };
        println!(
            "{name:<8} {:>7.1} {:>+7.1} {:>8.0} {:>7.2}",
            row.black_winrate * 100.0,
            row.black_score,
            row.visits,
            row.cost
        );
    }
    Ok(())
}
