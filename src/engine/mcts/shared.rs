//! Finished search trees kept for a later search of the same position that carries the same sharing key
//! (`Query::share_tree`) and bans the same root moves and more: it starts from the kept tree less the
//! subtrees of the moves it bans besides. A book expansion's quick re-search, which bans the moves the
//! full search just added, so begins with the full search's visits to every other move. A search that bans
//! no more than the kept one starts afresh: asked the same question again, a search answers the same.

use super::tree::Tree;
use super::utility::Utility;
use crate::go::{Game, Move};
use crate::nn::NnEval;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Trees kept at most; the oldest goes first. A kept tree is taken by the search that uses it.
const CAPACITY: usize = 32;

/// What a later search needs of a finished one.
pub(super) struct Saved {
    pub tree: Tree,
    pub utility: Utility,
    pub root_game: Game,
    pub root_eval: Arc<NnEval>,
    pub ownership_sum: Vec<f64>,
    pub ownership_count: u64,
}

struct Entry {
    key: u64,
    position: u128,
    avoid: Vec<Move>,
    saved: Saved,
}

#[derive(Default)]
pub(super) struct SharedTrees {
    entries: Mutex<VecDeque<Entry>>,
}

impl SharedTrees {
    /// The tree kept under `key` for this position, if its search banned no move that `avoid` allows and
    /// `avoid` bans more.
    pub fn take(&self, key: u64, position: u128, avoid: &[Move]) -> Option<Saved> {
        let mut entries = self.entries.lock().ok()?;
        let at = entries.iter().position(|e| {
            e.key == key
                && e.position == position
                && e.avoid.iter().all(|m| avoid.contains(m))
                && avoid.iter().any(|m| !e.avoid.contains(m))
        })?;
        entries.remove(at).map(|e| e.saved)
    }

    pub fn save(&self, key: u64, position: u128, avoid: &[Move], saved: Saved) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        entries.retain(|e| e.key != key);
        entries.push_back(Entry {
            key,
            position,
            avoid: avoid.to_vec(),
            saved,
        });
        while entries.len() > CAPACITY {
            entries.pop_front();
        }
    }
}
