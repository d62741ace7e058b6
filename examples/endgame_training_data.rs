//! Training data for the local-move network (`docs/local-move-network.md`), labelled by tengen's exact solver.
//!
//! Each position is a small bounded region on a 19x19 board: a window at a corner or on an edge, walled by
//! a Black and a White wall that meet at a random point of the window's boundary (the shape of a boundary
//! play in the endgame course), with a few stones of either colour inside. The exact solver reduces it to
//! a combinatorial game; random walks down the solution tree (mostly best moves, sometimes another move)
//! give local sequences, and every position on a walk is a sample: its last 8 local positions, the player
//! to move, the region, and the target — the solver's best moves for both colours (only the answering
//! colour's after a sente move), or "no move" when the position is a number or its temperature is ≤ 0.
//!
//! Run: `cargo run --release --example endgame_training_data -- OUT_DIR [POSITIONS] [SEED]`. Writes
//! `OUT_DIR/{train,eval}-*.npy` (every tenth position goes to `eval`) and `OUT_DIR/info.json`.

use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use tengen::endgame::cgt::{Rational, Thermograph};
use tengen::endgame::exact::{self, Node};
use tengen::endgame::region::Region;
use tengen::go::{Board, BoardSize, Color, Point, Scoring};
use walled::{Position, Rng, generate};

#[path = "shared/walled.rs"]
mod walled;

const SIDE: usize = 19;
const AREA: usize = SIDE * SIDE;
/// Local positions in a sample's history (the current one first).
const HISTORY: usize = 8;
/// The most target entries a sample keeps (moves of both colours plus "no move").
const TARGET_SLOTS: usize = 24;
/// The target index of "no move" (after White's and Black's moves).
const NO_MOVE: usize = 2 * AREA;
/// Regions with more empty points than this are not solved (the search would be slow).
const MAX_EMPTY: usize = 7;
/// Positions one solve may visit: the rare slow region is dropped instead of waited for.
const BUDGET: usize = 20_000;
/// Walks down each solved position's tree.
const WALKS: usize = 12;

/// What the network should predict at a node of the solution tree.
enum Target {
    NoMove,
    /// Best moves with their probabilities.
    Moves(Vec<(Color, Point, f32)>),
}

fn temperature(node: &Node) -> Rational {
    Thermograph::of(&node.game).temperature
}

/// The label of `node`, reached by a move of `last` from a position of temperature `before` (if any).
fn label(node: &Node, last: Option<(Color, Rational)>) -> Target {
    let t = temperature(node);
    if node.game.is_number() || t <= Rational::ZERO {
        return Target::NoMove;
    }
    let colours: Vec<Color> = match last {
        // The last move was sente (it left a hotter position): the opponent answers.
        Some((mover, before)) if t > before => vec![mover.opponent()],
        _ => vec![Color::Black, Color::White],
    };
    let mut moves = Vec::new();
    for &c in &colours {
        let best: Vec<Point> = node.best(c).iter().map(|b| b.point).collect();
        let share = 1.0 / (colours.len() * best.len().max(1)) as f32;
        moves.extend(best.into_iter().map(|p| (c, p, share)));
    }
    if moves.is_empty() {
        Target::NoMove
    } else {
        Target::Moves(moves)
    }
}

/// The samples of one split, in the layout of the `.npy` files.
#[derive(Default)]
struct Split {
    /// `[n, 8, 19, 19]`: 0 empty, 1 Black, 2 White; history index 0 is the current position.
    boards: Vec<u8>,
    /// `[n, 19, 19]`: 1 inside the region.
    mask: Vec<u8>,
    /// `[n]`: 0 Black to move, 1 White.
    to_move: Vec<u8>,
    /// `[n, 24]`: target indices (White's moves `y*19+x`, Black's `361 + y*19+x`, 722 "no move"), -1 unused.
    target_index: Vec<i16>,
    /// `[n, 24]`: their probabilities (summing to 1).
    target_prob: Vec<f32>,
    /// `[n]`: the temperature of the sample's position (for analysis only).
    temperature: Vec<f32>,
    /// `[n]`: the generated position the sample comes from.
    position: Vec<i32>,
    count: usize,
    no_move: usize,
}

