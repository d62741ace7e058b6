//! The local-move network (Frejlak's method; trained in `training/`): KataGo's b6c96 trunk, imported from
//! the KataGo model file, and a small head, `models/local-move-head.onnx`, that reads the trunk's final
//! feature map with the region mask joined to it.
//!
//! Contract (`docs/local-move-network.md`): the head's inputs are `features`, float32 `[batch, C, H, W]`
//! (the trunk's output for the position with the player to move, see [`super::trunk`]) and `mask`,
//! float32 `[batch, 1, H, W]` (1 inside the region); its output `logits`, float32 `[batch, 2·H·W + 1]`:
//! White's moves (row-major from the top row), then Black's, then "no move"; a softmax over all of them.
//! The head's metadata entry `trunk` names the KataGo model file it was trained on, looked for beside the
//! head. Points outside the region and illegal points are masked out before the softmax.
//!
//! The player to move is the opponent of the last local mover; at the start of the sequence nobody has
//! moved, so the network is asked with each colour to move and the two distributions are averaged.

use super::trunk::{FeatureMaps, Trunk};
use super::{LocalState, Proposal, Proposer, ProposerError};
use crate::endgame::region::Region;
use crate::go::{Color, Point};
use crate::nn::runtime::{RuntimeConfig, open_session};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const FEATURES: &str = "features";
pub const MASK: &str = "mask";
pub const OUTPUT: &str = "logits";
/// The head's metadata key naming its trunk's KataGo model file.
pub const TRUNK_KEY: &str = "trunk";

pub struct LocalMoveNet {
    path: PathBuf,
    trunk: Trunk,
    session: Mutex<ort::session::Session>,
    evaluations: AtomicUsize,
}

impl LocalMoveNet {
    /// Opens the head at `model` and the trunk its metadata names, beside it.
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
        let trunk_name = opened
            .session
            .metadata()
            .map_err(|e| fail(e.to_string()))?
            .custom(TRUNK_KEY)
            .ok_or_else(|| {
                fail(format!(
                    "no metadata entry `{TRUNK_KEY}` naming the KataGo trunk (a head of format 2 has one)"
                ))
            })?;
        let trunk_path = model
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .join(&trunk_name);
        let trunk = Trunk::open(&trunk_path)?;
        Ok(LocalMoveNet {
            path: model.to_path_buf(),
            trunk,
            session: Mutex::new(opened.session),
            evaluations: AtomicUsize::new(0),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The head's logits for each (state, colour to move), all of one board size.
    pub fn logits(
        &self,
        region: &Region,
        items: &[(&LocalState, Color)],
    ) -> Result<Vec<Vec<f32>>, ProposerError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let maps = self.trunk.features(items)?;
        let (h, w) = (maps.height, maps.width);
        let mut mask = vec![0f32; maps.n * h * w];
        for (i, &(state, _)) in items.iter().enumerate() {
            let size = state.board().size();
            for &p in region.points() {
                if state.board().is_on_board(p) {
                    mask[i * h * w + size.row_major(p)] = 1.0;
                }
            }
        }
        self.head(&maps, &mask)
    }

    /// The head alone on trunk features and masks (`[n, 1, H, W]`, 1 inside the region).
    pub fn head(&self, maps: &FeatureMaps, mask: &[f32]) -> Result<Vec<Vec<f32>>, ProposerError> {
        let (n, h, w) = (maps.n, maps.height, maps.width);
        if mask.len() != n * h * w || maps.data.len() != n * maps.channels * h * w {
            return Err(ProposerError::Run(format!(
                "{} feature values and {} mask values for {n} positions of {h}x{w} points",
                maps.data.len(),
                mask.len()
            )));
        }
        let run_error = |e: ort::Error| ProposerError::Run(e.to_string());
        let features =
            ort::value::TensorRef::from_array_view(([n, maps.channels, h, w], &maps.data[..]))
                .map_err(run_error)?;
        let mask =
            ort::value::TensorRef::from_array_view(([n, 1, h, w], mask)).map_err(run_error)?;
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        let outputs = session
            .run(ort::inputs![FEATURES => features, MASK => mask])
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
        let mut items = Vec::new();
        let mut owners = Vec::new();
        for (i, &state) in states.iter().enumerate() {
            for color in asked(state) {
                items.push((state, color));
                owners.push(i);
            }
        }
        let logits = self.logits(region, &items)?;
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
