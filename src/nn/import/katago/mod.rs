//! Reader for KataGo's `.bin.gz` network files (model version 8: the g170 and most 2020-2021 nets).
//!
//! The file is gzip over a stream of whitespace-separated ASCII tokens (names and shapes) interleaved
//! with raw little-endian f32 blocks introduced by `@BIN@`. The layer grammar follows the order KataGo
//! writes: header, trunk, policy head, value head. Every record keeps its file name so that errors and
//! the generated ONNX graph can point at it.

use flate2::read::GzDecoder;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Model versions this reader understands, with the feature set they consume.
pub const SUPPORTED_VERSIONS: &[u32] = &[8];

/// The most an inflated model file may hold (the largest KataGo networks inflate to about a third of it).
pub const MAX_INFLATED: usize = 1 << 30;
/// The largest convolution kernel accepted (KataGo's are 1, 3 and 5 wide).
const MAX_KERNEL: usize = 19;

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("cannot read {path}: {reason}")]
    Io {
        path: PathBuf,
        reason: std::io::Error,
    },
    #[error(
        "{path}: model version {version} is not supported yet (tengen reads versions {supported:?}; \
         convert an older g170/kata1 net or open an issue with the file name)"
    )]
    UnsupportedVersion {
        path: PathBuf,
        version: u32,
        supported: &'static [u32],
    },
    #[error("{path}: at byte {offset}: {message}")]
    Format {
        path: PathBuf,
        offset: usize,
        message: String,
    },
}

/// A convolution, weights already in ONNX's OIHW order.
#[derive(Debug, Clone)]
pub struct Conv {
    pub name: String,
    pub kernel_y: usize,
    pub kernel_x: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    pub dilation_y: usize,
    pub dilation_x: usize,
    pub weights_oihw: Vec<f32>,
}

/// A batch norm folded into a per-channel affine map `x * scale + bias`.
#[derive(Debug, Clone)]
pub struct Affine {
    pub name: String,
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
    /// Learned values in the file (scale and/or bias; the running statistics are not learned).
    pub learned_parameters: usize,
}

/// A dense layer `y = x · W`, `W` stored `[in][out]` (out fastest), as ONNX `MatMul` wants it.
#[derive(Debug, Clone)]
pub struct MatMul {
    pub name: String,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

#[derive(Debug, Clone)]
pub struct Bias {
    pub name: String,
    pub values: Vec<f32>,
}

/// A residual block. Few per network, so the size difference between the kinds does not matter.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Block {
    Ordinary {
        name: String,
        pre_norm: Affine,
        regular_conv: Conv,
        mid_norm: Affine,
        final_conv: Conv,
    },
    GlobalPooling {
        name: String,
        pre_norm: Affine,
        regular_conv: Conv,
        gpool_conv: Conv,
        gpool_norm: Affine,
        gpool_to_bias: MatMul,
        mid_norm: Affine,
        final_conv: Conv,
    },
}

#[derive(Debug, Clone)]
pub struct Trunk {
    pub trunk_channels: usize,
    pub initial_conv: Conv,
    pub global_input: MatMul,
    pub blocks: Vec<Block>,
    pub tip_norm: Affine,
}

#[derive(Debug, Clone)]
pub struct PolicyHead {
    pub p1_conv: Conv,
    pub g1_conv: Conv,
    pub g1_norm: Affine,
    pub gpool_to_bias: MatMul,
    pub p1_norm: Affine,
    pub p2_conv: Conv,
    pub gpool_to_pass: MatMul,
}

#[derive(Debug, Clone)]
pub struct ValueHead {
    pub v1_conv: Conv,
    pub v1_norm: Affine,
    pub v2_mul: MatMul,
    pub v2_bias: Bias,
    pub v3_mul: MatMul,
    pub v3_bias: Bias,
    pub score_mul: MatMul,
    pub score_bias: Bias,
    pub ownership_conv: Conv,
}

/// A whole KataGo network as read from its file.
#[derive(Debug, Clone)]
pub struct KataModel {
    pub name: String,
    pub version: u32,
    pub spatial_inputs: usize,
    pub global_inputs: usize,
    pub trunk: Trunk,
    pub policy: PolicyHead,
    pub value: ValueHead,
}

