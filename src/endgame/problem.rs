//! Endgame problem files (the format of `shared/data/endgame-dev`): an SGF whose root holds the position
//! (`AB`/`AW`, possibly repeated), the region (`SQ`), the answer in the comment (`3`, `4 2/3`, `2/3`), and
//! whose variations are the correct local lines. Also the scoring of those lines as a game ("given lines"),
//! which checks the problems' convention independently of the solver's own search.

use super::cgt::{Game, Rational, Thermograph};
use super::region::{Region, Sealed};
use super::settle::{Settlement, estimate_count};
use super::solver;
use crate::go::sgf::{self, Markup, Property, SgfError, SgfNode};
use crate::go::{Board, Color, Move, Scoring};
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

    /// Every `*.sgf` under `dir`, sorted by path.
    pub fn find_all(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d)? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
                {
                    out.push(path);
                }
            }
        }
        out.sort();
        Ok(out)
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
        self.line_value(&board, &self.lines, scoring, 0)
    }

    fn line_value(
        &self,
        board: &Board,
        children: &[SgfNode],
        scoring: Scoring,
        depth: usize,
    ) -> Result<Game, ProblemError> {
        let area = scoring == Scoring::Area;
        let moves: Vec<(Color, Move, &SgfNode)> = children
            .iter()
            .filter_map(|c| c.get_move().map(|(col, mv)| (col, mv, c)))
            .collect();
        if moves.is_empty() {
            return Ok(self.leaf_value(board, scoring));
        }
        let mut left = Vec::new();
        let mut right = Vec::new();
        for (color, mv, node) in moves {
            let bad = || ProblemError::BadLine {
                path: self.path.clone(),
                mv: format!("{color} {}", mv.to_gtp(board.size())),
                depth: depth + 1,
            };
            let Move::Play(p) = mv else {
                return Err(bad());
            };
            if !self.region.contains(p) || board.check(color, p, true).is_err() {
                return Err(bad());
            }
            let mut next = board.clone();
            let placed = next.place(color, p);
            next.clear_ko();
            let gain = if area {
                0
            } else {
                color.sign() as i64 * placed.captured as i64
            };
            let value = self
                .line_value(&next, &node.children, scoring, depth + 1)?
                .add(&Game::number(gain));
            match color {
                Color::Black => left.push(value),
                Color::White => right.push(value),
            }
        }
        let leisure = if area { Rational::ZERO } else { Rational::ONE };
        let mean = |g: &Game| Thermograph::of(g).mean;
        Ok(match (left.is_empty(), right.is_empty()) {
            (false, true) => {
                Game::Number(left.iter().map(mean).max().unwrap_or(Rational::ZERO) + leisure)
            }
            (true, false) => {
                Game::Number(right.iter().map(mean).min().unwrap_or(Rational::ZERO) - leisure)
            }
            _ => Game::new(left, right),
        })
    }

    fn leaf_value(&self, board: &Board, scoring: Scoring) -> Game {
        let area = scoring == Scoring::Area;
        let settlement = Settlement::assess(board, &self.region, &Sealed::default());
        if settlement.is_settled(board, &self.region, area) {
            return Game::number(settlement.count(board, &self.region, area));
        }
        Game::number(estimate_count(board, &self.region, area))
    }
}