impl Split {
    fn push(
        &mut self,
        history: &[Board],
        region: &Region,
        to_move: Color,
        target: &Target,
        t: Rational,
        position: usize,
    ) {
        for h in 0..HISTORY {
            let board = &history[history.len() - 1 - h.min(history.len() - 1)];
            for p in board.size().points() {
                self.boards.push(match board.color_at(p) {
                    None => 0,
                    Some(Color::Black) => 1,
                    Some(Color::White) => 2,
                });
            }
        }
        if let Some(board) = history.last() {
            for p in board.size().points() {
                self.mask.push(u8::from(region.contains(p)));
            }
        }
        self.to_move.push(to_move.index() as u8);
        let mut entries: Vec<(i16, f32)> = match target {
            Target::NoMove => vec![(NO_MOVE as i16, 1.0)],
            Target::Moves(moves) => moves
                .iter()
                .map(|&(c, p, prob)| {
                    let plane = if c == Color::White { 0 } else { AREA };
                    ((plane + p.y() * SIDE + p.x()) as i16, prob)
                })
                .collect(),
        };
        entries.truncate(TARGET_SLOTS);
        let total: f32 = entries.iter().map(|e| e.1).sum();
        for i in 0..TARGET_SLOTS {
            let (index, prob) = entries.get(i).copied().unwrap_or((-1, 0.0));
            self.target_index.push(index);
            self.target_prob.push(prob / total);
        }
        self.temperature.push(t.to_f64() as f32);
        self.position.push(position as i32);
        self.count += 1;
        self.no_move += usize::from(matches!(target, Target::NoMove));
    }

    fn write(&self, dir: &Path, name: &str) -> Result<()> {
        let n = self.count;
        let file = |what: &str| dir.join(format!("{name}-{what}.npy"));
        write_npy(
            &file("boards"),
            "|u1",
            &[n, HISTORY, SIDE, SIDE],
            &self.boards,
        )?;
        write_npy(&file("mask"), "|u1", &[n, SIDE, SIDE], &self.mask)?;
        write_npy(&file("to-move"), "|u1", &[n], &self.to_move)?;
        let index: Vec<u8> = self
            .target_index
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        write_npy(&file("target-index"), "<i2", &[n, TARGET_SLOTS], &index)?;
        let prob: Vec<u8> = self
            .target_prob
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        write_npy(&file("target-prob"), "<f4", &[n, TARGET_SLOTS], &prob)?;
        let t: Vec<u8> = self
            .temperature
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        write_npy(&file("temperature"), "<f4", &[n], &t)?;
        let pos: Vec<u8> = self.position.iter().flat_map(|v| v.to_le_bytes()).collect();
        write_npy(&file("position"), "<i4", &[n], &pos)?;
        Ok(())
    }
}

/// Writes a `.npy` file (format version 1.0) holding `data`, already in the layout of `dtype`.
fn write_npy(path: &Path, dtype: &str, shape: &[usize], data: &[u8]) -> Result<()> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape_text = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header =
        format!("{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    out.write_all(data)?;
    Ok(())
}

