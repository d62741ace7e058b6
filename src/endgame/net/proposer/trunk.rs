//! KataGo's trunk as the local-move network's backbone: the imported network without its heads
//! (`nn::import::graph::build_trunk`), run on a local state with a chosen colour to move.
//!
//! The input is KataGo's own encoding of the state's whole-board game (`nn::encode`): the local moves
//! played so far are the game's history, so the trunk's history planes show the local sequence's last
//! moves (up to five, while the colours alternate back from the current position, as KataGo reads them).

use super::{LocalState, ProposerError};
use crate::go::Color;
use crate::nn::features::{GLOBAL_FEATURES, SPATIAL_PLANES};
use crate::nn::import::names;
use crate::nn::runtime::{RuntimeConfig, open_session};
use crate::nn::{Features, encode};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub struct Trunk {
    path: PathBuf,
    session: Mutex<ort::session::Session>,
}

/// Feature maps of a batch: `[n, channels, height, width]`, row-major from the top row.
pub struct FeatureMaps {
    pub n: usize,
    pub channels: usize,
    pub height: usize,
    pub width: usize,
    pub data: Vec<f32>,
}

impl Trunk {
    /// Opens the trunk of a KataGo model file (`.bin.gz`), importing it once into the data directory.
    pub fn open(model: &Path) -> Result<Trunk, ProposerError> {
        let fail = |detail: String| ProposerError::Open {
            path: model.to_path_buf(),
            detail,
        };
        if !model.exists() {
            return Err(fail("no such file".into()));
        }
        let onnx = crate::nn::import::trunk_onnx_for(model).map_err(|e| fail(e.to_string()))?;
        let options = RuntimeConfig::load()
            .and_then(|c| c.session_options())
            .map_err(|e| fail(e.to_string()))?;
        let opened = open_session(&onnx, &options).map_err(|e| fail(e.to_string()))?;
        Ok(Trunk {
            path: model.to_path_buf(),
            session: Mutex::new(opened.session),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The trunk's features of each state with the given colour to move (all of one board size).
    pub fn features(&self, items: &[(&LocalState, Color)]) -> Result<FeatureMaps, ProposerError> {
        let inputs: Vec<Features> = items.iter().map(|&(s, c)| input(s, c)).collect();
        self.run(&inputs)
    }

    /// The trunk on encoded positions of one board size.
    pub fn run(&self, inputs: &[Features]) -> Result<FeatureMaps, ProposerError> {
        let Some(first) = inputs.first() else {
            return Err(ProposerError::Run("no positions for the trunk".into()));
        };
        let size = first.size;
        if inputs.iter().any(|f| f.size != size) {
            return Err(ProposerError::Run(
                "positions of different board sizes".into(),
            ));
        }
        let (n, h, w) = (inputs.len(), size.height(), size.width());
        let mut spatial = Vec::with_capacity(n * SPATIAL_PLANES * h * w);
        let mut global = Vec::with_capacity(n * GLOBAL_FEATURES);
        for f in inputs {
            spatial.extend_from_slice(&f.spatial);
            global.extend_from_slice(&f.global);
        }
        let run_error = |e: ort::Error| ProposerError::Run(e.to_string());
        let spatial =
            ort::value::TensorRef::from_array_view(([n, SPATIAL_PLANES, h, w], &spatial[..]))
                .map_err(run_error)?;
        let global = ort::value::TensorRef::from_array_view(([n, GLOBAL_FEATURES], &global[..]))
            .map_err(run_error)?;
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        let outputs = session
            .run(ort::inputs![names::SPATIAL => spatial, names::GLOBAL => global])
            .map_err(run_error)?;
        let value = outputs.get(names::TRUNK).ok_or_else(|| {
            ProposerError::Run(format!("the trunk has no output `{}`", names::TRUNK))
        })?;
        let (_, data) = value.try_extract_tensor::<f32>().map_err(run_error)?;
        let per = h * w;
        if per == 0 || data.len() % (n * per) != 0 {
            return Err(ProposerError::Run(format!(
                "the trunk gave {} values for {n} positions of {per} points",
                data.len()
            )));
        }
        Ok(FeatureMaps {
            n,
            channels: data.len() / (n * per),
            height: h,
            width: w,
            data: data.to_vec(),
        })
    }
}

/// KataGo's input for `state` with `to_move` to play.
pub fn input(state: &LocalState, to_move: Color) -> Features {
    let mut game = state.game.clone();
    game.set_to_move(to_move);
    encode(&game)
}
