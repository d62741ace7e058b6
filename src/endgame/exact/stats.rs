//! Where a search's positions go: counters kept only when `TENGEN_SOLVER_STATS` is set, and
//! printed to standard error when the search ends. They cost nothing otherwise.

use crate::endgame::local::{Settlement, finished_count_up_to};
use crate::endgame::region::Region;
use crate::go::{Board, Color, Point};
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The environment variable that turns the counters on.
pub const STATS_VAR: &str = "TENGEN_SOLVER_STATS";

/// How a visited position ended.
#[derive(Clone, Copy)]
pub enum Outcome {
    Settled,
    Finished,
    Expanded,
}

#[derive(Default)]
pub struct Stats {
    by_depth: Vec<usize>,
    by_empty: Vec<usize>,
    settled: usize,
    finished: usize,
    expanded: usize,
    /// Positions reached after a capture somewhere on the line (sealed captured space).
    after_capture: usize,
    /// Positions reached by a ko capture (a retake is banned).
    ko: usize,
    /// Expanded nodes where only one colour had a move.
    one_sided: usize,
    /// Expanded nodes with more than six empty points that reading would count as finished.
    judged_above_six: usize,
    /// Expanded nodes with more than six empty points.
    expanded_above_six: usize,
    table_hits: usize,
    /// Line-dependent results, by the number of line positions they depend on.
    dependent_by_count: Vec<usize>,
    /// Moves dropped because they repeat a position of the line, by the length of the cycle.
    repeats_by_length: Vec<usize>,
    /// The first repetition met: the line's moves from the repeated position.
    first_cycle: Vec<(Color, Point)>,
    /// Nodes not stored (they avoided a repetition above them) whose position was searched again.
    recomputed: usize,
    unstored: HashSet<u64>,
    /// The moves of the current line, and the deepest line met.
    line: Vec<(Color, Point)>,
    deepest: Vec<(Color, Point)>,
}

/// What the counters need to know about a visited position.
pub struct Visit<'a> {
    pub board: &'a Board,
    pub region: &'a Region,
    pub settlement: &'a Settlement,
    pub area: bool,
    pub depth: usize,
    pub after_capture: bool,
    pub ko: bool,
}

impl Stats {
    /// Counters when the environment asks for them.
    pub fn from_env() -> Option<Stats> {
        std::env::var_os(STATS_VAR).map(|_| Stats::default())
    }

    pub fn enter(&mut self, color: Color, p: Point) {
        self.line.push((color, p));
        if self.line.len() > self.deepest.len() {
            self.deepest = self.line.clone();
        }
    }

    pub fn leave(&mut self) {
        self.line.pop();
    }

    /// A move of `color` at `p` that repeats the position at `at` plies of the line.
    pub fn repeat(&mut self, at: usize, color: Color, p: Point) {
        let length = self.line.len() + 1 - at.min(self.line.len());
        bump(&mut self.repeats_by_length, length);
        if self.first_cycle.is_empty() {
            self.first_cycle = self.line[at.min(self.line.len())..].to_vec();
            self.first_cycle.push((color, p));
        }
    }

    /// Positions visited (every outcome).
    pub fn visited(&self) -> usize {
        self.settled + self.finished + self.expanded
    }

    pub fn hit(&mut self) {
        self.table_hits += 1;
    }

    /// A result that depends on `count` positions of the line above it.
    pub fn dependent(&mut self, count: usize) {
        bump(&mut self.dependent_by_count, count);
    }

    pub fn visit(&mut self, visit: &Visit, outcome: Outcome) {
        let empty = visit.region.empty_points(visit.board).len();
        bump(&mut self.by_depth, visit.depth);
        bump(&mut self.by_empty, empty);
        self.after_capture += usize::from(visit.after_capture);
        self.ko += usize::from(visit.ko);
        match outcome {
            Outcome::Settled => self.settled += 1,
            Outcome::Finished => self.finished += 1,
            Outcome::Expanded => {
                self.expanded += 1;
                if empty > 6 {
                    self.expanded_above_six += 1;
                    let judged = finished_count_up_to(
                        visit.board,
                        visit.region,
                        visit.settlement,
                        visit.area,
                        usize::MAX,
                    );
                    self.judged_above_six += usize::from(judged.is_some());
                }
            }
        }
    }

    pub fn expanded(&mut self, key: &impl Hash, one_sided: bool, stored: bool) {
        self.one_sided += usize::from(one_sided);
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let key = hasher.finish();
        if !self.unstored.insert(key) {
            self.recomputed += 1;
        }
        if stored {
            self.unstored.remove(&key);
        }
    }

    pub fn report(&self, board: &Board) -> String {
        let moves = |line: &[(Color, Point)]| {
            line.iter()
                .map(|(c, p)| format!("{}{}", c.letter(), p.to_gtp(board.size())))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let list = |v: &[usize]| {
            v.iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, n)| format!("{i}:{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "solver stats: {} positions: settled {} finished {} expanded {} (one-sided {}, above 6 empty {}, \
             of which judged finished {}), after a capture {}, ko {}, table hits {}, recomputed {}\n\
             by depth: {}\nby empty points: {}\ndeepest line: {}\nrepeats by cycle length: {}\nfirst cycle: {}\n\
             line-dependent results by dependencies: {}",
            self.visited(),
            self.settled,
            self.finished,
            self.expanded,
            self.one_sided,
            self.expanded_above_six,
            self.judged_above_six,
            self.after_capture,
            self.ko,
            self.table_hits,
            self.recomputed,
            list(&self.by_depth),
            list(&self.by_empty),
            moves(&self.deepest),
            list(&self.repeats_by_length),
            moves(&self.first_cycle),
            list(&self.dependent_by_count)
        )
    }
}

fn bump(counts: &mut Vec<usize>, at: usize) {
    if counts.len() <= at {
        counts.resize(at + 1, 0);
    }
    counts[at] += 1;
}
