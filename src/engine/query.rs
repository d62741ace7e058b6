//! What is asked of an engine and what it reports.

use crate::go::{BoardSize, Color, Game, GameError, IllegalMove, Move, Rules, Setup};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::{Notify, mpsc};

/// A position to search and how.
#[derive(Debug, Clone)]
pub struct Query {
    pub size: BoardSize,
    /// Rules, komi included.
    pub rules: Rules,
    /// Setup stones and the first player.
    pub setup: Setup,
    /// The moves played from the setup, with their colours.
    pub moves: Vec<(Color, Move)>,
    pub max_visits: Option<u64>,
    pub max_time: Option<Duration>,
    /// Root moves the search may not play (the book's moves, when looking for a new one).
    pub avoid: Vec<Move>,
    pub include_policy: bool,
    pub include_ownership: bool,
    /// How often to send reports during the search; `None` sends only the final one.
    pub report_every: Option<Duration>,
    /// Seed for engines that are random; the same seed and query give the same result.
    pub seed: u64,
    /// Searches that carry the same key may share their tree: a later search of the same position that
    /// bans more root moves may start from an earlier one's tree less the subtrees of the moves it bans
    /// besides, and a search of the position after one of its root moves from that move's subtree.
    /// Engines that keep no tree ignore it. A book expansion's searches share one.
    pub share_tree: Option<u64>,
}

impl Query {
    /// A query for the position `game` is in, with no limits set.
    pub fn from_game(game: &Game) -> Query {
        Query {
            size: game.size(),
            rules: game.rules(),
            setup: game.setup().clone(),
            moves: game.moves().to_vec(),
            max_visits: None,
            max_time: None,
            avoid: Vec::new(),
            include_policy: false,
            include_ownership: false,
            report_every: None,
            seed: 0,
            share_tree: None,
        }
    }

    pub fn with_visits(mut self, visits: u64) -> Query {
        self.max_visits = Some(visits);
        self
    }

    pub fn avoiding(mut self, moves: &[Move]) -> Query {
        self.avoid = moves.to_vec();
        self
    }

    /// Replays the query into a game, checking every move under the query's rules.
    pub fn game(&self) -> Result<Game, EngineError> {
        let mut game = Game::with_setup(self.size, self.rules, self.setup.clone());
        for (i, &(color, mv)) in self.moves.iter().enumerate() {
            game.play_as(color, mv).map_err(|reason: IllegalMove| {
                EngineError::BadQuery(
                    GameError::Illegal {
                        number: i + 1,
                        mv: mv.to_gtp(self.size),
                        reason,
                    }
                    .to_string(),
                )
            })?;
        }
        Ok(game)
    }

    pub fn to_move(&self) -> Color {
        match self.moves.last() {
            Some(&(c, _)) => c.opponent(),
            None => self.setup.first_player.unwrap_or(Color::Black),
        }
    }
}

/// One candidate move at the root.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MoveInfo {
    #[serde(with = "move_text")]
    pub mv: Move,
    pub visits: u64,
    /// Black's winning probability, 0..1 (draws count half).
    pub winrate: f64,
    /// Black's expected lead in points.
    pub score_lead: f64,
    /// Black's expected final score as self-play would reach it (KataGo's `scoreSelfplay`, the score mean
    /// its books store), when the engine tells it apart from the lead.
    #[serde(default)]
    pub score_mean: Option<f64>,
    /// The network's (or engine's) prior for this move, 0..1.
    pub prior: f64,
    /// Principal variation, starting with this move.
    #[serde(with = "move_list_text")]
    pub pv: Vec<Move>,
    /// Lower confidence bound of the winrate for the player to move, when the engine knows it.
    pub lcb: Option<f64>,
    /// The winrate and score are proven by an exact search ([`super::exact`]), not estimated.
    #[serde(default)]
    pub proven: bool,
}

/// Values for the root position as a whole.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RootInfo {
    pub winrate: f64,
    pub score_lead: f64,
    pub score_mean: f64,
    pub score_stdev: f64,
    pub visits: u64,
}

