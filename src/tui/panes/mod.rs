//! One file per pane; each draws from the [`App`](super::app::App) only. Shared here: how bad a move is,
//! and the colour that says so.

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
use crate::go::Color as Player;
use crate::jobs::book_port::BlackValues;
use ratatui::style::Color;

/// How much worse a move is than the best one, in five classes as KataGo's book pages colour them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Badness {
    Best,
    Good,
    Fair,
    Poor,
    Bad,
}

impl Badness {
    /// Classifies by the points lost for the player to move, counting each 4% of win rate as a point so
    /// that decided positions (where the score barely moves) still separate good from bad moves.
    pub fn of(values: &BlackValues, best: &BlackValues, to_move: Player) -> Badness {
        let sign = if to_move == Player::Black { 1.0 } else { -1.0 };
        let score_loss = sign * (best.score - values.score);
        let winrate_loss = sign * (best.winrate - values.winrate);
        let loss = score_loss.max(winrate_loss * 25.0);
        match loss {
            l if l < 0.25 => Badness::Best,
            l if l < 1.0 => Badness::Good,
            l if l < 3.0 => Badness::Fair,
            l if l < 6.0 => Badness::Poor,
            _ => Badness::Bad,
        }
    }

    pub fn color(self, theme: &Theme) -> Color {
        match self {
            Badness::Best => theme.rank_best,
            Badness::Good => theme.rank_good,
            Badness::Fair => theme.rank_fair,
            Badness::Poor => theme.rank_poor,
            Badness::Bad => theme.rank_bad,
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
        let best = BlackValues {
            winrate: 0.6,
            score: 2.0,
            ..Default::default()
        };
        let slightly = BlackValues {
            winrate: 0.59,
            score: 1.5,
            ..Default::default()
        };
        let awful = BlackValues {
            winrate: 0.2,
            score: -8.0,
            ..Default::default()
        };
        assert_eq!(Badness::of(&best, &best, Player::Black), Badness::Best);
        assert_eq!(Badness::of(&slightly, &best, Player::Black), Badness::Good);
        assert_eq!(Badness::of(&awful, &best, Player::Black), Badness::Bad);
        // For White the best move is the one lowest for Black.
        assert_eq!(Badness::of(&best, &awful, Player::White), Badness::Bad);
        assert_eq!(compact_count(45800.0), "45.8k");
        assert_eq!(clock(65_000), "1:05");
    }
}
