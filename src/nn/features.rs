//! KataGo's V7 input features (22 spatial planes, 19 global values) for a [`Game`].
//!
//! The layout is NCHW for one position, the tensor exactly the board's size (plane 0, "on board", is the
//! network's mask, so boards of different sizes just use different tensor sizes). "Player" is the side
//! to move. See `docs/nn.md` for the plane list; history planes follow KataGo's rule that a history move
//! counts only while the colours alternate back from the current position.

use super::ladder::for_each_laddered_stone;
use super::pass_alive::{self, AreaOptions};
use crate::go::board::Board;
use crate::go::{BoardSize, Color, Game, KoRule, Move, Scoring, Symmetry, Tax};

pub const SPATIAL_PLANES: usize = 22;
pub const GLOBAL_FEATURES: usize = 19;
/// How many earlier moves the history planes show.
const HISTORY: usize = 5;

/// One position's network input.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    pub size: BoardSize,
    /// `[22][height][width]`.
    pub spatial: Vec<f32>,
    pub global: [f32; GLOBAL_FEATURES],
}

impl Features {
    /// The features of the board turned by `symmetry` (the same board size: a transposing symmetry only
    /// belongs to square boards): what encoding the turned position gives, without replaying its history.
    pub fn transformed(&self, symmetry: Symmetry) -> Features {
        let size = self.size;
        let area = size.area();
        let mut spatial = vec![0.0; self.spatial.len()];
        for p in size.points() {
            let (from, to) = (size.row_major(p), size.row_major(symmetry.apply(size, p)));
            for plane in 0..SPATIAL_PLANES {
                spatial[plane * area + to] = self.spatial[plane * area + from];
            }
        }
        Features {
            size,
            spatial,
            global: self.global,
        }
    }

    /// The same features in a larger tensor, the board in its top-left corner and plane 0 (on board) 0
    /// elsewhere: how positions of several sizes share one batch, or a net sees a board in a fixed buffer.
    pub fn padded_to(&self, tensor: BoardSize) -> Features {
        let (w, h) = (self.size.width(), self.size.height());
        let (tw, th) = (tensor.width().max(w), tensor.height().max(h));
        let mut spatial = vec![0.0; SPATIAL_PLANES * tw * th];
        for plane in 0..SPATIAL_PLANES {
            for y in 0..h {
                let from = plane * w * h + y * w;
                let to = plane * tw * th + y * tw;
                spatial[to..to + w].copy_from_slice(&self.spatial[from..from + w]);
            }
        }
        let size = BoardSize::new(tw, th).unwrap_or(tensor);
        Features {
            size,
            spatial,
            global: self.global,
        }
    }
}

/// The side to move's komi: positive when it receives komi, clipped as KataGo clips it.
///
/// Under territory scoring KataGo also counts one point for White per Black stone played and one for Black
/// per White stone played (its "bonus score": territory scoring compared with area scoring charges every
/// move a point), so the net sees the game as it would be counted by area.
pub fn self_komi(game: &Game) -> f32 {
    let mut komi = game.rules().komi.value() as f32;
    if game.rules().scoring == Scoring::Territory {
        for &(color, mv) in game.moves() {
            if mv != Move::Pass {
                komi += if color == Color::Black { 1.0 } else { -1.0 };
            }
        }
    }
    let limit = game.size().area() as f32 + 20.0;
    let own = if game.to_move() == Color::White {
        komi
    } else {
        -komi
    };
    own.clamp(-limit, limit)
}

/// The boards 1 and 2 moves ago (the board itself where the history is shorter).
fn recent_boards(game: &Game, back: usize) -> Vec<Board> {
    let moves = game.moves();
    let mut board = Board::new(game.size());
    for &p in &game.setup().black {
        board.setup_stone(Color::Black, p);
    }
    for &p in &game.setup().white {
        board.setup_stone(Color::White, p);
    }
    let mut out = Vec::with_capacity(back);
    let first_kept = moves.len().saturating_sub(back);
    for (i, &(color, mv)) in moves.iter().enumerate() {
        if i >= first_kept {
            out.push(board.clone());
        }
        board.play(color, mv);
    }
    out.reverse(); // out[0] = one move ago
    out
}

