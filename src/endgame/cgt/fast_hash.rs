//! Hash maps for the memo tables of game comparisons and sums and for the solver's tables. Their keys are
//! node addresses, small rationals and Zobrist hashes, not input an adversary controls; SipHash spent a
//! third of the solver's time hashing them. foldhash (already in the dependency tree) with a fixed seed
//! is fast and keeps runs reproducible.

use foldhash::fast::FixedState;
use std::collections::HashMap;

/// A `HashMap` with foldhash's fast hasher and a fixed seed.
pub type FastMap<K, V> = HashMap<K, V, FixedState>;

/// An empty [`FastMap`].
pub fn fast_map<K, V>() -> FastMap<K, V> {
    HashMap::with_hasher(FixedState::default())
}
