//! The board: stones, coordinates, the last move, the book's moves as rank numbers coloured by badness,
//! the highlighted move's line previewed as numbers, and the network's overlay (ownership as squares, policy
//! as percent). Two columns per intersection: the point's one-cell mark (a stone, a rank `1`–`9` then
//! `a`–`z`, the grid) and the grid line to the next point, which only a two-digit policy number takes.

use super::Badness;
use crate::go::{Color as Player, Move, Point};
use crate::tui::app::App;
use crate::tui::overlay::{self, Overlay};
use crate::tui::theme::Glyphs;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Widget;

const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRST";
/// How many moves of the highlighted line the board previews.
pub const PREVIEW_MOVES: usize = 10;

pub struct BoardPane<'a> {
    pub app: &'a App,
}

impl BoardPane<'_> {
    /// Columns and rows the board needs, borders included.
    pub fn size_for(app: &App) -> (u16, u16) {
        match &app.book {
            Some(b) => (b.size.width() as u16 * 2 + 5, b.size.height() as u16 + 3),
            None => (20, 5),
        }
    }
}

impl Widget for BoardPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let to_move = app.to_move();
        let title = match &app.book {
            Some(b) => format!(
                " {} · {} to move ",
                b.size,
                if to_move == Player::Black { "B" } else { "W" }
            ),
            None => " board ".into(),
        };
        let inner = super::draw_block(super::pane_block(theme, title), area, buf);
        let (Some(book), Some(game)) = (&app.book, &app.game) else {
            return;
        };
        let size = book.size;
        let (w, h) = (size.width(), size.height());
        let board_style = Style::default().bg(theme.board_bg);
        let put = |buf: &mut Buffer, x: u16, y: u16, text: &str, style: Style| {
            if x < inner.right() && y < inner.bottom() {
                buf.set_stringn(x, y, text, (inner.right() - x) as usize, style);
            }
        };
        let coord_style = Style::default().fg(theme.coordinates);
        for (x, &column) in COLUMNS.iter().enumerate().take(w) {
            let label = (column as char).to_string();
            put(
                buf,
                inner.x + 3 + 2 * x as u16,
                inner.y,
                &label,
                coord_style,
            );
        }
        // Screen cell → what to draw there, filled in layers: grid, stones, book moves, preview.
        let mut cells: Vec<(String, Style)> = Vec::with_capacity(w * h);
        for sy in 0..h {
            for sx in 0..w {
                let glyph = match theme.glyphs {
                    Glyphs::Round => grid_glyph(sx, sy, w, h),
                    Glyphs::Ascii => "+",
                };
                cells.push((glyph.to_string(), board_style.fg(theme.grid)));
            }
        }
        let screen = |p: Point| app.view.apply(size, p);
        let index = |p: Point| p.y() * w + p.x();
        let inverse = app.view.inverse();
        for sy in 0..h {
            for sx in 0..w {
                let root = inverse.apply(size, Point::new(sx, sy));
                if let Some(c) = game.board().color_at(root) {
                    let fg = if c == Player::Black {
                        theme.black_stone
                    } else {
                        theme.white_stone
                    };
                    let glyph = theme.glyphs.stone(c == Player::Black);
                    cells[sy * w + sx] = (glyph.into(), board_style.fg(fg));
                }
            }
        }
        if let Some(Move::Play(p)) = game.last_move() {
            let i = index(screen(p));
            cells[i].1 = cells[i].1.bg(theme.last_move);
        }
        // Points that show a policy number keep it under a book move's colours, so both read at once.
        let policy_at = overlay_layer(app, &mut cells);
        if let (Some(node), Some(step)) = (app.current(), app.current_step()) {
            if let Some(best) = node.edges.first() {
                for (rank, edge) in node.edges.iter().enumerate() {
                    // While a line is previewed, only its first move keeps its rank, so numbers don't clash.
                    if app.show_pv && rank != app.cursor {
                        continue;
                    }
                    let color = Badness::of(&edge.values, &best.values, node.to_move).color(theme);
                    let mut style = board_style.fg(color).add_modifier(Modifier::BOLD);
                    if rank == app.cursor {
                        style = style
                            .bg(theme.highlight_bg)
                            .add_modifier(Modifier::UNDERLINED);
                    }
                    for mv in app.edge_points_in_root(node, step, edge) {
                        if let Move::Play(p) = mv {
                            let i = index(screen(p));
                            let label = if policy_at[i] {
                                cells[i].0.clone()
                            } else {
                                rank_label(rank)
                            };
                            cells[i] = (label, style);
                        }
                    }
                }
            }
            if app.show_pv {
                let line = app.preview_line(PREVIEW_MOVES);
                for (i, mv) in line.iter().enumerate().skip(1) {
                    if let Move::Play(p) = mv {
                        let mover = if i % 2 == 0 {
                            to_move
                        } else {
                            to_move.opponent()
                        };
                        let fg = if mover == Player::Black {
                            theme.black_stone
                        } else {
                            theme.white_stone
                        };
                        let style = Style::default()
                            .fg(fg)
                            .bg(theme.pv)
                            .add_modifier(Modifier::BOLD);
                        cells[index(screen(*p))] = (rank_label(i), style);
                    }
                }
            }
        }
        for sy in 0..h {
            let y = inner.y + 1 + sy as u16;
            put(buf, inner.x, y, &format!("{:>2} ", h - sy), coord_style);
            for sx in 0..w {
                let (text, style) = &cells[sy * w + sx];
                let x = inner.x + 3 + 2 * sx as u16;
                // Marks are one cell, so the grid line to their right is drawn; only a two-digit policy
                // number takes it.
                let connector = if sx + 1 < w {
                    theme.glyphs.connector()
                } else {
                    " "
                };
                put(buf, x, y, text, *style);
                if text.chars().count() < 2 {
                    put(buf, x + 1, y, connector, board_style.fg(theme.grid));
                }
            }
        }
    }
}