/// Computes the features of `game` for the side to move.
pub fn encode(game: &Game) -> Features {
    let size = game.size();
    let (w, h) = (size.width(), size.height());
    let area = w * h;
    let board = game.board();
    let pla = game.to_move();
    let opp = pla.opponent();
    let rules = game.rules();
    let mut spatial = vec![0.0f32; SPATIAL_PLANES * area];
    let mut global = [0.0f32; GLOBAL_FEATURES];
    let mut set = |plane: usize, i: usize| spatial[plane * area + i] = 1.0;
    let index = |p: crate::go::Point| size.row_major(p);

    for p in size.points() {
        let i = index(p);
        set(0, i);
        if let Some(c) = board.color_at(p) {
            set(if c == pla { 1 } else { 2 }, i);
            match board.chain_liberties(p).len() {
                1 => set(3, i),
                2 => set(4, i),
                3 => set(5, i),
                _ => {}
            }
        }
    }
    if !game.is_over() {
        for p in game.ko_banned_points() {
            set(6, index(p));
        }
    }

    // History: moves alternating back from the current position, at most 5 (1 once the game is over).
    let moves = game.moves();
    let max_history = if game.is_over() { 1 } else { HISTORY };
    let mut turns_included = 0;
    for back in 1..=max_history.min(moves.len()) {
        let (color, mv) = moves[moves.len() - back];
        let expected = if back % 2 == 1 { opp } else { pla };
        if color != expected {
            break;
        }
        turns_included = back;
        match mv {
            Move::Pass => global[back - 1] = 1.0,
            Move::Play(p) => set(8 + back, index(p)),
        }
    }

    // Ladders on the current board and the two before it.
    for_each_laddered_stone(board, |p, working| {
        set(14, index(p));
        if board.color_at(p) == Some(opp) && board.chain_liberties(p).len() > 1 {
            for &m in working {
                set(17, index(m));
            }
        }
    });
    let recent = recent_boards(game, turns_included.min(2));
    let prev = recent.first().unwrap_or(board);
    let prev_prev = recent.get(1).unwrap_or(prev);
    for_each_laddered_stone(prev, |p, _| set(15, index(p)));
    for_each_laddered_stone(prev_prev, |p, _| set(16, index(p)));

    // Area scoring shows the area count; territory scoring shows nothing before the second encore, which
    // tengen's games never reach. (KataGo counts "independent life" under area scoring with a tax; tengen
    // approximates that with the plain area count.)
    if rules.scoring == Scoring::Area {
        let owned = pass_alive::area(board, AreaOptions::area_scoring(rules.multi_stone_suicide));
        for p in size.points() {
            match owned[p.index()] {
                Some(c) if c == pla => set(18, index(p)),
                Some(_) => set(19, index(p)),
                None => {}
            }
        }
    }

    let komi = self_komi(game);
    global[5] = komi / 20.0;
    (global[6], global[7]) = match rules.ko {
        KoRule::Simple => (0.0, 0.0),
        KoRule::Positional => (1.0, 0.5),
        KoRule::Situational => (1.0, -0.5),
    };
    global[8] = f32::from(u8::from(rules.multi_stone_suicide));
    global[9] = f32::from(u8::from(rules.scoring == Scoring::Territory));
    (global[10], global[11]) = match rules.tax {
        Tax::None => (0.0, 0.0),
        Tax::Seki => (1.0, 0.0),
        Tax::All => (1.0, 1.0),
    };
    // No encore in tengen's games: planes 7, 8, 20, 21 and globals 12, 13 stay 0.
    // A pass ends the game after the opponent's pass, except that under simple ko a pass with a ko
    // pending does not count towards the end (KataGo's "ending passes").
    let ko_pending = rules.ko == KoRule::Simple && board.ko_point().is_some();
    global[14] = f32::from(u8::from(game.consecutive_passes() == 1 && !ko_pending));
    global[17] = f32::from(u8::from(rules.has_button));
    if rules.scoring == Scoring::Area {
        global[18] = komi_parity_wave(komi, area);
    }
    Features {
        size,
        spatial,
        global,
    }
}

/// KataGo's triangle wave of the komi's distance to the nearest drawable komi below it: it tells the
/// network whether a draw is possible and how half-point komi changes the outcome.
fn komi_parity_wave(self_komi: f32, area: usize) -> f32 {
    let floor = if area.is_multiple_of(2) {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{Komi, Rules};

    fn plane(f: &Features, plane: usize) -> &[f32] {
        let area = f.size.area();
        &f.spatial[plane * area..(plane + 1) * area]
    }

    #[test]
    fn turned_features_are_the_features_of_the_turned_game() {
        let size = BoardSize::square(9).unwrap();
        let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(7.0).unwrap());
        // A ladder, a capture, a ko shape and a pass: every kind of plane has something on it.
        let moves = "C3 D3 D4 C4 B4 D2 E3 C2 B3 E2 F3 G7 pass";
        let g = Game::from_gtp_moves(size, rules, moves).unwrap();
        for &s in Symmetry::group(size) {
            let mut turned = Game::new(size, rules);
            for &(color, mv) in g.moves() {
                turned.play_as(color, s.apply_move(size, mv)).unwrap();
            }
            let expected = encode(&turned);
            let got = encode(&g).transformed(s);
            assert_eq!(got.global, expected.global, "{s}");
            assert_eq!(got.spatial, expected.spatial, "{s}");
        }
    }

    #[test]
    fn stones_history_and_komi_are_from_the_side_to_move() {
        let size = BoardSize::square(9).unwrap();
        let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(7.0).unwrap());
        let g = Game::from_gtp_moves(size, rules, "E5 C5 pass").unwrap();
        let f = encode(&g);
        let e5 = size.row_major(crate::go::Point::parse_gtp("E5", size).unwrap());
        let c5 = size.row_major(crate::go::Point::parse_gtp("C5", size).unwrap());
        // White to move: E5 is the opponent's stone, C5 the player's.
        assert_eq!(plane(&f, 2)[e5], 1.0);
        assert_eq!(plane(&f, 1)[c5], 1.0);
        assert!(plane(&f, 0).iter().all(|&v| v == 1.0));
        // Last move was Black's pass, then White's C5, then Black's E5.
        assert_eq!(f.global[0], 1.0);
        assert_eq!(plane(&f, 10)[c5], 1.0);
        assert_eq!(plane(&f, 11)[e5], 1.0);
        assert_eq!(f.global[5], 7.0 / 20.0);
        assert_eq!(f.global[14], 1.0, "a pass now would end the game");
        // Komi 7 on an odd board is drawable: the wave is 0.
        assert_eq!(f.global[18], 0.0);
    }

    #[test]
    fn the_komi_wave_peaks_at_half_points() {
        assert_eq!(komi_parity_wave(7.5, 81), 0.5);
        assert_eq!(komi_parity_wave(7.0, 81), 0.0);
        assert_eq!(komi_parity_wave(8.0, 81), 0.0);
        assert_eq!(komi_parity_wave(-7.5, 81), -0.5);
    }
}
