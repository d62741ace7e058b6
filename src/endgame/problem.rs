//! Endgame problem files (the format of `shared/data/endgame-dev`): an SGF whose root holds the position
//! (`AB`/`AW`, possibly repeated), the region (`SQ`), the answer in the comment (`3`, `4 2/3`, `2/3`), and
//! whose variations are the correct local lines. Also the scoring of those lines as a game ("given lines"),
//! which checks the problems' convention independently of the solver's own search.

use super::cgt::{Game, Rational, Thermograph};
use super::region::{Region, Sealed};
use super::settle::Settlement;
use super::solver;
use super::status::{judged_count, judged_diagram, judged_territory_with_sente_dame};
use crate::go::sgf::{self, Markup, Property, SgfError, SgfNode};
use crate::go::{Board, Color, Move, Point, Scoring};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    #[error(transparent)]
    Sgf(#[from] SgfError),
    #[error("{path}: the file holds no game tree")]
    Empty { path: PathBuf },
    #[error("{path}: the root node marks no region (add the region's points as SQ[..] markup)")]
    NoRegion { path: PathBuf },
    #[error(
        "{path}: the root comment `{text}` is not an answer: write it as `3`, `2/3` or `4 2/3`"
    )]
    BadAnswer { path: PathBuf, text: String },
    #[error("{path}: variation move {mv} at depth {depth} is illegal or lies outside the region")]
    BadLine {
        path: PathBuf,
        mv: String,
        depth: usize,
    },
    #[error("{path}: {source}")]
    Solve {
        path: PathBuf,
        source: solver::SolveError,
    },
}

/// One problem: position, region, expected answer, and the given correct lines.
#[derive(Clone, Debug)]
pub struct Problem {
    pub path: PathBuf,
    pub board: Board,
    pub region: Region,
    /// The answer in the problems' convention (twice the territory temperature), if the file has one.
    pub answer: Option<Rational>,
    pub lines: Vec<SgfNode>,
}

impl Problem {
    pub fn read(path: &Path) -> Result<Problem, ProblemError> {
        let games = sgf::read_file(path)?;
        let game = games
            .into_iter()
            .next()
            .ok_or_else(|| ProblemError::Empty {
                path: path.to_path_buf(),
            })?;
        let root = &game.root;
        let mut board = Board::new(game.size);
        for prop in &root.props {
            if let Property::Setup(Some(color), points) = prop {
                for &p in points {
                    board.setup_stone(*color, p);
                }
            }
        }
        let region = Region::new(root.markup(Markup::Square));
        if region.is_empty() {
            return Err(ProblemError::NoRegion {
                path: path.to_path_buf(),
            });
        }
        let answer = match root.comment().map(str::trim) {
            None | Some("") => None,
            Some(text) => Some(text.parse().map_err(|_| ProblemError::BadAnswer {
                path: path.to_path_buf(),
                text: text.to_string(),
            })?),
        };
        Ok(Problem {
            path: path.to_path_buf(),
            board,
            region,
            answer,
            lines: root.children.clone(),
        })
    }

    /// Every `*.sgf` under `dir`, sorted by path, and what the walk left out (links are followed once,
    /// FIFOs and devices skipped: [`crate::files::walk`]).
    pub fn find_all(dir: &Path) -> std::io::Result<crate::files::Walk> {
        crate::files::walk(&[dir.to_path_buf()], crate::files::is_sgf)
    }

    pub fn empty_points(&self) -> usize {
        self.region.empty_points(&self.board).len()
    }

    /// The game given by the file's variations: Black's moves are Left options, White's are Right
    /// options; a line's end is valued by its settled count (sure territory and dead stones by the local
    /// Benson test, prisoners taken on the line); a node where the lines give only one colour's moves is
    /// worth that colour's best result (as in the solver).
    pub fn lines_game(&self, scoring: Scoring) -> Result<Game, ProblemError> {
        let mut board = self.board.clone();
        board.clear_ko();
        // Some lines step just outside the marked region (a connection behind the boundary): the
        // course's region is the marked points plus every point its lines play.
        let mut points = self.region.points().to_vec();
        collect_line_points(&self.lines, &mut points);
        let lines = LineScorer {
            problem: self,
            region: Region::new(points),
            scoring,
        };
        lines.value(&board, &self.lines, 0, None, None)
    }
}

fn push(left: &mut Vec<Game>, right: &mut Vec<Game>, color: Color, value: Game) {
    match color {
        Color::Black => left.push(value),
        Color::White => right.push(value),
    }
}

fn best_mean(options: &[Game], color: Color) -> Option<Rational> {
    let means = options.iter().map(|g| Thermograph::of(g).mean);
    match color {
        Color::Black => means.max(),
        Color::White => means.min(),
    }
}

