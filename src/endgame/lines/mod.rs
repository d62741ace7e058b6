//! The given lines of a problem scored as a game (`Method::Lines`): Black's moves are Left options,
//! White's Right options, and the ends of the lines are valued one of two ways (`LineLeaves`):
//! - judged (`Static`): the settled count (local Benson test, prisoners taken on the line), else the count
//!   a player gives the finished position (`local::judged`) with the course's sente-dame rule. Nodes follow
//!   the course's conventions: a lone reply to the last move is forced or the replier's privilege
//!   (`lone_reply`), and a ko capture's retake is valued by the placid-ko rule. This checks the problems'
//!   convention independently of the solver's own search. Some lines step just outside the marked region
//!   (a connection behind the boundary): the region is the marked points plus every point the lines play.
//! - ownership (`Ownership`): the exact count where settled, else KataGo's rounded ownership, as a grown
//!   tree's leaves are valued (the paper's "correct lines given" experiment). As in that experiment, a node
//!   with one colour's moves only is that colour's best result taken at leisure (plus a point under
//!   territory counting), and kos are played as the lines give them.
//!
//! One walk (`LineScorer::value`) serves both; the ownership leaves are evaluated in one batch, so the
//! walk runs twice: once to collect the ends, once to fold them.

mod shape;
#[cfg(test)]
mod tests;

use crate::endgame::cgt::{Game, Rational, Thermograph, best_mean, forced};
use crate::endgame::local::{
    Settlement, judged_count, judged_diagram, judged_territory_with_sente_dame,
};
use crate::endgame::net::proposer::LocalState;
use crate::endgame::net::{Networks, Scorer, region_balance};
use crate::endgame::problem::Problem;
use crate::endgame::region::{Region, Sealed};
use crate::endgame::types::{
    AnalysisError, LineLeaves, LocalPosition, Method, Outcome, TreeLeaves, VariationTree,
};
use crate::go::sgf::SgfNode;
use crate::go::{Board, Color, Move, Point, Scoring};

/// Scores the position's given lines with `leaves` at their ends.
pub(crate) fn score_lines(
    nets: &Networks,
    position: &LocalPosition,
    scoring: Scoring,
    leaves: LineLeaves,
) -> Result<Outcome, AnalysisError> {
    let game = match leaves {
        LineLeaves::Static => judged_game(position, scoring, "(given lines)")?,
        LineLeaves::Ownership => {
            let scorer = Scorer {
                region: &position.region,
                katago: nets.katago()?,
                scoring,
                initial_balance: region_balance(position),
                leaves: TreeLeaves::Ownership,
            };
            ownership_game(position, &scorer)?
        }
    };
    let mut tree = VariationTree::empty(position.board.size());
    shape::line_shape(
        &LocalState::root(&position.board),
        &position.lines,
        None,
        &mut tree,
    );
    let best = |color: Color| -> Vec<Point> {
        position
            .lines
            .iter()
            .filter_map(SgfNode::get_move)
            .filter(|&(c, _)| c == color)
            .filter_map(|(_, m)| m.point())
            .take(1)
            .collect()
    };
    Ok(Outcome {
        method: Method::Lines,
        best_black: best(Color::Black),
        best_white: best(Color::White),
        game,
        kind: None,
        tree,
        evaluations: 0,
        notes: vec![match leaves {
            LineLeaves::Static => "given lines, static leaves".to_string(),
            LineLeaves::Ownership => "given lines, ownership leaves".to_string(),
        }],
    })
}

/// A problem file's lines as a game with judged ends; an error names the file.
pub fn problem_game(problem: &Problem, scoring: Scoring) -> Result<Game, AnalysisError> {
    let name = problem.path.display().to_string();
    judged_game(&LocalPosition::from(problem), scoring, &name)
}

/// The lines' game with judged ends (`LineLeaves::Static`); `name` (the file) starts an error's text.
pub fn judged_game(
    position: &LocalPosition,
    scoring: Scoring,
    name: &str,
) -> Result<Game, AnalysisError> {
    let mut points = position.region.points().to_vec();
    collect_line_points(&position.lines, &mut points);
    let mut lines = LineScorer {
        region: Region::new(points),
        scoring,
        ends: Ends::Judged,
        name: name.to_string(),
    };
    let mut board = position.board.clone();
    board.clear_ko();
    lines.value(&Walk::start(board, None), &position.lines, 0, None, None)
}

