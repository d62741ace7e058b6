//! The exact local solver: every sequence of local play in a region, reduced to a combinatorial game.
//!
//! A node's options are all legal moves of each colour on the region's empty points, except moves into
//! sure territory (own or the opponent's, by the local Benson test of `settle`) and, under territory
//! scoring, fillings of safe dame (both are numbers that change nothing). A node is a leaf when the region
//! is settled; its value is the local count, prisoners taken on the way included. The transposition
//! table is keyed by stones, ko ban, sealed captured space and prisoners.
//!
//! Kos (placid kos, `docs/endgame.md`): after a single-stone capture that the opponent could retake at once,
//! the retake is not searched; it becomes an option whose value is the ko's count by the customary rule.
//! When Black takes and must then fill to get `l`, and White's best resolution of the open ko gives `r`,
//! the open ko counts `(l + 2r)/3` and each move in it is worth `(l − r)/3`: a third of the swing. The
//! mirror holds when White takes. Longer ko chains (approach kos, multi-step kos) are outside this rule.
//!
//! A node where only one colour has a move is a number: that colour's best result, which it can take at
//! leisure (plus the point the final capture would cost under territory scoring). Positions repeating one
//! on the current line (other than kos) are not searched.

use super::cgt::{Game, Kind, Rational, Thermograph, classify};
use super::region::{MAX_REGION_POINTS, Region, Sealed};
use super::settle::Settlement;
use super::status::finished_count;
use crate::go::board::neighbours;
use crate::go::{Board, Cell, Color, Point, Scoring};
use std::collections::HashMap;
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

/// One option of a node: a move and the value it leads to, in the node's frame.
#[derive(Clone, Debug)]
pub struct Branch {
    pub point: Point,
    /// The option's value (child value plus prisoners taken by the move).
    pub value: Game,
    /// The position after the move; `None` for a ko retake valued by the ko rule.
    pub child: Option<Arc<Node>>,
    /// The move captures a ko, or is the ko retake valued by rule.
    pub ko: bool,
}

/// A solved local position.
#[derive(Clone, Debug)]
pub struct Node {
    pub game: Game,
    pub black: Vec<Branch>,
    pub white: Vec<Branch>,
}

impl Node {
    pub fn branches(&self, color: Color) -> &[Branch] {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The moves of `color` whose options attain the thermograph's wall at the node's temperature.
    pub fn best(&self, color: Color) -> Vec<&Branch> {
        let t = Thermograph::of(&self.game).temperature;
        let score = |b: &Branch| {
            let th = Thermograph::of(&b.value);
            match color {
                Color::Black => th.right.at(t) - t,
                Color::White => -(th.left.at(t) + t),
            }
        };
        let branches = self.branches(color);
        let Some(top) = branches.iter().map(score).max() else {
            return Vec::new();
        };
        branches.iter().filter(|b| score(b) == top).collect()
    }
}

/// The solver's answer for a position.
#[derive(Clone, Debug)]
pub struct Solution {
    pub root: Arc<Node>,
    pub thermograph: Thermograph,
    pub kind: Kind,
    /// Positions searched (table entries).
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
        let t = self.temperature();
        if t > Rational::ZERO {
            t + t
        } else {
            Rational::ZERO
        }
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
    let mut search = Search {
        region,
        area: scoring == Scoring::Area,
        table: HashMap::new(),
        path: HashMap::new(),
        visited: 0,
        max_positions,
    };
    let root = search.node(&start, State::default(), None, 0).node;
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
        positions: search.table.len(),
    })
}

fn has_ko_option(node: &Node) -> bool {
    node.black
        .iter()
        .chain(&node.white)
        .any(|b| b.ko && b.child.is_none())
}

/// The ban on an immediate ko retake: the point and the colour that may not play there.
type Ban = Option<(Point, Color)>;

/// What besides the stones makes a local position: the ko ban and the sealed captured space.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct State {
    ban: Ban,
    sealed: Sealed,
    /// Prisoners taken since the root, Black's minus White's (territory scoring only).
    prisoners: i64,
}

