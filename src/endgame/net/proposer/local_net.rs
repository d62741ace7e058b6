//! The local-move network (Frejlak's method; trained in `training/`, shipped as `models/local-move.onnx`).
//!
//! Contract (`docs/endgame-net.md`): input `input`, float32 `[batch, 19, H, W]`: planes 2h and 2h+1
//! (h = 0..7) are Black's and White's stones h local moves ago (0 = now; the oldest position repeats when
//! the sequence is shorter), plane 16 the region mask, plane 17 all ones when Black is to move, plane 18 all
//! ones. Output `logits`, float32 `[batch, 2·H·W + 1]`: White's moves (row-major from the top row), then
//! Black's, then "no move"; a softmax over all of them. Points outside the region and illegal points are
//! masked out before the softmax.
//!
//! The player to move is the opponent of the last local mover; at the start of the sequence nobody has
//! moved, so the network is asked with each colour to move and the two distributions are averaged.

use super::{LocalState, Proposal, Proposer, ProposerError};
use crate::endgame::region::Region;
use crate::go::{Color, Point};
use crate::nn::runtime::{RuntimeConfig, open_session};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const INPUT: &str = "input";
pub const OUTPUT: &str = "logits";
pub const PLANES: usize = 19;
pub const HISTORY: usize = 8;

pub struct LocalMoveNet {
    path: PathBuf,
    session: Mutex<ort::session::Session>,
    evaluations: AtomicUsize,
}

