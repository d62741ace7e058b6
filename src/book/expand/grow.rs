//! Growing a book: KataGo's loop of iterations, each expanding the K cheapest nodes at once and saving
//! every finished expansion before it is reported.

use super::*;

/// Progress of a growing run.
#[derive(Debug, Clone)]
pub enum Progress {
    Iteration { iteration: u64, batch: usize },
    Expanded(Expanded),
    Failed { node: NodeId, error: String },
}

/// Grows the book for `iterations` iterations of KataGo's growing batch (at most `parallel` nodes at
/// once). Stops cleanly when `cancel` fires: searches in flight are dropped, everything reported stays.
#[allow(clippy::too_many_arguments)]
pub async fn grow(
    book: &mut Book,
    mut store: Option<&mut BookStore>,
    engine: &dyn Engine,
    settings: ExpandSettings,
    iterations: u64,
    parallel: usize,
    cancel: &CancelToken,
    mut progress: impl FnMut(&Progress),
) -> Result<usize, ExpandError> {
    let mut expanded = 0;
    for iteration in 0..iterations {
        if cancel.is_cancelled() {
            break;
        }
        let batch = batch_size(iteration, parallel.max(1));
        let ids = cheapest(book, batch);
        if ids.is_empty() {
            break;
        }
        progress(&Progress::Iteration {
            iteration,
            batch: ids.len(),
        });
        let mut plans = Vec::new();
        for id in ids {
            match plan(book, id) {
                Ok(p) => plans.push(p),
                Err(e) => {
                    // A node whose history cannot be rebuilt must not be picked again and again.
                    book.node_mut(id).can_expand = false;
                    progress(&Progress::Failed {
                        node: id,
                        error: e.to_string(),
                    });
                }
            }
        }
        let nodes: Vec<NodeId> = plans.iter().map(|p| p.node).collect();
        let results = futures::future::join_all(
            plans
                .into_iter()
                .map(|p| run_searches(engine, p, settings, cancel)),
        )
        .await;
        for (id, r) in nodes.into_iter().zip(results) {
            match r {
                Ok(outcome) => {
                    let report = commit(book, store.as_deref_mut(), outcome)?;
                    expanded += 1;
                    progress(&Progress::Expanded(report));
                }
                Err(EngineError::Cancelled) => {}
                Err(e) => {
                    return Err(ExpandError::Engine {
                        hash: book.node(id).hash,
                        source: e,
                    });
                }
            }
        }
    }
    Ok(expanded)
}
