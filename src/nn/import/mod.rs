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

/// Reads a KataGo model file and writes the ONNX graph to `output`.
pub fn import(input: &Path, output: &Path) -> Result<ImportSummary, ImportError> {
    let model = KataModel::read(input)?;
    let bytes = graph::build(&model);
    std::fs::write(output, &bytes).map_err(|reason| ImportError::Write {
        path: output.to_path_buf(),
        reason,
    })?;
    Ok(ImportSummary {
        name: model.name.clone(),
        version: model.version,
        blocks: model.trunk.blocks.len(),
        trunk_channels: model.trunk.trunk_channels,
        parameters: model.parameter_count(),
        onnx_bytes: bytes.len(),
    })
}
