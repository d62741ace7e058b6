//! The keys of the engine's caches: what the network's answer depends on, and the same made canonical
//! over the board's symmetries.
//!
//! A canonical key lets the evaluation cache hold one answer per class of symmetric positions: a leaf is
//! evaluated in its class's canonical orientation (then under a symmetry picked by the class, so that the
//! network's errors in one orientation do not repeat over the whole tree) and its answer is stored in
//! that orientation. Every symmetric variant of a position then sends the network the same input and gets
//! the same answer, and all but the first cost nothing. Early in a book almost every position is
//! symmetric, so the variants a search meets (after the centre point, the four diagonal replies) are
//! many.

use crate::go::hash::state_hash_under;
use crate::go::{Color, Game, Move, Symmetry};
use std::hash::{Hash, Hasher};

pub(super) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What the network's answer depends on: the situation (stones, player, ko and superko bans, passes), the
/// last five moves (history planes), the rules and komi, and the move balance territory scoring counts.
pub fn position_key(game: &Game) -> u128 {
    key_under(
        game,
        Symmetry::IDENTITY,
        &game.ko_banned_points(),
        rules_key(game),
    )
}

/// A position's key in its canonical orientation, and the symmetry that takes it there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CanonicalKey {
    pub key: u128,
    /// Maps the position's points onto the canonical orientation's.
    pub to_canonical: Symmetry,
}

/// The smallest of the position's keys under the symmetries of its board.
pub fn canonical_key(game: &Game) -> CanonicalKey {
    let bans = game.ko_banned_points();
    let rules = rules_key(game);
    Symmetry::group(game.size())
        .iter()
        .map(|&s| CanonicalKey {
            key: key_under(game, s, &bans, rules),
            to_canonical: s,
        })
        .min_by_key(|k| k.key)
        .unwrap_or(CanonicalKey {
            key: position_key(game),
            to_canonical: Symmetry::IDENTITY,
        })
}

/// How one position is looked up in the evaluation cache and shown to the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafKey {
    /// The cache's key: the canonical key, or the position's own without leaf symmetries.
    pub cache: u128,
    /// The orientation the cache stores the answer in, from the position's.
    pub to_canonical: Symmetry,
    /// The symmetry the network sees the canonical orientation through; `None`: as it is.
    pub pick: Option<Symmetry>,
}

impl LeafKey {
    /// With leaf symmetries: the canonical orientation, then a symmetry picked by the class (the same
    /// class always gets the same evaluation, cached or not, as KataGo's `nnRandomize` picks one at
    /// random). Without: the position as it is, under its own key.
    pub fn new(game: &Game, leaf_symmetries: bool) -> LeafKey {
        if !leaf_symmetries {
            return LeafKey {
                cache: position_key(game),
                to_canonical: Symmetry::IDENTITY,
                pick: None,
            };
        }
        let canonical = canonical_key(game);
        let group = Symmetry::group(game.size());
        let key = canonical.key;
        let pick = mix(key as u64 ^ (key >> 64) as u64) % group.len() as u64;
        LeafKey {
            cache: key,
            to_canonical: canonical.to_canonical,
            pick: Some(group[pick as usize]),
        }
    }

    /// The symmetry from the position's orientation to the network's input.
    pub fn input(&self) -> Option<Symmetry> {
        match (self.to_canonical, self.pick) {
            (Symmetry::IDENTITY, pick) => pick,
            (to, pick) => Some(pick.map_or(to, |p| to.then(p))),
        }
    }
}

/// The key of `game` seen through `symmetry`.
fn key_under(game: &Game, symmetry: Symmetry, bans: &[crate::go::Point], rules: u128) -> u128 {
    let size = game.size();
    let mut key = state_hash_under(game, symmetry, bans);
    for (back, &(color, mv)) in game.moves().iter().rev().take(5).enumerate() {
        let point = match symmetry.apply_move(size, mv) {
            Move::Pass => 0xffff,
            Move::Play(p) => p.index() as u64,
        };
        let code = mix(point | (color.index() as u64) << 16 | (back as u64) << 20);
        key ^= (code as u128) << 64 | mix(code) as u128;
    }
    key ^ rules
}

/// The part of the key no symmetry changes: the rules and komi, and the move balance.
fn rules_key(game: &Game) -> u128 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    game.rules().hash(&mut hasher);
    let balance: i64 = game
        .moves()
        .iter()
        .filter(|(_, m)| *m != Move::Pass)
        .map(|(c, _)| if *c == Color::Black { 1 } else { -1 })
        .sum();
    balance.hash(&mut hasher);
    let h = mix(hasher.finish());
    (h as u128) << 32 | mix(h ^ 0x5555) as u128
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{BoardSize, Point, Rules};

    fn game(size: BoardSize, moves: &[(usize, usize)]) -> Game {
        let mut g = Game::new(size, Rules::tromp_taylor());
        for &(x, y) in moves {
            g.play(Move::Play(Point::new(x, y))).expect("legal");
        }
        g
    }

    fn mapped(size: BoardSize, moves: &[(usize, usize)], s: Symmetry) -> Vec<(usize, usize)> {
        moves
            .iter()
            .map(|&(x, y)| {
                let p = s.apply(size, Point::new(x, y));
                (p.x(), p.y())
            })
            .collect()
    }

    #[test]
    fn symmetric_variants_share_one_canonical_key_and_differ_in_position_keys() {
        let size = BoardSize::square(7).expect("7x7");
        let line = [(3, 3), (2, 2), (4, 2), (2, 4)];
        let a = game(size, &line);
        let mut positions = std::collections::HashSet::new();
        for &s in Symmetry::group(size) {
            let b = game(size, &mapped(size, &line, s));
            assert_eq!(canonical_key(&b).key, canonical_key(&a).key, "{s}");
            positions.insert(position_key(&b));
        }
        assert!(positions.len() > 1, "the variants are distinct positions");
    }

    #[test]
    fn the_canonical_symmetry_maps_the_position_onto_the_canonical_one() {
        let size = BoardSize::square(7).expect("7x7");
        let line = [(1, 2), (5, 3), (2, 5)];
        let a = game(size, &line);
        let c = canonical_key(&a);
        let canon = game(size, &mapped(size, &line, c.to_canonical));
        assert_eq!(position_key(&canon), c.key);
        assert_eq!(canonical_key(&canon).to_canonical, Symmetry::IDENTITY);
    }

    #[test]
    fn history_and_rules_separate_keys() {
        let size = BoardSize::square(7).expect("7x7");
        let a = game(size, &[(3, 3), (2, 2), (4, 4), (1, 1)]);
        let b = game(size, &[(4, 4), (1, 1), (3, 3), (2, 2)]);
        assert_eq!(a.board().stone_hash(), b.board().stone_hash());
        assert_ne!(canonical_key(&a).key, canonical_key(&b).key);
        let mut japanese = Game::new(size, Rules::japanese());
        japanese.play(Move::Play(Point::new(3, 3))).expect("legal");
        let tromp = game(size, &[(3, 3)]);
        assert_ne!(canonical_key(&japanese).key, canonical_key(&tromp).key);
    }
}
