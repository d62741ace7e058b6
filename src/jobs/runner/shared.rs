//! The book the jobs share: its lock, its file, the views last sent to the app, and the changes made
//! to it outside a search (marks, an SGF export).

use crate::book::marks::Mark;
use crate::book::store::{BookStore, Record};
use crate::book::view::{NodeView, node_view};
use crate::book::{self, Book, NodeId};
use crate::go::Move;
use crate::jobs::JobEvent;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// Books up to this many nodes send every changed node view after a change; larger ones send the
/// changed nodes and their ancestors (costs elsewhere catch up with the next change that touches them).
const FULL_DIFF_LIMIT: usize = 20_000;

/// The book the jobs grow, its file (when it has one) and the views the app was last sent.
pub struct SharedBook {
    book: Mutex<Book>,
    pub(super) store: Mutex<Option<BookStore>>,
    sent: Mutex<Vec<NodeView>>,
}

impl SharedBook {
    pub fn new(book: Book, store: Option<BookStore>) -> Arc<SharedBook> {
        let sent = if book.len() <= FULL_DIFF_LIMIT {
            (0..book.len())
                .map(|i| node_view(&book, NodeId(i as u32)))
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

    pub(super) fn changed_views(&self, book: &Book, ids: &[NodeId]) -> Vec<NodeView> {
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        if book.len() <= FULL_DIFF_LIMIT {
            let mut out = Vec::new();
            for i in 0..book.len() {
                let view = node_view(book, NodeId(i as u32));
                if sent.get(i) != Some(&view) {
                    if i < sent.len() {
                        sent[i] = view.clone();
                    } else {
                        sent.push(view.clone());
                    }
                    out.push(view);
                }
            }
            return out;
        }
        let mut seen: HashSet<NodeId> = HashSet::new();
        let mut stack: Vec<NodeId> = ids.to_vec();
        while let Some(id) = stack.pop() {
            if seen.insert(id) {
                stack.extend(book.node(id).parents.iter().map(|p| p.parent));
            }
        }
        let mut ids: Vec<NodeId> = seen.into_iter().collect();
        ids.sort();
        ids.into_iter().map(|id| node_view(book, id)).collect()
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
            .append(&[Record::Marks(vec![(id.0, stored)])])
            .map_err(|e| e.to_string())?;
    }
    book::recompute_after_change(&mut book, &[id]);
    let mut events = vec![JobEvent::MarksChanged {
        node: id,
        marks: stored.list(),
    }];
    let views = shared.changed_views(&book, &[id]);
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
