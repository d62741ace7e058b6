//! The header both files of a book start with: magic, format version, kind, generation and, from format 3
//! on, a CRC-32 of the header itself.
//!
//! Formats 1 and 2 had a 24-byte header without a checksum, so a flipped generation or kind byte read as
//! a different, plausible header (and a log of "another generation" was then dropped). Format 3 adds 8
//! bytes: 4 reserved (zero) and the CRC-32 of bytes 0..28. Layout: `docs/book-format.md`.

use super::{FORMAT_VERSION, MAGIC, OLDEST_FORMAT_VERSION, StoreError};
use std::path::Path;

/// The header's length in the format written (3).
pub(crate) const HEADER_LEN: usize = 32;
/// The header's length in formats 1 and 2.
pub(crate) const HEADER_LEN_V2: usize = 24;
/// Where the generation is (in every format).
pub(crate) const GENERATION_AT: usize = 16;

/// A header as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub version: u32,
    pub kind: u32,
    pub generation: u64,
    /// Its length in bytes (where the file's contents start).
    pub len: usize,
}

/// The header's length for a format version.
pub(crate) fn header_len(version: u32) -> usize {
    if version >= 3 {
        HEADER_LEN
    } else {
        HEADER_LEN_V2
    }
}

/// A format-3 header.
pub(crate) fn header(kind: u32, generation: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&kind.to_le_bytes());
    h[16..24].copy_from_slice(&generation.to_le_bytes());
    let crc = crc32fast::hash(&h[..28]);
    h[28..32].copy_from_slice(&crc.to_le_bytes());
    h
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The magic and the version: the part of a header read before its length is known.
fn magic_and_version(bytes: &[u8], path: &Path) -> Result<u32, StoreError> {
    let file = path.display().to_string();
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(StoreError::NotABook { file });
    }
    let version = word(bytes, 8);
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(StoreError::Version {
            file,
            found: version,
        });
    }
    Ok(version)
}

/// Reads and checks a header from the start of `bytes` (which may hold more than the header).
pub(crate) fn read_header(bytes: &[u8], path: &Path) -> Result<Header, StoreError> {
    let version = magic_and_version(bytes, path)?;
    let len = header_len(version);
    let corrupt = |offset: usize, detail: String| StoreError::Corrupt {
        file: path.display().to_string(),
        offset: offset as u64,
        detail,
    };
    if bytes.len() < len {
        return Err(corrupt(
            bytes.len(),
            format!("the {len}-byte header is cut short"),
        ));
    }
    if version >= 3 {
        let stored = word(bytes, 28);
        if crc32fast::hash(&bytes[..28]) != stored {
            return Err(corrupt(
                0,
                "the header (bytes 0..32: version, kind, generation) fails its checksum".into(),
            ));
        }
    }
    let mut g = [0u8; 8];
    g.copy_from_slice(&bytes[GENERATION_AT..GENERATION_AT + 8]);
    Ok(Header {
        version,
        kind: word(bytes, 12),
        generation: u64::from_le_bytes(g),
        len,
    })
}

/// What a header says when it cannot be trusted (for repairs): its fields as they stand, when the magic
/// and the version are readable (the contents then start after that version's header), and why the
/// header fails its checks, if it does. `Err` when not even the magic and the version can be read.
pub(crate) fn read_header_leniently(
    bytes: &[u8],
    path: &Path,
) -> Result<(Header, Option<String>), StoreError> {
    match read_header(bytes, path) {
        Ok(h) => Ok((h, None)),
        Err(e) => {
            let version = magic_and_version(bytes, path)?;
            let len = header_len(version);
            if bytes.len() < len {
                return Err(e);
            }
            let mut g = [0u8; 8];
            g.copy_from_slice(&bytes[GENERATION_AT..GENERATION_AT + 8]);
            let h = Header {
                version,
                kind: word(bytes, 12),
                generation: u64::from_le_bytes(g),
                len,
            };
            Ok((h, Some(e.to_string())))
        }
    }
}
