//! The lexical pre-pass over SGF text: where the first structural fault is (`sgf-parse` says what went
//! wrong but not where) and how deep the tree goes, before anything is built.

/// What a quick lexical pass over SGF text finds, before `sgf-parse` builds the tree.
pub(super) struct Scan {
    /// The byte offset of the first structural fault: an unmatched parenthesis, an unterminated value, or
    /// stray text (`sgf-parse` reports what went wrong but not where).
    pub fault: Option<usize>,
    /// The deepest node, counting every `;` along a path: deep trees are refused before they are built,
    /// since building and dropping them recurses.
    pub max_depth: usize,
}

pub(super) fn scan(text: &str) -> Scan {
    let (mut value_start, mut escaped) = (None, false);
    let mut depth_at_open: Vec<usize> = Vec::new();
    let (mut depth, mut max_depth) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        if value_start.is_some() {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == ']' {
                value_start = None;
            }
            continue;
        }
        match c {
            '(' => depth_at_open.push(depth),
            ')' => match depth_at_open.pop() {
                Some(d) => depth = d,
                None => {
                    return Scan {
                        fault: Some(i),
                        max_depth,
                    };
                }
            },
            '[' => value_start = Some(i),
            ';' => {
                depth += 1;
                max_depth = max_depth.max(depth);
            }
            c if c.is_whitespace() || c.is_ascii_alphabetic() => {}
            _ => {
                return Scan {
                    fault: Some(i),
                    max_depth,
                };
            }
        }
    }
    let fault = value_start.or((!depth_at_open.is_empty()).then_some(text.len()));
    Scan { fault, max_depth }
}

pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
