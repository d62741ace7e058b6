//! The endgame pane's board: stones, the painted region (shaded), the rectangle being marked, the
//! cursor, and the best moves of the focused column's result (`b`, `w`, or `*` for both). Boards larger
//! than the room show a window around the region that always contains the cursor.

use crate::go::{Color as Player, Point};
use crate::jobs::endgame::Report;
use crate::tui::endgame::EndgameState;
use crate::tui::panes::board::grid_glyph;
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Widget;

const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

pub struct RegionBoard<'a> {
    pub state: &'a EndgameState,
    pub best: Option<&'a Report>,
    pub theme: &'a Theme,
}

/// The visible window of the board: first column and row, and how many of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
}

impl RegionBoard<'_> {
    /// Columns the board wants at most (borders and coordinates included).
    pub fn width_for(state: &EndgameState) -> u16 {
        state.position.width as u16 * 2 + 5
    }

    /// The window that fits `cols` × `rows` points: centred on the region (or the cursor), inside the
    /// board, and moved as little as needed to hold the cursor.
    pub fn window(state: &EndgameState, cols: usize, rows: usize) -> Window {
        let (bw, bh) = (state.position.width, state.position.height);
        let (w, h) = (cols.clamp(1, bw), rows.clamp(1, bh));
        let points: Vec<Point> = if state.position.region.is_empty() {
            vec![state.cursor]
        } else {
            state.position.region.clone()
        };
        let (min_x, max_x) = (
            points.iter().map(|p| p.x()).min().unwrap_or(0),
            points.iter().map(|p| p.x()).max().unwrap_or(0),
        );
        let (min_y, max_y) = (
            points.iter().map(|p| p.y()).min().unwrap_or(0),
            points.iter().map(|p| p.y()).max().unwrap_or(0),
        );
        let start = |lo: usize, hi: usize, size: usize, board: usize, cursor: usize| {
            let centre = (lo + hi) / 2;
            let mut s = centre.saturating_sub(size / 2).min(board - size);
            if cursor < s {
                s = cursor;
            } else if cursor >= s + size {
                s = cursor + 1 - size;
            }
            s
        };
        Window {
            x: start(min_x, max_x, w, bw, state.cursor.x()),
            y: start(min_y, max_y, h, bh, state.cursor.y()),
            w,
            h,
        }
    }
}

impl Widget for RegionBoard<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let state = self.state;
        let theme = self.theme;
        let position = &state.position;
        let title = format!(
            " Region · {} points, {} empty ",
            position.region.len(),
            position.empty_in_region()
        );
        let inner =
            crate::tui::panes::draw_block(crate::tui::panes::pane_block(theme, title), area, buf);
        let Ok(size) = position.size() else { return };
        if inner.width < 5 || inner.height < 2 {
            return;
        }
        let window = RegionBoard::window(
            state,
            (inner.width as usize - 3) / 2,
            inner.height as usize - 1,
        );
        let put = |buf: &mut Buffer, x: u16, y: u16, text: &str, style: Style| {
            if x < inner.right() && y < inner.bottom() {
                buf.set_stringn(x, y, text, (inner.right() - x) as usize, style);
            }
        };
        let coord_style = Style::default().fg(theme.coordinates);
        for sx in 0..window.w {
            let x = window.x + sx;
            let label = COLUMNS.get(x).map_or('?', |&c| c as char).to_string();
            put(
                buf,
                inner.x + 3 + 2 * sx as u16,
                inner.y,
                &label,
                coord_style,
            );
        }
        let pending = state.pending_rect();
        let best = |p: Point| {
            let text = p.to_gtp(size);
            let r = self.best?;
            match (r.best_black.contains(&text), r.best_white.contains(&text)) {
                (true, true) => Some("*"),
                (true, false) => Some("b"),
                (false, true) => Some("w"),
                _ => None,
            }
        };
        let board_style = Style::default().bg(theme.board_bg);
        for sy in 0..window.h {
            let y = window.y + sy;
            let row = inner.y + 1 + sy as u16;
            put(
                buf,
                inner.x,
                row,
                &format!("{:>2} ", position.height - y),
                coord_style,
            );
            for sx in 0..window.w {
                let x = window.x + sx;
                let p = Point::new(x, y);
                let mut style = board_style.fg(theme.grid);
                let mut text = grid_glyph(x, y, position.width, position.height).to_string();
                if let Some(c) = position.stone(p) {
                    let fg = if c == Player::Black {
                        theme.black_stone
                    } else {
                        theme.white_stone
                    };
                    text = "●".into();
                    style = style.fg(fg);
                } else if let Some(label) = best(p) {
                    text = label.into();
                    style = style.fg(theme.rank_best).add_modifier(Modifier::BOLD);
                }
                if state.in_region(p) {
                    style = style.bg(theme.highlight_bg);
                }
                if pending.contains(&p) {
                    style = style.bg(theme.pv);
                }
                if p == state.cursor {
                    style = style.add_modifier(Modifier::REVERSED);
                }
                let cx = inner.x + 3 + 2 * sx as u16;
                put(buf, cx, row, &text, style);
                // The connector to the right belongs to this point's shading, so a region reads as a block.
                let connector = if x + 1 < position.width && sx + 1 < window.w {
                    "─"
                } else {
                    " "
                };
                let mut joint = board_style.fg(theme.grid);
                if state.in_region(p) && state.in_region(Point::new(x + 1, y)) {
                    joint = joint.bg(theme.highlight_bg);
                }
                put(buf, cx + 1, row, connector, joint);
            }
        }
    }
}