impl LocalMoveNet {
    pub fn open(model: &Path) -> Result<LocalMoveNet, ProposerError> {
        let fail = |detail: String| ProposerError::Open {
            path: model.to_path_buf(),
            detail,
        };
        if !model.exists() {
            return Err(fail("no such file".into()));
        }
        let options = RuntimeConfig::load()
            .and_then(|c| c.session_options())
            .map_err(|e| fail(e.to_string()))?;
        let opened = open_session(model, &options).map_err(|e| fail(e.to_string()))?;
        Ok(LocalMoveNet {
            path: model.to_path_buf(),
            session: Mutex::new(opened.session),
            evaluations: AtomicUsize::new(0),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs the network on encoded inputs of one board size; returns each item's logits.
    fn run(
        &self,
        (h, w): (usize, usize),
        inputs: &[f32],
        n: usize,
    ) -> Result<Vec<Vec<f32>>, ProposerError> {
        let run_error = |e: ort::Error| ProposerError::Run(e.to_string());
        let tensor = ort::value::TensorRef::from_array_view(([n, PLANES, h, w], inputs))
            .map_err(run_error)?;
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        let outputs = session
            .run(ort::inputs![INPUT => tensor])
            .map_err(run_error)?;
        let value = outputs.get(OUTPUT).ok_or_else(|| {
            ProposerError::Run(format!("the local-move network has no output `{OUTPUT}`"))
        })?;
        let (_, data) = value.try_extract_tensor::<f32>().map_err(run_error)?;
        let per = 2 * h * w + 1;
        if data.len() != n * per {
            return Err(ProposerError::Run(format!(
                "output `{OUTPUT}` has {} values for {n} positions, expected {per} each",
                data.len()
            )));
        }
        self.evaluations.fetch_add(n, Ordering::Relaxed);
        Ok(data.chunks(per).map(<[f32]>::to_vec).collect())
    }
}

/// The network's input planes for one state with `to_move` to play.
pub fn encode(state: &LocalState, region: &Region, to_move: Color) -> Vec<f32> {
    let size = state.board().size();
    let area = size.area();
    let mut planes = vec![0f32; PLANES * area];
    for h in 0..HISTORY {
        let index = state.history.len().saturating_sub(1 + h);
        let Some(board) = state.history.get(index) else {
            continue;
        };
        for p in size.points() {
            let i = size.row_major(p);
            match board.color_at(p) {
                Some(Color::Black) => planes[2 * h * area + i] = 1.0,
                Some(Color::White) => planes[(2 * h + 1) * area + i] = 1.0,
                None => {}
            }
        }
    }
    for &p in region.points() {
        if state.board().is_on_board(p) {
            planes[16 * area + size.row_major(p)] = 1.0;
        }
    }
    if to_move == Color::Black {
        planes[17 * area..18 * area].fill(1.0);
    }
    planes[18 * area..19 * area].fill(1.0);
    planes
}

/// The masked softmax of one output: legal region moves of each colour and "no move".
pub fn decode(logits: &[f32], state: &LocalState, region: &Region) -> Proposal {
    let size = state.board().size();
    let area = size.area();
    let entries = |color: Color| -> Vec<(Point, f32)> {
        let offset = match color {
            Color::White => 0,
            Color::Black => area,
        };
        state
            .legal_points(region, color)
            .into_iter()
            .filter_map(|p| logits.get(offset + size.row_major(p)).map(|&l| (p, l)))
            .collect()
    };
    let black = entries(Color::Black);
    let white = entries(Color::White);
    let no_move = logits.get(2 * area).copied().unwrap_or(f32::NEG_INFINITY);
    let top = black
        .iter()
        .chain(&white)
        .map(|&(_, l)| l)
        .fold(no_move, f32::max);
    let exp = |l: f32| (l - top).exp();
    let total: f32 = black
        .iter()
        .chain(&white)
        .map(|&(_, l)| exp(l))
        .sum::<f32>()
        + exp(no_move);
    let norm = |list: Vec<(Point, f32)>| {
        list.into_iter()
            .map(|(p, l)| (p, exp(l) / total))
            .collect::<Vec<_>>()
    };
    Proposal {
        black: norm(black),
        white: norm(white),
        no_move: exp(no_move) / total,
    }
    .sorted()
}

/// The colours the network is asked with (see the module's header).
fn asked(state: &LocalState) -> Vec<Color> {
    match state.last_color() {
        Some(c) => vec![c.opponent()],
        None => vec![Color::Black, Color::White],
    }
}

/// The average of proposals over the same moves.
fn average(proposals: &[Proposal]) -> Proposal {
    let n = proposals.len().max(1) as f32;
    let Some(first) = proposals.first() else {
        return Proposal::default();
    };
    let mean = |color: Color| -> Vec<(Point, f32)> {
        first
            .moves(color)
            .iter()
            .map(|&(p, _)| {
                let sum: f32 = proposals
                    .iter()
                    .filter_map(|q| q.moves(color).iter().find(|m| m.0 == p).map(|m| m.1))
                    .sum();
                (p, sum / n)
            })
            .collect()
    };
    Proposal {
        black: mean(Color::Black),
        white: mean(Color::White),
        no_move: proposals.iter().map(|q| q.no_move).sum::<f32>() / n,
    }
    .sorted()
}

impl Proposer for LocalMoveNet {
    fn name(&self) -> String {
        format!("local-move network {}", self.path.display())
    }

    fn propose(
        &self,
        region: &Region,
        states: &[&LocalState],
    ) -> Result<Vec<Proposal>, ProposerError> {
        let Some(first) = states.first() else {
            return Ok(Vec::new());
        };
        let size = first.board().size();
        let mut inputs = Vec::new();
        let mut owners = Vec::new();
        for (i, state) in states.iter().enumerate() {
            if state.board().size() != size {
                return Err(ProposerError::Run(
                    "positions of different board sizes".into(),
                ));
            }
            for color in asked(state) {
                inputs.extend(encode(state, region, color));
                owners.push(i);
            }
        }
        let logits = self.run((size.height(), size.width()), &inputs, owners.len())?;
        let mut per_state: Vec<Vec<Proposal>> = vec![Vec::new(); states.len()];
        for (owner, out) in owners.into_iter().zip(logits) {
            per_state[owner].push(decode(&out, states[owner], region));
        }
        Ok(per_state.iter().map(|ps| average(ps)).collect())
    }

    fn evaluations(&self) -> usize {
        self.evaluations.load(Ordering::Relaxed)
    }
}