/// A node where only `color`'s answer is given: the other colour's missing option is a threat bigger
/// than anything in the lines, so the answer is forced and the node is worth what the answer leaves.
pub(crate) fn forced(options: Vec<Game>, color: Color) -> Game {
    let best = best_mean(&options, color).unwrap_or(Rational::ZERO);
    let threat = Game::Number(best + Rational::integer(-1000 * color.sign() as i64));
    match color {
        Color::Black => Game::new(options, vec![threat]),
        Color::White => Game::new(vec![threat], options),
    }
}

/// A node where the lines give only `color`'s reply to the last move. When every reply is itself a
/// threat the lines answer (its node has the other colour's answer and `color`'s follow-up), the reply
/// is `color`'s sente privilege: the node is worth what the best reply leaves once answered (the mean of
/// the other colour's best answer in it). Otherwise the reply is forced (`forced`).
fn lone_reply(options: Vec<Game>, color: Color) -> Game {
    let answered = |g: &Game| {
        let answers = match color {
            Color::Black => g.right(),
            Color::White => g.left(),
        };
        best_mean(answers, color.opponent())
    };
    let threats = options
        .iter()
        .all(|g| !g.left().is_empty() && !g.right().is_empty());
    let values: Option<Vec<Rational>> = options.iter().map(answered).collect();
    match values {
        Some(v) if threats => {
            let best = match color {
                Color::Black => v.into_iter().max(),
                Color::White => v.into_iter().min(),
            };
            Game::Number(best.unwrap_or(Rational::ZERO))
        }
        _ => forced(options, color),
    }
}

/// Set to print every line move, line end (judged position and count) and node value while scoring
/// the given lines: the way to see which leaf a miss comes from.
pub const LINES_TRACE_ENV: &str = "TENGEN_LINES_TRACE";

fn trace(text: impl FnOnce() -> String) {
    if std::env::var_os(LINES_TRACE_ENV).is_some() {
        eprintln!("{}", text());
    }
}

fn collect_line_points(children: &[SgfNode], out: &mut Vec<Point>) {
    for child in children {
        if let Some((_, Move::Play(p))) = child.get_move() {
            out.push(p);
        }
        collect_line_points(&child.children, out);
    }
}

/// Scores the given lines of a problem over the region the lines play in.
struct LineScorer<'a> {
    problem: &'a Problem,
    region: Region,
    scoring: Scoring,
}

/// A node reached by a ko capture: the retake its opponent may not play at once, and that opponent's best
/// result elsewhere at the node before the capture, in the new node's frame.
#[derive(Clone, Copy)]
struct KoContext {
    point: Point,
    banned: Color,
    resolution: Rational,
}

