//! Reading game records from SGF files and folders into a record tree, with every skip explained.

use super::orient::orient;
use super::tree::{Outcome, RecordTree};
use crate::go::sgf;
use crate::go::sgf::Property;
use crate::go::{BoardSize, Color, Move, Rules};
use std::path::{Path, PathBuf};

/// A file or game that was not merged, and why.
pub use crate::files::Skipped;

#[derive(Debug, Clone)]
pub struct Collection {
    pub tree: RecordTree,
    pub files: usize,
    pub games: usize,
    /// Games merged without a result (counted, not scored).
    pub unscored: usize,
    pub skipped: Vec<Skipped>,
}

/// Every `.sgf` file under `inputs` (files or folders, recursively), sorted for reproducible trees, and
/// what the walk left out (see [`crate::files::walk`]: links are followed once, FIFOs and devices skipped).
pub fn sgf_files(inputs: &[PathBuf]) -> Result<crate::files::Walk, std::io::Error> {
    crate::files::walk(inputs, crate::files::is_sgf)
}

/// Reads and merges the games on `size` from `files`, cut at `depth` moves.
pub fn collect(files: &[PathBuf], size: BoardSize, depth: usize) -> Collection {
    let mut out = Collection {
        tree: RecordTree::new(size),
        files: files.len(),
        games: 0,
        unscored: 0,
        skipped: Vec::new(),
    };
    for path in files {
        let games = match sgf::read_file(path) {
            Ok(g) => g,
            Err(e) => {
                out.skipped.push(Skipped {
                    path: path.clone(),
                    reason: e.to_string(),
                });
                continue;
            }
        };
        for game in games {
            match game_moves(&game, size, path) {
                Ok(moves) => {
                    let outcome = game.result().and_then(Outcome::parse_sgf);
                    out.unscored += usize::from(outcome.is_none());
                    let (_, oriented) = orient(size, &moves);
                    out.tree.add_game(&oriented, outcome, depth);
                    out.games += 1;
                }
                Err(reason) => out.skipped.push(Skipped {
                    path: path.clone(),
                    reason,
                }),
            }
        }
    }
    out
}

/// The main line's moves, if the game is on `size`, starts from the empty board and replays.
fn game_moves(
    game: &sgf::SgfGame,
    size: BoardSize,
    path: &Path,
) -> Result<Vec<(Color, Move)>, String> {
    if game.size != size {
        return Err(format!("board {}, not {size}", game.size));
    }
    let line = game.main_line();
    if line
        .iter()
        .any(|n| n.props.iter().any(|p| matches!(p, Property::Setup(..))))
    {
        return Err("setup stones (not a game from the empty board)".into());
    }
    let replayed = game
        .replay(&line, game.rules_or(Rules::chinese()), false, path)
        .map_err(|e| e.to_string())?;
    Ok(replayed.moves().to_vec())
}
