//! Local-move proposers: for a position in a local sequence, the probabilities of each Black move and
//! each White move inside the region and of "no move" (the region is finished locally). The tree builder
//! (`tree.rs`) grows variation trees from them.
//!
//! Three proposers: the local-move network (`local_net.rs`, the contract in `docs/endgame-net.md`), KataGo's
//! policy restricted to the region (`katago.rs`, the baseline), and exhaustive enumeration for small
//! regions (`exhaustive.rs`).

pub mod blend;
pub mod exhaustive;
pub mod katago;
pub mod local_net;
pub mod trunk;

pub use blend::Blend;
pub use exhaustive::Exhaustive;
pub use katago::{KataGoNet, PolicyProposer};
pub use local_net::LocalMoveNet;

use crate::endgame::region::Region;
use crate::go::{Board, Color, Game, Move, Point, Rules, Setup};
use std::path::PathBuf;

#[derive(Debug, Clone, thiserror::Error)]
pub enum ProposerError {
    #[error("cannot open the network {path}: {detail}")]
    Open { path: PathBuf, detail: String },
    #[error("network evaluation failed: {0}")]
    Run(String),
}

/// A position reached by local play from the analysed one.
#[derive(Clone)]
pub struct LocalState {
    /// The whole board with the local moves played (legality, ko and the KataGo network's history).
    pub game: Game,
    /// The boards of the local sequence, oldest first; the last is the current one.
    pub history: Vec<Board>,
    /// The local moves played so far.
    pub moves: Vec<(Color, Point)>,
}

impl LocalState {
    /// The start of a local sequence on `board` (territory rules with simple ko: the problems' rules).
    pub fn root(board: &Board) -> LocalState {
        let size = board.size();
        let mut setup = Setup::default();
        for p in size.points() {
            match board.color_at(p) {
                Some(Color::Black) => setup.black.push(p),
                Some(Color::White) => setup.white.push(p),
                None => {}
            }
        }
        let game = Game::with_setup(size, Rules::japanese(), setup);
        LocalState {
            history: vec![game.board().clone()],
            game,
            moves: Vec::new(),
        }
    }

    pub fn board(&self) -> &Board {
        self.game.board()
    }

    /// The colour of the last local move.
    pub fn last_color(&self) -> Option<Color> {
        self.moves.last().map(|&(c, _)| c)
    }

    /// Whether `color` may play at `p` now (ko included).
    pub fn is_legal(&self, color: Color, p: Point) -> bool {
        self.game.check_as(color, Move::Play(p)).is_ok()
    }

    /// The region's points where `color` may play now.
    pub fn legal_points(&self, region: &Region, color: Color) -> Vec<Point> {
        region
            .empty_points(self.board())
            .into_iter()
            .filter(|&p| self.is_legal(color, p))
            .collect()
    }

    /// The state after `color` plays at `p`, or `None` when the move is illegal.
    pub fn play(&self, color: Color, p: Point) -> Option<LocalState> {
        let mut game = self.game.clone();
        game.play_as(color, Move::Play(p)).ok()?;
        Some(self.followed_by(game, color, p))
    }

    /// This state's history and moves extended by `color` at `p`, which `game` has just played.
    fn followed_by(&self, game: Game, color: Color, p: Point) -> LocalState {
        let mut history = self.history.clone();
        history.push(game.board().clone());
        let mut moves = self.moves.clone();
        moves.push((color, p));
        LocalState {
            game,
            history,
            moves,
        }
    }

    /// Black moves minus White moves played locally (area count minus territory count changes by this).
    pub fn move_balance(&self) -> i64 {
        self.moves.iter().map(|&(c, _)| c.sign() as i64).sum()
    }
}

/// The proposer's answer for one position: each colour's moves with their probabilities (highest first)
/// and the probability that nobody plays here; together they sum to 1 (or less, for masked mass).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Proposal {
    pub black: Vec<(Point, f32)>,
    pub white: Vec<(Point, f32)>,
    pub no_move: f32,
}

impl Proposal {
    pub fn moves(&self, color: Color) -> &[(Point, f32)] {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The total probability of `color`'s moves.
    pub fn total(&self, color: Color) -> f32 {
        self.moves(color).iter().map(|&(_, p)| p).sum()
    }

    /// Sorts each colour's moves by probability, highest first (ties by point, for determinism).
    pub fn sorted(mut self) -> Proposal {
        for list in [&mut self.black, &mut self.white] {
            list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        self
    }
}

/// Something that proposes local moves. Batched: the tree builder asks for a whole depth at once.
pub trait Proposer: Send + Sync {
    fn name(&self) -> String;

    fn propose(
        &self,
        region: &Region,
        states: &[&LocalState],
    ) -> Result<Vec<Proposal>, ProposerError>;

    /// Network evaluations so far (0 for proposers without a network).
    fn evaluations(&self) -> usize {
        0
    }
}

impl LocalState {
    /// The state after `color` plays at `p`, allowing an immediate ko retake (given lines may retake a ko
    /// at once; the counts the course gives assume the ko is resolved).
    pub fn play_ignoring_ko(&self, color: Color, p: Point) -> Option<LocalState> {
        let mut game = self.game.clone();
        game.play_tolerant(color, Move::Play(p)).ok()?;
        Some(self.followed_by(game, color, p))
    }
}
