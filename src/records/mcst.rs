//! Chen et al.'s compact MCST text format for record trees:
//!
//! ```text
//! <MCST>      ::= { <move> <num wins> <num games> <MCST-list> }
//! <MCST-list> ::= <empty> | <MCST> <MCST-list>
//! <move>      ::= <sign> <board point> | <sign> <pass> | 0
//! <sign>      ::= + | - | <empty>
//! ```
//!
//! `+` is a Black move, `-` a White move, `0` the root; points are GTP vertices. Wins are the mover's
//! (Black's at the root), draws counting half, so they may end in `.5`. The format has no board size and no
//! count of unscored games: tengen writes and reads every game as scored when it has wins recorded, and the
//! size is given by the caller.

use super::tree::{ROOT, RecordId, RecordNode, RecordTree};
use crate::go::{BoardSize, Color, Move};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MCST text, byte {offset}: {message}")]
pub struct McstError {
    pub offset: usize,
    pub message: String,
}

/// Writes a tree; children in the tree's order.
pub fn write(tree: &RecordTree) -> String {
    let mut out = String::new();
    write_node(tree, ROOT, 0, &mut out);
    out
}

fn write_node(tree: &RecordTree, id: RecordId, depth: usize, out: &mut String) {
    let node = tree.node(id);
    let mv = match node.mv {
        None => "0".to_string(),
        Some((c, m)) => format!(
            "{}{}",
            if c == Color::Black { '+' } else { '-' },
            m.to_gtp(tree.size)
        ),
    };
    out.push_str(&"  ".repeat(depth));
    out.push_str(&format!(
        "{{ {mv} {} {}",
        format_wins(node.mover_wins()),
        node.games
    ));
    if node.children.is_empty() {
        out.push_str(" }\n");
        return;
    }
    out.push('\n');
    for &c in &node.children {
        write_node(tree, c, depth + 1, out);
    }
    out.push_str(&"  ".repeat(depth));
    out.push_str("}\n");
}

fn format_wins(w: f64) -> String {
    if w.fract() == 0.0 {
        format!("{w:.0}")
    } else {
        format!("{w:.1}")
    }
}

/// A node's move (none at the root), the mover's wins and the games.
type Header = (Option<(Color, Move)>, f64, u32);

struct Reader<'a> {
    text: &'a str,
    pos: usize,
    size: BoardSize,
}

/// Deeper nesting than this is refused (a hostile file must not exhaust the stack).
const MAX_DEPTH: usize = 2000;

/// Reads a tree written in the MCST format for a board of `size`.
pub fn read(text: &str, size: BoardSize) -> Result<RecordTree, McstError> {
    let mut reader = Reader { text, pos: 0, size };
    let mut tree = RecordTree::new(size);
    reader.expect('{')?;
    let (mv, wins, games) = reader.header()?;
    if mv.is_some() {
        return Err(reader.error("the root's move must be 0"));
    }
    tree.set_root_counts(games, games, black_halves(None, wins, games));
    reader.children(&mut tree, ROOT, 1)?;
    reader.skip_space();
    if reader.pos != text.len() {
        return Err(reader.error("text after the tree"));
    }
    Ok(tree)
}

/// Black's wins in half points from the mover's wins.
fn black_halves(mv: Option<(Color, Move)>, mover_wins: f64, games: u32) -> u32 {
    let black = match mv {
        Some((Color::White, _)) => games as f64 - mover_wins,
        _ => mover_wins,
    };
    (black * 2.0).round().max(0.0) as u32
}

