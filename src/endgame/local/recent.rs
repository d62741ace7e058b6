//! A fixed number of recent results, direct-mapped: the caller's hash of a key picks its slot, and a newer
//! entry evicts the one there. The searches reach a position again soon after they first reach it (a
//! proof of another bound, an option probed then solved, a reading of a neighbouring chain), so a small
//! table without bookkeeping catches most of the repeats.

/// Results by key in `slots.len()` slots (a power of two).
pub struct Recent<K, V> {
    slots: Vec<Option<(K, V)>>,
}

impl<K: PartialEq + Clone, V: Clone> Recent<K, V> {
    /// A table of `2^bits` empty slots.
    pub fn new(bits: u32) -> Recent<K, V> {
        Recent {
            slots: vec![None; 1 << bits],
        }
    }

    fn slot(&self, hash: u64) -> usize {
        (hash as usize) & (self.slots.len() - 1)
    }

    /// The value kept for `key` (whose hash is `hash`), if its slot still holds it.
    pub fn get(&self, key: &K, hash: u64) -> Option<V> {
        match &self.slots[self.slot(hash)] {
            Some((k, v)) if k == key => Some(v.clone()),
            _ => None,
        }
    }

    /// Keeps `value` for `key`, evicting whatever held its slot.
    pub fn insert(&mut self, key: K, hash: u64, value: V) {
        let slot = self.slot(hash);
        self.slots[slot] = Some((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::Recent;

    #[test]
    fn a_slot_answers_only_for_the_key_it_holds() {
        let mut recent: Recent<u32, &str> = Recent::new(2);
        recent.insert(1, 1, "one");
        assert_eq!(recent.get(&1, 1), Some("one"));
        // 5 hashes to the same slot of four: it evicts 1, and 1 is not answered with 5's value.
        recent.insert(5, 5, "five");
        assert_eq!(recent.get(&1, 1), None);
        assert_eq!(recent.get(&5, 5), Some("five"));
        assert_eq!(recent.get(&9, 9), None);
        recent.insert(2, 2, "two");
        assert_eq!(recent.get(&5, 5), Some("five"));
    }
}
