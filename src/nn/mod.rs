//! Neural networks: ONNX Runtime sessions (CPU, or CUDA behind a switch), KataGo's input features, the
//! KataGo `.bin.gz` → ONNX importer, the network built into the binary ([`shipped`]) and the batching
//! evaluator that every search shares.
//!
//! Depends only on `go`.

pub mod batcher;
pub mod features;
pub mod import;
pub mod ladder;
pub mod output;
pub mod pass_alive;
pub mod runtime;
pub mod shipped;

pub use batcher::{BatchOptions, Evaluator, Pending};
pub use features::{Features, encode};
pub use output::{NnEval, RawOutput, postprocess};
pub use runtime::{Device, RuntimeError, SessionOptions};
