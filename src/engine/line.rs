//! Reading an engine's output a line at a time, with a cap on a line's length: an engine that never ends
//! a line (`gtp:cat /dev/zero`) is an error quoting the line's start, not an allocation without end.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line a GTP engine may write (analysis lines with ownership for every point are about
/// 20 kB on 19x19).
pub const GTP_MAX_LINE: usize = 1 << 20;

/// The longest reply KataGo's analysis engine may write: one JSON line, which with ownership for every
/// move and point on 19x19 can reach a few megabytes.
pub const KATAGO_MAX_LINE: usize = 64 << 20;

/// How much of an over-long line an error quotes.
const QUOTED: usize = 60;

/// Why no line came back.
#[derive(Debug)]
pub enum LineError {
    /// The line ran past the cap; `start` is its beginning, escaped for printing.
    TooLong { start: String, cap: usize },
    /// Reading failed, or (from [`CappedLines::next_line`]) the line is not UTF-8 (`InvalidData`).
    Io(std::io::Error),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::TooLong { start, cap } => write!(
                f,
                "a line runs past {} bytes without ending; it starts {start}",
                cap
            ),
            LineError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Lines of `reader`, each at most `cap` bytes. Cancel-safe: a read dropped half-way (in a `select!`)
/// keeps what it had, and the next call goes on from there.
pub struct CappedLines<R> {
    reader: R,
    cap: usize,
    line: Vec<u8>,
    /// After an over-long line: the rest of it is skipped up to its end.
    skipping: bool,
}

impl<R: AsyncBufRead + Unpin> CappedLines<R> {
    pub fn new(reader: R, cap: usize) -> CappedLines<R> {
        CappedLines {
            reader,
            cap,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// The next line's bytes without its `\n` (or `\r\n`); `None` at the end of the stream. A line
    /// longer than the cap is an error; the next call starts after its end.
    pub async fn next_bytes(&mut self) -> Result<Option<Vec<u8>>, LineError> {
        loop {
            let available = self.reader.fill_buf().await.map_err(LineError::Io)?;
            if available.is_empty() {
                if self.line.is_empty() || self.skipping {
                    self.skipping = false;
                    self.line.clear();
                    return Ok(None);
                }
                return Ok(Some(self.take()));
            }
            let (chunk, ended) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], true),
                None => (available, false),
            };
            let used = chunk.len() + usize::from(ended);
            if self.skipping {
                self.reader.consume(used);
                self.skipping = !ended;
                continue;
            }
            let room = (self.cap + 1).saturating_sub(self.line.len());
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.reader.consume(used);
            if self.line.len() > self.cap {
                let start = quote(&self.line);
                self.line.clear();
                self.skipping = !ended;
                return Err(LineError::TooLong {
                    start,
                    cap: self.cap,
                });
            }
            if ended {
                return Ok(Some(self.take()));
            }
        }
    }

    /// The next line as text; bytes that are not UTF-8 are an `InvalidData` error.
    pub async fn next_line(&mut self) -> Result<Option<String>, LineError> {
        match self.next_bytes().await? {
            None => Ok(None),
            Some(bytes) => String::from_utf8(bytes).map(Some).map_err(|e| {
                LineError::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            }),
        }
    }

    /// The next line as text for a log (an engine's stderr): bytes that are not UTF-8 are replaced, and
    /// an over-long line comes back cut, marked as such, instead of as an error.
    pub async fn next_line_lossy(&mut self) -> std::io::Result<Option<String>> {
        match self.next_bytes().await {
            Ok(None) => Ok(None),
            Ok(Some(bytes)) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Err(LineError::TooLong { start, cap }) => {
                Ok(Some(format!("{start}… (a line of over {cap} bytes, cut)")))
            }
            Err(LineError::Io(e)) => Err(e),
        }
    }

    fn take(&mut self) -> Vec<u8> {
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        line
    }
}

/// The start of a line, escaped (`\0`, `\u{1b}`), in quotes.
fn quote(line: &[u8]) -> String {
    let start = String::from_utf8_lossy(&line[..line.len().min(QUOTED)]);
    format!("{start:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], cap: usize) -> Vec<Result<String, String>> {
        // A tiny buffer, so that lines cross reads.
        let reader = tokio::io::BufReader::with_capacity(3, input);
        let mut lines = CappedLines::new(reader, cap);
        let mut out = Vec::new();
        loop {
            match lines.next_line().await {
                Ok(Some(l)) => out.push(Ok(l)),
                Ok(None) => return out,
                Err(e) => out.push(Err(e.to_string())),
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_and_an_over_long_one_is_quoted_then_skipped() {
        assert_eq!(
            all(b"= a\r\n\nbb\nlast", 8).await,
            [
                Ok("= a".to_string()),
                Ok(String::new()),
                Ok("bb".into()),
                Ok("last".into())
            ]
        );
        let out = all(b"ok\n\0\0\0\0\0\0\0\0\0\0\0\0\0\0\nafter\n", 8).await;
        assert_eq!(out[0], Ok("ok".to_string()));
        let err = out[1].as_ref().unwrap_err();
        assert!(
            err.contains("past 8 bytes") && err.contains(r#""\0\0\0"#),
            "{err}"
        );
        assert_eq!(out[2], Ok("after".to_string()));
        assert_eq!(out.len(), 3);
        // Exactly at the cap is fine; one byte more is not.
        assert_eq!(all(b"12345678\n", 8).await, [Ok("12345678".to_string())]);
        assert!(all(b"123456789\n", 8).await[0].is_err());
        assert!(all(b"\xff\xfe\n", 8).await[0].is_err());
    }

    proptest::proptest! {
        /// Whatever the bytes, the cap and how reads split them: the lines are the input split at `\n`
        /// (one final `\r` dropped), and exactly the lines longer than the cap (as written) are errors.
        #[test]
        fn lines_are_the_input_split_whatever_the_reads(
            data in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b'\n'),
                    proptest::strategy::Just(b'\r'),
                    proptest::strategy::Just(b'a'),
                    proptest::num::u8::ANY,
                ],
                0..120,
            ),
            cap in 1usize..12,
            buffer in 1usize..6,
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let got: Vec<Result<Vec<u8>, ()>> = runtime.block_on(async {
                let mut lines =
                    CappedLines::new(tokio::io::BufReader::with_capacity(buffer, &data[..]), cap);
                let mut out = Vec::new();
                loop {
                    match lines.next_bytes().await {
                        Ok(Some(l)) => out.push(Ok(l)),
                        Ok(None) => return out,
                        Err(LineError::TooLong { .. }) => out.push(Err(())),
                        Err(LineError::Io(e)) => panic!("{e}"),
                    }
                }
            });
            let mut want: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
            if want.last().is_some_and(|l| l.is_empty()) {
                want.pop();
            }
            let want: Vec<Result<Vec<u8>, ()>> = want
                .iter()
                .map(|raw| {
                    if raw.len() > cap {
                        Err(())
                    } else {
                        Ok(raw.strip_suffix(b"\r").unwrap_or(raw).to_vec())
                    }
                })
                .collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
