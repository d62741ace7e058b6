//! The exact local solver: every sequence of local play in a region, reduced to a combinatorial game.
//!
//! A node's options are all legal moves of each colour on the region's empty points, except moves into
//! sure territory (own or the opponent's, by the local Benson test of `settle`) and, under territory
//! scoring, fillings of safe dame (both are numbers that change nothing). A node is a leaf when the region
//! is settled; its value is the local count. Each node counts from its own position: the prisoners a
//! move takes are added to its option, not carried down, so the transposition table (keyed by stones, ko
//! ban and sealed captured space) finds a position again whatever was captured on the way to it.
//!
//! Kos (placid kos, `docs/endgame.md`): after a single-stone capture that the opponent could retake at once,
//! the retake is not searched; it becomes an option whose value is the ko's count by the customary rule.
//! When Black takes and must then fill to get `l`, and White's best resolution of the open ko gives `r`,
//! the open ko counts `(l + 2r)/3` and each move in it is worth `(l − r)/3`: a third of the swing. The
//! mirror holds when White takes. Longer ko chains (approach kos, multi-step kos) are outside this rule.
//!
//! A node where only one colour has a move is a number: that colour's best result, which it can take at
//! leisure (plus the point the final capture would cost under territory scoring). Positions repeating one
//! on the current line (other than kos) are not searched; a result that avoided such a repetition is
//! not stored in the table.

mod boards;
pub mod bounded;
mod line;
mod moves;
mod node;
mod progress;
mod stats;

use super::cgt::fast_hash::{FastMap, fast_map};
use super::cgt::{Game, Kind, Rational, Thermograph, classify};
use super::local::{Settlement, finished_count};
use super::region::{MAX_REGION_POINTS, Region, Sealed};
use crate::go::{Board, Color, Point, Scoring};
use line::{Dependencies, LineKey};
pub use node::{Branch, Node};
pub use progress::Progress;
use stats::{Outcome, Stats, Visit};
use std::sync::Arc;

/// The largest number of empty region points the exact solver accepts.
pub const MAX_EMPTY_POINTS: usize = 14;

/// How many positions a search may visit before it gives up.
pub const MAX_POSITIONS: usize = 200_000;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error(
        "the region has {empty} empty points; the exact solver accepts at most {limit}: mark a smaller region"
    )]
    TooLarge { empty: usize, limit: usize },
    #[error("the region has no empty point: nothing to solve")]
    NothingToPlay,
    #[error(
        "the search visited more than {limit} positions without finishing: the region is too open for the exact solver"
    )]
    Budget { limit: usize },
    #[error("the region has {points} points; at most {limit} can be marked")]
    RegionTooLarge { points: usize, limit: usize },
}

/// The solver's answer for a position.
#[derive(Clone, Debug)]
pub struct Solution {
    pub root: Arc<Node>,
    pub thermograph: Thermograph,
    pub kind: Kind,
    /// Positions searched.
    pub positions: usize,
}

impl Solution {
    pub fn temperature(&self) -> Rational {
        self.thermograph.temperature
    }

    pub fn mean(&self) -> Rational {
        self.thermograph.mean
    }

    /// The move value in the problem set's convention: twice the territory temperature (0 when settled).
    pub fn value(&self) -> Rational {
        crate::endgame::cgt::move_value(self.temperature())
    }

    pub fn best_moves(&self, color: Color) -> Vec<Point> {
        self.root.best(color).iter().map(|b| b.point).collect()
    }

    /// Alternating best play starting with `first`, until the position is settled or a ko rule value.
    pub fn principal_variation(&self, first: Color) -> Vec<(Color, Point)> {
        let mut line = Vec::new();
        let mut node = self.root.clone();
        let mut color = first;
        while line.len() < 40 {
            let Some(branch) = node.best(color).first().map(|b| (*b).clone()) else {
                break;
            };
            line.push((color, branch.point));
            match branch.child {
                Some(child) => node = child,
                None => break,
            }
            if node.game.is_number() {
                break;
            }
            color = color.opponent();
        }
        line
    }
}

/// Solves the local game of `region` on `board` (stones outside the region never move).
pub fn solve(board: &Board, region: &Region, scoring: Scoring) -> Result<Solution, SolveError> {
    solve_within(board, region, scoring, MAX_POSITIONS)
}

