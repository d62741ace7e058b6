//! The book the jobs share: its lock, its file, the views last sent to the app, and the changes made
//! to it outside a search (marks, an SGF export).

use crate::book::marks::Mark;
use crate::book::store::BookStore;
use crate::book::view::{NodeView, node_view};
use crate::book::{self, Book, NodeId};
use crate::go::Move;
use crate::jobs::JobEvent;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// Books up to this many nodes keep the views last sent, so that a change sends only the views that
/// differ; larger ones send every view a change may have touched.
const DIFF_LIMIT: usize = 20_000;

/// The book the jobs grow, its file (when it has one) and the views the app was last sent.
pub struct SharedBook {
    book: Mutex<Book>,
    pub(super) store: Mutex<Option<BookStore>>,
    sent: Mutex<Vec<Option<NodeView>>>,
}

impl SharedBook {
    pub fn new(book: Book, store: Option<BookStore>) -> Arc<SharedBook> {
        let sent = if book.len() <= DIFF_LIMIT {
            (0..book.len())
                .map(|i| Some(node_view(&book, NodeId(i as u32))))
                .collect()
        } else {
            Vec::new()
        };
        Arc::new(SharedBook {
            book: Mutex::new(book),
            store: Mutex::new(store),
            sent: Mutex::new(sent),
        })
    }

    pub fn lock(&self) -> MutexGuard<'_, Book> {
        // A panic in another job must not take the book with it: the data is still consistent between steps.
        self.book
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The views of `changed` (the nodes a change recomputed, as [`book::Recomputed::nodes`] lists them)
    /// and of their parents, whose move tables show them; on books up to [`DIFF_LIMIT`] nodes only those
    /// that differ from the view last sent.
    pub(super) fn changed_views(&self, book: &Book, changed: &[NodeId]) -> Vec<NodeView> {
        let mut wanted: Vec<NodeId> = changed.to_vec();
        for &id in changed {
            wanted.extend(book.node(id).parents.iter().map(|p| p.parent));
        }
        wanted.sort();
        wanted.dedup();
        let views = wanted.into_iter().map(|id| node_view(book, id));
        if book.len() > DIFF_LIMIT {
            return views.collect();
        }
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        views
            .filter(|view| {
                let i = view.id.index();
                if sent.len() <= i {
                    sent.resize_with(i + 1, || None);
                }
                let fresh = sent[i].as_ref() != Some(view);
                if fresh {
                    sent[i] = Some(view.clone());
                }
                fresh
            })
            .collect()
    }
}

/// The K cheapest expandable nodes not already in flight, with the line (root orientation) to each.
pub(super) fn pick_nodes(
    shared: &SharedBook,
    want: usize,
    exclude: &HashSet<NodeId>,
) -> Vec<(NodeId, Vec<Move>)> {
    let book = shared.lock();
    book::cost::cheapest(&book, want + exclude.len())
        .into_iter()
        .filter(|id| !exclude.contains(id))
        .take(want)
        .filter_map(|id| Some((id, book.line_to(id).ok()?.0)))
        .collect()
}

pub(super) fn set_marks(
    shared: &SharedBook,
    line: &[Move],
    marks: &[Mark],
) -> Result<Vec<JobEvent>, String> {
    let mut book = shared.lock();
    let id = book.follow_line(line).map_err(|e| e.to_string())?.id;
    book.marks.remove(&id);
    for &m in marks {
        let m = m.check().map_err(|e| e.to_string())?;
        book::marks::set_mark(&mut book, id, m);
    }
    let stored = book.marks.get(&id).copied().unwrap_or_default();
    if let Some(store) = shared
        .store
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_mut()
    {
        store
            .append_marks(&book, &[id])
            .map_err(|e| e.to_string())?;
    }
    let recomputed = book::recompute_after_change(&mut book, &[id]);
    let mut events = vec![JobEvent::MarksChanged {
        node: id,
        marks: stored.list(),
    }];
    let views = shared.changed_views(&book, &recomputed.nodes());
    if !views.is_empty() {
        events.push(JobEvent::NodesChanged(views));
    }
    Ok(events)
}

/// Writes the SGF of `line` (and its subtree) whole or not at all; says what it wrote.
pub(super) fn export(
    shared: &SharedBook,
    file: &std::path::Path,
    line: &[Move],
    subtree: bool,
) -> Result<String, String> {
    let text = {
        let book = shared.lock();
        let view = book.follow_line(line).map_err(|e| e.to_string())?;
        if subtree {
            book::interop::sgf::export(&book, view)
        } else {
            book::interop::sgf::export_line(&book, view)
        }
        .map_err(|e| e.to_string())?
    };
    crate::files::write_whole(file, text.as_bytes()).map_err(|e| e.to_string())?;
    let what = if subtree { "the subtree" } else { "the line" };
    Ok(format!("wrote {what} to {}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::synthetic::expand_randomly;
    use crate::go::playout::FastRng;

    fn all_views(book: &Book) -> Vec<NodeView> {
        (0..book.len())
            .map(|i| node_view(book, NodeId(i as u32)))
            .collect()
    }

    /// The views sent after each change keep the app's copy of every view equal to the book's own, on
    /// KataGo's real book changed at random: new moves, new values and marks.
    #[test]
    fn the_views_sent_after_each_change_keep_the_app_s_copy_exact() {
        let book = crate::book::reference_book();
        let mut copy = all_views(&book);
        let shared = SharedBook::new(book, None);
        let mut rng = FastRng::new(9);
        for round in 0..45 {
            let mut book = shared.lock();
            let at = NodeId(rng.below(book.len()) as u32);
            let changed = match round % 3 {
                0 => expand_randomly(&mut book, at, 1 + rng.below(3), &mut rng),
                1 => {
                    book.node_mut(at).not_in_book.win_loss = rng.unit() * 2.0 - 1.0;
                    vec![at]
                }
                _ => {
                    let mark = Mark::Bonus(rng.unit() * 4.0 - 2.0).check().unwrap();
                    book::marks::set_mark(&mut book, at, mark);
                    vec![at]
                }
            };
            let recomputed = book::recompute_after_change(&mut book, &changed);
            let views = shared.changed_views(&book, &recomputed.nodes());
            for view in views {
                let i = view.id.index();
                // Only what differs is sent.
                assert!(
                    copy.get(i) != Some(&view),
                    "round {round}: node {i} sent unchanged"
                );
                if copy.len() <= i {
                    copy.resize(i + 1, view.clone());
                }
                copy[i] = view;
            }
            let truth = all_views(&book);
            assert_eq!(copy.len(), truth.len(), "round {round}");
            for (ours, true_view) in copy.iter().zip(&truth) {
                assert_eq!(ours, true_view, "round {round}, node {}", ours.id.0);
            }
        }
    }
}
