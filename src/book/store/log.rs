//! Reading framed records (`length | CRC-32 | MessagePack payload`), telling a torn tail from damage.
//!
//! A write interrupted by a crash can only leave its *last* record bad: cut short, or complete in length
//! but with bytes that were never written (zeros, or whatever the disk held). A bad record with a valid
//! record anywhere after it cannot come from an interrupted append: it is damage, and cutting there would
//! throw away every good record after it. So at a bad record the reader looks for the next valid record
//! (any offset where a length, a matching checksum and a decodable payload line up; a chance match is a
//! 1 in 2³² coincidence): found, the file is corrupt at the bad record's offset; not found, the bad bytes
//! are a torn tail.

use super::{MAX_RECORD, Record};

/// How a file of records ends.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ending {
    /// The last record ends at the end of the file.
    Clean,
    /// From `at` to the end of the file: a torn final record, for `reason`.
    Torn { at: usize, reason: String },
}

/// Why reading stopped before the end.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Damage {
    /// The offset of the bad record.
    pub at: usize,
    pub detail: String,
}

/// The record framed at `at`, and where the next one starts; or why there is none.
pub(crate) fn record_at(bytes: &[u8], at: usize) -> Result<(Record, usize), String> {
    let rest = bytes.len().saturating_sub(at);
    if rest < 8 {
        return Err(format!("a record header of {rest} bytes is cut short"));
    }
    let w = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let (len, crc) = (w(at), w(at + 4));
    if len == 0 {
        return Err("a record of length 0".into());
    }
    if len > MAX_RECORD || rest - 8 < len as usize {
        return Err(format!(
            "a record of {len} bytes runs past the end of the file ({} bytes follow)",
            rest - 8
        ));
    }
    let payload = &bytes[at + 8..at + 8 + len as usize];
    if crc32fast::hash(payload) != crc {
        return Err("a record fails its checksum".into());
    }
    match rmp_serde::from_slice::<Record>(payload) {
        Ok(r) => Ok((r, at + 8 + len as usize)),
        Err(e) => Err(format!("a record does not decode: {e}")),
    }
}

/// The first offset from `from` on where a valid record starts, if any.
pub(crate) fn next_valid_record(bytes: &[u8], from: usize) -> Option<usize> {
    let last = bytes.len().checked_sub(9)?;
    (from..=last).find(|&p| {
        let len = u32::from_le_bytes([bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]]) as usize;
        // The cheap tests first: most offsets claim a length that does not fit.
        len != 0 && len <= bytes.len() - p - 8 && record_at(bytes, p).is_ok()
    })
}

/// Decodes the records from `start` on, handing each (with its offset) to `each`, which may refuse one.
/// Returns how many were read and how the file ends; a bad record that a valid one follows, or a record
/// that `each` refuses, is [`Damage`].
pub(crate) fn read_records(
    bytes: &[u8],
    start: usize,
    mut each: impl FnMut(usize, Record) -> Result<(), String>,
) -> Result<(usize, Ending), Damage> {
    let mut count = 0;
    let mut at = start;
    while at < bytes.len() {
        match record_at(bytes, at) {
            Ok((record, next)) => {
                each(at, record).map_err(|detail| Damage {
                    at,
                    detail: format!("record {} ({detail})", count + 1),
                })?;
                count += 1;
                at = next;
            }
            Err(reason) => {
                return match next_valid_record(bytes, at + 1) {
                    Some(p) => Err(Damage {
                        at,
                        detail: format!(
                            "record {}: {reason}, and a valid record follows at byte {p}, so this \
                             is damage, not an interrupted write",
                            count + 1
                        ),
                    }),
                    None => Ok((count, Ending::Torn { at, reason })),
                };
            }
        }
    }
    Ok((count, Ending::Clean))
}