/// [`solve`] with another limit on the positions searched (e.g. a smaller one when labelling many
/// generated positions, where giving up early on the rare slow one is cheaper than waiting).
pub fn solve_within(
    board: &Board,
    region: &Region,
    scoring: Scoring,
    max_positions: usize,
) -> Result<Solution, SolveError> {
    solve_watched(board, region, scoring, max_positions, &Progress::default())
}

/// The board a search of `region` starts from (no ko ban from before), or why the region cannot be
/// searched.
pub(crate) fn starting_board(board: &Board, region: &Region) -> Result<Board, SolveError> {
    let empty = region.empty_points(board).len();
    if empty > MAX_EMPTY_POINTS {
        return Err(SolveError::TooLarge {
            empty,
            limit: MAX_EMPTY_POINTS,
        });
    }
    if empty == 0 {
        return Err(SolveError::NothingToPlay);
    }
    if region.len() > MAX_REGION_POINTS {
        return Err(SolveError::RegionTooLarge {
            points: region.len(),
            limit: MAX_REGION_POINTS,
        });
    }
    let mut start = board.clone();
    start.clear_ko();
    Ok(start)
}

/// How many positions a search visits between two updates of its [`Progress`].
const PROGRESS_EVERY: usize = 1024;

/// [`solve_within`], counting the positions searched in `progress` as it goes.
pub fn solve_watched(
    board: &Board,
    region: &Region,
    scoring: Scoring,
    max_positions: usize,
    progress: &Progress,
) -> Result<Solution, SolveError> {
    let start = starting_board(board, region)?;
    let mut search = Search::new(region, scoring == Scoring::Area, max_positions);
    search.stats = Stats::from_env();
    progress.start(max_positions);
    search.progress = Some(progress);
    let root = search.node(&start, State::default(), None, 0).node;
    progress.searched_up_to(search.visited.min(max_positions));
    if let Some(stats) = &search.stats {
        eprintln!("{}", stats.report(board));
    }
    if search.visited > max_positions {
        return Err(SolveError::Budget {
            limit: max_positions,
        });
    }
    let thermograph = Thermograph::of(&root.game);
    let mut kind = classify(&root.game);
    let ko_at_root = [Color::Black, Color::White].iter().any(|&c| {
        root.best(c)
            .iter()
            .any(|b| b.ko || b.child.as_ref().is_some_and(|n| has_ko_option(n)))
    });
    if ko_at_root && thermograph.temperature > Rational::ZERO {
        kind = Kind::Ko;
    }
    Ok(Solution {
        root,
        thermograph,
        kind,
        positions: search.visited,
    })
}

fn has_ko_option(node: &Node) -> bool {
    node.branches(Color::Black)
        .iter()
        .chain(node.branches(Color::White))
        .any(|b| b.ko && b.child.is_none())
}

/// The ban on an immediate ko retake: the point and the colour that may not play there.
type Ban = Option<(Point, Color)>;

/// What besides the stones makes a local position: the ko ban and the sealed captured space.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct State {
    ban: Ban,
    sealed: Sealed,
}

impl State {
    /// The position `board` in this state as the current line knows it, for repetitions.
    fn line_key(self, board: &Board) -> LineKey {
        (board.stone_hash(), self.ban, self.sealed)
    }
}

/// What a node reached by a ko capture needs from the open ko: the other colour's best non-ko result
/// there (its mean).
#[derive(Clone, Copy)]
struct KoContext {
    resolution: Rational,
}

impl KoContext {
    /// The context of `color`'s ko capture taking `gain` prisoners, from each colour's best non-ko mean
    /// (Black's, White's): the other colour's, counted from the child's own position, without the
    /// prisoners this capture takes.
    fn of_capture(
        color: Color,
        gain: i64,
        resolutions: (Option<Rational>, Option<Rational>),
    ) -> Option<KoContext> {
        let resolution = match color {
            Color::Black => resolutions.1,
            Color::White => resolutions.0,
        };
        resolution.map(|r| KoContext {
            resolution: r - Rational::integer(gain),
        })
    }
}

struct Search<'a> {
    region: &'a Region,
    area: bool,
    /// Solved positions, keyed by stones and state.
    table: FastMap<TableKey, Arc<Node>>,
    /// Solved games shifted by a capture's prisoners (`Branch::to`).
    shifted: FastMap<(usize, i64), (Arc<Node>, Game)>,
    /// Positions on the current line (prisoners aside: a capture cycle repeats the board, not the
    /// prisoners), with their depth.
    path: FastMap<LineKey, usize>,
    visited: usize,
    max_positions: usize,
    /// Where another thread reads how far the search has got.
    progress: Option<&'a Progress>,
    /// Where the positions go, when `TENGEN_SOLVER_STATS` asks.
    stats: Option<Stats>,
}

