//! One expansion step against any [`Engine`], as KataGo's `genbook` does it: search the node with the
//! book's moves banned, add the best new move as an edge (to an existing node when it transposes), search
//! the new child for its own "not in book" values, then search the node again with the new move banned
//! too, so that its "other moves" row stays honest. Values and costs are recomputed for what changed.
//!
//! The searches run on the engine's threads; the book is locked only between them.

use crate::book::dag::{ParentLink, SymmetrySet};
use crate::book::{self, Book, Edge, Node, NodeId, SearchValues};
use crate::engine::{Analysis, CancelToken, EngineError, MoveInfo, Query, Report};
use crate::go::{Game, Move, Symmetry};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    #[error("the book cannot rebuild node {node}: {detail}")]
    Book { node: u32, detail: String },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Every book move of `id` in node space, with all its images under the node's self-symmetries: what a
/// search for a new move must avoid.
pub fn book_moves(book: &Book, id: NodeId) -> Vec<Move> {
    let node = book.node(id);
    let size = book.meta.size;
    let mut moves: Vec<Move> = node
        .edges
        .iter()
        .flat_map(|e| {
            node.self_symmetries
                .iter()
                .map(move |s| s.apply_move(size, e.mv))
        })
        .collect();
    moves.sort();
    moves.dedup();
    moves
}

/// The query that searches `id` (in its own orientation) with the book's moves banned.
pub fn query_for(
    book: &Book,
    id: NodeId,
    visits: u64,
    seed: u64,
) -> Result<(Game, Query), ExpandError> {
    let game = book.game_at(id).map_err(|e| ExpandError::Book {
        node: id.0,
        detail: e.to_string(),
    })?;
    let mut query = Query::from_game(&game)
        .with_visits(visits)
        .avoiding(&book_moves(book, id));
    query.report_every = Some(Duration::from_millis(100));
    query.seed = seed;
    Ok((game, query))
}

/// Runs an analysis to the end, passing root visits to `progress`; stops early when `cancel` fires.
pub async fn search(
    mut analysis: Analysis,
    cancel: &CancelToken,
    mut progress: impl FnMut(u64),
) -> Result<Report, EngineError> {
    let mut last = None;
    loop {
        tokio::select! {
            item = analysis.next() => match item {
                Some(Ok(report)) => {
                    progress(report.root.visits);
                    if report.is_final {
                        return Ok(report);
                    }
                    last = Some(report);
                }
                Some(Err(e)) => return Err(e),
                None => return last.ok_or(EngineError::Died {
                    engine: "engine".into(),
                    detail: "finished without a report".into(),
                }),
            },
            _ = cancel.cancelled() => {
                analysis.cancel();
                return Err(EngineError::Cancelled);
            }
        }
    }
}

/// "Not in book" values (White's view, as the book stores them) from a search that avoided the book moves.
pub fn not_in_book_values(report: &Report, avoided: &[Move]) -> SearchValues {
    let best = report.moves.iter().find(|m| !avoided.contains(&m.mv));
    let (winrate, score) = match best {
        Some(m) => (m.winrate, m.score_lead),
        None => (report.root.winrate, report.root.score_lead),
    };
    let max_policy = report
        .moves
        .iter()
        .filter(|m| !avoided.contains(&m.mv))
        .map(|m| m.prior)
        .fold(0.0, f64::max);
    SearchValues {
        win_loss: 1.0 - 2.0 * winrate,
        score_mean: -score,
        sharp_score: -score,
        // This engine has no error estimates; negative means "unknown" to the book.
        win_loss_error: -1.0,
        score_error: -1.0,
        score_stdev: report.root.score_stdev,
        max_policy,
        weight: report.root.visits as f64,
        visits: report.root.visits as f64,
    }
}

/// The best move of a search that is not a book move and is legal.
pub fn best_new_move<'a>(
    report: &'a Report,
    game: &Game,
    avoided: &[Move],
) -> Option<&'a MoveInfo> {
    report
        .moves
        .iter()
        .find(|m| !avoided.contains(&m.mv) && game.is_legal(m.mv))
}

/// Adds `mv` (node space) at `id` as a new edge; returns the child and whether it was a new node.
pub fn add_edge(
    book: &mut Book,
    id: NodeId,
    game: &Game,
    info: &MoveInfo,
) -> Result<(NodeId, bool), ExpandError> {
    let mut after = game.clone();
    after.play(info.mv).map_err(|e| ExpandError::Book {
        node: id.0,
        detail: format!("{}: {e}", info.mv.to_gtp(game.size())),
    })?;
    let canonical = crate::go::hash::canonical(&after, book.meta.rep_bound);
    let (child, to_child, created) = match book.find(&canonical.hash) {
        Some(existing) => {
            // Parent space → canonical → the existing node's own space.
            let to_child = canonical
                .to_canonical
                .then(book.node(existing).to_canonical.inverse());
            (existing, to_child, false)
        }
        None => {
            // Nodes tengen creates live in the canonical orientation.
            let node = Node::new(
                canonical.hash,
                after.to_move(),
                SymmetrySet::from_slice(&canonical.self_symmetries),
                Symmetry::IDENTITY,
            );
            (book.push_node(node), canonical.to_canonical, true)
        }
    };
    let (mv, _) = book.representative(id, info.mv);
    let to_child = if mv == info.mv {
        to_child
    } else {
        representative_to_child(book, id, info.mv, mv, to_child)
    };
    book.node_mut(id).edges.push(Edge {
        mv,
        to_child,
        child,
        prior: info.prior as f32,
        cost_from_root: 0.0,
        biggest_wl_cost: 0.0,
        is_wl_pv: false,
    });
    book.node_mut(child)
        .parents
        .push(ParentLink { parent: id, mv });
    if created {
        // Until the child is searched itself, the move's own values stand for it.
        book.node_mut(child).not_in_book = SearchValues {
            win_loss: 1.0 - 2.0 * info.winrate,
            score_mean: -info.score_lead,
            sharp_score: -info.score_lead,
            win_loss_error: -1.0,
            score_error: -1.0,
            score_stdev: 0.0,
            max_policy: 1.0,
            weight: info.visits as f64,
            visits: info.visits as f64,
        };
    }
    Ok((child, created))
}

/// The edge is stored under the representative move `rep` = s(mv) for a self-symmetry s of the node; the
/// position after `rep` is s applied to the position after `mv`, so its map into the child first undoes s.
fn representative_to_child(
    book: &Book,
    id: NodeId,
    mv: Move,
    rep: Move,
    to_child: Symmetry,
) -> Symmetry {
    let size = book.meta.size;
    let s = book
        .node(id)
        .self_symmetries
        .iter()
        .find(|s| s.apply_move(size, mv) == rep)
        .unwrap_or(Symmetry::IDENTITY);
    s.inverse().then(to_child)
}

/// Recomputes values and costs after a change; returns how many nodes were touched.
pub fn recompute(book: &mut Book, changed: &[NodeId]) -> usize {
    book::recompute_after_change(book, changed)
}