impl Reader<'_> {
    fn error(&self, message: &str) -> McstError {
        McstError {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    /// Advances past characters matching `keep` (by their UTF-8 length: the text need not be ASCII).
    fn advance_while(&mut self, keep: impl Fn(char) -> bool) {
        while let Some(c) = self.text[self.pos..].chars().next().filter(|&c| keep(c)) {
            self.pos += c.len_utf8();
        }
    }

    fn skip_space(&mut self) {
        self.advance_while(char::is_whitespace);
    }

    fn expect(&mut self, c: char) -> Result<(), McstError> {
        self.skip_space();
        if self.text[self.pos..].starts_with(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{c}`")))
        }
    }

    fn token(&mut self) -> Result<&str, McstError> {
        self.skip_space();
        let start = self.pos;
        self.advance_while(|c| !c.is_whitespace() && c != '{' && c != '}');
        if start == self.pos {
            Err(self.error("expected a token"))
        } else {
            Ok(&self.text[start..self.pos])
        }
    }

    /// Reads `<move> <wins> <games>`.
    fn header(&mut self) -> Result<Header, McstError> {
        let size = self.size;
        self.skip_space();
        let start = self.pos;
        let at_start = |message: String| McstError {
            offset: start,
            message,
        };
        let mv_text = self.token()?.to_string();
        let mv = if mv_text == "0" {
            None
        } else {
            let (color, rest) = if let Some(r) = mv_text.strip_prefix('+') {
                (Color::Black, r)
            } else if let Some(r) = mv_text.strip_prefix('-') {
                (Color::White, r)
            } else {
                (Color::Black, mv_text.as_str())
            };
            let m = Move::parse_gtp(rest, size).map_err(|e| at_start(e.to_string()))?;
            Some((color, m))
        };
        let wins: f64 = self
            .token()?
            .parse()
            .map_err(|_| self.error("wins must be a number"))?;
        let games: u32 = self
            .token()?
            .parse()
            .map_err(|_| self.error("games must be a whole number"))?;
        if !(0.0..=games as f64).contains(&wins) {
            return Err(self.error("wins must lie between 0 and the number of games"));
        }
        Ok((mv, wins, games))
    }

    fn children(
        &mut self,
        tree: &mut RecordTree,
        parent: RecordId,
        depth: usize,
    ) -> Result<(), McstError> {
        if depth > MAX_DEPTH {
            return Err(self.error("the tree is nested too deeply"));
        }
        loop {
            self.skip_space();
            match self.text[self.pos..].chars().next() {
                Some('}') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('{') => {
                    self.pos += 1;
                    let (mv, wins, games) = self.header()?;
                    if mv.is_none() {
                        return Err(self.error("only the root may have move 0"));
                    }
                    let node = RecordNode {
                        mv,
                        games,
                        scored: games,
                        black_wins_x2: black_halves(mv, wins, games),
                        children: Vec::new(),
                    };
                    let id = tree.push_counted(parent, node);
                    self.children(tree, id, depth + 1)?;
                }
                _ => return Err(self.error("expected `{` or `}`")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree::Outcome;
    use super::*;

    #[test]
    fn round_trips() {
        let size = BoardSize::square(9).unwrap();
        let mut t = RecordTree::new(size);
        let game = |s: &str| Move::alternating(&Move::parse_list(s, size).unwrap());
        t.add_game(&game("E5 C3 pass"), Some(Outcome::BlackWin), 16);
        t.add_game(&game("E5 C3 G7"), Some(Outcome::Draw), 16);
        t.add_game(&game("E5 G3"), Some(Outcome::WhiteWin), 16);
        let text = write(&t);
        assert!(text.starts_with("{ 0 1.5 3\n"), "{text}");
        assert!(text.contains("{ -C3 0.5 2\n"), "{text}");
        let back = read(&text, size).unwrap();
        assert_eq!(back, t);
        assert_eq!(write(&back), text);
    }

    #[test]
    fn errors_name_the_offset() {
        let size = BoardSize::square(9).unwrap();
        let err = read("{ 0 1 2 { +Z9 1 1 } }", size).unwrap_err();
        assert_eq!(err.offset, 10, "{err}");
        assert!(read("{ 0 3 2 }", size).is_err(), "more wins than games");
        assert!(read("{ 0 1 2 } junk", size).is_err());
        let deep = "{ +E5 1 1 ".repeat(3000);
        assert!(read(&format!("{{ 0 1 1 {deep}"), size).is_err());
    }
}
