//! Self-play coevolution: MoGo's "mutate very bad moves" (Audouard et al.).
//!
//! The population is every game played so far, and the book is the population: a record tree of the games
//! in canonical orientation. A new game follows, at each position, the book move with the best success rate
//! while one above the threshold (10%, "very bad moves") exists; otherwise the engine chooses (a mutation).
//! The move the book recommends at a node is the one that won most games there.
//!
//! Finished games are appended to a JSON-lines log with an fsync each, so a worker that is killed loses at
//! most its game in progress, and several processes can grow one population. A torn last line (a crash
//! mid-write) is skipped on load.

use super::orient::orient;
use super::tree::{Outcome, ROOT, RecordId, RecordTree};
use crate::engine::{Engine, EngineError, Query};
use crate::go::score::final_score;
use crate::go::{BoardSize, Color, Game, Move, Rules};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum CoevolveError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Log {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// One finished game as logged (format version 1).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LoggedGame {
    pub size: String,
    pub rules: String,
    pub komi: f64,
    /// GTP moves, Black first, alternating.
    pub moves: String,
    /// `B`, `W` or `0` (a draw).
    pub winner: String,
    /// Black's area lead, komi included.
    pub score: f64,
}

#[derive(Debug, Clone)]
pub struct CoevolveConfig {
    pub games: usize,
    pub workers: usize,
    pub visits: u64,
    /// Book moves whose success rate is at or below this are "very bad" and never followed.
    pub threshold: f64,
    pub max_moves: usize,
    pub seed: u64,
}

/// The population: every logged game, merged.
#[derive(Debug, Clone)]
pub struct Population {
    pub size: BoardSize,
    pub rules: Rules,
    pub tree: RecordTree,
    pub games: usize,
}

impl Population {
    pub fn new(size: BoardSize, rules: Rules) -> Population {
        Population {
            size,
            rules,
            tree: RecordTree::new(size),
            games: 0,
        }
    }

    /// Loads a log; games of another size or rules are refused, a torn last line is skipped.
    pub fn load(path: &Path, size: BoardSize, rules: Rules) -> Result<Population, CoevolveError> {
        let mut population = Population::new(size, rules);
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(population),
            Err(source) => {
                return Err(CoevolveError::Io {
                    path: path.into(),
                    source,
                });
            }
        };
        let lines: Vec<&str> = text.lines().collect();
        let complete = if text.ends_with('\n') {
            lines.len()
        } else {
            lines.len().saturating_sub(1)
        };
        for (i, line) in lines.iter().take(complete).enumerate() {
            let err = |message: String| CoevolveError::Log {
                path: path.into(),
                line: i + 1,
                message,
            };
            let logged: LoggedGame = serde_json::from_str(line).map_err(|e| err(e.to_string()))?;
            if logged.size != size.to_string()
                || logged.rules != rules.to_compact()
                || logged.komi != rules.komi.value()
            {
                return Err(err(format!(
                    "a {} game under {} komi {}, not {size} under {} komi {}",
                    logged.size,
                    logged.rules,
                    logged.komi,
                    rules.to_compact(),
                    rules.komi
                )));
            }
            let moves = Move::parse_list(&logged.moves, size).map_err(|e| err(e.to_string()))?;
            population.add(&Move::alternating(&moves), outcome_of(&logged.winner));
        }
        Ok(population)
    }

    fn add(&mut self, moves: &[(Color, Move)], outcome: Option<Outcome>) {
        let (_, oriented) = orient(self.size, moves);
        self.tree.add_game(&oriented, outcome, usize::MAX);
        self.games += 1;
    }

    /// The node of the oriented line `moves` leads to, with the symmetry that orients it.
    fn locate(&self, moves: &[(Color, Move)]) -> Option<(RecordId, crate::go::Symmetry)> {
        let (sym, oriented) = orient(self.size, moves);
        let mut id = ROOT;
        for &mv in &oriented {
            id = self.tree.child(id, mv)?;
        }
        Some((id, sym))
    }

    /// The book move to follow after `moves`: the best success rate above `threshold`, in the game's
    /// orientation.
    pub fn follow(&self, moves: &[(Color, Move)], threshold: f64) -> Option<Move> {
        let (id, sym) = self.locate(moves)?;
        let node = self.tree.node(id);
        let best = node
            .children
            .iter()
            .map(|&c| self.tree.node(c))
            .filter(|n| n.mover_winrate().is_some_and(|w| w > threshold))
            .max_by(|a, b| {
                let (wa, wb) = (
                    a.mover_winrate().unwrap_or(0.0),
                    b.mover_winrate().unwrap_or(0.0),
                );
                wa.total_cmp(&wb).then(a.games.cmp(&b.games))
            })?;
        best.mv.map(|(_, m)| sym.inverse().apply_move(self.size, m))
    }

    /// The book's recommendation after `moves`: the move that won most games there.
    pub fn recommend(&self, moves: &[(Color, Move)]) -> Option<Move> {
        let (id, sym) = self.locate(moves)?;
        let best = self
            .tree
            .node(id)
            .children
            .iter()
            .map(|&c| self.tree.node(c))
            .max_by(|a, b| {
                a.mover_wins()
                    .total_cmp(&b.mover_wins())
                    .then(a.games.cmp(&b.games))
            })?;
        best.mv.map(|(_, m)| sym.inverse().apply_move(self.size, m))
    }
}