/// What an engine found so far.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// Candidate moves, best first.
    pub moves: Vec<MoveInfo>,
    pub root: RootInfo,
    /// Prior over the board, row-major from the top-left, then pass; `NaN` where illegal.
    pub policy: Option<Vec<f32>>,
    /// Ownership per point, row-major from the top-left, +1 Black, -1 White.
    pub ownership: Option<Vec<f32>>,
    pub is_final: bool,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum EngineError {
    #[error("bad query: {0}")]
    BadQuery(String),
    #[error("{engine} is not available: {detail}")]
    Unavailable { engine: String, detail: String },
    #[error("{engine} died: {detail}")]
    Died { engine: String, detail: String },
    #[error("{engine} refused the query: {message}")]
    Refused { engine: String, message: String },
    #[error("{engine} did not answer within {after:?}")]
    TimedOut { engine: String, after: Duration },
    #[error("the analysis was cancelled")]
    Cancelled,
}

/// Cancels an analysis from any thread or task.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
    notify: Arc<Notify>,
}

impl CancelToken {
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Resolves once [`CancelToken::cancel`] has been called.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// A running analysis: a stream of reports, the last one final, and a way to stop it early (the engine
/// then sends its final report with what it has).
pub struct Analysis {
    reports: mpsc::Receiver<Result<Report, EngineError>>,
    cancel: CancelToken,
}

impl Analysis {
    /// A new analysis and the sending half the engine reports into.
    pub fn channel() -> (
        Analysis,
        mpsc::Sender<Result<Report, EngineError>>,
        CancelToken,
    ) {
        let (tx, rx) = mpsc::channel(64);
        let cancel = CancelToken::default();
        (
            Analysis {
                reports: rx,
                cancel: cancel.clone(),
            },
            tx,
            cancel,
        )
    }

    /// An analysis that failed before it started.
    pub fn failed(error: EngineError) -> Analysis {
        let (analysis, tx, _) = Analysis::channel();
        let _ = tx.try_send(Err(error));
        analysis
    }

    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// The next report, or `None` once the engine has finished.
    pub async fn next(&mut self) -> Option<Result<Report, EngineError>> {
        self.reports.recv().await
    }

    /// Waits for the final report, skipping those sent during the search.
    pub async fn final_report(mut self) -> Result<Report, EngineError> {
        let mut last = None;
        while let Some(item) = self.reports.recv().await {
            let report = item?;
            if report.is_final {
                return Ok(report);
            }
            last = Some(report);
        }
        last.ok_or(EngineError::Died {
            engine: "engine".into(),
            detail: "finished without a report".into(),
        })
    }
}

mod move_text {
    use crate::go::{Move, Point};
    use serde::{Deserialize, Deserializer, Serializer};

    /// Moves are written size-independently as SGF letters, `pass` for a pass.
    pub fn serialize<S: Serializer>(mv: &Move, s: S) -> Result<S::Ok, S::Error> {
        match mv {
            Move::Pass => s.serialize_str("pass"),
            Move::Play(p) => s.serialize_str(&p.to_sgf()),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        let text = String::deserialize(d)?;
        parse(&text).ok_or_else(|| serde::de::Error::custom(format!("bad move `{text}`")))
    }

    pub fn parse(text: &str) -> Option<Move> {
        if text == "pass" {
            return Some(Move::Pass);
        }
        let b = text.as_bytes();
        (b.len() == 2 && b.iter().all(|c| c.is_ascii_lowercase()) && b[0] < b't' && b[1] < b't')
            .then(|| Move::Play(Point::new((b[0] - b'a') as usize, (b[1] - b'a') as usize)))
    }
}

mod move_list_text {
    use crate::go::Move;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(moves: &[Move], s: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = moves
            .iter()
            .map(|m| {
                if let Move::Play(p) = m {
                    p.to_sgf()
                } else {
                    "pass".into()
                }
            })
            .collect();
        s.collect_seq(text)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Move>, D::Error> {
        let text = Vec::<String>::deserialize(d)?;
        text.iter()
            .map(|t| {
                super::move_text::parse(t)
                    .ok_or_else(|| serde::de::Error::custom(format!("bad move `{t}`")))
            })
            .collect()
    }
}
