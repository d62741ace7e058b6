//! KataGo's post-processing of the raw heads, ending in White's point of view as `kata-raw-nn` reports.

use crate::go::{Color, Game, KoRule, Move, Scoring};

/// The raw heads of one position, from the side to move's point of view.
#[derive(Debug, Clone, PartialEq)]
pub struct RawOutput {
    /// One logit per board point, row-major from the top left.
    pub policy: Vec<f32>,
    pub policy_pass: f32,
    /// Win, loss, no-result logits.
    pub value: [f32; 3],
    /// Score mean, stdev before softplus, lead, variance-time before softplus (all pre-scaled).
    pub score: [f32; 4],
    /// One value per board point before tanh.
    pub ownership: Vec<f32>,
}

impl RawOutput {
    /// The outputs of a board evaluated turned by `symmetry`, turned back to the board's own orientation.
    pub fn untransformed(
        &self,
        size: crate::go::BoardSize,
        symmetry: crate::go::Symmetry,
    ) -> RawOutput {
        let mut out = self.clone();
        for p in size.points() {
            let (to, from) = (size.row_major(p), size.row_major(symmetry.apply(size, p)));
            out.policy[to] = self.policy[from];
            out.ownership[to] = self.ownership[from];
        }
        out
    }

    /// The outputs of a board evaluated in the top-left corner of a larger tensor, cut back to the board.
    pub fn cropped(&self, tensor: crate::go::BoardSize, board: crate::go::BoardSize) -> RawOutput {
        let (tw, w, h) = (tensor.width(), board.width(), board.height());
        let crop = |plane: &[f32]| -> Vec<f32> {
            (0..h)
                .flat_map(|y| plane[y * tw..y * tw + w].iter().copied())
                .collect()
        };
        RawOutput {
            policy: crop(&self.policy),
            policy_pass: self.policy_pass,
            value: self.value,
            score: self.score,
            ownership: crop(&self.ownership),
        }
    }
}

/// A network's evaluation of a position, in `kata-raw-nn`'s terms (White's point of view).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NnEval {
    pub white_win: f32,
    pub white_loss: f32,
    pub no_result: f32,
    pub white_lead: f32,
    pub white_score_mean: f32,
    pub white_score_stdev: f32,
    /// Move probabilities, row-major from the top row; `None` where the move is illegal.
    pub policy: Vec<Option<f32>>,
    pub policy_pass: f32,
    /// +1 White, -1 Black, row-major from the top row.
    pub white_ownership: Vec<f32>,
}

impl NnEval {
    /// An even position with no opinion: 50% to win, no lead, every point unowned and every move's
    /// probability 0 (`stdev` is the score's standard deviation). A starting point for tests and
    /// hand-made evaluations.
    pub fn even(points: usize, stdev: f32) -> NnEval {
        NnEval {
            white_win: 0.5,
            white_loss: 0.5,
            no_result: 0.0,
            white_lead: 0.0,
            white_score_mean: 0.0,
            white_score_stdev: stdev,
            policy: vec![Some(0.0); points],
            policy_pass: 0.0,
            white_ownership: vec![0.0; points],
        }
    }

    /// The probability of a move (0 for illegal moves).
    pub fn prior(&self, size: crate::go::BoardSize, mv: Move) -> f32 {
        match mv {
            Move::Pass => self.policy_pass,
            Move::Play(p) => self
                .policy
                .get(size.row_major(p))
                .copied()
                .flatten()
                .unwrap_or(0.0),
        }
    }

    /// The evaluation of the board seen through `symmetry`, brought back: point `p` takes the values the
    /// evaluation holds at `symmetry(p)` (as [`RawOutput::untransformed`]).
    pub fn untransformed(
        &self,
        size: crate::go::BoardSize,
        symmetry: crate::go::Symmetry,
    ) -> NnEval {
        let mut out = self.clone();
        let (policy, ownership) = (
            self.policy.len() == size.area(),
            self.white_ownership.len() == size.area(),
        );
        for p in size.points() {
            let (to, from) = (size.row_major(p), size.row_major(symmetry.apply(size, p)));
            if policy {
                out.policy[to] = self.policy[from];
            }
            if ownership {
                out.white_ownership[to] = self.white_ownership[from];
            }
        }
        out
    }

