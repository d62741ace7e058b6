//! Moving positions between a node's own orientation and its canonical one.

use super::SymmetrySet;
use crate::go::{Game, Setup, Symmetry};

/// Self-symmetries found in canonical space, expressed in the space that `to_canonical` maps from.
pub fn conjugate_self_symmetries(
    canonical_syms: &[Symmetry],
    to_canonical: Symmetry,
) -> SymmetrySet {
    let inv = to_canonical.inverse();
    SymmetrySet::from_slice(
        &canonical_syms
            .iter()
            .map(|&s| to_canonical.then(s).then(inv))
            .collect::<Vec<_>>(),
    )
}

/// The same game with every stone and move mapped through `sym`.
pub fn transform_game(game: &Game, sym: Symmetry) -> Game {
    if sym == Symmetry::IDENTITY {
        return game.clone();
    }
    let size = game.size();
    let setup = game.setup();
    let mapped = Setup {
        black: setup.black.iter().map(|&p| sym.apply(size, p)).collect(),
        white: setup.white.iter().map(|&p| sym.apply(size, p)).collect(),
        first_player: setup.first_player,
    };
    let mut out = Game::with_setup(size, game.rules(), mapped);
    for &(color, mv) in game.moves() {
        let _ = out.play_tolerant(color, sym.apply_move(size, mv));
    }
    out
}