/// What a node reached by a ko capture needs from the open ko: the other colour's best non-ko result
/// there (its mean).
#[derive(Clone, Copy)]
struct KoContext {
    resolution: Rational,
}

struct Search<'a> {
    region: &'a Region,
    area: bool,
    table: HashMap<(u128, State), Arc<Node>>,
    /// Positions on the current line (prisoners aside: a capture cycle repeats the board, not the
    /// prisoners), with their depth.
    path: HashMap<(u128, Ban, Sealed), usize>,
    visited: usize,
    max_positions: usize,
}

/// A solved node and the shallowest depth of a position on the line whose repetition it avoided: a node
/// that avoided one above itself depends on the line and is not stored in the table.
struct Solved {
    node: Arc<Node>,
    repeats_from: usize,
}

struct Candidate {
    point: Point,
    board: Board,
    state: State,
}

impl Search<'_> {
    fn node(&mut self, board: &Board, state: State, ko: Option<KoContext>, depth: usize) -> Solved {
        let key = (board.stone_hash(), state);
        let ban = state.ban;
        if let Some(node) = self.table.get(&key) {
            return Solved {
                node: node.clone(),
                repeats_from: usize::MAX,
            };
        }
        self.visited += 1;
        if self.visited > self.max_positions {
            // Unwind quickly; `solve` reports the exhausted budget.
            return Solved {
                node: Arc::new(Node {
                    game: Game::number(0),
                    black: Vec::new(),
                    white: Vec::new(),
                }),
                repeats_from: 0,
            };
        }
        let settlement = Settlement::assess(board, self.region, &state.sealed);
        if settlement.is_settled(board, self.region, self.area) {
            let node = Arc::new(Node {
                game: Game::number(
                    settlement.count(board, self.region, self.area) + state.prisoners,
                ),
                black: Vec::new(),
                white: Vec::new(),
            });
            self.table.insert(key, node.clone());
            return Solved {
                node,
                repeats_from: usize::MAX,
            };
        }
        // Finished in the course's sense: every chain alive or dead by reading, every area owned.
        if let Some(count) = finished_count(board, self.region, &settlement, self.area) {
            let node = Arc::new(Node {
                game: Game::number(count + state.prisoners),
                black: Vec::new(),
                white: Vec::new(),
            });
            self.table.insert(key, node.clone());
            return Solved {
                node,
                repeats_from: usize::MAX,
            };
        }
        let line_key = (key.0, state.ban, state.sealed);
        self.path.insert(line_key, depth);
        let mut repeats_from = usize::MAX;
        let mut black = Vec::new();
        let mut white = Vec::new();
        let mut kos: Vec<(Color, Candidate)> = Vec::new();
        for color in [Color::Black, Color::White] {
            let (candidates, repeated) = self.candidates(board, &settlement, state, color);
            repeats_from = repeats_from.min(repeated);
            for candidate in candidates {
                if candidate.state.ban.is_some() {
                    kos.push((color, candidate));
                    continue;
                }
                let solved = self.node(&candidate.board, candidate.state, None, depth + 1);
                repeats_from = repeats_from.min(solved.repeats_from);
                let child = solved.node;
                let branch = Branch {
                    point: candidate.point,
                    value: child.game.clone(),
                    child: Some(child),
                    ko: false,
                };
                match color {
                    Color::Black => black.push(branch),
                    Color::White => white.push(branch),
                }
            }
        }
        let best_mean = |branches: &[Branch], color: Color| {
            let means = branches.iter().map(|b| Thermograph::of(&b.value).mean);
            match color {
                Color::Black => means.max(),
                Color::White => means.min(),
            }
        };
        let black_resolution = best_mean(&black, Color::Black);
        let white_resolution = best_mean(&white, Color::White);
        for (color, candidate) in kos {
            let resolution = match color {
                Color::Black => white_resolution,
                Color::White => black_resolution,
            };
            let context = resolution.map(|r| KoContext { resolution: r });
            let solved = self.node(&candidate.board, candidate.state, context, depth + 1);
            repeats_from = repeats_from.min(solved.repeats_from);
            let child = solved.node;
            let branch = Branch {
                point: candidate.point,
                value: child.game.clone(),
                child: Some(child),
                ko: true,
            };
            match color {
                Color::Black => black.push(branch),
                Color::White => white.push(branch),
            }
        }
        // This node was reached by a ko capture: add the banned retake, valued by the ko rule.
        if let (Some((point, banned)), Some(context)) = (ban, ko) {
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
        let game = match (black.is_empty(), white.is_empty()) {
            (true, true) => {
                Game::number(settlement.count(board, self.region, self.area) + state.prisoners)
            }
            (false, true) => {
                let best = best_mean(&black, Color::Black).unwrap_or(Rational::ZERO);
                Game::Number(best + self.leisure())
            }
            (true, false) => {
                let best = best_mean(&white, Color::White).unwrap_or(Rational::ZERO);
                Game::Number(best - self.leisure())
            }
            (false, false) => Game::new(
                black.iter().map(|b| b.value.clone()).collect(),
                white.iter().map(|b| b.value.clone()).collect(),
            ),
        };
        let node = Arc::new(Node { game, black, white });
        if repeats_from >= depth {
            self.table.insert(key, node.clone());
        }
        Solved { node, repeats_from }
    }

    /// What a move that only one side can make is worth beyond its result: the point a territory-scored
    /// filling move costs, which the side never has to spend.
    fn leisure(&self) -> Rational {
        if self.area {
            Rational::ZERO
        } else {
            Rational::ONE
        }
    }

    fn candidates(
        &self,
        board: &Board,
        settlement: &Settlement,
        state: State,
        color: Color,
    ) -> (Vec<Candidate>, usize) {
        let mut out = Vec::new();
        let mut repeated = usize::MAX;
        for &p in self.region.points() {
            if board.color_at(p).is_some() || state.ban == Some((p, color)) {
                continue;
            }
            if settlement.owner(p).is_some() {
                continue;
            }
            if !self.area && self.is_neutral_dame(board, settlement, p) {
                continue;
            }
            if board.check(color, p, false).is_err() {
                continue;
            }
            let mut next = board.clone();
            let placed = next.place(color, p);
            if placed.captured == 0 && state.sealed.contains(self.region, color, p) {
                // A throw-in back into captured space must at least threaten a capture.
                let ataris = neighbours(p)
                    .iter()
                    .any(|&n| next.color_at(n) == Some(color.opponent()) && next.in_atari(n));
                if !ataris {
                    continue;
                }
            }
            let gain = if self.area {
                0
            } else {
                color.sign() as i64 * placed.captured as i64
            };
            let mut sealed = state.sealed;
            if placed.captured > 0 {
                let victim = color.opponent();
                let emptied: Vec<Point> = self
                    .region
                    .points()
                    .iter()
                    .copied()
                    .filter(|&q| board.color_at(q) == Some(victim) && next.color_at(q).is_none())
                    .collect();
                sealed.capture(self.region, victim, &emptied);
            }
            let new_state = State {
                ban: next.ko_point().map(|k| (k, color.opponent())),
                sealed,
                prisoners: state.prisoners + gain,
            };
            next.clear_ko();
            if let Some(&at) = self
                .path
                .get(&(next.stone_hash(), new_state.ban, new_state.sealed))
            {
                repeated = repeated.min(at);
                continue;
            }
            out.push(Candidate {
                point: p,
                board: next,
                state: new_state,
            });
        }
        (out, repeated)
    }

    /// An empty point with no empty neighbour whose stone neighbours are all safe, of both colours:
    /// filling it changes nothing under territory scoring.
    fn is_neutral_dame(&self, board: &Board, settlement: &Settlement, p: Point) -> bool {
        let mut colours = [false; 2];
        for n in neighbours(p) {
            match board.cell(n) {
                Cell::Border => {}
                Cell::Empty => return false,
                _ => {
                    if !settlement.is_safe(n) {
                        return false;
                    }
                    if let Some(c) = board.color_at(n) {
                        colours[c.index()] = true;
                    }
                }
            }
        }
        colours[0] && colours[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::problem::Problem;
    use crate::go::BoardSize;
    use std::path::Path;

    fn problem(name: &str) -> Problem {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/endgame-dev/");
        Problem::read(&Path::new(dir).join(name)).unwrap()
    }

    fn gtp(points: &[Point]) -> Vec<String> {
        let size = BoardSize::square(19).unwrap();
        points.iter().map(|p| p.to_gtp(size)).collect()
    }

    #[test]
    fn a_three_point_gote_capture() {
        // facts §3: Black's D19 leaves +3, White's leaves 0: T = 3/2, answer 3.
        let p = problem("01-value-of-move/01.sgf");
        let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
        assert_eq!(s.temperature(), Rational::new(3, 2));
        assert_eq!(s.mean(), Rational::new(3, 2));
        assert_eq!(s.value(), Rational::integer(3));
        assert_eq!(Some(s.value()), p.answer);
        assert_eq!(s.kind, Kind::Gote);
        assert_eq!(gtp(&s.best_moves(Color::Black)), ["D19"]);
        assert_eq!(gtp(&s.best_moves(Color::White)), ["D19"]);
        assert_eq!(
            s.principal_variation(Color::Black),
            vec![(Color::Black, s.best_moves(Color::Black)[0])]
        );
    }

    /// Whether some node within `depth` plies has a retake valued by the ko rule.
    fn has_ko_rule_option(node: &Node, depth: usize) -> bool {
        has_ko_option(node)
            || depth > 0
                && node
                    .black
                    .iter()
                    .chain(&node.white)
                    .filter_map(|b| b.child.as_deref())
                    .any(|c| has_ko_rule_option(c, depth - 1))
    }

    #[test]
    fn a_ko_with_thirds_comes_out_exact() {
        // 06-value-of-ko/05: answer 3 1/3, so T = 5/3; the ko rule must have been used on the way.
        let p = problem("06-value-of-ko/05.sgf");
        let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
        assert_eq!(s.temperature(), Rational::new(5, 3));
        assert_eq!(s.value(), Rational::new(10, 3));
        assert_eq!(Some(s.value()), p.answer);
        assert!(has_ko_rule_option(&s.root, 4));
    }

    #[test]
    fn a_dead_shape_is_read_as_finished() {
        // 01-value-of-move/05: after Black B19 White's straight three is dead; Benson's test alone left
        // the search in capturing sequences valued 2 instead of 14.
        let p = problem("01-value-of-move/05.sgf");
        let s = solve(&p.board, &p.region, Scoring::Territory).unwrap();
        assert_eq!(s.value(), Rational::integer(14));
        assert_eq!(Some(s.value()), p.answer);
        assert_eq!(gtp(&s.best_moves(Color::Black)), ["B19"]);
    }

    #[test]
    fn area_scoring_adds_about_a_point_of_temperature_in_plain_gote() {
        let p = problem("01-value-of-move/01.sgf");
        let s = solve(&p.board, &p.region, Scoring::Area).unwrap();
        assert_eq!(s.temperature(), Rational::new(5, 2));
    }

    #[test]
    fn a_region_over_the_limit_is_refused_with_its_size() {
        let p = problem("03-addition-method/09.sgf");
        let err = solve(&p.board, &p.region, Scoring::Territory).unwrap_err();
        assert_eq!(
            err,
            SolveError::TooLarge {
                empty: 15,
                limit: MAX_EMPTY_POINTS
            }
        );
        assert!(err.to_string().contains("15 empty points"));
    }

    #[test]
    fn settled_after_the_capture_move() {
        // After Black D19 in 01-value-of-move/01 the white stone is dead in Black's sure territory.
        let p = problem("01-value-of-move/01.sgf");
        let mut board = p.board.clone();
        let d19 = Point::parse_gtp("D19", board.size()).unwrap();
        board.place(Color::Black, d19);
        let settlement = Settlement::assess(&board, &p.region, &Sealed::default());
        assert!(settlement.is_settled(&board, &p.region, false));
        assert_eq!(settlement.count(&board, &p.region, false), 3);
    }
}
