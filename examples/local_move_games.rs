//! Training data for the local-move network from 19x19 self-play (Frejlak's pipeline,
//! `../shared/docs/facts/cgt.md` §5), with KataGo's trunk features computed once and stored.
//!
//! `cargo run --release --example local_move_games -- OUT_DIR GAMES [SEED] [PARALLEL]`
//!
//! - **Games**: self-play by KataGo's b6c96 raw policy (`models/*.bin.gz`), `PARALLEL` games evaluated
//!   together; each move sampled from the policy at temperature 1 for the first 30 moves and 0.6 after;
//!   a game ends after two passes or 360 moves; a
//!   pass is played outright when the raw policy gives it at least 25%.
//! - **Regions**: at three points of the game (70%, 78% and 86% of its moves, each ±2%; the raw policy's
//!   games run long, so the last fifth is mostly the final filling moves), KataGo's ownership (averaged over both colours to
//!   move) at ±0.9 marks settled points; the 4-connected components of the other points, of 2 to 60
//!   points, are the undecided regions, each grown by one point into settled ground (the mask).
//! - **Sequences**: each later move inside a mask joins that region's local sequence (at most 16 moves).
//!   From the snapshot, the sequence is replayed locally (`LocalState`, as the tree builder plays): each move
//!   is an example (target: that colour at that point), and the position after the last one is a "no move"
//!   example. The player to move is the opponent of the last local mover; at the start, where the tree
//!   builder asks both colours, both are examples. Regions whose sequence is empty are kept one time in two.
//! - **Files** (raw little-endian, appended as games finish so that a stopped run keeps what it made):
//!   `features.f16` float16 `[n, 96, 19, 19]` (the trunk's output, `endgame::net::proposer::trunk`),
//!   `mask.u8` `[n, 19, 19]`, `meta.i32` `[n, 5]`: game, target (the head's output index: White's point
//!   `y·19 + x`, Black's `361 + y·19 + x`, "no move" 722), colour to move (0 Black, 1 White), step in
//!   the sequence, region size; `info.json` at the end.

#[path = "shared/f16.rs"]
mod f16;

use anyhow::{Context, Result, bail};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tengen::endgame::net::proposer::LocalState;
use tengen::endgame::net::proposer::trunk::{Trunk, input};
use tengen::endgame::region::Region;
use tengen::go::board::neighbours;
use tengen::go::{BoardSize, Color, Game, Move, Point, Rules};
use tengen::nn::batcher::run_batch;
use tengen::nn::runtime::{RuntimeConfig, open_session};
use tengen::nn::{RawOutput, encode};

const MAX_MOVES: usize = 360;
const MAX_SEQUENCE: usize = 16;
const SETTLED: f32 = 0.9;
/// Where in a game its snapshots are taken (each ±2%).
const SNAPSHOTS: [f64; 3] = [0.70, 0.78, 0.86];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Samples a legal move from the raw policy at `temperature`.
fn sample(game: &Game, raw: &RawOutput, temperature: f32, rng: &mut Rng) -> Move {
    let size = game.size();
    let mut logits: Vec<f32> = raw.policy.clone();
    logits.push(raw.policy_pass);
    // Sampling at a temperature would rarely pick a pass the policy clearly wants; games would then go on
    // filling territory. Pass outright when the raw policy gives it a quarter or more.
    let top = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let total: f32 = logits.iter().map(|&l| (l - top).exp()).sum();
    if (raw.policy_pass - top).exp() / total >= 0.25 && game.is_legal(Move::Pass) {
        return Move::Pass;
    }
    for _ in 0..20 {
        let top = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let weights: Vec<f64> = logits
            .iter()
            .map(|&l| (((l - top) / temperature) as f64).exp())
            .collect();
        let total: f64 = weights.iter().sum();
        let mut r = rng.unit() * total;
        let mut chosen = weights.len() - 1;
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                chosen = i;
                break;
            }
            r -= w;
        }
        let mv = if chosen == size.area() {
            Move::Pass
        } else {
            Move::Play(size.from_row_major(chosen))
        };
        if game.is_legal(mv) {
            return mv;
        }
        logits[chosen] = f32::NEG_INFINITY;
    }
    Move::Pass
}

