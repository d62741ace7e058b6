//! Finished search trees kept for later searches that carry the same sharing key (`Query::share_tree`):
//! - a search of the same position that bans the same root moves and more starts from the kept tree less
//!   the subtrees of the moves it bans besides (a book expansion's quick re-search, which bans the moves
//!   the full search just added, so begins with the full search's visits to every other move);
//! - a search of a position one move below the kept root starts from that move's subtree (a new book
//!   move's own search, as KataGo's book fills a new move's values from the search that found it).
//!
//! A search that bans no more than the kept one starts afresh: asked the same question again, a search
//! answers the same. Only searches that started afresh are kept, each under its key and position, and a
//! kept tree is copied, never taken, so the searches that share it may run in any order and see the same.

use super::key::position_key;
use super::tree::{Node, Tree};
use super::utility::Utility;
use crate::go::{Game, Move};
use crate::nn::NnEval;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Memory the kept trees may use; the oldest go first.
const BUDGET_BYTES: usize = 256 << 20;

/// What a later search needs of a finished one.
#[derive(Clone)]
pub(super) struct Saved {
    pub tree: Tree,
    pub utility: Utility,
    pub root_game: Game,
    pub root_eval: Arc<NnEval>,
    pub ownership_sum: Vec<f64>,
    pub ownership_count: u64,
}

/// A kept tree that a new search can start from.
pub(super) enum Kept {
    /// The same position's tree.
    Same(Box<Saved>),
    /// The subtree below one root move, for the position after it (its utility is the kept search's).
    Below { tree: Tree, utility: Utility },
}

struct Entry {
    key: u64,
    position: u128,
    avoid: Vec<Move>,
    bytes: usize,
    saved: Saved,
}

#[derive(Default)]
pub(super) struct SharedTrees {
    entries: Mutex<VecDeque<Entry>>,
}

impl SharedTrees {
    /// A tree kept under `key` that a search of `game` (whose key is `position`) banning `avoid` may
    /// start from.
    pub fn find(&self, key: u64, game: &Game, position: u128, avoid: &[Move]) -> Option<Kept> {
        let entries = self.entries.lock().ok()?;
        let same = entries.iter().find(|e| {
            e.key == key
                && e.position == position
                && e.avoid.iter().all(|m| avoid.contains(m))
                && avoid.iter().any(|m| !e.avoid.contains(m))
        });
        if let Some(e) = same {
            return Some(Kept::Same(Box::new(e.saved.clone())));
        }
        entries
            .iter()
            .filter(|e| e.key == key)
            .find_map(|e| below(&e.saved, game, position))
    }

    /// Keeps a finished search's tree under its key and position, replacing an older one there.
    pub fn save(&self, key: u64, position: u128, avoid: &[Move], saved: Saved) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        entries.retain(|e| e.key != key || e.position != position);
        entries.push_back(Entry {
            key,
            position,
            avoid: avoid.to_vec(),
            bytes: saved.tree.bytes(),
            saved,
        });
        let mut total: usize = entries.iter().map(|e| e.bytes).sum();
        while total > BUDGET_BYTES && entries.len() > 1 {
            total -= entries.pop_front().map_or(0, |e| e.bytes);
        }
    }
}

/// The subtree of `saved` below the root move that leads to `game`.
fn below(saved: &Saved, game: &Game, position: u128) -> Option<Kept> {
    let root: &Node = saved.tree.node(Tree::ROOT);
    root.edges.iter().find_map(|edge| {
        let child = edge.child?;
        let mut after = saved.root_game.clone();
        after.play(edge.mv).ok()?;
        (position_key(&after) == position && after.to_move() == game.to_move()).then(|| {
            Kept::Below {
                tree: saved.tree.subtree(child),
                utility: saved.utility,
            }
        })
    })
}
