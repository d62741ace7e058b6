//! One file per pane; each draws from the [`App`](super::app::App) only. Shared here: a pane's frame, how
//! bad a move is, and the colour that says so.

pub mod annotate;
pub mod board;
pub mod endgame;
pub mod graph;
pub mod help;
pub mod jobs;
pub mod line;
pub mod moves;
pub mod status;

use super::theme::Theme;
use crate::book::view::BlackValues;
use crate::go::Color as Player;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Widget};

/// A pane's bordered block: the border in the theme's border colour, `title` in its title colour.
pub fn pane_block<'a>(theme: &Theme, title: impl Into<Line<'a>>) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(theme.border))
        .title(title)
        .title_style(Style::default().fg(theme.title))
}

/// Draws `block` over `area` and returns the area inside its border.
pub fn draw_block(block: Block, area: Rect, buf: &mut Buffer) -> Rect {
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// How much worse a move is than the best one: the points it loses for the side to move, in KaTrain's six
/// classes (its default thresholds 12, 6, 3, 1.5 and 0.5 points; purple, red, orange, yellow, light green
/// and green in its colours, the theme's `points_lost_*` here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Badness {
    /// Under half a point.
    Best,
    /// 0.5 to 1.5 points.
    Slight,
    /// 1.5 to 3 points.
    Inaccuracy,
    /// 3 to 6 points.
    Mistake,
    /// 6 to 12 points.
    Blunder,
    /// 12 points or more.
    Huge,
}

impl Badness {
    /// The points lost against `best`, from the player to move's side.
    pub fn points_lost(values: &BlackValues, best: &BlackValues, to_move: Player) -> f64 {
        let sign = if to_move == Player::Black { 1.0 } else { -1.0 };
        sign * (best.score - values.score)
    }

    pub fn of(values: &BlackValues, best: &BlackValues, to_move: Player) -> Badness {
        Badness::of_loss(Badness::points_lost(values, best, to_move))
    }

    pub fn of_loss(loss: f64) -> Badness {
        match loss {
            l if l >= 12.0 => Badness::Huge,
            l if l >= 6.0 => Badness::Blunder,
            l if l >= 3.0 => Badness::Mistake,
            l if l >= 1.5 => Badness::Inaccuracy,
            l if l >= 0.5 => Badness::Slight,
            _ => Badness::Best,
        }
    }

    pub fn color(self, theme: &Theme) -> Color {
        match self {
            Badness::Best => theme.points_lost_0,
            Badness::Slight => theme.points_lost_0_5,
            Badness::Inaccuracy => theme.points_lost_1_5,
            Badness::Mistake => theme.points_lost_3,
            Badness::Blunder => theme.points_lost_6,
            Badness::Huge => theme.points_lost_12,
        }
    }
}

/// `1234567` → `1.2M`, `45800` → `45.8k`: visit counts that fit a narrow column.
pub fn compact_count(n: f64) -> String {
    match n {
        n if n >= 1e6 => format!("{:.1}M", n / 1e6),
        n if n >= 1e4 => format!("{:.1}k", n / 1e3),
        n => format!("{n:.0}"),
    }
}

/// `65_000` ms → `1:05`.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// A count with thousands separators: `1,204`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn badness_is_from_the_mover_view() {
        let at = |score: f64| BlackValues {
            score,
            ..Default::default()
        };
        let best = at(2.0);
        // KaTrain's thresholds, each class from its lower bound up.
        for (score, class) in [
            (1.6, Badness::Best),
            (1.5, Badness::Slight),
            (0.5, Badness::Inaccuracy),
            (-1.0, Badness::Mistake),
            (-4.0, Badness::Blunder),
            (-10.0, Badness::Huge),
        ] {
            assert_eq!(
                Badness::of(&at(score), &best, Player::Black),
                class,
                "{score}"
            );
        }
        // For White the best move is the one lowest for Black.
        assert_eq!(
            Badness::of(&best, &at(-8.0), Player::White),
            Badness::Blunder
        );
        assert_eq!(Badness::of(&at(-8.0), &best, Player::White), Badness::Best);
        assert_eq!(compact_count(45800.0), "45.8k");
        assert_eq!(clock(65_000), "1:05");
    }
}