type TableKey = (u128, State);

/// A solved node and the positions of the line above it whose repetition its subtree avoided: a node
/// that avoided one depends on the line and is not stored in the table.
type Solved = line::Solved<Node>;

struct Candidate {
    point: Point,
    /// Boxed: candidates are gathered, sorted and moved by the dozen per position, and a board is 8 KB.
    board: boards::BoxedBoard,
    state: State,
    /// Prisoners the move takes, Black's minus White's (territory scoring).
    gain: i64,
}

impl<'a> Search<'a> {
    fn new(region: &'a Region, area: bool, max_positions: usize) -> Search<'a> {
        Search {
            region,
            area,
            table: fast_map(),
            shifted: fast_map(),
            path: fast_map(),
            visited: 0,
            max_positions,
            progress: None,
            stats: None,
        }
    }

    fn key(&self, board: &Board, state: State) -> TableKey {
        (board.stone_hash(), state)
    }

    /// The position after `color`'s move `candidate` from a node at `depth`, solved (and counted when
    /// the counters are on).
    fn child(
        &mut self,
        color: Color,
        candidate: &Candidate,
        ko: Option<KoContext>,
        depth: usize,
    ) -> Solved {
        if let Some(stats) = &mut self.stats {
            stats.enter(color, candidate.point);
        }
        let solved = self.node(&candidate.board, candidate.state, ko, depth + 1);
        if let Some(stats) = &mut self.stats {
            stats.leave();
        }
        solved
    }

    fn node(&mut self, board: &Board, state: State, ko: Option<KoContext>, depth: usize) -> Solved {
        let key = self.key(board, state);
        if let Some(node) = self.table.get(&key) {
            if let Some(stats) = &mut self.stats {
                stats.hit();
            }
            return Solved::free(node.clone());
        }
        self.visited += 1;
        if self.visited.is_multiple_of(PROGRESS_EVERY)
            && let Some(progress) = self.progress
        {
            progress.searched_up_to(self.visited);
        }
        if self.visited > self.max_positions {
            // Unwind quickly; `solve` reports the exhausted budget.
            return Solved::free(Arc::new(Node::leaf(Game::number(0))));
        }
        let settlement = Settlement::assess(board, self.region, &state.sealed);
        let mut outcome = Outcome::Settled;
        let done = if settlement.is_settled(board, self.region, self.area) {
            Some(Node::leaf(Game::number(settlement.count(
                board,
                self.region,
                self.area,
            ))))
        } else if let Some(count) = finished_count(board, self.region, &settlement, self.area) {
            // Finished in the course's sense: every chain alive or dead by reading, every area owned.
            outcome = Outcome::Finished;
            Some(Node::leaf(Game::number(count)))
        } else {
            None
        };
        if let Some(stats) = &mut self.stats {
            let visit = Visit {
                board,
                region: self.region,
                settlement: &settlement,
                area: self.area,
                depth,
                after_capture: state.sealed != Sealed::default(),
                ko: state.ban.is_some(),
            };
            stats.visit(
                &visit,
                if done.is_some() {
                    outcome
                } else {
                    Outcome::Expanded
                },
            );
        }
        if let Some(node) = done {
            let node = Arc::new(node);
            self.table.insert(key, node.clone());
            return Solved::free(node);
        }
        self.expand(board, &settlement, state, ko, depth)
    }

    /// Searches every move of both colours from a position that is neither settled nor split.
    fn expand(
        &mut self,
        board: &Board,
        settlement: &Settlement,
        state: State,
        ko: Option<KoContext>,
        depth: usize,
    ) -> Solved {
        let key = self.key(board, state);
        let line_key = state.line_key(board);
        self.path.insert(line_key, depth);
        let mut depends = Dependencies::default();
        let mut black = Vec::new();
        let mut white = Vec::new();
        let mut kos: Vec<(Color, Candidate)> = Vec::new();
        for color in [Color::Black, Color::White] {
            for point in self.moves(board, settlement, state, color) {
                let Some(candidate) = self.play(board, state, color, point) else {
                    continue;
                };
                let line = candidate.state.line_key(&candidate.board);
                if let Some(&at) = self.path.get(&line) {
                    if let Some(stats) = &mut self.stats {
                        stats.repeat(at, color, point);
                    }
                    depends.merge(&Dependencies::at(at));
                    continue;
                }
                if candidate.state.ban.is_some() {
                    kos.push((color, candidate));
                    continue;
                }
                let solved = self.child(color, &candidate, None, depth);
                depends.merge(&solved.depends);
                let branch =
                    Branch::to(point, solved.node, candidate.gain, false, &mut self.shifted);
                match color {
                    Color::Black => black.push(branch),
                    Color::White => white.push(branch),
                }
            }
        }
        if !kos.is_empty() {
            let resolutions = (
                best_mean(&black, Color::Black),
                best_mean(&white, Color::White),
            );
            for (color, candidate) in kos {
                let context = KoContext::of_capture(color, candidate.gain, resolutions);
                let solved = self.child(color, &candidate, context, depth);
                depends.merge(&solved.depends);
                let branch = Branch::to(
                    candidate.point,
                    solved.node,
                    candidate.gain,
                    true,
                    &mut self.shifted,
                );
                match color {
                    Color::Black => black.push(branch),
                    Color::White => white.push(branch),
                }
            }
        }
        // This node was reached by a ko capture: add the banned retake, valued by the ko rule.
        if let (Some((point, banned)), Some(context)) = (state.ban, ko) {
            let taker = banned.opponent();
            let taker_result = match taker {
                Color::Black => best_mean(&black, Color::Black),
                Color::White => best_mean(&white, Color::White),
            };
            if let Some(own) = taker_result {
                // The open ko counts one third of the way from the one-move side's result.
                let open = (own + context.resolution + context.resolution) / Rational::integer(3);
                let branch = Branch {
                    point,
                    value: Game::Number(open),
                    prisoners: 0,
                    child: None,
                    ko: true,
                };
                match banned {
                    Color::Black => black.push(branch),
                    Color::White => white.push(branch),
                }
            }
        }
        self.path.remove(&line_key);
        let depends = depends.above(depth);
        let game = match (black.is_empty(), white.is_empty()) {
            (true, true) => Game::number(settlement.count(board, self.region, self.area)),
            (false, true) => {
                let best = best_mean(&black, Color::Black).unwrap_or(Rational::ZERO);
                Game::Number(best + self.leisure())
            }
            (true, false) => {
                let best = best_mean(&white, Color::White).unwrap_or(Rational::ZERO);
                Game::Number(best - self.leisure())
            }
            (false, false) => {
                let game = Game::new(
                    black.iter().map(|b| b.value.clone()).collect(),
                    white.iter().map(|b| b.value.clone()).collect(),
                );
                self.as_it_stands(game, board, settlement, &black, &white)
            }
        };
        if let Some(stats) = &mut self.stats {
            let one_sided = black.is_empty() != white.is_empty();
            stats.expanded(&key, one_sided, depends.is_empty());
            stats.dependent(depends.len());
        }
        let node = Arc::new(Node::new(game, black, white));
        if depends.is_empty() {
            self.table.insert(key, node.clone());
        }
        Solved { node, depends }
    }
}

impl Search<'_> {
    /// A cold node (its game is a number: every move loses for the mover) is worth its count as it
    /// stands when that count lies strictly between the two colours' options: nobody moves, as in a
    /// seki. Its game alone is the simplest number between the options, which ignores the count (a seki
    /// beside two points of Black's territory, both colours' moves self-ataris, read 0 for 2). Territory
    /// fills, pruned as moves, would pin the number there in the theory: a Black fill is an option of
    /// the count less a point, a White one of the count plus a point.
    fn as_it_stands(
        &self,
        game: Game,
        board: &Board,
        settlement: &Settlement,
        black: &[Branch],
        white: &[Branch],
    ) -> Game {
        if !game.is_number() {
            return game;
        }
        let count = Game::number(settlement.count(board, self.region, self.area));
        let below = black.iter().all(|b| !count.le(&b.value));
        let above = white.iter().all(|w| !w.value.le(&count));
        if below && above { count } else { game }
    }
}

/// The best of `means` for `color` (Black's largest, White's smallest).
fn best_mean_of(means: impl Iterator<Item = Rational>, color: Color) -> Option<Rational> {
    match color {
        Color::Black => means.max(),
        Color::White => means.min(),
    }
}

/// The best mean among `color`'s branches.
fn best_mean(branches: &[Branch], color: Color) -> Option<Rational> {
    let means = branches.iter().map(|b| Thermograph::mean_of(&b.value));
    match color {
        Color::Black => means.max(),
        Color::White => means.min(),
    }
}

#[cfg(test)]
mod tests;