/// Self-play of `count` games, `parallel` at a time; returns each game's moves.
fn self_play(
    session: &mut ort::session::Session,
    count: usize,
    parallel: usize,
    rng: &mut Rng,
) -> Result<Vec<Vec<(Color, Move)>>> {
    let size = BoardSize::square(19)?;
    let mut done = Vec::new();
    let mut games: Vec<Game> = (0..parallel.min(count))
        .map(|_| Game::new(size, Rules::japanese()))
        .collect();
    let mut started = games.len();
    while !games.is_empty() {
        let features: Vec<_> = games.iter().map(encode).collect();
        let refs: Vec<_> = features.iter().collect();
        let raw = run_batch(session, size, &refs)?;
        let mut next = Vec::new();
        for (mut game, out) in games.into_iter().zip(raw) {
            let temperature = if game.moves().len() < 30 { 1.0 } else { 0.6 };
            let mv = sample(&game, &out, temperature, rng);
            game.play(mv)?;
            if game.is_over() || game.moves().len() >= MAX_MOVES {
                done.push(game.moves().to_vec());
                if started < count {
                    next.push(Game::new(size, Rules::japanese()));
                    started += 1;
                }
            } else {
                next.push(game);
            }
        }
        games = next;
    }
    Ok(done)
}

/// Black's ownership of every point of `game`, averaged over both colours to move.
fn ownership(session: &mut ort::session::Session, game: &Game) -> Result<Vec<f32>> {
    let mut both = Vec::new();
    for color in [Color::Black, Color::White] {
        let mut g = game.clone();
        g.set_to_move(color);
        both.push((color, encode(&g)));
    }
    let refs: Vec<_> = both.iter().map(|(_, f)| f).collect();
    let raw = run_batch(session, game.size(), &refs)?;
    let area = game.size().area();
    Ok((0..area)
        .map(|i| {
            both.iter()
                .zip(&raw)
                .map(|((c, _), r)| r.ownership[i].tanh() * c.sign() as f32)
                .sum::<f32>()
                / 2.0
        })
        .collect())
}

/// The undecided regions of `game` (see the module's header), each grown by one point.
fn regions(game: &Game, own: &[f32]) -> Vec<Region> {
    let size = game.size();
    let board = game.board();
    let mut label: Vec<Option<usize>> = vec![None; size.area()];
    let mut found: Vec<Vec<Point>> = Vec::new();
    for start in size.points() {
        let i = size.row_major(start);
        if label[i].is_some() || own[i].abs() >= SETTLED {
            continue;
        }
        let id = found.len();
        let mut points = vec![start];
        label[i] = Some(id);
        let mut k = 0;
        while k < points.len() {
            for q in neighbours(points[k]) {
                if board.is_on_board(q) {
                    let j = size.row_major(q);
                    if label[j].is_none() && own[j].abs() < SETTLED {
                        label[j] = Some(id);
                        points.push(q);
                    }
                }
            }
            k += 1;
        }
        found.push(points);
    }
    let mut grown: Vec<Vec<Point>> = found.clone();
    for (id, points) in found.iter().enumerate() {
        for &p in points {
            for q in neighbours(p) {
                if board.is_on_board(q) && label[size.row_major(q)].is_none() {
                    label[size.row_major(q)] = Some(id);
                    grown[id].push(q);
                }
            }
        }
    }
    found
        .iter()
        .zip(grown)
        .filter(|(core, _)| (2..=60).contains(&core.len()))
        .map(|(_, points)| Region::new(points))
        .collect()
}

/// One example before its features: the state, the colour to move, and its metadata row.
struct Pending {
    state: LocalState,
    to_move: Color,
    meta: [i32; 5],
    mask: Vec<u8>,
}

fn target_index(size: BoardSize, mv: Option<(Color, Point)>) -> i32 {
    let area = size.area();
    match mv {
        None => 2 * area as i32,
        Some((Color::White, p)) => size.row_major(p) as i32,
        Some((Color::Black, p)) => (area + size.row_major(p)) as i32,
    }
}

/// The examples of one game (see the module's header).
fn examples(
    session: &mut ort::session::Session,
    id: usize,
    moves: &[(Color, Move)],
    rng: &mut Rng,
) -> Result<Vec<Pending>> {
    let mut out = Vec::new();
    for fraction in SNAPSHOTS {
        let at = ((fraction - 0.02 + 0.04 * rng.unit()) * moves.len() as f64) as usize;
        out.extend(snapshot_examples(session, id, moves, at, rng)?);
    }
    Ok(out)
}

