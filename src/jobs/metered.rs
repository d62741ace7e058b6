//! An [`Engine`] wrapper that meters a job's searches: it asks the inner engine for reports during the
//! search and turns their visit counts into [`JobEvent::Progress`], so the book's expansion step (which
//! only waits for final reports) still drives a live progress bar.

use super::{JobEvent, JobId};
use crate::engine::{Analysis, Engine, Query};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often the inner engine reports during a search.
const REPORT_EVERY: Duration = Duration::from_millis(100);

pub struct Metered {
    inner: Arc<dyn Engine>,
    job: JobId,
    events: mpsc::UnboundedSender<JobEvent>,
    /// Visits counted before this engine was made (earlier positions of a line).
    base: u64,
    /// Latest root visits of each analysis this job started.
    visits: Arc<Mutex<HashMap<u64, u64>>>,
}

impl Metered {
    pub fn new(
        inner: Arc<dyn Engine>,
        job: JobId,
        events: mpsc::UnboundedSender<JobEvent>,
        base: u64,
    ) -> Metered {
        Metered {
            inner,
            job,
            events,
            base,
            visits: Arc::default(),
        }
    }

    /// Visits done so far by every search of this meter, plus the base.
    pub fn total(&self) -> u64 {
        self.base + self.visits.lock().map(|v| v.values().sum()).unwrap_or(0)
    }
}

impl Engine for Metered {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn id(&self) -> crate::engine::EngineId {
        self.inner.id()
    }

    fn network_eval(
        &self,
        game: &crate::go::Game,
    ) -> Option<Result<Arc<crate::nn::output::NnEval>, crate::engine::EngineError>> {
        self.inner.network_eval(game)
    }

    fn analyze(&self, mut query: Query) -> Analysis {
        query.report_every = query.report_every.or(Some(REPORT_EVERY));
        let mut inner = self.inner.analyze(query);
        let (outer, tx, cancel) = Analysis::channel();
        let visits = Arc::clone(&self.visits);
        let key = visits.lock().map(|v| v.len() as u64).unwrap_or(0);
        let (job, events, base) = (self.job, self.events.clone(), self.base);
        tokio::spawn(async move {
            let mut cancelled = false;
            loop {
                tokio::select! {
                    item = inner.next() => {
                        let Some(item) = item else { break };
                        if let Ok(report) = &item {
                            let total = visits.lock().map(|mut v| {
                                v.insert(key, report.root.visits);
                                v.values().sum::<u64>()
                            });
                            if let Ok(total) = total {
                                let _ = events.send(JobEvent::Progress { id: job, visits: base + total });
                            }
                        }
                        if tx.send(item).await.is_err() {
                            inner.cancel();
                            break;
                        }
                    }
                    // After a cancel, keep forwarding: the engine still sends its final report.
                    _ = cancel.cancelled(), if !cancelled => {
                        cancelled = true;
                        inner.cancel();
                    }
                }
            }
        });
        outer
    }
}