/// Walks down a solved position's tree, adding a sample for every position on the way.
fn walk(
    rng: &mut Rng,
    position: &Position,
    root: &Node,
    seen: &mut HashSet<(Vec<u128>, Color)>,
    split: &mut Split,
    id: usize,
) {
    let mut history = vec![position.board.clone()];
    let mut node = root;
    let mut last: Option<(Color, Rational)> = None;
    let mut to_move = if rng.chance(0.5) {
        Color::Black
    } else {
        Color::White
    };
    loop {
        let target = label(node, last);
        let key = (
            history
                .iter()
                .rev()
                .take(HISTORY)
                .map(Board::stone_hash)
                .collect(),
            to_move,
        );
        if seen.insert(key) {
            split.push(
                &history,
                &position.region,
                to_move,
                &target,
                temperature(node),
                id,
            );
        }
        let Target::Moves(moves) = target else {
            break;
        };
        // Mostly the colour to move plays; sometimes the other (a local sequence need not alternate).
        let only_one = moves.iter().all(|m| m.0 == moves[0].0);
        let colour = if only_one {
            moves[0].0
        } else if rng.chance(0.75) {
            to_move
        } else {
            to_move.opponent()
        };
        let best: Vec<Point> = moves
            .iter()
            .filter(|m| m.0 == colour)
            .map(|m| m.1)
            .collect();
        let any: Vec<Point> = node
            .branches(colour)
            .iter()
            .filter(|b| b.child.is_some())
            .map(|b| b.point)
            .collect();
        let choice = if rng.chance(0.8) {
            rng.pick(&best)
        } else {
            rng.pick(&any)
        };
        let Some(&point) = choice else {
            break;
        };
        let Some(child) = node
            .branches(colour)
            .iter()
            .find(|b| b.point == point)
            .and_then(|b| b.child.as_deref())
        else {
            break;
        };
        let mut board = history
            .last()
            .map_or_else(|| position.board.clone(), Clone::clone);
        board.place(colour, point);
        board.clear_ko();
        history.push(board);
        last = Some((colour, temperature(node)));
        node = child;
        to_move = colour.opponent();
    }
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        bail!("usage: endgame_training_data OUT_DIR [POSITIONS] [SEED]");
    };
    let positions: usize = args.next().map_or(Ok(2000), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(1), |a| a.parse())?;
    let out = Path::new(&out);
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let size = BoardSize::square(SIDE)?;
    let mut rng = Rng(seed);
    let (mut train, mut eval) = (Split::default(), Split::default());
    let mut seen = HashSet::new();
    let (mut solved, mut skipped, mut gave_up, mut cold_roots) = (0usize, 0usize, 0usize, 0usize);
    let started = Instant::now();
    while solved < positions {
        let position = generate(&mut rng, size, walled::SMALL);
        let empty = position.region.empty_points(&position.board).len();
        if !(2..=MAX_EMPTY).contains(&empty) {
            skipped += 1;
            continue;
        }
        let Ok(solution) = exact::solve_within(
            &position.board,
            &position.region,
            Scoring::Territory,
            BUDGET,
        ) else {
            gave_up += 1;
            continue;
        };
        // Cold positions are common and easy: keep a third of them.
        if solution.temperature() <= Rational::ZERO {
            if !rng.chance(0.33) {
                continue;
            }
            cold_roots += 1;
        }
        let split = if solved % 10 == 9 {
            &mut eval
        } else {
            &mut train
        };
        for _ in 0..WALKS {
            walk(
                &mut rng,
                &position,
                &solution.root,
                &mut seen,
                split,
                solved,
            );
        }
        solved += 1;
        if solved % 500 == 0 {
            eprintln!(
                "{solved} positions, {} samples, {:.0} s",
                train.count + eval.count,
                started.elapsed().as_secs_f64()
            );
        }
    }
    train.write(out, "train")?;
    eval.write(out, "eval")?;
    let info = serde_json::json!({
        "format": 1,
        "seed": seed,
        "positions": solved,
        "cold_positions": cold_roots,
        "skipped_too_large": skipped,
        "skipped_over_budget": gave_up,
        "seconds": started.elapsed().as_secs_f64(),
        "train": { "samples": train.count, "no_move": train.no_move },
        "eval": { "samples": eval.count, "no_move": eval.no_move },
    });
    fs::write(out.join("info.json"), serde_json::to_string_pretty(&info)?)?;
    println!("{info}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen::go::board::neighbours;

    #[test]
    fn generated_regions_are_bounded_and_solvable() {
        let mut rng = Rng(7);
        let size = BoardSize::square(SIDE).unwrap();
        for _ in 0..20 {
            let p = generate(&mut rng, size, walled::SMALL);
            assert!(!p.region.is_empty());
            let touches_edge = p
                .region
                .points()
                .iter()
                .any(|&q| neighbours(q).iter().any(|&n| !p.board.is_on_board(n)));
            assert!(touches_edge);
        }
    }
}
