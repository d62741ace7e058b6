//! The network built into the binary (`models/g170-b6c96.md`): KataGo's g170 b6c96, the default network of
//! every command that grows or analyses a book. It is part of the binary so that a fresh clone's
//! `cargo run --release` needs no download and no path; its ONNX form is imported once into tengen's data
//! directory under a name that carries a hash of the bytes, so a changed network is imported again instead
//! of being read from a stale cache.

use super::import::{ImportError, KataModel, graph};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The network's short name, as status lines and file names show it.
pub const NAME: &str = "g170-b6c96";
/// The file in `models/` it was built from.
pub const FILE: &str = "g170-b6c96-s175395328-d26788732.bin.gz";

static BYTES: &[u8] = include_bytes!("../../models/g170-b6c96-s175395328-d26788732.bin.gz");

/// The KataGo model file's bytes, as shipped.
pub fn bytes() -> &'static [u8] {
    BYTES
}

/// A 64-bit FNV-1a hash of a network file's bytes: enough to tell networks apart, not a security check.
pub fn network_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The hash of the shipped network, computed once.
pub fn hash() -> u64 {
    static HASH: OnceLock<u64> = OnceLock::new();
    *HASH.get_or_init(|| network_hash(BYTES))
}

/// tengen's data directory: `TENGEN_DATA` when set, else the platform's (`~/.local/share/tengen`).
pub fn data_dir() -> Option<PathBuf> {
    std::env::var_os("TENGEN_DATA")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            directories::ProjectDirs::from("", "", "tengen").map(|d| d.data_dir().to_path_buf())
        })
}

/// The ONNX file of the shipped network in `dir`, imported there first if it is missing.
pub fn onnx_in(dir: &Path) -> Result<PathBuf, ImportError> {
    let output = dir.join(format!("{NAME}-{:016x}.onnx", hash()));
    if output.is_file() {
        return Ok(output);
    }
    std::fs::create_dir_all(dir).map_err(|reason| ImportError::Write {
        path: dir.to_path_buf(),
        reason,
    })?;
    let model = KataModel::from_bytes(BYTES, Path::new(FILE))?;
    super::import::write_atomically(&output, &graph::build(&model))?;
    Ok(output)
}

/// The ONNX file of the shipped network in the data directory (`models/`), or in the system's temporary
/// directory when there is no home directory.
pub fn onnx_path() -> Result<PathBuf, ImportError> {
    let dir = data_dir()
        .map(|d| d.join("models"))
        .unwrap_or_else(|| std::env::temp_dir().join("tengen-models"));
    onnx_in(&dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_network_imports_once_under_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = onnx_in(dir.path()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("g170-b6c96-") && name.ends_with(".onnx"),
            "{name}"
        );
        assert!(name.contains(&format!("{:016x}", network_hash(bytes()))));
        let made = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 1_000_000);
        // The second call finds the cached file and leaves it alone.
        assert_eq!(onnx_in(dir.path()).unwrap(), path);
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), made);
        // No temporary file is left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn the_hash_tells_networks_apart() {
        let mut changed = bytes().to_vec();
        let last = changed.len() - 1;
        changed[last] ^= 1;
        assert_ne!(network_hash(&changed), hash());
        assert_eq!(network_hash(bytes()), hash());
    }
}
