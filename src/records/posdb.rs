//! A position database scored at several komi values, and the minimax over it (Darren Cook's method).
//!
//! Each entry is a position (a move sequence from the empty board) with Black's winning rate at several
//! komi values. The position's score is where the winner switches: Black wins at komi 4.5 and loses at 5.5
//! means a score of 5. The confidence is the distance from 50% on both sides of the switch (in percent).
//! Entries are not linked: the minimax generates every follow-up of a position, looks it up by canonical
//! hash, and backs values up, caching each node once its children are done.
//!
//! Database format (JSON lines, version 1, one entry per line; `#` lines are comments):
//! `{"size":"9x9","rules":"chinese","moves":"E5 C5","winrates":{"4.5":0.80,"5.5":0.35},
//!   "visits":32000,"found_by":"name"}` — `winrates` are Black's, keyed by komi; `visits` and `found_by` are
//! optional.

use crate::go::hash::{DEFAULT_REP_BOUND, canonical};
use crate::go::{BoardSize, BookHash, Game, Komi, Move, Rules};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum PosDbError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Entry {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
pub struct EntryRecord {
    pub size: String,
    #[serde(default = "default_rules")]
    pub rules: String,
    pub moves: String,
    pub winrates: std::collections::BTreeMap<String, f64>,
    #[serde(default)]
    pub visits: Option<u64>,
    #[serde(default)]
    pub found_by: Option<String>,
}

fn default_rules() -> String {
    "chinese".into()
}

/// Where the winner switches, in half points of komi.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Score {
    /// Black wins at komi `k - 0.5` and loses at `k + 0.5`: the score is `k`.
    Exact(f64),
    /// Black wins even at the largest komi tried: the score is at least this.
    AtLeast(f64),
    /// Black loses even at the smallest komi tried: the score is at most this.
    AtMost(f64),
}

impl Score {
    /// A single number for minimax: bounds count as the bound itself.
    pub fn value(self) -> f64 {
        match self {
            Score::Exact(v) | Score::AtLeast(v) | Score::AtMost(v) => v,
        }
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Exact(v) => write!(f, "{v}"),
            Score::AtLeast(v) => write!(f, "{v}+"),
            Score::AtMost(v) => write!(f, "{v}-"),
        }
    }
}

/// Cook's score and confidence (0..100) from Black's winning rates by komi.
pub fn score_from_winrates(by_komi: &[(f64, f64)]) -> Option<(Score, f64)> {
    let mut points: Vec<(f64, f64)> = by_komi.to_vec();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (first, last) = (*points.first()?, *points.last()?);
    for pair in points.windows(2) {
        let ((k1, w1), (k2, w2)) = (pair[0], pair[1]);
        if w1 > 0.5 && w2 <= 0.5 {
            let confidence = (w1 - 0.5) * 100.0 + (0.5 - w2) * 100.0;
            return Some((Score::Exact((k1 + k2) / 2.0), confidence));
        }
    }
    if points.iter().all(|&(_, w)| w > 0.5) {
        Some((Score::AtLeast(last.0 + 0.5), (last.1 - 0.5) * 200.0))
    } else if points.iter().all(|&(_, w)| w <= 0.5) {
        Some((Score::AtMost(first.0 - 0.5), (0.5 - first.1) * 200.0))
    } else {
        // Non-monotone rates: take the last switch from winning to losing as the score, with no confidence.
        let switch = points.windows(2).rev().find(|p| p[0].1 > 0.5)?;
        Some((Score::Exact((switch[0].0 + switch[1].0) / 2.0), 0.0))
    }
}

/// How soon a position should be analysed again: low confidence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Urgency {
    High,
    Mid,
    Low,
}

impl Urgency {
    /// Below 25 points of confidence is high urgency, below 60 mid, else low.
    pub fn of(confidence: f64) -> Urgency {
        if confidence < 25.0 {
            Urgency::High
        } else if confidence < 60.0 {
            Urgency::Mid
        } else {
            Urgency::Low
        }
    }
}

#[derive(Debug, Clone)]
pub struct Position {
    pub game: Game,
    pub score: Score,
    pub confidence: f64,
    pub found_by: Option<String>,
    pub line: usize,
}

/// The database: positions by canonical hash.
#[derive(Debug, Clone, Default)]
pub struct PositionDb {
    pub positions: HashMap<BookHash, Position>,
}

