//! The networks of an analyzer, opened on first use, and where they are looked for when no path is given.

use super::proposer::{KataGoNet, LocalMoveNet, ProposerError};
use crate::endgame::types::{AnalysisError, ModelPaths};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Where networks are looked for when no path is given.
pub const LOCAL_MOVE_ENV: &str = "TENGEN_LOCAL_MOVE_MODEL";
pub const OWNERSHIP_ENV: &str = "TENGEN_OWNERSHIP_MODEL";

type Opened<T> = OnceLock<Result<Arc<T>, (PathBuf, String)>>;

/// The networks of an analyzer, opened on first use.
pub struct Networks {
    paths: ModelPaths,
    katago: Opened<KataGoNet>,
    local: Opened<LocalMoveNet>,
    /// Sessions opened so far (each network at most once).
    opens: AtomicUsize,
}

impl Networks {
    pub fn new(paths: ModelPaths) -> Networks {
        Networks {
            paths,
            katago: OnceLock::new(),
            local: OnceLock::new(),
            opens: AtomicUsize::new(0),
        }
    }

    /// How many network sessions this analyzer has opened.
    pub fn opened(&self) -> usize {
        self.opens.load(Ordering::Relaxed)
    }

    pub fn katago(&self) -> Result<Arc<KataGoNet>, AnalysisError> {
        let what = "ownership (KataGo)";
        let path = self
            .paths
            .ownership
            .clone()
            .or_else(default_ownership_model)
            .ok_or_else(|| AnalysisError::NoModel {
                what,
                hint: format!(
                    "give --ownership-model PATH (a KataGo .bin.gz or imported .onnx) or set {OWNERSHIP_ENV}"
                ),
            })?;
        opened(&self.katago, &self.opens, what, &path, KataGoNet::open)
    }

    pub fn local(&self) -> Result<Arc<LocalMoveNet>, AnalysisError> {
        let what = "local-move";
        let path = self
            .paths
            .local_move
            .clone()
            .or_else(default_local_model)
            .ok_or_else(|| AnalysisError::NoModel {
                what,
                hint: format!(
                    "give --model PATH (models/local-move-head.onnx) or set {LOCAL_MOVE_ENV}"
                ),
            })?;
        opened(&self.local, &self.opens, what, &path, LocalMoveNet::open)
    }
}

fn opened<T>(
    cell: &Opened<T>,
    opens: &AtomicUsize,
    what: &'static str,
    path: &Path,
    open: impl FnOnce(&Path) -> Result<T, ProposerError>,
) -> Result<Arc<T>, AnalysisError> {
    cell.get_or_init(|| {
        let net = open(path).map_err(|e| (path.to_path_buf(), e.to_string()))?;
        opens.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(net))
    })
    .clone()
    .map_err(|(path, detail)| AnalysisError::Model { what, path, detail })
}

/// `$TENGEN_LOCAL_MOVE_MODEL`, else `models/local-move-head.onnx` here or in the source tree.
fn default_local_model() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(LOCAL_MOVE_ENV) {
        return Some(PathBuf::from(p));
    }
    [
        PathBuf::from("models/local-move-head.onnx"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/local-move-head.onnx"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// `$TENGEN_OWNERSHIP_MODEL`, else the first KataGo model (`.bin.gz`) in `models/` here, in the source
/// tree's shipped `models/`, or in the data directory's `models/`.
fn default_ownership_model() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(OWNERSHIP_ENV) {
        return Some(PathBuf::from(p));
    }
    let mut dirs = vec![
        PathBuf::from("models"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models"),
    ];
    dirs.extend(crate::nn::shipped::data_dir().map(|d| d.join("models")));
    dirs.iter().find_map(|dir| {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".bin.gz"))
            .collect();
        found.sort();
        found.into_iter().next()
    })
}
