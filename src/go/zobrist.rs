//! Zobrist keys, generated at compile time from a fixed seed so hashes are stable across runs and builds
//! (book files store them).

use super::coord::GRID;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn table<const N: usize>(seed: u64) -> [u128; N] {
    let mut keys = [0u128; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s1, hi) = splitmix(state);
        let (s2, lo) = splitmix(s1);
        state = s2;
        keys[i] = ((hi as u128) << 64) | lo as u128;
        i += 1;
    }
    keys
}

/// Keys for a black stone, then a white stone, at each padded-grid index.
pub static STONE: [[u128; GRID]; 2] = [
    table::<GRID>(0x7465_6E67_656E_0001),
    table::<GRID>(0x7465_6E67_656E_0002),
];
/// A second, independent set of stone keys (the board term of the history hash).
pub static STONE_ALT: [[u128; GRID]; 2] = [
    table::<GRID>(0x7465_6E67_656E_0003),
    table::<GRID>(0x7465_6E67_656E_0004),
];
/// Keys for a point where the player to move may not play because of a ko or superko ban.
pub static KO_BAN: [u128; GRID] = table::<GRID>(0x7465_6E67_656E_0005);
/// Misc keys: White to move, one pass made, game over.
pub static MISC: [u128; 4] = table::<4>(0x7465_6E67_656E_0006);

pub const WHITE_TO_MOVE: usize = 0;
pub const ONE_PASS: usize = 1;
pub const GAME_OVER: usize = 2;

/// Mixes a 128-bit accumulator so that sums of hashes do not cancel (splitmix on one half, a
/// different finaliser on the other).
pub fn mix128(x: u128) -> u128 {
    let hi = (x >> 64) as u64;
    let lo = x as u64;
    let (_, a) = splitmix(hi ^ lo.rotate_left(17));
    let mut b = lo ^ hi.rotate_right(23);
    b ^= b.rotate_right(25) ^ b.rotate_right(47);
    b = b.wrapping_mul(0x9E6C_63D0_676A_9A99);
    b ^= (b >> 23) ^ (b >> 51);
    b = b.wrapping_mul(0x9E6D_62D0_6F6A_9A9B);
    b ^= (b >> 23) ^ (b >> 51);
    ((a as u128) << 64) | b as u128
}
