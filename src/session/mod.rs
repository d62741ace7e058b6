//! Session recording and replay. Every action the workbench consumes (keys, resizes, clock ticks, the book
//! as loaded, configuration files, job events) is written with its time to a MessagePack file in the data
//! directory; replaying feeds the same actions to a fresh app, so it draws the same frames.
//!
//! File format (version 1): the 8 bytes `TENGENSS`, a little-endian `u32` version, then back-to-back
//! MessagePack values `[at_ms, action]` (rmp-serde's compact form). Each record is flushed as it is written,
//! so a session that ends abruptly is readable up to its last whole record.

pub mod replay;

use crate::tui::action::Action;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"TENGENSS";
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Milliseconds since the session started.
    pub at_ms: u64,
    pub action: Action,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error(
        "{file} is not a tengen session recording (sessions are in the data directory's `sessions/`)"
    )]
    NotASession { file: String },
    #[error("{file} is a session of format {found}; this tengen reads format {VERSION}")]
    Version { file: String, found: u32 },
    #[error("{file}: record {index} cannot be decoded: {detail}")]
    Corrupt {
        file: String,
        index: usize,
        detail: String,
    },
    #[error("cannot encode an action: {0}")]
    Encode(String),
}

/// Writes a session as it happens.
pub struct Recorder {
    path: PathBuf,
    out: BufWriter<File>,
}

impl Recorder {
    /// Creates `sessions/session-<unix seconds>-<pid>.tengen-session` under `dir` (creating the directory).
    pub fn create_in(dir: &Path) -> Result<Recorder, SessionError> {
        let io = |source| SessionError::Io {
            file: dir.display().to_string(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let path = dir.join(format!(
            "session-{secs}-{}.tengen-session",
            std::process::id()
        ));
        Recorder::create(&path)
    }

    pub fn create(path: &Path) -> Result<Recorder, SessionError> {
        let io = |source| SessionError::Io {
            file: path.display().to_string(),
            source,
        };
        let mut out = BufWriter::new(File::create(path).map_err(io)?);
        out.write_all(MAGIC).map_err(io)?;
        out.write_all(&VERSION.to_le_bytes()).map_err(io)?;
        out.flush().map_err(io)?;
        Ok(Recorder {
            path: path.to_path_buf(),
            out,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn record(&mut self, at_ms: u64, action: &Action) -> Result<(), SessionError> {
        rmp_serde::encode::write(&mut self.out, &(at_ms, action))
            .map_err(|e| SessionError::Encode(e.to_string()))?;
        self.out.flush().map_err(|source| SessionError::Io {
            file: self.path.display().to_string(),
            source,
        })
    }
}

/// Reads a recording. A record cut off at the end (the program was killed while writing) is dropped.
pub fn read(path: &Path) -> Result<Vec<Record>, SessionError> {
    let file = path.display().to_string();
    let mut input = BufReader::new(File::open(path).map_err(|source| SessionError::Io {
        file: file.clone(),
        source,
    })?);
    let mut header = [0u8; 12];
    if input.read_exact(&mut header).is_err() || &header[..8] != MAGIC {
        return Err(SessionError::NotASession { file });
    }
    let found = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    if found != VERSION {
        return Err(SessionError::Version { file, found });
    }
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|source| SessionError::Io {
            file: file.clone(),
            source,
        })?;
    let mut records = Vec::new();
    let mut cursor = std::io::Cursor::new(&bytes[..]);
    while (cursor.position() as usize) < bytes.len() {
        let start = cursor.position();
        let mut de = rmp_serde::Deserializer::new(&mut cursor);
        match <(u64, Action)>::deserialize(&mut de) {
            Ok((at_ms, action)) => records.push(Record { at_ms, action }),
            Err(
                rmp_serde::decode::Error::InvalidMarkerRead(_)
                | rmp_serde::decode::Error::InvalidDataRead(_),
            ) => {
                // A torn last record: everything before it is good.
                let _ = start;
                break;
            }
            Err(e) => {
                return Err(SessionError::Corrupt {
                    file,
                    index: records.len(),
                    detail: e.to_string(),
                });
            }
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Key;

    #[test]
    fn records_round_trip_and_a_torn_tail_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.tengen-session");
        let mut rec = Recorder::create(&path).unwrap();
        let actions = [
            Action::Resize {
                width: 80,
                height: 24,
            },
            Action::Key(Key("j".into())),
            Action::Tick { now_ms: 1500 },
            Action::Notice {
                text: "hello".into(),
                is_error: false,
            },
        ];
        for (i, a) in actions.iter().enumerate() {
            rec.record(i as u64 * 10, a).unwrap();
        }
        drop(rec);
        let back = read(&path).unwrap();
        assert_eq!(
            back.iter().map(|r| r.action.clone()).collect::<Vec<_>>(),
            actions
        );
        assert_eq!(back[3].at_ms, 30);
        let mut bytes = std::fs::read(&path).unwrap();
        let len = bytes.len();
        bytes.truncate(len - 3);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read(&path).unwrap().len(), 3);
        std::fs::write(&path, b"not a session").unwrap();
        assert!(matches!(read(&path), Err(SessionError::NotASession { .. })));
    }
}
