//! The keys of the book's transposition table: a state hash and a history hash, made canonical over the
//! board's symmetries (KataGo's scheme, `facts/katago-book.md` §2–3, with tengen's own keys and mixing).
//!
//! The history hash folds in the state before every move since the last "large" move (one whose chain plus
//! the empty regions it touches spans more than `rep_bound` points). Two move orders therefore meet in one
//! node exactly when they agree on the recent history that could matter for superko.

use super::coord::Color;
use super::game::Game;
use super::symmetry::Symmetry;
use super::zobrist;
use serde::{Deserialize, Serialize};
use std::fmt;

/// KataGo's default: cycles up to this length are told apart.
pub const DEFAULT_REP_BOUND: usize = 9;

/// A node identity: ordered by the state hash, then the history hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BookHash {
    pub state: u128,
    pub history: u128,
}

impl fmt::Display for BookHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032X}{:032X}", self.state, self.history)
    }
}

impl std::str::FromStr for BookHash {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("`{s}` is not a book hash (64 hex digits)");
        // Hex digits only before slicing: a multi-byte character across byte 32 would split it.
        if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let state = u128::from_str_radix(&s[..32], 16).map_err(|_| bad())?;
        let history = u128::from_str_radix(&s[32..], 16).map_err(|_| bad())?;
        Ok(BookHash { state, history })
    }
}

/// The canonical hash of a position and how to get there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    pub hash: BookHash,
    /// The symmetry that maps the position onto its canonical orientation.
    pub to_canonical: Symmetry,
    /// The symmetries that map the canonical position onto itself (always includes the identity).
    pub self_symmetries: Vec<Symmetry>,
}

/// The state hash of `game` seen through symmetry `sym`: stones, player to move, ko bans, passes.
pub fn state_hash_under(game: &Game, sym: Symmetry, bans: &[super::coord::Point]) -> u128 {
    let size = game.size();
    let board = game.board();
    let mut h = 0u128;
    for p in size.points() {
        if let Some(c) = board.color_at(p) {
            h ^= zobrist::STONE[c.index()][sym.apply(size, p).index()];
        }
    }
    if game.to_move() == Color::White {
        h ^= zobrist::MISC[zobrist::WHITE_TO_MOVE];
    }
    for &p in bans {
        h ^= zobrist::KO_BAN[sym.apply(size, p).index()];
    }
    if game.consecutive_passes() == 1 {
        h ^= zobrist::MISC[zobrist::ONE_PASS];
    }
    if game.is_over() {
        h ^= zobrist::MISC[zobrist::GAME_OVER];
    }
    h
}

fn alt_board_hash_under(game: &Game, sym: Symmetry) -> u128 {
    let size = game.size();
    size.points()
        .filter_map(|p| {
            game.board()
                .color_at(p)
                .map(|c| zobrist::STONE_ALT[c.index()][sym.apply(size, p).index()])
        })
        .fold(0, |a, b| a ^ b)
}

/// The book hash of `game` under every symmetry of its board, by replaying its history.
pub fn book_hashes(game: &Game, rep_bound: usize) -> Vec<(Symmetry, BookHash)> {
    let group = Symmetry::group(game.size());
    let mut replay = Game::with_setup(game.size(), game.rules(), game.setup().clone());
    let mut acc = vec![0u128; group.len()];
    for &(color, mv) in game.moves() {
        let bans = replay.ko_banned_points();
        for (a, &s) in acc.iter_mut().zip(group) {
            *a = zobrist::mix128(a.wrapping_add(state_hash_under(&replay, s, &bans)));
        }
        // The game was legal when played; replaying its own moves cannot fail except for rule-breaking
        // records, which the tolerant replay accepts as they were recorded.
        let _ = replay.play_tolerant(color, mv);
        if let Some(p) = mv.point()
            && replay.move_exceeds_rep_bound(p, rep_bound)
        {
            acc.iter_mut().for_each(|a| *a = 0);
        }
    }
    let bans = game.ko_banned_points();
    group
        .iter()
        .zip(acc)
        .map(|(&s, a)| {
            let state = state_hash_under(game, s, &bans);
            (
                s,
                BookHash {
                    state,
                    history: a ^ alt_board_hash_under(game, s),
                },
            )
        })
        .collect()
}

