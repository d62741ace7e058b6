//! Reading a snapshot: sections checked against the file before anything is allocated, fixed-width
//! fields, and the lists (moves, parents) that follow each node.

use super::*;

pub(super) fn tag_name(tag: &[u8]) -> String {
    String::from_utf8_lossy(tag).into_owned()
}

pub(super) fn corrupt(file: &str, offset: usize, detail: String) -> StoreError {
    StoreError::Corrupt {
        file: file.to_string(),
        offset: offset as u64,
        detail,
    }
}

/// Fixed-size little-endian field at `at` of a record (records are sliced to their width beforehand).
pub(super) fn le<const N: usize>(record: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&record[at..at + N]);
    a
}

pub(super) fn f64_at(record: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(le(record, at))
}

pub(super) fn u32_at(record: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(le(record, at))
}

pub(super) fn move_at(record: &[u8], at: usize) -> Move {
    match u16::from_le_bytes(le(record, at)) {
        u16::MAX => Move::Pass,
        code => Move::Play(Point::from_index(code as usize)),
    }
}

/// A section header, checked against the file's length (its payload is not read yet).
pub(super) struct Head {
    pub(super) tag: [u8; 4],
    pub(super) crc: u32,
    pub(super) count: usize,
    pub(super) len: usize,
    /// Where the section header starts in the file.
    pub(super) at: usize,
    /// Where the payload starts.
    pub(super) body: usize,
}

/// Reads a snapshot front to back, section by section, through one reused buffer of about
/// `chunk` bytes.
pub(super) struct Reader<'a, R> {
    pub(super) input: R,
    /// The file offset of the next byte to read.
    pub(super) at: usize,
    /// The file's length when it was opened.
    pub(super) len: usize,
    pub(super) file: &'a str,
    pub(super) buf: Vec<u8>,
    pub(super) chunk: usize,
}

impl<R: Read> Reader<'_, R> {
    pub(super) fn corrupt(&self, offset: usize, detail: String) -> StoreError {
        corrupt(self.file, offset, detail)
    }

    /// Reads the next `n` bytes into `buf[..n]`. A file that ends early (it shrank while being read) is
    /// cut short at the section starting at `section_at`.
    pub(super) fn fill(
        &mut self,
        n: usize,
        section_at: usize,
        name: &str,
    ) -> Result<(), StoreError> {
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        match self.input.read_exact(&mut self.buf[..n]) {
            Ok(()) => {
                self.at += n;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(self.corrupt(
                section_at,
                format!("the file ends inside the {name} section (it is cut short)"),
            )),
            Err(source) => Err(StoreError::Io {
                file: self.file.to_string(),
                source,
            }),
        }
    }

    /// The next section's header, which must be `tag`'s. Its length is checked against what the file
    /// holds and against its record count before anything is allocated for it.
    pub(super) fn head(
        &mut self,
        (tag, width): ([u8; 4], Option<usize>),
    ) -> Result<Head, StoreError> {
        let name = tag_name(&tag);
        let at = self.at;
        if self.len - at < SECTION_HEADER {
            return Err(self.corrupt(
                at,
                format!("the file ends where the {name} section should start (it is cut short)"),
            ));
        }
        self.fill(SECTION_HEADER, at, &name)?;
        let h = &self.buf[..SECTION_HEADER];
        if h[..4] != tag {
            let found = tag_name(&h[..4]);
            return Err(self.corrupt(at, format!("expected the {name} section, found `{found}`")));
        }
        let crc = u32_at(h, 4);
        let count = u64::from_le_bytes(le(h, 8));
        let len = u64::from_le_bytes(le(h, 16));
        let body = at + SECTION_HEADER;
        let available = (self.len - body) as u64;
        if len > available {
            return Err(self.corrupt(
                at,
                format!(
                    "the {name} section claims {len} bytes but only {available} follow (the file is cut short)"
                ),
            ));
        }
        let consistent = match width {
            Some(w) => count.checked_mul(w as u64) == Some(len),
            None => count == 1,
        };
        if !consistent {
            return Err(self.corrupt(
                at,
                format!("the {name} section claims {count} records in {len} bytes"),
            ));
        }
        Ok(Head {
            tag,
            crc,
            // Both bounded by the file's length, so they fit.
            count: count as usize,
            len: len as usize,
            at,
            body,
        })
    }

    pub(super) fn checksum_failure(&self, head: &Head) -> StoreError {
        let name = tag_name(&head.tag);
        self.corrupt(head.body, format!("the {name} section fails its checksum"))
    }

    /// A whole payload (for the one-value META section), checksummed.
    pub(super) fn payload(&mut self, head: &Head) -> Result<Vec<u8>, StoreError> {
        self.fill(head.len, head.at, &tag_name(&head.tag))?;
        let payload = &self.buf[..head.len];
        if crc32fast::hash(payload) != head.crc {
            return Err(self.checksum_failure(head));
        }
        Ok(payload.to_vec())
    }

    /// Streams a section's records through `each` (record index, record, its file offset), checking
    /// the checksum on the way. An error from `each` stops the decoding but is reported only once the
    /// checksum has passed: a flipped bit is a checksum failure, not whatever nonsense it decodes to.
    /// (What was built from a section that then fails is dropped with the half-built book.)
    pub(super) fn records(
        &mut self,
        head: &Head,
        width: usize,
        mut each: impl FnMut(usize, &[u8], usize) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let name = tag_name(&head.tag);
        let per_chunk = (self.chunk / width).max(1) * width;
        let mut crc = crc32fast::Hasher::new();
        let mut problem = None;
        let mut done = 0;
        while done < head.len {
            let n = per_chunk.min(head.len - done);
            self.fill(n, head.at, &name)?;
            let chunk = &self.buf[..n];
            crc.update(chunk);
            if problem.is_none() {
                let first = done / width;
                for (k, record) in chunk.chunks_exact(width).enumerate() {
                    if let Err(e) = each(first + k, record, head.body + done + k * width) {
                        problem = Some(e);
                        break;
                    }
                }
            }
            done += n;
        }
        if crc.finalize() != head.crc {
            return Err(self.checksum_failure(head));
        }
        problem.map_or(Ok(()), Err)
    }
}

/// Deals a section's records out to the nodes in id order: node i gets the next `counts[i]` of them.
pub(super) struct Lists<'c, T> {
    pub(super) counts: &'c [u32],
    pub(super) node: usize,
    pub(super) list: Vec<T>,
}

impl<'c, T> Lists<'c, T> {
    pub(super) fn new(counts: &'c [u32]) -> Self {
        let mut lists = Lists {
            counts,
            node: 0,
            list: Vec::new(),
        };
        lists.start(0);
        lists
    }

    /// Moves to the first node from `from` on that has records, with a list of exactly its size (so
    /// boxing the list does not reallocate).
    pub(super) fn start(&mut self, from: usize) {
        self.node = from;
        while self.counts.get(self.node) == Some(&0) {
            self.node += 1;
        }
        if let Some(&count) = self.counts.get(self.node) {
            self.list = Vec::with_capacity(count as usize);
        }
    }

    /// The node the next record belongs to (the counts were checked to add up to the records).
    pub(super) fn owner(&self) -> usize {
        self.node
    }

    /// Adds the owner's next record; returns the owner and its list once that is complete.
    pub(super) fn push(&mut self, item: T) -> Option<(usize, Box<[T]>)> {
        self.list.push(item);
        if self.list.len() < self.counts[self.node] as usize {
            return None;
        }
        let done = (self.node, std::mem::take(&mut self.list).into_boxed_slice());
        self.start(self.node + 1);
        Some(done)
    }
}