fn outcome_of(winner: &str) -> Option<Outcome> {
    match winner {
        "B" => Some(Outcome::BlackWin),
        "W" => Some(Outcome::WhiteWin),
        "0" => Some(Outcome::Draw),
        _ => None,
    }
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct CoevolveSummary {
    pub games_played: usize,
    pub book_moves: usize,
    pub engine_moves: usize,
}

/// Plays `config.games` games on `config.workers` concurrent workers, appending each to `log`.
pub async fn coevolve(
    log: &Path,
    size: BoardSize,
    rules: Rules,
    engine: Arc<dyn Engine>,
    config: CoevolveConfig,
) -> Result<(Population, CoevolveSummary), CoevolveError> {
    let population = Arc::new(Mutex::new(Population::load(log, size, rules)?));
    let io = |source| CoevolveError::Io {
        path: log.into(),
        source,
    };
    cut_torn_tail(log).map_err(io)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(io)?;
    let file = Arc::new(Mutex::new(file));
    let started = Arc::new(AtomicUsize::new(0));
    let summary = Arc::new(Mutex::new(CoevolveSummary::default()));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..config.workers.max(1) {
        let (population, file, started, summary, engine, config) = (
            population.clone(),
            file.clone(),
            started.clone(),
            summary.clone(),
            engine.clone(),
            config.clone(),
        );
        let log = log.to_path_buf();
        workers.spawn(async move {
            loop {
                let n = started.fetch_add(1, Ordering::SeqCst);
                if n >= config.games {
                    return Ok::<(), CoevolveError>(());
                }
                let (game, book, mutated) =
                    play_game(&population, engine.as_ref(), &config, n as u64, size, rules).await?;
                let logged = log_entry(&game);
                let mut line = serde_json::to_string(&logged).unwrap_or_default();
                line.push('\n');
                {
                    let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
                    let io = |source| CoevolveError::Io {
                        path: log.clone(),
                        source,
                    };
                    f.write_all(line.as_bytes()).map_err(io)?;
                    f.sync_data().map_err(io)?;
                }
                population
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .add(game.moves(), outcome_of(&logged.winner));
                let mut s = summary.lock().unwrap_or_else(|p| p.into_inner());
                s.games_played += 1;
                s.book_moves += book;
                s.engine_moves += mutated;
            }
        });
    }
    while let Some(joined) = workers.join_next().await {
        match joined {
            Ok(result) => result?,
            Err(e) => {
                return Err(CoevolveError::Engine(EngineError::Died {
                    engine: "worker".into(),
                    detail: e.to_string(),
                }));
            }
        }
    }
    let population = population.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let summary = summary.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Ok((population, summary))
}

/// Drops a torn last line (a worker killed mid-write) before appending: the next game would otherwise
/// be glued to it and the log would no longer load.
fn cut_torn_tail(log: &Path) -> std::io::Result<()> {
    let text = match std::fs::read(log) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if text.is_empty() || text.ends_with(b"\n") {
        return Ok(());
    }
    let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let file = std::fs::OpenOptions::new().write(true).open(log)?;
    file.set_len(keep as u64)?;
    file.sync_data()
}

/// Plays one game: book moves while a good one exists, engine moves otherwise. Returns the game and how
/// many moves came from each.
async fn play_game(
    population: &Mutex<Population>,
    engine: &dyn Engine,
    config: &CoevolveConfig,
    game_number: u64,
    size: BoardSize,
    rules: Rules,
) -> Result<(Game, usize, usize), CoevolveError> {
    let mut game = Game::new(size, rules);
    let (mut book, mut mutated) = (0, 0);
    while !game.is_over() && game.moves().len() < config.max_moves {
        let followed = population
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .follow(game.moves(), config.threshold);
        if let Some(mv) = followed.filter(|&m| game.is_legal(m)) {
            book += 1;
            let _ = game.play(mv);
            continue;
        }
        let mut query = Query::from_game(&game).with_visits(config.visits);
        query.seed = config.seed
            ^ game_number.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ game.moves().len() as u64;
        let report = engine.analyze(query).final_report().await?;
        let mv = report.moves.first().map_or(Move::Pass, |m| m.mv);
        mutated += 1;
        if game.play(mv).is_err() {
            let _ = game.play(Move::Pass);
        }
    }
    Ok((game, book, mutated))
}

fn log_entry(game: &Game) -> LoggedGame {
    let size = game.size();
    let score = final_score(game);
    let winner = if score > 0.0 {
        "B"
    } else if score < 0.0 {
        "W"
    } else {
        "0"
    };
    LoggedGame {
        size: size.to_string(),
        rules: game.rules().to_compact(),
        komi: game.rules().komi.value(),
        moves: game
            .moves()
            .iter()
            .map(|(_, m)| m.to_gtp(size))
            .collect::<Vec<_>>()
            .join(" "),
        winner: winner.into(),
        score,
    }
}