/// The examples of the snapshot after `at` moves of a game.
fn snapshot_examples(
    session: &mut ort::session::Session,
    id: usize,
    moves: &[(Color, Move)],
    at: usize,
    rng: &mut Rng,
) -> Result<Vec<Pending>> {
    let size = BoardSize::square(19)?;
    let mut game = Game::new(size, Rules::japanese());
    for &(c, mv) in &moves[..at] {
        game.play_as(c, mv)?;
    }
    let own = ownership(session, &game)?;
    let mut out = Vec::new();
    for region in regions(&game, &own) {
        let sequence: Vec<(Color, Point)> = moves[at..]
            .iter()
            .filter_map(|&(c, mv)| mv.point().map(|p| (c, p)))
            .filter(|&(_, p)| region.contains(p))
            .take(MAX_SEQUENCE)
            .collect();
        if sequence.is_empty() && rng.unit() < 0.5 {
            continue;
        }
        let mut mask = vec![0u8; size.area()];
        for &p in region.points() {
            mask[size.row_major(p)] = 1;
        }
        let mut state = LocalState::root(game.board());
        for step in 0..=sequence.len() {
            let next = sequence.get(step).copied();
            let asked = match state.last_color() {
                Some(c) => vec![c.opponent()],
                None => vec![Color::Black, Color::White],
            };
            for to_move in asked {
                out.push(Pending {
                    state: state.clone(),
                    to_move,
                    meta: [
                        id as i32,
                        target_index(size, next),
                        (to_move == Color::White) as i32,
                        step as i32,
                        region.len() as i32,
                    ],
                    mask: mask.clone(),
                });
            }
            let Some((c, p)) = next else { break };
            match state.play(c, p) {
                Some(s) => state = s,
                None => break,
            }
        }
    }
    Ok(out)
}

struct Writer {
    features: fs::File,
    mask: fs::File,
    meta: fs::File,
    count: usize,
}

impl Writer {
    fn write(&mut self, trunk: &Trunk, batch: &[Pending]) -> Result<()> {
        for chunk in batch.chunks(32) {
            let items: Vec<_> = chunk.iter().map(|p| input(&p.state, p.to_move)).collect();
            let maps = trunk.run(&items)?;
            let bytes = f16::le_bytes(&maps.data);
            self.features.write_all(&bytes)?;
            for p in chunk {
                self.mask.write_all(&p.mask)?;
                let row: Vec<u8> = p.meta.iter().flat_map(|v| v.to_le_bytes()).collect();
                self.meta.write_all(&row)?;
            }
            self.count += chunk.len();
        }
        Ok(())
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        bail!("usage: local_move_games OUT_DIR GAMES [SEED] [PARALLEL]");
    };
    let games: usize = args.get(1).map_or(Ok(400), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let parallel: usize = args.get(3).map_or(Ok(32), |s| s.parse())?;
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/g170-b6c96-s175395328-d26788732.bin.gz");
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let options = RuntimeConfig::load()?.session_options()?;
    let onnx = tengen::nn::import::onnx_for(&model)?;
    let mut session = open_session(&onnx, &options)?.session;
    let trunk = Trunk::open(&model)?;
    let mut rng = Rng(seed);
    let create =
        |name: &str| fs::File::create(dir.join(name)).with_context(|| format!("creating {name}"));
    let mut writer = Writer {
        features: create("features.f16")?,
        mask: create("mask.u8")?,
        meta: create("meta.i32")?,
        count: 0,
    };
    let started = Instant::now();
    let mut played = 0;
    let mut total_moves = 0;
    let mut lengths = Vec::new();
    while played < games {
        let round = parallel.min(games - played);
        let batch = self_play(&mut session, round, round, &mut rng)?;
        for moves in &batch {
            total_moves += moves.len();
            lengths.push(moves.len());
            let id = seed as usize * 100_000 + played;
            let pending = examples(&mut session, id, moves, &mut rng)?;
            writer.write(&trunk, &pending)?;
            played += 1;
        }
        lengths.sort();
        eprintln!(
            "{played} games, {total_moves} moves (median game {}), {} examples, {:.0} s",
            lengths.get(lengths.len() / 2).copied().unwrap_or(0),
            writer.count,
            started.elapsed().as_secs_f64()
        );
    }
    let info = serde_json::json!({
        "games": played,
        "moves": total_moves,
        "examples": writer.count,
        "seed": seed,
        "channels": 96,
        "board": 19,
        "seconds": started.elapsed().as_secs_f64().round(),
        "model": model.file_name().map(|n| n.to_string_lossy().into_owned()),
    });
    fs::write(dir.join("info.json"), serde_json::to_string_pretty(&info)?)?;
    Ok(())
}