/// Draws the overlay (ownership or policy of the position, from the network) into the screen cells;
/// returns which cells now show a policy number.
fn overlay_layer(app: &App, cells: &mut [(String, Style)]) -> Vec<bool> {
    let mut policy_at = vec![false; cells.len()];
    let (Some(book), Some(game), Some(eval)) = (&app.book, &app.game, overlay::current(app)) else {
        return policy_at;
    };
    let theme = &app.theme;
    let size = book.size;
    let inverse = app.view.inverse();
    let board_style = Style::default().bg(theme.board_bg);
    for sy in 0..size.height() {
        for sx in 0..size.width() {
            let root = inverse.apply(size, Point::new(sx, sy));
            let i = size.row_major(root);
            let cell = &mut cells[sy * size.width() + sx];
            let stone = game.board().color_at(root);
            match app.overlay {
                Overlay::Ownership => {
                    // The network's ownership is White's; positive here means Black's.
                    let black = -eval.white_ownership.get(i).copied().unwrap_or(0.0);
                    let (owner, sure) = (black > 0.0, black.abs() >= SURE);
                    match stone {
                        None if black.abs() >= LEANS => {
                            let fg = if owner {
                                theme.ownership_black
                            } else {
                                theme.ownership_white
                            };
                            let mut style = board_style.fg(fg);
                            if !sure {
                                style = style.add_modifier(Modifier::DIM);
                            }
                            cell.0 = theme.glyphs.territory(owner, sure).into();
                            cell.1 = style;
                        }
                        // A stone on the other side's ground is dead in the network's eyes.
                        Some(c) if sure && (c == Player::Black) != owner => {
                            cell.1 = cell.1.add_modifier(Modifier::DIM | Modifier::CROSSED_OUT);
                        }
                        _ => {}
                    }
                }
                Overlay::Policy => {
                    let p = eval.policy.get(i).copied().flatten().unwrap_or(0.0);
                    if stone.is_none() && p >= SHOWN_POLICY {
                        let mut style = board_style.fg(theme.policy);
                        if p >= 0.1 {
                            style = style.add_modifier(Modifier::BOLD);
                        }
                        *cell = (policy_text(p), style);
                        policy_at[sy * size.width() + sx] = true;
                    }
                }
                Overlay::Off => {}
            }
        }
    }
    policy_at
}

/// Ownership from which a point is drawn as leaning to a side, and from which it is sure.
const LEANS: f32 = 0.2;
const SURE: f32 = 0.6;
/// The smallest policy drawn (half a percent, which rounds to 1).
const SHOWN_POLICY: f32 = 0.005;

/// A policy as whole percent in at most two cells: `7`, `42`, `99` (for 99.5% and more).
pub fn policy_text(p: f32) -> String {
    format!("{}", ((p * 100.0).round() as u32).clamp(1, 99))
}

/// The one-cell label of the rank-th (0-based) move: `1`–`9`, then `a`–`z`, then `+` for the rest.
pub fn rank_label(rank: usize) -> String {
    match rank {
        0..=8 => char::from(b'1' + rank as u8).to_string(),
        9..=34 => char::from(b'a' + (rank - 9) as u8).to_string(),
        _ => "+".into(),
    }
}

/// The grid line's glyph at (x, y) of a w×h board: corners, edges, or a crossing.
pub(crate) fn grid_glyph(x: usize, y: usize, w: usize, h: usize) -> &'static str {
    match (x == 0, x + 1 == w, y == 0, y + 1 == h) {
        (true, _, true, _) => "┌",
        (_, true, true, _) => "┐",
        (true, _, _, true) => "└",
        (_, true, _, true) => "┘",
        (_, _, true, _) => "┬",
        (_, _, _, true) => "┴",
        (true, _, _, _) => "├",
        (_, true, _, _) => "┤",
        _ => "┼",
    }
}
