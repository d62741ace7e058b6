//! Several engines behind one [`Engine`]: queries go to the least busy member; a member that dies is
//! replaced by a fresh one from the factory and the query is retried on another member, up to a limit.
//!
//! Members are any engines, typically one process each: local KataGo or GTP engines, or remote ones whose
//! command is `ssh host katago …`. Reports already streamed from a member that then died stay valid as
//! progress; the retry starts its search afresh.

use super::{Analysis, Engine, EngineError, Query};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Makes a fresh member (called once per slot at the start, and again for each one that dies).
pub type EngineFactory = Arc<dyn Fn(usize) -> Arc<dyn Engine> + Send + Sync>;

pub struct EnginePool {
    slots: Arc<Vec<Slot>>,
    factory: EngineFactory,
    max_retries: usize,
    /// The members' identity (the first member's, taken once): a pool of an engine is that engine.
    id: super::EngineId,
}

struct Slot {
    engine: Mutex<Arc<dyn Engine>>,
    in_flight: AtomicUsize,
    replacements: AtomicUsize,
}

impl EnginePool {
    /// A pool of `size` members made by `factory(slot)`; a query is retried at most `max_retries` times
    /// after members die under it.
    pub fn new(size: usize, max_retries: usize, factory: EngineFactory) -> EnginePool {
        let slots = (0..size.max(1))
            .map(|i| Slot {
                engine: Mutex::new(factory(i)),
                in_flight: AtomicUsize::new(0),
                replacements: AtomicUsize::new(0),
            })
            .collect::<Vec<Slot>>();
        let id = slots[0].engine().id();
        EnginePool {
            slots: Arc::new(slots),
            factory,
            max_retries,
            id,
        }
    }

    /// How many members have been replaced after dying.
    pub fn replacements(&self) -> usize {
        self.slots
            .iter()
            .map(|s| s.replacements.load(Ordering::SeqCst))
            .sum()
    }
}

impl Slot {
    fn engine(&self) -> Arc<dyn Engine> {
        Arc::clone(&self.engine.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The least busy slot, preferring slots this query has not died on.
fn pick(slots: &[Slot], avoid: &[usize]) -> usize {
    (0..slots.len())
        .min_by_key(|&i| {
            (
                avoid.contains(&i),
                slots[i].in_flight.load(Ordering::SeqCst),
                i,
            )
        })
        .unwrap_or(0)
}

impl Engine for EnginePool {
    fn name(&self) -> String {
        let first = self
            .slots
            .first()
            .map(|s| s.engine().name())
            .unwrap_or_default();
        format!("pool of {} × {first}", self.slots.len())
    }

    fn id(&self) -> super::EngineId {
        self.id.clone()
    }

    fn analyze(&self, query: Query) -> Analysis {
        let (analysis, tx, cancel) = Analysis::channel();
        let slots = Arc::clone(&self.slots);
        let factory = Arc::clone(&self.factory);
        let max_retries = self.max_retries;
        tokio::spawn(async move {
            let mut died_on: Vec<usize> = Vec::new();
            loop {
                let slot = pick(&slots, &died_on);
                let engine = slots[slot].engine();
                slots[slot].in_flight.fetch_add(1, Ordering::SeqCst);
                let mut inner = engine.analyze(query.clone());
                let inner_cancel = inner.cancel_token();
                let outcome = loop {
                    tokio::select! {
                        _ = cancel.cancelled(), if !inner_cancel.is_cancelled() => inner_cancel.cancel(),
                        item = inner.next() => match item {
                            Some(Ok(report)) => {
                                let is_final = report.is_final;
                                if tx.send(Ok(report)).await.is_err() {
                                    inner_cancel.cancel();
                                }
                                if is_final {
                                    break None;
                                }
                            }
                            Some(Err(e)) => break Some(e),
                            None => break Some(EngineError::Died {
                                engine: engine.name(),
                                detail: "its analysis ended without a final report".into(),
                            }),
                        }
                    }
                };
                slots[slot].in_flight.fetch_sub(1, Ordering::SeqCst);
                let Some(error) = outcome else { return };
                if !matches!(
                    error,
                    EngineError::Died { .. } | EngineError::TimedOut { .. }
                ) {
                    let _ = tx.send(Err(error)).await;
                    return;
                }
                // Replace the member that died (unless another query already did) and try elsewhere.
                {
                    let mut current = slots[slot].engine.lock().unwrap_or_else(|e| e.into_inner());
                    if Arc::ptr_eq(&current, &engine) {
                        *current = factory(slot);
                        slots[slot].replacements.fetch_add(1, Ordering::SeqCst);
                    }
                }
                died_on.push(slot);
                if died_on.len() > max_retries || cancel.is_cancelled() {
                    let _ = tx.send(Err(error)).await;
                    return;
                }
            }
        });
        analysis
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::gtp::GtpEngine;
    use crate::go::{BoardSize, Game, Komi, Rules};
    use std::time::Duration;

    fn gnugo_factory(made: Arc<Mutex<Vec<Arc<GtpEngine>>>>) -> EngineFactory {
        Arc::new(move |_| {
            let command = [
                "/usr/games/gnugo",
                "--mode",
                "gtp",
                "--level",
                "10",
                "--seed",
                "1",
            ];
            let engine = Arc::new(GtpEngine::new(
                command.iter().map(|s| s.to_string()).collect(),
            ));
            made.lock().unwrap().push(Arc::clone(&engine));
            engine as Arc<dyn Engine>
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_query_survives_the_death_of_its_engine() {
        let made = Arc::new(Mutex::new(Vec::new()));
        let pool = EnginePool::new(2, 2, gnugo_factory(Arc::clone(&made)));
        // A 19x19 middle game gives GNU Go level 10 a few seconds of thought: time to kill it.
        let size = BoardSize::square(19).unwrap();
        let rules = Rules::japanese().with_komi(Komi::from_f64(6.5).unwrap());
        let game = Game::from_gtp_moves(size, rules, "Q16 D4 Q4 D16 C14 R10 F17 O17 K10").unwrap();
        let analysis = pool.analyze(Query::from_game(&game));
        let victim = loop {
            let engines: Vec<Arc<GtpEngine>> = made.lock().unwrap().clone();
            if let Some(p) = engines.iter().find_map(|e| e.pid()) {
                break p;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        let killed = std::process::Command::new("kill")
            .args(["-9", &victim.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let report = analysis.final_report().await.unwrap();
        assert!(game.is_legal(report.moves[0].mv));
        assert_eq!(pool.replacements(), 1);
        // The pool is still whole: two members, one of them fresh.
        assert_eq!(made.lock().unwrap().len(), 3);
    }

    #[tokio::test]
    async fn errors_that_are_not_deaths_are_not_retried() {
        let made = Arc::new(Mutex::new(Vec::new()));
        let pool = EnginePool::new(2, 2, gnugo_factory(Arc::clone(&made)));
        let size = BoardSize::square(7).unwrap();
        let game = Game::from_gtp_moves(size, Rules::chinese(), "D4").unwrap();
        let mut bad = Query::from_game(&game);
        bad.moves.push(bad.moves[0]);
        assert!(matches!(
            pool.analyze(bad).final_report().await,
            Err(EngineError::Refused { .. })
        ));
        assert_eq!(pool.replacements(), 0);
    }
}
