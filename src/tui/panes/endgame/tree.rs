//! A column's variation tree: one row per move shown, indented by depth, `▸` for a folded node with
//! moves after it and `▾` for an open one, `★` on the best first moves of their colour, the network's
//! probability where a network chose the move, then a leaf's value and why it is a leaf, or the mean
//! and temperature of the position after the move.

use crate::go::Color as Player;
use crate::tui::endgame::Column;
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub struct TreeView<'a> {
    pub column: &'a Column,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for TreeView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let rows = self.column.rows();
        if rows.is_empty() || area.height == 0 {
            return;
        }
        let height = area.height as usize;
        let cursor = self.column.tree_cursor.min(rows.len() - 1);
        // Keep the cursor on screen, a row of context below it where there is one.
        let first = (cursor + 2)
            .saturating_sub(height)
            .min(rows.len().saturating_sub(height));
        let lines: Vec<Line> = rows
            .iter()
            .enumerate()
            .skip(first)
            .take(height)
            .map(|(i, (path, node))| {
                let fold = if node.children.is_empty() {
                    "  "
                } else if self.column.expanded.contains(path) {
                    "▾ "
                } else {
                    "▸ "
                };
                let mut base = Style::default().fg(theme.text);
                if i == cursor && self.focused {
                    base = base.bg(theme.highlight_bg).add_modifier(Modifier::BOLD);
                }
                let mover = if node.color == Player::Black {
                    theme.rank_good
                } else {
                    theme.rank_poor
                };
                let mut spans = vec![
                    Span::styled(
                        format!("{}{fold}", "  ".repeat(path.len() - 1)),
                        base.fg(theme.dim),
                    ),
                    Span::styled(
                        format!("{} {}", node.color.letter(), node.point),
                        base.fg(mover),
                    ),
                    Span::styled(
                        if node.best { " ★" } else { "  " },
                        base.fg(theme.rank_best),
                    ),
                ];
                if let Some(p) = node.probability {
                    spans.push(Span::styled(
                        format!(" {:.0}%", p * 100.0),
                        base.fg(theme.mark),
                    ));
                }
                let after = match (&node.leaf, &node.reason) {
                    (Some(v), Some(why)) => format!("  = {} {why}", v.mixed()),
                    (Some(v), None) => format!("  = {}", v.mixed()),
                    _ => format!("  {} · T {}", node.mean.mixed(), node.temperature.mixed()),
                };
                spans.push(Span::styled(after, base.fg(theme.dim)));
                Line::from(spans)
            })
            .collect();
        Paragraph::new(lines).render(area, buf);
    }
}
