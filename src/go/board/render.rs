//! The board as text, as GTP engines print it.

use super::{Board, Cell};
use crate::go::Point;

impl Board {
    /// The board as text, top row first, with GTP coordinates.
    pub fn render(&self, last: Option<Point>) -> String {
        let (w, h) = (self.size.width(), self.size.height());
        let letters: String = (0..w)
            .map(|x| {
                format!(
                    " {}",
                    Point::new(x, 0)
                        .to_gtp(self.size)
                        .chars()
                        .next()
                        .unwrap_or('?')
                )
            })
            .collect();
        let mut out = format!("   {letters}\n");
        for y in 0..h {
            out.push_str(&format!("{:>2} ", h - y));
            for x in 0..w {
                let p = Point::new(x, y);
                let mark = match self.cell(p) {
                    Cell::Black => 'X',
                    Cell::White => 'O',
                    _ => '.',
                };
                let sep = if last == Some(p) {
                    '('
                } else if last.is_some_and(|l| l.y() == y && l.x() + 1 == x) {
                    ')'
                } else {
                    ' '
                };
                out.push(sep);
                out.push(mark);
            }
            let end = if last.is_some_and(|l| l.y() == y && l.x() + 1 == w) {
                ")"
            } else {
                ""
            };
            out.push_str(&format!("{end} {:<2}\n", h - y));
        }
        out.push_str(&format!("   {letters}\n"));
        out
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.render(None))
    }
}