/// The lines' game with ownership ends (`LineLeaves::Ownership`).
fn ownership_game(position: &LocalPosition, scorer: &Scorer) -> Result<Game, AnalysisError> {
    let start = || {
        Walk::start(
            position.board.clone(),
            Some(LocalState::root(&position.board)),
        )
    };
    let mut lines = LineScorer {
        region: position.region.clone(),
        scoring: scorer.scoring,
        ends: Ends::Collect(Vec::new()),
        name: String::new(),
    };
    lines.value(&start(), &position.lines, 0, None, None)?;
    let Ends::Collect(states) = std::mem::replace(&mut lines.ends, Ends::Judged) else {
        unreachable!("the first walk collects the ends")
    };
    let refs: Vec<&LocalState> = states.iter().collect();
    let values = scorer.values(&refs)?.into_iter().map(|(v, _)| v).collect();
    lines.ends = Ends::Given(values, 0);
    lines.value(&start(), &position.lines, 0, None, None)
}

/// How the walk values the end of a line.
enum Ends {
    /// The settled or judged count of the end's board.
    Judged,
    /// First walk of the ownership leaves: remember the end's local state, value it 0.
    Collect(Vec<LocalState>),
    /// Second walk: the ends' values in walk order (counted from the root, as a grown tree's leaves are),
    /// and how many have been used.
    Given(Vec<Rational>, usize),
}

/// Where the walk stands: the board, and for ownership ends the local state (move balance, history)
/// and the prisoners the line has taken so far (each node counts from its own position).
#[derive(Clone)]
struct Walk {
    board: Board,
    state: Option<LocalState>,
    taken: i64,
}

impl Walk {
    fn start(board: Board, state: Option<LocalState>) -> Walk {
        Walk {
            board,
            state,
            taken: 0,
        }
    }
}

/// A node reached by a ko capture: the retake its opponent may not play at once, and that opponent's best
/// result elsewhere at the node before the capture, in the new node's frame.
#[derive(Clone, Copy)]
struct KoContext {
    point: Point,
    banned: Color,
    resolution: Rational,
}

/// The given lines' walk over the region the lines play in.
struct LineScorer {
    region: Region,
    scoring: Scoring,
    ends: Ends,
    /// What the lines' errors name (the file, or "(given lines)").
    name: String,
}

fn push(left: &mut Vec<Game>, right: &mut Vec<Game>, color: Color, value: Game) {
    match color {
        Color::Black => left.push(value),
        Color::White => right.push(value),
    }
}

impl LineScorer {
    /// Whether the course's node rules apply (judged ends), or the grown trees' (ownership ends).
    fn course_rules(&self) -> bool {
        matches!(self.ends, Ends::Judged)
    }