impl LineScorer<'_> {
    /// The game of a line node. `last` is the colour that moved into it, `ko` the open ko it was
    /// reached by.
    fn value(
        &self,
        board: &Board,
        children: &[SgfNode],
        depth: usize,
        last: Option<Color>,
        ko: Option<KoContext>,
    ) -> Result<Game, ProblemError> {
        let area = self.scoring == Scoring::Area;
        let mut moves: Vec<(Color, Point, &SgfNode)> = Vec::new();
        for child in children {
            let Some((color, mv)) = child.get_move() else {
                continue;
            };
            let bad = || ProblemError::BadLine {
                path: self.problem.path.clone(),
                mv: format!("{color} {}", mv.to_gtp(board.size())),
                depth: depth + 1,
            };
            let Move::Play(p) = mv else {
                return Err(bad());
            };
            // A ko retake the lines give is valued by the ko rule below, not played.
            if ko.is_some_and(|k| k.point == p && k.banned == color) {
                continue;
            }
            if !self.region.contains(p) || board.check(color, p, true).is_err() {
                return Err(bad());
            }
            moves.push((color, p, child));
        }
        if moves.is_empty() && ko.is_none() {
            return Ok(self.leaf_value(board));
        }
        let mut left: Vec<Game> = Vec::new();
        let mut right: Vec<Game> = Vec::new();
        let mut ko_moves = Vec::new();
        for &(color, p, node) in &moves {
            trace(|| format!("{:w$}{color} {}", "", p.to_gtp(board.size()), w = 2 * depth));
            let mut next = board.clone();
            let placed = next.place(color, p);
            let gain = if area {
                0
            } else {
                color.sign() as i64 * placed.captured as i64
            };
            if let Some(point) = next.ko_point() {
                ko_moves.push((color, node, next, point, gain));
                continue;
            }
            let value = self
                .value(&next, &node.children, depth + 1, Some(color), None)?
                .add(&Game::number(gain));
            push(&mut left, &mut right, color, value);
        }
        // Ko captures need the other colour's best result elsewhere at this node (the ko's resolution).
        for (color, node, mut next, point, gain) in ko_moves {
            next.clear_ko();
            let resolution = match color {
                Color::Black => best_mean(&right, Color::White),
                Color::White => best_mean(&left, Color::Black),
            };
            let context = resolution.map(|r| KoContext {
                point,
                banned: color.opponent(),
                resolution: r - Rational::integer(gain),
            });
            let value = self
                .value(&next, &node.children, depth + 1, Some(color), context)?
                .add(&Game::number(gain));
            push(&mut left, &mut right, color, value);
        }
        // Reached by a ko capture: the banned retake, valued by the customary rule (the open ko counts
        // a third of the way from the taker's result after filling to the other side's resolution).
        if let Some(k) = ko {
            let taker = k.banned.opponent();
            let own = match taker {
                Color::Black => best_mean(&left, Color::Black),
                Color::White => best_mean(&right, Color::White),
            };
            // Without a given resolution the taker's result is the position as it stands.
            let own = own.unwrap_or_else(|| {
                let stands = Rational::integer(self.judged(board));
                push(&mut left, &mut right, taker, Game::Number(stands));
                stands
            });
            let open = (own + k.resolution + k.resolution) / Rational::integer(3);
            push(&mut left, &mut right, k.banned, Game::Number(open));
        }
        let game = match (left.is_empty(), right.is_empty()) {
            (true, true) => self.leaf_value(board),
            (false, false) => Game::new(left, right),
            // Only the reply to the last move is given: the course treats it as forced, so the
            // missing option is a threat too big to ignore (sente), which leaves the reply's value.
            (false, true) if last == Some(Color::White) => lone_reply(left, Color::Black),
            (true, false) if last == Some(Color::Black) => lone_reply(right, Color::White),
            // The same colour moves again (its opponent answered elsewhere): its result stands.
            (false, true) => Game::Number(best_mean(&left, Color::Black).unwrap_or(Rational::ZERO)),
            (true, false) => {
                Game::Number(best_mean(&right, Color::White).unwrap_or(Rational::ZERO))
            }
        };
        trace(|| {
            let th = Thermograph::of(&game);
            let (mean, t) = (th.mean, th.temperature);
            format!(
                "{:w$}= {game}  mean {mean} temperature {t}",
                "",
                w = 2 * depth
            )
        });
        Ok(game)
    }

    fn judged(&self, board: &Board) -> i64 {
        judged_count(board, &self.region, self.scoring == Scoring::Area)
    }

    /// A line's end is a finished position in the course's sense: its judged count (chains alive or
    /// dead by reading, territory by who surrounds it).
    fn leaf_value(&self, board: &Board) -> Game {
        let area = self.scoring == Scoring::Area;
        let settlement = Settlement::assess(board, &self.region, &Sealed::default());
        if settlement.is_settled(board, &self.region, area) {
            let count = settlement.count(board, &self.region, area);
            trace(|| format!("settled {count}\n{}", judged_diagram(board, &self.region)));
            return Game::number(count);
        }
        let (count, privilege) = if area {
            (judged_count(board, &self.region, true), 0)
        } else {
            judged_territory_with_sente_dame(board, &self.region)
        };
        trace(|| format!("judged {count}\n{}", judged_diagram(board, &self.region)));
        if privilege != 0 {
            trace(|| format!("sente dame: {privilege:+} to the count"));
        }
        Game::number(count + privilege)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gote(left: i64, right: Rational) -> Game {
        Game::new(vec![Game::number(left)], vec![Game::Number(right)])
    }

    #[test]
    fn a_lone_reply_that_the_lines_answer_is_the_replier_s_privilege() {
        // 07/09 after Black G19 and White's capture at F19: Black's J19 (the only move given) threatens
        // G19 (a capture worth about 19) and White answers C19 (mean 10/3): Black's sente, worth 10/3.
        let ten_thirds = Rational::new(10, 3);
        let after_j19 = Game::new(
            vec![gote(19, Rational::integer(4))],
            vec![Game::Number(ten_thirds)],
        );
        let node = lone_reply(vec![after_j19], Color::Black);
        assert_eq!(node.as_number(), Some(ten_thirds));
    }

    #[test]
    fn a_lone_reply_that_ends_the_line_is_forced() {
        // The reply leaves a settled 3: the missing option is a threat, so the node stays hot and
        // worth the reply's 3 to Black moving first.
        let node = lone_reply(vec![Game::number(3)], Color::Black);
        assert!(!node.is_number());
        assert_eq!(node.left_stop(), Rational::integer(3));
    }

    #[test]
    fn the_given_lines_of_07_09_give_the_course_s_answer() {
        let problem = crate::endgame::test_support::problem("07-subtraction-method/09.sgf");
        let game = problem.lines_game(Scoring::Territory).expect("lines");
        let value = Thermograph::of(&game).temperature * Rational::integer(2);
        assert_eq!(Some(value), problem.answer);
    }
}