impl KataModel {
    /// Reads a `.bin.gz` (or an already inflated `.bin`) model file.
    pub fn read(path: &Path) -> Result<KataModel, ModelError> {
        let io = |reason| ModelError::Io {
            path: path.to_path_buf(),
            reason,
        };
        let raw = std::fs::read(path).map_err(io)?;
        KataModel::from_bytes(&raw, path)
    }

    /// Reads a model from the bytes of a `.bin.gz` or `.bin` file; `path` names it in errors. The
    /// inflated size is capped ([`MAX_INFLATED`]) and every block's size is checked against what the file
    /// still holds before anything is allocated for it, so a file claiming a billion channels costs
    /// nothing.
    pub fn from_bytes(raw: &[u8], path: &Path) -> Result<KataModel, ModelError> {
        let inflated;
        let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
            let mut out = Vec::with_capacity(raw.len().saturating_mul(2).min(MAX_INFLATED));
            GzDecoder::new(raw)
                .take(MAX_INFLATED as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|reason| ModelError::Io {
                    path: path.to_path_buf(),
                    reason,
                })?;
            if out.len() > MAX_INFLATED {
                return Err(ModelError::Format {
                    path: path.to_path_buf(),
                    offset: 0,
                    message: format!(
                        "the file inflates to more than {} MiB, more than any KataGo network",
                        MAX_INFLATED >> 20
                    ),
                });
            }
            inflated = out;
            &inflated[..]
        } else {
            raw
        };
        let mut reader = Tokens {
            path,
            bytes,
            pos: 0,
        };
        let model = reader.model()?;
        reader.expect_end()?;
        Ok(model)
    }

    /// Number of learned parameters, counted as KataGo counts them (BN statistics excluded).
    pub fn parameter_count(&self) -> usize {
        let conv = |c: &Conv| c.weights_oihw.len();
        let aff = |a: &Affine| a.learned_parameters;
        let mm = |m: &MatMul| m.weights.len();
        let mut n = conv(&self.trunk.initial_conv)
            + mm(&self.trunk.global_input)
            + aff(&self.trunk.tip_norm);
        for block in &self.trunk.blocks {
            n += match block {
                Block::Ordinary {
                    pre_norm,
                    regular_conv,
                    mid_norm,
                    final_conv,
                    ..
                } => aff(pre_norm) + conv(regular_conv) + aff(mid_norm) + conv(final_conv),
                Block::GlobalPooling {
                    pre_norm,
                    regular_conv,
                    gpool_conv,
                    gpool_norm,
                    gpool_to_bias,
                    mid_norm,
                    final_conv,
                    ..
                } => {
                    aff(pre_norm)
                        + conv(regular_conv)
                        + conv(gpool_conv)
                        + aff(gpool_norm)
                        + mm(gpool_to_bias)
                        + aff(mid_norm)
                        + conv(final_conv)
                }
            };
        }
        let p = &self.policy;
        n += conv(&p.p1_conv)
            + conv(&p.g1_conv)
            + aff(&p.g1_norm)
            + mm(&p.gpool_to_bias)
            + aff(&p.p1_norm)
            + conv(&p.p2_conv)
            + mm(&p.gpool_to_pass);
        let v = &self.value;
        n += conv(&v.v1_conv)
            + aff(&v.v1_norm)
            + mm(&v.v2_mul)
            + v.v2_bias.values.len()
            + mm(&v.v3_mul)
            + v.v3_bias.values.len()
            + mm(&v.score_mul)
            + v.score_bias.values.len()
            + conv(&v.ownership_conv);
        n
    }
}

mod reader;
use reader::Tokens;

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/models/g170-b6c96-s175395328-d26788732.bin.gz"
    );

    #[test]
    fn reads_the_shared_b6c96_to_its_end() {
        let model = KataModel::read(Path::new(MODEL)).unwrap();
        assert_eq!(model.name, "g170-b6c96-s175395328-d26788732");
        assert_eq!(model.version, 8);
        assert_eq!(model.trunk.blocks.len(), 6);
        assert!(matches!(model.trunk.blocks[2], Block::GlobalPooling { .. }));
        assert_eq!(model.parameter_count(), 1_027_911);
    }

    #[test]
    fn names_unsupported_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v14.bin");
        std::fs::write(&path, b"somenet\n14\n22\n19\n").unwrap();
        let err = KataModel::read(&path).unwrap_err().to_string();
        assert!(err.contains("model version 14 is not supported"), "{err}");
    }
}