/// The backed-up value of a position and the follow-up that gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backed {
    pub value: f64,
    pub best: Option<Move>,
}

impl PositionDb {
    pub fn load(path: &Path) -> Result<PositionDb, PosDbError> {
        let text = std::fs::read_to_string(path).map_err(|source| PosDbError::Io {
            path: path.into(),
            source,
        })?;
        let mut db = PositionDb::default();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let err = |message: String| PosDbError::Entry {
                path: path.into(),
                line: line_no,
                message,
            };
            let record: EntryRecord =
                serde_json::from_str(trimmed).map_err(|e| err(e.to_string()))?;
            let position = Position::from_record(&record, line_no).map_err(err)?;
            db.insert(position);
        }
        Ok(db)
    }

    pub fn insert(&mut self, position: Position) {
        self.positions
            .insert(canonical(&position.game, DEFAULT_REP_BOUND).hash, position);
    }

    pub fn get(&self, game: &Game) -> Option<&Position> {
        self.positions.get(&canonical(game, DEFAULT_REP_BOUND).hash)
    }

    /// Minimax from `game`: a position with follow-ups in the database takes the best of them for the
    /// player to move (Black maximises the score); one without keeps its own score. Values are cached by
    /// canonical hash; a follow-up already on the current path (a repetition) is skipped.
    pub fn minimax(&self, game: &Game) -> Option<Backed> {
        let mut cache = HashMap::new();
        let mut path = Vec::new();
        self.backed(game, &mut cache, &mut path)
    }

    fn backed(
        &self,
        game: &Game,
        cache: &mut HashMap<BookHash, Backed>,
        path: &mut Vec<BookHash>,
    ) -> Option<Backed> {
        let hash = canonical(game, DEFAULT_REP_BOUND).hash;
        if let Some(b) = cache.get(&hash) {
            return Some(*b);
        }
        let own = self.positions.get(&hash)?;
        path.push(hash);
        let maximise = game.to_move() == crate::go::Color::Black;
        let mut best: Option<Backed> = None;
        for mv in game.legal_moves() {
            let mut child = game.clone();
            if child.play(mv).is_err() {
                continue;
            }
            let child_hash = canonical(&child, DEFAULT_REP_BOUND).hash;
            if path.contains(&child_hash) {
                continue;
            }
            if let Some(b) = self.backed(&child, cache, path) {
                let better = best.is_none_or(|cur| {
                    if maximise {
                        b.value > cur.value
                    } else {
                        b.value < cur.value
                    }
                });
                if better {
                    best = Some(Backed {
                        value: b.value,
                        best: Some(mv),
                    });
                }
            }
        }
        path.pop();
        let result = best.unwrap_or(Backed {
            value: own.score.value(),
            best: None,
        });
        cache.insert(hash, result);
        Some(result)
    }

    /// Positions by urgency, each queue by rising confidence.
    pub fn urgency_queues(&self) -> [Vec<&Position>; 3] {
        let mut queues: [Vec<&Position>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for p in self.positions.values() {
            queues[Urgency::of(p.confidence) as usize].push(p);
        }
        for q in &mut queues {
            q.sort_by(|a, b| {
                a.confidence
                    .total_cmp(&b.confidence)
                    .then(a.line.cmp(&b.line))
            });
        }
        queues
    }

    /// Refutations: positions that are their parent's best follow-up and whose backed-up value reverses the
    /// winner at `komi` of the parent's own analysis, with who found them (as GTP lines). Scores are
    /// Black's, so Black wins a position when its score exceeds the komi.
    pub fn refutations(&self, komi: f64) -> Vec<(String, Option<String>)> {
        let mut out = Vec::new();
        let mut cache = HashMap::new();
        for (hash, p) in &self.positions {
            let moves = p.game.moves();
            let Some(((_, last), earlier)) = moves.split_last() else {
                continue;
            };
            let mut parent = Game::new(p.game.size(), p.game.rules());
            if earlier.iter().any(|&(c, m)| parent.play_as(c, m).is_err()) {
                continue;
            }
            let Some(parent_pos) = self.get(&parent) else {
                continue;
            };
            let Some(backed) = self.backed(&parent, &mut cache, &mut Vec::new()) else {
                continue;
            };
            let leads_here = backed.best.is_some_and(|mv| {
                let mut g = parent.clone();
                g.play(mv).is_ok() && canonical(&g, DEFAULT_REP_BOUND).hash == *hash
            }) || backed.best == Some(*last);
            if leads_here && (backed.value > komi) != (parent_pos.score.value() > komi) {
                let size = p.game.size();
                let line = moves
                    .iter()
                    .map(|(_, m)| m.to_gtp(size))
                    .collect::<Vec<_>>()
                    .join(" ");
                out.push((line, p.found_by.clone()));
            }
        }
        out.sort();
        out
    }
}

