//! Game counts from records, kept on the edges of a records book.

use serde::{Deserialize, Serialize};

/// Games from records: how many, how many had a result, and Black's wins among those in half points (a
/// draw counts one), as the record tree counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GameCounts {
    pub games: u32,
    pub scored: u32,
    pub black_wins_x2: u32,
}

impl GameCounts {
    pub fn is_empty(&self) -> bool {
        self.games == 0
    }

    pub fn add(&mut self, other: GameCounts) {
        self.games += other.games;
        self.scored += other.scored;
        self.black_wins_x2 += other.black_wins_x2;
    }

    /// Black's wins, a draw counting half.
    pub fn black_wins(&self) -> f64 {
        self.black_wins_x2 as f64 / 2.0
    }

    /// White's wins, a draw counting half.
    pub fn white_wins(&self) -> f64 {
        self.scored as f64 - self.black_wins()
    }

    /// Black's share of the scored games, if any had a result.
    pub fn black_rate(&self) -> Option<f64> {
        (self.scored > 0).then(|| self.black_wins() / self.scored as f64)
    }
}
