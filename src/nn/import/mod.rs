//! Importing KataGo networks: read the `.bin.gz` model file and write an equivalent ONNX graph.

pub mod graph;
pub mod katago;
pub mod onnx_proto;

pub use graph::names;
pub use katago::{KataModel, ModelError};

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("cannot write {path}: {reason}")]
    Write {
        path: PathBuf,
        reason: std::io::Error,
    },
}

/// What an import produced, for the command line to report.
#[derive(Debug, Clone)]
pub struct ImportSummary {
    pub name: String,
    pub version: u32,
    pub blocks: usize,
    pub trunk_channels: usize,
    pub parameters: usize,
    pub onnx_bytes: usize,
}

/// The ONNX file for a network path: an `.onnx` path as it is; a KataGo model file imported once into
/// tengen's data directory (`models/NAME.onnx`) and re-imported when the source is newer.
pub fn onnx_for(model: &Path) -> Result<PathBuf, ImportError> {
    if model.extension().is_some_and(|e| e == "onnx") {
        return Ok(model.to_path_buf());
    }
    converted(model, "", graph::build)
}

/// The trunk alone of a KataGo model file (`graph::build_trunk`), imported once into tengen's data
/// directory (`models/NAME-trunk.onnx`) like [`onnx_for`].
pub fn trunk_onnx_for(model: &Path) -> Result<PathBuf, ImportError> {
    converted(model, "-trunk", graph::build_trunk)
}

/// `model` converted by `build` into `models/STEM{suffix}.onnx` of the data directory, unless a
/// conversion newer than the source is already there.
fn converted(
    model: &Path,
    suffix: &str,
    build: fn(&KataModel) -> Vec<u8>,
) -> Result<PathBuf, ImportError> {
    let dirs =
        directories::ProjectDirs::from("", "", "tengen").ok_or_else(|| ImportError::Write {
            path: model.to_path_buf(),
            reason: std::io::Error::other(
                "no home directory for tengen's converted networks; run `tengen model import`",
            ),
        })?;
    let name = model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .trim_end_matches(".gz")
        .trim_end_matches(".bin")
        .trim_end_matches(".txt");
    let out_dir = dirs.data_dir().join("models");
    let output = out_dir.join(format!("{stem}{suffix}.onnx"));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(made), Some(source)) = (modified(&output), modified(model))
        && made >= source
    {
        return Ok(output);
    }
    std::fs::create_dir_all(&out_dir).map_err(|reason| ImportError::Write {
        path: out_dir.clone(),
        reason,
    })?;
    let bytes = build(&KataModel::read(model)?);
    write_atomically(&output, &bytes)?;
    Ok(output)
}

/// Reads a KataGo model file and writes the ONNX graph to `output`.
pub fn import(input: &Path, output: &Path) -> Result<ImportSummary, ImportError> {
    let model = KataModel::read(input)?;
    let bytes = graph::build(&model);
    write_atomically(output, &bytes)?;
    Ok(ImportSummary {
        name: model.name.clone(),
        version: model.version,
        blocks: model.trunk.blocks.len(),
        trunk_channels: model.trunk.trunk_channels,
        parameters: model.parameter_count(),
        onnx_bytes: bytes.len(),
    })
}

/// Writes `bytes` whole or not at all, so that a reader (another tengen starting at the same time) never
/// opens a half-written network.
pub fn write_atomically(output: &Path, bytes: &[u8]) -> Result<(), ImportError> {
    crate::files::write_whole(output, bytes).map_err(|reason| ImportError::Write {
        path: output.to_path_buf(),
        reason,
    })
}
