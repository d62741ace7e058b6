//! The exact solver's labelled samples (`examples/endgame_training_data.rs`) in the local-move head's
//! training format (`examples/local_move_games.rs`): KataGo's trunk features of each sample's position.
//!
//! `cargo run --example local_move_solver_features -- SOLVER_DIR OUT_DIR [SEED]`
//!
//! A sample's local sequence is rebuilt from its stored boards (each move is the point that became
//! occupied) and replayed from the oldest board, so the trunk's history planes see the local moves as
//! the tree builder gives them. Its target is one of the solver's best moves, drawn by the target's
//! probabilities (or "no move"). Game ids are `1,000,000 + 10·position`, plus 1 for the training split,
//! so that `training/model.py`'s held-out rule (every tenth id) keeps the solver's own split.

#[path = "shared/f16.rs"]
mod f16;

use anyhow::{Context, Result, bail};
use std::fs;
use std::io::Write;
use std::path::Path;
use tengen::endgame::net::proposer::LocalState;
use tengen::endgame::net::proposer::trunk::{Trunk, input};
use tengen::go::{Board, BoardSize, Color};

const SIDE: usize = 19;
const AREA: usize = SIDE * SIDE;
const HISTORY: usize = 8;
const SLOTS: usize = 24;

/// The data of a `.npy` file (format 1.0), after its header.
fn npy(path: &Path) -> Result<Vec<u8>> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        bail!("{} is not a .npy file", path.display());
    }
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    Ok(bytes[10 + header..].to_vec())
}

fn board_of(cells: &[u8], size: BoardSize) -> Board {
    let mut b = Board::new(size);
    for (i, &c) in cells.iter().enumerate() {
        let p = size.from_row_major(i);
        match c {
            1 => b.setup_stone(Color::Black, p),
            2 => b.setup_stone(Color::White, p),
            _ => {}
        }
    }
    b
}

/// The local state of a sample: its oldest stored board and the moves to its current one.
fn state_of(boards: &[u8], size: BoardSize) -> LocalState {
    let mut cells: Vec<&[u8]> = (0..HISTORY)
        .rev()
        .map(|h| &boards[h * AREA..(h + 1) * AREA])
        .collect();
    cells.dedup();
    let current = board_of(cells[cells.len() - 1], size);
    let mut state = LocalState::root(&board_of(cells[0], size));
    for pair in cells.windows(2) {
        let placed: Vec<(usize, u8)> = (0..AREA)
            .filter(|&i| pair[0][i] == 0 && pair[1][i] != 0)
            .map(|i| (i, pair[1][i]))
            .collect();
        let next = match placed[..] {
            [(i, c)] => {
                let colour = if c == 1 { Color::Black } else { Color::White };
                state.play_ignoring_ko(colour, size.from_row_major(i))
            }
            _ => None,
        };
        match next {
            Some(s) => state = s,
            None => return LocalState::root(&current),
        }
    }
    state
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(source), Some(out)) = (args.first(), args.get(1)) else {
        bail!("usage: local_move_solver_features SOLVER_DIR OUT_DIR [SEED]");
    };
    let mut seed: u64 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let (source, out) = (Path::new(source), Path::new(out));
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/g170-b6c96-s175395328-d26788732.bin.gz");
    let trunk = Trunk::open(&model)?;
    let size = BoardSize::square(SIDE)?;
    let create =
        |name: &str| fs::File::create(out.join(name)).with_context(|| format!("creating {name}"));
    let (mut features, mut masks, mut metas) = (
        create("features.f16")?,
        create("mask.u8")?,
        create("meta.i32")?,
    );
    let mut count = 0;
    for (split, offset) in [("train", 1), ("eval", 0)] {
        let part = |what: &str| npy(&source.join(format!("{split}-{what}.npy")));
        let (boards, mask, to_move) = (part("boards")?, part("mask")?, part("to-move")?);
        let index: Vec<i16> = part("target-index")?
            .chunks(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        let prob: Vec<f32> = part("target-prob")?
            .chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let position: Vec<i32> = part("position")?
            .chunks(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let n = to_move.len();
        for start in (0..n).step_by(32) {
            let items: Vec<_> = (start..n.min(start + 32))
                .map(|i| {
                    let state =
                        state_of(&boards[i * HISTORY * AREA..(i + 1) * HISTORY * AREA], size);
                    let colour = if to_move[i] == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    input(&state, colour)
                })
                .collect();
            let maps = trunk.run(&items)?;
            let bytes = f16::le_bytes(&maps.data);
            features.write_all(&bytes)?;
            for i in start..n.min(start + 32) {
                masks.write_all(&mask[i * AREA..(i + 1) * AREA])?;
                // One target drawn by the solver's probabilities (splitmix64).
                seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = seed;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                let mut r = ((z ^ (z >> 31)) >> 11) as f32 / (1u64 << 53) as f32;
                let mut target = index[i * SLOTS] as i32;
                for s in 0..SLOTS {
                    let (t, q) = (index[i * SLOTS + s], prob[i * SLOTS + s]);
                    if t >= 0 && r < q {
                        target = t as i32;
                        break;
                    }
                    r -= q;
                }
                let region = mask[i * AREA..(i + 1) * AREA]
                    .iter()
                    .filter(|&&m| m > 0)
                    .count();
                let meta = [
                    1_000_000 + 10 * position[i] + offset,
                    target,
                    i32::from(to_move[i]),
                    -1,
                    region as i32,
                ];
                let row: Vec<u8> = meta.iter().flat_map(|v| v.to_le_bytes()).collect();
                metas.write_all(&row)?;
            }
            count += maps.n;
        }
        eprintln!("{split}: {n} samples");
    }
    let info = serde_json::json!({
        "games": 0, "moves": 0, "examples": count, "seconds": 0.0, "solver_samples": count,
        "model": model.file_name().map(|n| n.to_string_lossy().into_owned()),
    });
    fs::write(out.join("info.json"), serde_json::to_string_pretty(&info)?)?;
    Ok(())
}
