//! Who an engine is: its kind, the program it runs, the network it evaluates with (a name and a hash of
//! the file) and whether proven game ends override its values. A book records this for everything an
//! expansion adds (`book::provenance`), so it can tell which engine grew which part and undo one.
//!
//! Two identities *agree* when they judge positions the same way: the same network (by hash, or by name
//! where a hash could not be taken), or, without a network, the same kind of engine running the same
//! program. Whether proven endings override the values does not matter (they only correct what the
//! network or the playouts got wrong), and a pool of an engine is that engine.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// The kinds of sources a book's values and moves can come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EngineKind {
    /// Written before books recorded their engines (formats 1 and 2).
    Unknown,
    /// tengen's PUCT search with a network through ONNX Runtime (`onnx`, `onnx:MODEL`).
    Onnx,
    /// Light playouts (`rollout`).
    Rollout,
    /// KataGo: its analysis engine, or a `.katabook` it grew.
    KataGo,
    /// A GTP engine (`gtp:COMMAND`).
    Gtp,
    /// Moves traced from game records (`book import-sgf`), not chosen by any search.
    Records,
}

impl EngineKind {
    pub fn label(self) -> &'static str {
        match self {
            EngineKind::Unknown => "unknown",
            EngineKind::Onnx => "onnx",
            EngineKind::Rollout => "rollout",
            EngineKind::KataGo => "katago",
            EngineKind::Gtp => "gtp",
            EngineKind::Records => "records",
        }
    }
}

/// A network: its short name and a 64-bit FNV-1a hash of its file (`None` when the file could not be
/// read, e.g. a KataGo on another machine).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Network {
    pub name: String,
    pub hash: Option<u64>,
}

impl Network {
    /// The network built into tengen.
    pub fn shipped() -> Network {
        Network {
            name: crate::nn::shipped::NAME.to_string(),
            hash: Some(crate::nn::shipped::hash()),
        }
    }

    /// The network in `path`, hashed; the shipped network's bytes get the shipped network's name.
    pub fn of_file(path: &Path) -> Network {
        let hash = std::fs::read(path)
            .ok()
            .map(|b| crate::nn::shipped::network_hash(&b));
        if hash == Some(crate::nn::shipped::hash()) {
            return Network::shipped();
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = [".gz", ".bin", ".txt", ".onnx"]
            .iter()
            .fold(name, |n, ext| n.trim_end_matches(ext).to_string());
        Network { name, hash }
    }

    fn agrees_with(&self, other: &Network) -> bool {
        match (self.hash, other.hash) {
            (Some(a), Some(b)) => a == b,
            _ => self.name == other.name,
        }
    }
}

/// An engine's identity, as recorded in books.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EngineId {
    pub kind: EngineKind,
    /// The program a process engine runs (`gnugo`, `katago`); empty for tengen's own engines.
    pub program: String,
    pub network: Option<Network>,
    /// Proven game ends replace the search's values (`exact:SPEC`; `rollout` always).
    pub exact: bool,
}

impl EngineId {
    pub fn new(kind: EngineKind) -> EngineId {
        EngineId {
            kind,
            program: String::new(),
            network: None,
            exact: false,
        }
    }

    /// The source of everything in a book written before books recorded their engines.
    pub fn unknown() -> EngineId {
        EngineId::new(EngineKind::Unknown)
    }

    pub fn onnx(network: Network) -> EngineId {
        EngineId {
            network: Some(network),
            ..EngineId::new(EngineKind::Onnx)
        }
    }

    /// A process engine: the program is the command's file name (`/usr/games/gnugo` → `gnugo`).
    pub fn program(kind: EngineKind, command: &str, network: Option<Network>) -> EngineId {
        let program = Path::new(command)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| command.to_string());
        EngineId {
            kind,
            program,
            network,
            exact: false,
        }
    }

    /// The same engine with proven game ends overriding its values.
    pub fn with_exact(mut self) -> EngineId {
        self.exact = true;
        self
    }

    pub fn is_unknown(&self) -> bool {
        self.kind == EngineKind::Unknown
    }

    /// Whether both judge positions the same way (see the module's documentation).
    pub fn agrees_with(&self, other: &EngineId) -> bool {
        match (&self.network, &other.network) {
            (Some(a), Some(b)) => a.agrees_with(b),
            (None, None) => self.kind == other.kind && self.program == other.program,
            _ => false,
        }
    }

    /// Whether this is the engine `wanted` names: the same kind and program, and the same network when
    /// `wanted` names one (the `exact` flag is not compared).
    pub fn matches(&self, wanted: &EngineId) -> bool {
        self.kind == wanted.kind
            && (wanted.program.is_empty() || self.program == wanted.program)
            && match (&wanted.network, &self.network) {
                (None, _) => true,
                (Some(w), Some(s)) => w.agrees_with(s),
                (Some(_), None) => false,
            }
    }
}

impl fmt::Display for EngineId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.label())?;
        if !self.program.is_empty() && self.program != self.kind.label() {
            write!(f, " {}", self.program)?;
        }
        if let Some(n) = &self.network {
            write!(f, " {}", n.name)?;
            if let Some(h) = n.hash {
                write!(f, " #{:08x}", h >> 32)?;
            }
        }
        if self.exact && self.kind != EngineKind::Rollout {
            f.write_str(" (exact endings)")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_agree_by_network_or_by_program() {
        let shipped = EngineId::onnx(Network::shipped());
        let kata = EngineId::program(EngineKind::KataGo, "/opt/katago", Some(Network::shipped()));
        assert!(
            shipped.agrees_with(&kata),
            "the same network searched twice"
        );
        let rollout = EngineId::new(EngineKind::Rollout).with_exact();
        assert!(!shipped.agrees_with(&rollout) && !rollout.agrees_with(&shipped));
        let other = EngineId::onnx(Network {
            name: "b18".into(),
            hash: Some(1),
        });
        assert!(!other.agrees_with(&shipped));
        let gnugo = EngineId::program(EngineKind::Gtp, "/usr/games/gnugo", None);
        assert_eq!(gnugo.program, "gnugo");
        assert!(gnugo.agrees_with(&EngineId::program(EngineKind::Gtp, "gnugo", None)));
        assert!(!gnugo.agrees_with(&EngineId::program(EngineKind::Gtp, "leela", None)));
        assert!(rollout.matches(&EngineId::new(EngineKind::Rollout)));
        assert!(!shipped.matches(&EngineId::new(EngineKind::Rollout)));
        assert!(shipped.matches(&EngineId::new(EngineKind::Onnx)));
        assert!(!other.matches(&shipped));
        assert_eq!(rollout.to_string(), "rollout");
        assert!(shipped.to_string().starts_with("onnx g170-b6c96 #"));
    }

    #[test]
    fn a_network_file_is_known_by_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("copy.bin.gz");
        std::fs::write(&path, crate::nn::shipped::bytes()).unwrap();
        assert_eq!(Network::of_file(&path), Network::shipped());
        std::fs::write(&path, b"not a network").unwrap();
        let other = Network::of_file(&path);
        assert_eq!(other.name, "copy");
        assert!(other.hash.is_some() && other.hash != Network::shipped().hash);
        assert_eq!(
            Network::of_file(&dir.path().join("missing.onnx")).hash,
            None
        );
    }
}