/// The canonical book hash: the smallest over the symmetries, the symmetry that attains it, and the
/// canonical position's self-symmetries.
pub fn canonical(game: &Game, rep_bound: usize) -> Canonical {
    let all = book_hashes(game, rep_bound);
    let &(to_canonical, hash) = all
        .iter()
        .min_by_key(|(_, h)| *h)
        .expect("a symmetry group is never empty");
    let hash_of = |s: Symmetry| all.iter().find(|(t, _)| *t == s).map(|(_, h)| *h);
    let self_symmetries = all
        .iter()
        .map(|&(t, _)| t)
        .filter(|&t| hash_of(to_canonical.then(t)) == Some(hash))
        .collect();
    Canonical {
        hash,
        to_canonical,
        self_symmetries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::coord::{BoardSize, Move, Point};
    use crate::go::rules::Rules;
    use proptest::prelude::*;

    fn game(size: BoardSize, moves: &[Move]) -> Game {
        let mut g = Game::new(size, Rules::tromp_taylor());
        for &m in moves {
            if g.play(m).is_err() {
                break;
            }
        }
        g
    }

    fn transformed(size: BoardSize, moves: &[Move], s: Symmetry) -> Vec<Move> {
        moves.iter().map(|&m| s.apply_move(size, m)).collect()
    }

    fn random_moves(side: usize) -> impl Strategy<Value = Vec<Move>> {
        prop::collection::vec((0..side, 0..side, 0u8..20), 0..24).prop_map(|v| {
            v.into_iter()
                .map(|(x, y, pass)| {
                    if pass == 0 {
                        Move::Pass
                    } else {
                        Move::Play(Point::new(x, y))
                    }
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn canonical_hash_is_symmetry_invariant(moves in random_moves(5), s in 0u8..8) {
            let size = BoardSize::square(5).unwrap();
            let sym = Symmetry::from_id(s).unwrap();
            let a = game(size, &moves);
            let legal: Vec<Move> = a.moves().iter().map(|&(_, m)| m).collect();
            let b = game(size, &transformed(size, &legal, sym));
            prop_assert_eq!(b.moves().len(), legal.len());
            prop_assert_eq!(canonical(&a, 9).hash, canonical(&b, 9).hash);
        }

        #[test]
        fn rectangles_use_four_symmetries(moves in random_moves(4), s in 0u8..4) {
            let size = BoardSize::new(6, 4).unwrap();
            let sym = Symmetry::from_id(s).unwrap();
            let a = game(size, &moves);
            let legal: Vec<Move> = a.moves().iter().map(|&(_, m)| m).collect();
            let b = game(size, &transformed(size, &legal, sym));
            prop_assert_eq!(canonical(&a, 9).hash, canonical(&b, 9).hash);
            prop_assert_eq!(book_hashes(&a, 9).len(), 4);
        }
    }

    /// Plays Black's and White's stones alternately in the given orders; `None` if a move was illegal,
    /// captured something, or was small (then transpositions are not promised to meet).
    fn play_large(size: BoardSize, black: &[Point], white: &[Point]) -> Option<Game> {
        let mut g = Game::new(size, Rules::tromp_taylor());
        for (b, w) in black.iter().zip(white) {
            for &p in [b, w] {
                g.play(Move::Play(p)).ok()?;
                if !g.move_exceeds_rep_bound(p, DEFAULT_REP_BOUND) {
                    return None;
                }
            }
        }
        (g.board().empty_count() == size.area() - 2 * black.len()).then_some(g)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn transposed_orders_of_large_moves_meet(
            points in prop::collection::hash_set((0usize..13, 0usize..13), 2..12),
            shuffle_b in any::<u64>(),
            shuffle_w in any::<u64>(),
        ) {
            let size = BoardSize::square(13).unwrap();
            let pts: Vec<Point> = points.into_iter().map(|(x, y)| Point::new(x, y)).collect();
            let half = pts.len() / 2;
            let (black, white) = (&pts[..half], &pts[half..2 * half]);
            let rotate = |v: &[Point], k: u64| {
                let mut v = v.to_vec();
                let n = v.len().max(1);
                v.rotate_left(k as usize % n);
                v
            };
            let a = play_large(size, black, white);
            let b = play_large(size, &rotate(black, shuffle_b), &rotate(white, shuffle_w));
            prop_assume!(a.is_some() && b.is_some());
            let (a, b) = (a.unwrap(), b.unwrap());
            prop_assert_eq!(a.situation_hash(), b.situation_hash());
            prop_assert_eq!(canonical(&a, DEFAULT_REP_BOUND).hash, canonical(&b, DEFAULT_REP_BOUND).hash);
        }
    }

    #[test]
    fn transposed_move_order_meets_when_moves_are_large() {
        let size = BoardSize::square(9).unwrap();
        let a = Game::from_gtp_moves(size, Rules::tromp_taylor(), "E5 C3 G7 C7").unwrap();
        let b = Game::from_gtp_moves(size, Rules::tromp_taylor(), "G7 C7 E5 C3").unwrap();
        assert_eq!(a.situation_hash(), b.situation_hash());
        assert_eq!(canonical(&a, 9).hash, canonical(&b, 9).hash);
    }

    #[test]
    fn small_moves_keep_history_apart() {
        // On 3x3 every move is small: the same stones reached in different orders stay distinct nodes.
        let size = BoardSize::square(3).unwrap();
        let a = Game::from_gtp_moves(size, Rules::tromp_taylor(), "A1 C3 B1 C2").unwrap();
        let b = Game::from_gtp_moves(size, Rules::tromp_taylor(), "B1 C2 A1 C3").unwrap();
        assert_eq!(a.situation_hash(), b.situation_hash());
        assert_eq!(canonical(&a, 9).hash.state, canonical(&b, 9).hash.state);
        assert_ne!(canonical(&a, 9).hash.history, canonical(&b, 9).hash.history);
    }

    #[test]
    fn empty_board_has_all_self_symmetries() {
        let g = Game::new(BoardSize::square(7).unwrap(), Rules::tromp_taylor());
        assert_eq!(canonical(&g, 9).self_symmetries.len(), 8);
        let g = Game::from_gtp_moves(BoardSize::square(7).unwrap(), Rules::tromp_taylor(), "D4")
            .unwrap();
        assert_eq!(canonical(&g, 9).self_symmetries.len(), 8);
        let g = Game::from_gtp_moves(BoardSize::square(7).unwrap(), Rules::tromp_taylor(), "C3")
            .unwrap();
        assert_eq!(
            canonical(&g, 9).self_symmetries.len(),
            2,
            "a 3-3 point keeps the diagonal mirror"
        );
        let g = Game::new(BoardSize::new(7, 5).unwrap(), Rules::tromp_taylor());
        assert_eq!(canonical(&g, 9).self_symmetries.len(), 4);
    }

    #[test]
    fn hash_text_round_trips() {
        let g = Game::from_gtp_moves(
            BoardSize::square(7).unwrap(),
            Rules::tromp_taylor(),
            "D4 C3",
        )
        .unwrap();
        let h = canonical(&g, 9).hash;
        assert_eq!(h.to_string().parse::<BookHash>().unwrap(), h);
    }
}
