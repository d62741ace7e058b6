//! How far a running search has got, for another thread to read (the workbench's job reports it).

use std::sync::atomic::{AtomicUsize, Ordering};

/// A search's progress, read from another thread while it runs: the positions searched so far and the
/// budget they count against (both 0 when no search runs).
#[derive(Debug, Default)]
pub struct Progress {
    searched: AtomicUsize,
    budget: AtomicUsize,
}

impl Progress {
    pub fn searched(&self) -> usize {
        self.searched.load(Ordering::Relaxed)
    }

    pub fn budget(&self) -> usize {
        self.budget.load(Ordering::Relaxed)
    }

    /// No search runs (any more).
    pub fn clear(&self) {
        self.budget.store(0, Ordering::Relaxed);
        self.searched.store(0, Ordering::Relaxed);
    }

    pub(super) fn start(&self, budget: usize) {
        self.searched.store(0, Ordering::Relaxed);
        self.budget.store(budget, Ordering::Relaxed);
    }

    pub(super) fn searched_up_to(&self, positions: usize) {
        self.searched.store(positions, Ordering::Relaxed);
    }
}