    /// The winning chance of `color`, counting a no-result as half.
    pub fn win_chance(&self, color: Color) -> f32 {
        let white = self.white_win + 0.5 * self.no_result;
        if color == Color::White {
            white
        } else {
            1.0 - white
        }
    }
}

/// KataGo's multipliers for version-8 score outputs.
const SCORE_MEAN_MULTIPLIER: f32 = 20.0;
const SCORE_STDEV_MULTIPLIER: f32 = 20.0;
const LEAD_MULTIPLIER: f32 = 20.0;

fn softplus(x: f32) -> f32 {
    if x > 20.0 { x } else { x.exp().ln_1p() }
}

/// Applies softmax over the legal moves, the value softmax, score scaling, tanh ownership, and turns
/// everything to White's point of view.
pub fn postprocess(game: &Game, raw: &RawOutput) -> NnEval {
    let size = game.size();
    let pla = game.to_move();
    let legal: Vec<bool> = size
        .points()
        .map(|p| game.is_legal(Move::Play(p)))
        .collect();
    let pass_legal = !game.is_over();
    let max = legal
        .iter()
        .zip(&raw.policy)
        .filter(|(l, _)| **l)
        .map(|(_, &v)| v)
        .chain(pass_legal.then_some(raw.policy_pass))
        .fold(f32::NEG_INFINITY, f32::max);
    let weights: Vec<f64> = legal
        .iter()
        .zip(&raw.policy)
        .map(|(&l, &v)| if l { ((v - max) as f64).exp() } else { 0.0 })
        .collect();
    let pass_weight = if pass_legal {
        ((raw.policy_pass - max) as f64).exp()
    } else {
        0.0
    };
    let total: f64 = weights.iter().sum::<f64>() + pass_weight;
    let total = if total > 0.0 { total } else { 1.0 };
    let policy = weights
        .iter()
        .zip(&legal)
        .map(|(&w, &l)| l.then_some((w / total) as f32))
        .collect::<Vec<_>>();
    let policy_pass = (pass_weight / total) as f32;

    // No result is only possible under simple ko or territory scoring (long cycles); elsewhere it is
    // removed from the softmax.
    let rules = game.rules();
    let no_result_possible = rules.ko == KoRule::Simple || rules.scoring == Scoring::Territory;
    let [win, loss, no_result] = raw.value.map(|v| v as f64);
    let top = if no_result_possible {
        win.max(loss).max(no_result)
    } else {
        win.max(loss)
    };
    let (ew, el) = ((win - top).exp(), (loss - top).exp());
    let en = if no_result_possible {
        (no_result - top).exp()
    } else {
        0.0
    };
    let sum = ew + el + en;
    let (win, loss, no_result) = ((ew / sum) as f32, (el / sum) as f32, (en / sum) as f32);

    let scale = 1.0 - no_result;
    let score_mean = raw.score[0] * SCORE_MEAN_MULTIPLIER * scale;
    let score_stdev = softplus(raw.score[1]) * SCORE_STDEV_MULTIPLIER;
    let lead = raw.score[2] * LEAD_MULTIPLIER * scale;
    let sign = if pla == Color::White { 1.0 } else { -1.0 };
    let (white_win, white_loss) = if pla == Color::White {
        (win, loss)
    } else {
        (loss, win)
    };
    NnEval {
        white_win,
        white_loss,
        no_result,
        white_lead: sign * lead,
        white_score_mean: sign * score_mean,
        white_score_stdev: score_stdev,
        policy,
        policy_pass,
        white_ownership: raw.ownership.iter().map(|&o| sign * o.tanh()).collect(),
    }
}
