//! Static safety: Benson's unconditional life ("pass-alive" chains) and the regions they enclose, on the
//! solver's bitboards.
//!
//! A chain is pass-alive when the opponent cannot capture it even if its owner always passes (Benson
//! 1976): it borders at least two regions that are *vital* to it, regions of non-own points all of whose
//! empty points are its liberties and whose every bordering own chain is pass-alive too. A region bordered
//! only by pass-alive chains whose empty points are all next to them holds no room for an enemy eye, so
//! the owner can always clear it before the game ends: under area scoring its points are the owner's,
//! whatever stands on them now. Moves outside such an area change none of it, so it only grows.

use super::Geometry;

/// Chains or regions of one colour's partition of the board (at most one per point).
struct Parts {
    masks: [u32; super::MAX_AREA],
    count: usize,
}

impl Parts {
    /// The connected parts of `within`.
    fn of(geo: &Geometry, within: u32) -> Parts {
        let mut parts = Parts {
            masks: [0; super::MAX_AREA],
            count: 0,
        };
        let mut left = within;
        while left != 0 {
            let part = geo.flood(within, left & left.wrapping_neg());
            left &= !part;
            parts.masks[parts.count] = part;
            parts.count += 1;
        }
        parts
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.masks[..self.count].iter().copied()
    }
}

/// The points `own`'s side is sure to own at the end of the game, whatever the opponent (`theirs`)
/// does: its pass-alive chains and the regions they enclose without room for an enemy eye.
pub(super) fn pass_alive_area(geo: &Geometry, own: u32, theirs: u32) -> u32 {
    // A pass-alive chain needs two vital regions, so two own stones at least.
    if own.count_ones() < 2 {
        return 0;
    }
    let empty = geo.all & !own & !theirs;
    let chains = Parts::of(geo, own);
    let regions = Parts::of(geo, geo.all & !own);
    // Per region: the chains (bit i for chain i) that border it, and those it is vital to.
    let mut border = [0u32; super::MAX_AREA];
    let mut vital = [0u32; super::MAX_AREA];
    for (r, region) in regions.iter().enumerate() {
        let around = geo.neighbours(region);
        let region_empty = region & empty;
        for (c, chain) in chains.iter().enumerate() {
            if around & chain != 0 {
                border[r] |= 1 << c;
                if region_empty & !geo.neighbours(chain) == 0 {
                    vital[r] |= 1 << c;
                }
            }
        }
    }
    let mut alive: u32 = (1u32 << chains.count) - 1;
    loop {
        let mut vital_count = [0u8; super::MAX_AREA];
        for r in 0..regions.count {
            // A region counts only while every chain around it is still a candidate.
            if border[r] & !alive == 0 {
                let mut of = vital[r];
                while of != 0 {
                    vital_count[of.trailing_zeros() as usize] += 1;
                    of &= of - 1;
                }
            }
        }
        let still = (0..chains.count)
            .filter(|&c| alive & 1 << c != 0 && vital_count[c] >= 2)
            .fold(0u32, |m, c| m | 1 << c);
        if still == alive {
            break;
        }
        alive = still;
    }
    if alive == 0 {
        return 0;
    }
    let alive_stones = chains
        .iter()
        .enumerate()
        .filter(|&(c, _)| alive & 1 << c != 0)
        .fold(0u32, |m, (_, chain)| m | chain);
    let next_to_alive = geo.neighbours(alive_stones);
    let mut area = alive_stones;
    for (r, region) in regions.iter().enumerate() {
        if border[r] != 0 && border[r] & !alive == 0 && region & empty & !next_to_alive == 0 {
            area |= region;
        }
    }
    area
}