impl Position {
    pub fn from_record(record: &EntryRecord, line: usize) -> Result<Position, String> {
        let size = BoardSize::parse(&record.size).map_err(|e| e.to_string())?;
        let rules = Rules::parse(&record.rules).map_err(|e| e.to_string())?;
        let mut rates = Vec::new();
        for (komi, rate) in &record.winrates {
            let k: f64 = komi
                .parse()
                .map_err(|_| format!("komi `{komi}` is not a number"))?;
            Komi::from_f64(k).map_err(|e| e.to_string())?;
            if !(0.0..=1.0).contains(rate) {
                return Err(format!(
                    "winrate {rate} at komi {komi} is not between 0 and 1"
                ));
            }
            rates.push((k, *rate));
        }
        let (score, confidence) = score_from_winrates(&rates).ok_or("no winrates")?;
        let game = Game::from_gtp_moves(size, rules, &record.moves).map_err(|e| e.to_string())?;
        Ok(Position {
            game,
            score,
            confidence,
            found_by: record.found_by.clone(),
            line,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::playout::FastRng;

    #[test]
    fn cooks_examples() {
        let (s, c) =
            score_from_winrates(&[(4.5, 0.80), (5.5, 0.35), (6.5, 0.30), (7.5, 0.30)]).unwrap();
        assert_eq!(s, Score::Exact(5.0));
        assert!((c - 45.0).abs() < 1e-9);
        let (s, c) =
            score_from_winrates(&[(4.5, 0.53), (5.5, 0.55), (6.5, 0.51), (7.5, 0.54)]).unwrap();
        assert_eq!(s, Score::AtLeast(8.0));
        assert!((c - 8.0).abs() < 1e-9);
        assert_eq!(s.to_string(), "8+");
        assert_eq!(Urgency::of(c), Urgency::High);
    }

    /// Plain minimax over the tree of move sequences, without caching or hashing of transpositions.
    fn brute(db: &PositionDb, game: &Game, depth: usize) -> Option<f64> {
        let own = db.get(game)?;
        let maximise = game.to_move() == crate::go::Color::Black;
        let children: Vec<f64> = if depth == 0 {
            Vec::new()
        } else {
            game.legal_moves()
                .into_iter()
                .filter_map(|mv| {
                    let mut g = game.clone();
                    g.play(mv).ok()?;
                    brute(db, &g, depth - 1)
                })
                .collect()
        };
        if children.is_empty() {
            return Some(own.score.value());
        }
        let fold = if maximise { f64::max } else { f64::min };
        Some(
            children
                .into_iter()
                .fold(if maximise { f64::MIN } else { f64::MAX }, fold),
        )
    }

    #[test]
    fn minimax_agrees_with_brute_force_on_a_generated_database() {
        let size = BoardSize::square(3).unwrap();
        let rules = Rules::chinese();
        let mut rng = FastRng::new(11);
        let mut db = PositionDb::default();
        // Every position up to two moves deep (no passes), scored at random: follow-ups link them.
        let root = Game::new(size, rules);
        let mut frontier = vec![root.clone()];
        for _ in 0..=2 {
            let mut next = Vec::new();
            for g in frontier {
                let score = (rng.below(19) as f64) - 9.0;
                db.insert(Position {
                    game: g.clone(),
                    score: Score::Exact(score),
                    confidence: 50.0,
                    found_by: None,
                    line: 0,
                });
                for mv in g.legal_moves().into_iter().filter(|m| *m != Move::Pass) {
                    let mut c = g.clone();
                    if c.play(mv).is_ok() && rng.below(3) > 0 {
                        next.push(c);
                    }
                }
            }
            frontier = next;
        }
        assert!(db.positions.len() > 10);
        let fast = db.minimax(&root).unwrap().value;
        assert_eq!(Some(fast), brute(&db, &root, 3));
        for p in db.positions.values().take(20) {
            assert_eq!(db.minimax(&p.game).map(|b| b.value), brute(&db, &p.game, 3));
        }
    }
}
