//! Network evaluations kept by position key, shared by every search of one engine (so by every search of
//! a book grown with it), within a memory budget.
//!
//! Two generations: new entries go into the current one; when it holds half the budget it becomes the
//! previous one and the one before is dropped. A hit in the previous generation moves the entry back to
//! the current one, so positions in use survive and memory stays under the budget, without the cold start
//! that clearing everything would cause in the middle of a book's growth.

use crate::nn::NnEval;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The budget of the evaluation cache of one engine.
pub const EVAL_CACHE_BYTES: usize = 256 << 20;
/// The budget of the symmetry-averaged root evaluations of one engine (one per searched position).
pub const ROOT_CACHE_BYTES: usize = 16 << 20;

#[derive(Default)]
struct Generations {
    current: HashMap<u128, Arc<NnEval>>,
    current_bytes: usize,
    previous: HashMap<u128, Arc<NnEval>>,
}

pub struct EvalCache {
    budget: usize,
    inner: Mutex<Generations>,
}

/// What an entry costs: the evaluation, its policy and ownership, and the map's share.
fn entry_bytes(eval: &NnEval) -> usize {
    std::mem::size_of::<NnEval>()
        + eval.policy.len() * std::mem::size_of::<Option<f32>>()
        + eval.white_ownership.len() * std::mem::size_of::<f32>()
        + 64
}

impl EvalCache {
    pub fn new(budget_bytes: usize) -> EvalCache {
        EvalCache {
            budget: budget_bytes,
            inner: Mutex::new(Generations::default()),
        }
    }

    pub fn get(&self, key: u128) -> Option<Arc<NnEval>> {
        let mut g = self.inner.lock().ok()?;
        if let Some(hit) = g.current.get(&key) {
            return Some(hit.clone());
        }
        let hit = g.previous.remove(&key)?;
        Self::put(&mut g, self.budget, key, hit.clone());
        Some(hit)
    }

    pub fn insert(&self, key: u128, eval: Arc<NnEval>) {
        if let Ok(mut g) = self.inner.lock() {
            Self::put(&mut g, self.budget, key, eval);
        }
    }

    fn put(g: &mut Generations, budget: usize, key: u128, eval: Arc<NnEval>) {
        let bytes = entry_bytes(&eval);
        if g.current_bytes + bytes > budget / 2 {
            g.previous = std::mem::take(&mut g.current);
            g.current_bytes = 0;
        }
        if g.current.insert(key, eval).is_none() {
            g.current_bytes += bytes;
        }
    }

    /// Entries held, both generations.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .map_or(0, |g| g.current.len() + g.previous.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(points: usize) -> Arc<NnEval> {
        Arc::new(NnEval::even(points, 1.0))
    }

    #[test]
    fn stays_within_its_budget_and_keeps_what_is_used() {
        let one = entry_bytes(&eval(49));
        // Room for ten entries per generation.
        let cache = EvalCache::new(20 * one);
        for key in 0..10 {
            cache.insert(key, eval(49));
        }
        assert_eq!(cache.len(), 10);
        // The eleventh starts a new generation; the first ten are still there.
        cache.insert(10, eval(49));
        assert_eq!(cache.len(), 11);
        // Key 3 is used: it moves to the current generation and survives the next turnover.
        assert!(cache.get(3).is_some());
        for key in 11..20 {
            cache.insert(key, eval(49));
        }
        assert!(cache.get(3).is_some(), "a position in use is kept");
        assert!(cache.get(5).is_none(), "an unused old one is dropped");
        for key in 100..1000 {
            cache.insert(key, eval(49));
            assert!(cache.len() <= 20, "never more than the budget holds");
        }
    }
}