    /// The moves the lines give at a node, checked; a retake banned by `ko` is left out (the ko rule
    /// values it).
    fn moves<'n>(
        &self,
        walk: &Walk,
        children: &'n [SgfNode],
        depth: usize,
        ko: Option<KoContext>,
    ) -> Result<Vec<(Color, Point, &'n SgfNode)>, AnalysisError> {
        let board = &walk.board;
        let mut moves = Vec::new();
        for child in children {
            let Some((color, mv)) = child.get_move() else {
                continue;
            };
            let depth = depth + 1;
            let text = format!("{color} {}", mv.to_gtp(board.size()));
            let bad = |what: &str| {
                AnalysisError::Lines(if self.course_rules() {
                    format!(
                        "{}: variation move {text} at depth {depth} is illegal or lies outside the region",
                        self.name
                    )
                } else {
                    format!("variation move {text} at depth {depth} {what}")
                })
            };
            let Move::Play(p) = mv else {
                return Err(bad("is not a local move"));
            };
            if ko.is_some_and(|k| k.point == p && k.banned == color) {
                continue;
            }
            // Ownership ends play the lines as the grown trees do (a ko retake included).
            let legal = match &walk.state {
                Some(state) => state.play_ignoring_ko(color, p).is_some(),
                None => self.region.contains(p) && board.check(color, p, true).is_ok(),
            };
            if !legal {
                return Err(bad("is illegal"));
            }
            moves.push((color, p, child));
        }
        Ok(moves)
    }

    /// The game of a line node. `last` is the colour that moved into it, `ko` the open ko it was
    /// reached by.
    fn value(
        &mut self,
        walk: &Walk,
        children: &[SgfNode],
        depth: usize,
        last: Option<Color>,
        ko: Option<KoContext>,
    ) -> Result<Game, AnalysisError> {
        let moves = self.moves(walk, children, depth, ko)?;
        if moves.is_empty() && ko.is_none() {
            return self.end_value(walk);
        }
        let (mut left, mut right) = (Vec::new(), Vec::new());
        let mut ko_moves = Vec::new();
        for &(color, p, node) in &moves {
            trace(|| {
                format!(
                    "{:w$}{color} {}",
                    "",
                    p.to_gtp(walk.board.size()),
                    w = 2 * depth
                )
            });
            let next = self.play(walk, color, p)?;
            let gain = next.taken - walk.taken;
            if self.course_rules()
                && let Some(point) = next.board.ko_point()
            {
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
            next.board.clear_ko();
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
        if let Some(k) = ko {
            self.ko_retake(walk, k, &mut left, &mut right);
        }
        let game = self.node_game(walk, left, right, last)?;
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

    /// `color` plays `p` from `walk`: the new board, local state, and prisoners (territory scoring).
    fn play(&self, walk: &Walk, color: Color, p: Point) -> Result<Walk, AnalysisError> {
        let mut next = walk.clone();
        let placed = next.board.place(color, p);
        if self.scoring == Scoring::Territory {
            next.taken += color.sign() as i64 * placed.captured as i64;
        }
        if let Some(state) = &walk.state {
            next.state = Some(state.play_ignoring_ko(color, p).ok_or_else(|| {
                AnalysisError::Lines(format!(
                    "variation move {color} {} is illegal",
                    p.to_gtp(walk.board.size())
                ))
            })?);
        }
        Ok(next)
    }

    /// Reached by a ko capture: the banned retake, valued by the customary rule (the open ko counts a
    /// third of the way from the taker's result after filling to the other side's resolution).
    fn ko_retake(&self, walk: &Walk, k: KoContext, left: &mut Vec<Game>, right: &mut Vec<Game>) {
        let taker = k.banned.opponent();
        let own = match taker {
            Color::Black => best_mean(left, Color::Black),
            Color::White => best_mean(right, Color::White),
        };
        // Without a given resolution the taker's result is the position as it stands.
        let own = own.unwrap_or_else(|| {
            let area = self.scoring == Scoring::Area;
            let stands = Rational::integer(judged_count(&walk.board, &self.region, area));
            push(left, right, taker, Game::Number(stands));
            stands
        });
        let open = (own + k.resolution + k.resolution) / Rational::integer(3);
        push(left, right, k.banned, Game::Number(open));
    }

    /// The node's game from its options.
    fn node_game(
        &mut self,
        walk: &Walk,
        left: Vec<Game>,
        right: Vec<Game>,
        last: Option<Color>,
    ) -> Result<Game, AnalysisError> {
        let one_sided = |options: &[Game], color: Color, extra: Rational| {
            Game::Number(best_mean(options, color).unwrap_or(Rational::ZERO) + extra)
        };
        if !self.course_rules() {
            let leisure = match self.scoring {
                Scoring::Area => Rational::ZERO,
                Scoring::Territory => Rational::ONE,
            };
            return Ok(match (left.is_empty(), right.is_empty()) {
                (true, true) => self.end_value(walk)?,
                (false, true) => one_sided(&left, Color::Black, leisure),
                (true, false) => one_sided(&right, Color::White, -leisure),
                _ => Game::new(left, right),
            });
        }
        Ok(match (left.is_empty(), right.is_empty()) {
            (true, true) => self.end_value(walk)?,
            (false, false) => Game::new(left, right),
            // Only the reply to the last move is given: the course treats it as forced, so the
            // missing option is a threat too big to ignore (sente), which leaves the reply's value.
            (false, true) if last == Some(Color::White) => lone_reply(left, Color::Black),
            (true, false) if last == Some(Color::Black) => lone_reply(right, Color::White),
            // The same colour moves again (its opponent answered elsewhere): its result stands.
            (false, true) => one_sided(&left, Color::Black, Rational::ZERO),
            (true, false) => one_sided(&right, Color::White, Rational::ZERO),
        })
    }

    /// The value of a line's end, counted from its own position.
    fn end_value(&mut self, walk: &Walk) -> Result<Game, AnalysisError> {
        match &mut self.ends {
            Ends::Judged => Ok(self.judged_end(&walk.board)),
            Ends::Collect(states) => {
                states.extend(walk.state.clone());
                Ok(Game::number(0))
            }
            Ends::Given(values, used) => {
                let v = values
                    .get(*used)
                    .copied()
                    .ok_or_else(|| AnalysisError::Evaluation("a line end was not scored".into()))?;
                *used += 1;
                Ok(Game::Number(v - Rational::integer(walk.taken)))
            }
        }
    }

    /// A line's end is a finished position in the course's sense: its judged count (chains alive or
    /// dead by reading, territory by who surrounds it).
    fn judged_end(&self, board: &Board) -> Game {
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
