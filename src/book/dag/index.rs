//! The book's position index: node ids by hash, in an open-addressing order that keeps lookups cheap for
//! millions of nodes.

use super::*;

/// The index keys are already uniformly mixed hash bits: hashing them again (SipHash) only costs time.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KeyIsHash;

impl std::hash::BuildHasher for KeyIsHash {
    type Hasher = KeyHasher;
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(0)
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed here; other input is folded in all the same.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// Slots of the index table per region that [`table_order`] groups by: 16 KB of entries, which stay in
/// the CPU's cache while a region is filled.
pub(super) const REGION_BITS: u32 = 10;

/// The keys with their ids, grouped by the region of the index table where each key's slot is, regions in
/// table order (a counting sort, stable, so equal keys keep their order and the index comes out as if
/// filled node by node). The std map (hashbrown) starts looking for a key's slot at `key & (buckets - 1)`;
/// were that to change, only the speed would suffer.
pub(super) fn table_order(keys: &[u64], capacity: usize) -> Vec<(u64, NodeId)> {
    let buckets = (capacity.max(1) * 8 / 7).next_power_of_two() as u64;
    let region = |key: u64| ((key & (buckets - 1)) >> REGION_BITS) as usize;
    let regions = (buckets >> REGION_BITS).max(1) as usize;
    let mut start = vec![0usize; regions + 1];
    for &key in keys {
        start[region(key) + 1] += 1;
    }
    for r in 0..regions {
        start[r + 1] += start[r];
    }
    // With the key beside the id, the inserts read this list front to back.
    let mut order = vec![(0, NodeId(0)); keys.len()];
    for (id, &key) in keys.iter().enumerate() {
        let slot = &mut start[region(key)];
        order[*slot] = (key, NodeId(id as u32));
        *slot += 1;
    }
    order
}

/// 64 bits of a hash for the index: both halves mixed, since the state half of the empty board is zero.
pub(super) fn index_key(hash: &BookHash) -> u64 {
    (hash.state as u64)
        ^ ((hash.state >> 64) as u64).rotate_left(17)
        ^ (hash.history as u64).rotate_left(31)
}
