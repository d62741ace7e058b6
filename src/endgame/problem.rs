//! Endgame problem files (the format of `shared/data/endgame-dev`): an SGF whose root holds the position
//! (`AB`/`AW`, possibly repeated), the region (`SQ`), the answer in the comment (`3`, `4 2/3`, `2/3`), and
//! whose variations are the correct local lines (scored as a game by `lines`).

use super::cgt::Rational;
use super::region::Region;
use crate::go::Board;
use crate::go::sgf::{self, Markup, Property, SgfError, SgfNode};
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
}
