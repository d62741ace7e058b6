//! Canonical orientation of a game record.
//!
//! Chen et al. orient a game by the symmetry that makes its sequence of location types lexically smallest;
//! a move on a "pie" point (off both axes and diagonals) fixes the orientation for good. tengen does the same
//! with the Go core's canonical hashing: starting from the whole group, it keeps, after each move, only the
//! symmetries under which the position so far has the smallest hash. While the position is symmetric several
//! survive, and they all give the same oriented moves; the first asymmetric position leaves one. Two games
//! that are images of each other thus become the same sequence, which is what merging needs.

use crate::go::hash::state_hash_under;
use crate::go::{BoardSize, Color, Game, Move, Rules, Symmetry};

/// The symmetry that orients `moves` canonically, with the oriented moves.
pub fn orient(size: BoardSize, moves: &[(Color, Move)]) -> (Symmetry, Vec<(Color, Move)>) {
    let mut candidates: Vec<Symmetry> = Symmetry::group(size).to_vec();
    // Simple ko and tolerant play: records may repeat positions or move twice in a row.
    let mut game = Game::new(size, Rules::chinese());
    for &(color, mv) in moves {
        if candidates.len() == 1 {
            break;
        }
        if game.play_tolerant(color, mv).is_err() {
            break;
        }
        let hashes: Vec<u128> = candidates
            .iter()
            .map(|&s| state_hash_under(&game, s, &[]))
            .collect();
        let best = hashes.iter().copied().min().unwrap_or_default();
        candidates = candidates
            .iter()
            .zip(&hashes)
            .filter(|(_, h)| **h == best)
            .map(|(s, _)| *s)
            .collect();
    }
    let sym = candidates.first().copied().unwrap_or(Symmetry::IDENTITY);
    let oriented = moves
        .iter()
        .map(|&(c, m)| (c, sym.apply_move(size, m)))
        .collect();
    (sym, oriented)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(size: BoardSize, text: &str) -> Vec<(Color, Move)> {
        Move::alternating(&Move::parse_list(text, size).unwrap())
    }

    #[test]
    fn all_eight_images_orient_alike() {
        let size = BoardSize::square(9).unwrap();
        let game = moves(size, "E5 D3 C5 G6 F3");
        let (_, reference) = orient(size, &game);
        for s in Symmetry::ALL {
            let image: Vec<(Color, Move)> = game
                .iter()
                .map(|&(c, m)| (c, s.apply_move(size, m)))
                .collect();
            assert_eq!(orient(size, &image).1, reference, "image under {s}");
        }
    }

    #[test]
    fn different_games_stay_different() {
        let size = BoardSize::square(9).unwrap();
        let a = orient(size, &moves(size, "E5 D3 C5")).1;
        let b = orient(size, &moves(size, "E5 D3 G5")).1;
        assert_ne!(
            a, b,
            "C5 and G5 are different answers once D3 fixed the orientation"
        );
    }

    #[test]
    fn rectangles_use_four_symmetries() {
        let size = BoardSize::new(9, 7).unwrap();
        let game = moves(size, "C3 G5");
        let (_, reference) = orient(size, &game);
        for &s in Symmetry::group(size) {
            let image: Vec<(Color, Move)> = game
                .iter()
                .map(|&(c, m)| (c, s.apply_move(size, m)))
                .collect();
            assert_eq!(orient(size, &image).1, reference);
        }
    }
}
