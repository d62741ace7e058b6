//! Growing the book: one expansion step against any [`Engine`], and the loop that expands the K cheapest
//! nodes per iteration concurrently (`facts/katago-book.md` §6–7).
//!
//! A step rebuilds the node's history from the root and checks its hash, searches with every book move
//! banned, adds the best move and every move above the leaf-visit threshold (merging into an existing
//! node on a transposition), searches each new child briefly for its own values, and re-searches the node
//! briefly with the new moves banned too, which refreshes the values of "all the other moves". Searches
//! run without holding the book; their results are applied one by one, each made durable in the store
//! before it is reported, followed by an incremental backup of values and costs.

use super::cost::{batch_size, cheapest};
use super::dag::{
    Book, DagError, Edge, Node, NodeId, ParentLink, SearchValues, conjugate_self_symmetries,
};
use super::provenance::EngineRef;
use super::store::{BookStore, StoreError};
use crate::engine::{CancelToken, Engine, EngineError, Query, Report};
use crate::go::{Color, Game, Move, Symmetry};
use pruned::report_values;

pub mod pruned;

/// Search effort per expansion.
#[derive(Debug, Clone, Copy)]
pub struct ExpandSettings {
    /// Visits of the full search (KataGo's `maxVisits`).
    pub max_visits: u64,
    /// Visits of the quick re-searches, and the threshold above which a searched move is added too
    /// (KataGo's `maxVisitsForLeaves`).
    pub quick_visits: u64,
    pub seed: u64,
}

impl ExpandSettings {
    pub fn new(max_visits: u64) -> ExpandSettings {
        ExpandSettings {
            max_visits,
            quick_visits: max_visits.div_ceil(2),
            seed: 1,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    #[error(transparent)]
    Dag(#[from] DagError),
    #[error("the engine failed while expanding node {hash}: {source}")]
    Engine {
        hash: crate::go::BookHash,
        source: EngineError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A node prepared for searching: its game in its own orientation and the moves already in the book.
#[derive(Clone)]
pub struct Plan {
    pub node: NodeId,
    pub game: Game,
    pub avoid: Vec<Move>,
}

/// What the searches of one expansion found, ready to be applied to the book.
pub struct Outcome {
    pub plan: Plan,
    /// New moves (node space) with their prior and the values of the position after them.
    pub added: Vec<AddedMove>,
    /// The node's "other moves" values from the quick re-search (or the exact end of the game).
    pub not_in_book: SearchValues,
    pub can_expand: bool,
    /// The engine that searched.
    pub by: crate::engine::EngineId,
}

/// A move chosen by an expansion's search.
pub struct AddedMove {
    pub mv: Move,
    pub prior: f32,
    /// Values of the position after the move (its own quick search, or the exact result).
    pub values: SearchValues,
    /// The move ends the game: the child is exact and never expands.
    pub ends_game: bool,
}

/// What one applied expansion did, for progress lines.
#[derive(Debug, Clone)]
pub struct Expanded {
    pub node: NodeId,
    pub hash: crate::go::BookHash,
    /// The moves added (GTP, node orientation) and the hashes of the nodes they lead to.
    pub moves: Vec<String>,
    pub children: Vec<crate::go::BookHash>,
    /// Nodes in the book after this expansion.
    pub book_nodes: usize,
    pub new_nodes: usize,
    pub transpositions: usize,
    pub costs_recomputed: usize,
    /// Every node whose values or costs the expansion changed, the new ones included, in id order.
    pub changed: Vec<NodeId>,
}

/// Prepares a node for expansion (needs the book only briefly).
pub fn plan(book: &Book, id: NodeId) -> Result<Plan, DagError> {
    let game = book.game_at(id)?;
    let avoid = game
        .legal_moves()
        .into_iter()
        .filter(|&m| book.edge_by_move(id, m).is_some())
        .collect();
    Ok(Plan {
        node: id,
        game,
        avoid,
    })
}

/// White-view values of a finished game: exact result, no error.
fn terminal_values(game: &Game, visits: f64) -> SearchValues {
    let black_lead = crate::go::score::final_score(game);
    let score = -black_lead;
    SearchValues {
        win_loss: if score > 0.0 {
            1.0
        } else if score < 0.0 {
            -1.0
        } else {
            0.0
        },
        score_mean: score,
        sharp_score: score,
        win_loss_error: 0.0,
        score_error: 0.0,
        score_stdev: 0.0,
        max_policy: 1.0,
        weight: visits,
        visits,
    }
}

/// The values of "no legal new move": the worst result for the player to move.
fn exhausted_values(to_move: Color) -> SearchValues {
    let worst = if to_move == Color::White { -1e20 } else { 1e20 };
    SearchValues {
        win_loss: worst,
        score_mean: worst,
        sharp_score: worst,
        ..SearchValues::default()
    }
}

/// The error for an engine that names moves but gives no values: a book cannot be grown with it.
fn no_values(engine: &dyn Engine) -> EngineError {
    EngineError::Refused {
        engine: engine.name(),
        message:
            "it names moves but reports no values (no analysis command and no score estimate), \
                  and a book needs values"
                .into(),
    }
}

async fn search(
    engine: &dyn Engine,
    game: &Game,
    avoid: &[Move],
    visits: u64,
    seed: u64,
    cancel: &CancelToken,
) -> Result<Report, EngineError> {
    search_sharing(engine, game, avoid, visits, seed, None, cancel).await
}

/// A search that may share its tree with another of the same position under the same key (the engine
/// decides: see `Query::share_tree`).
async fn search_sharing(
    engine: &dyn Engine,
    game: &Game,
    avoid: &[Move],
    visits: u64,
    seed: u64,
    share_tree: Option<u64>,
    cancel: &CancelToken,
) -> Result<Report, EngineError> {
    let mut query = Query::from_game(game).with_visits(visits).avoiding(avoid);
    query.include_policy = true;
    query.seed = seed;
    query.share_tree = share_tree;
    let analysis = engine.analyze(query);
    let token = analysis.cancel_token();
    tokio::select! {
        r = analysis.final_report() => r,
        _ = cancel.cancelled() => {
            // Stop the engine's work too, not just our wait for it.
            token.cancel();
            Err(EngineError::Cancelled)
        }
    }
}

/// Runs the searches of one expansion (no book access).
pub async fn run_searches(
    engine: &dyn Engine,
    plan: Plan,
    settings: ExpandSettings,
    cancel: &CancelToken,
) -> Result<Outcome, EngineError> {
    let game = &plan.game;
    if game.is_over() {
        return Ok(Outcome {
            not_in_book: terminal_values(game, settings.quick_visits as f64),
            plan,
            added: Vec::new(),
            can_expand: false,
            by: engine.id(),
        });
    }
    let legal: Vec<Move> = game
        .legal_moves()
        .into_iter()
        .filter(|m| !plan.avoid.contains(m))
        .collect();
    if legal.is_empty() {
        return Ok(Outcome {
            not_in_book: exhausted_values(game.to_move()),
            plan,
            added: Vec::new(),
            can_expand: false,
            by: engine.id(),
        });
    }
    let seed = settings.seed ^ (plan.node.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    // The full search's tree is shared: the quick re-search bans the moves just added besides and starts
    // from the full search's visits to the others; each added move's own search starts from its subtree.
    // One key per expansion.
    let share = Some(seed ^ (plan.avoid.len() as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
    // The prior with nothing avoided, from the cheapest possible query, alongside the full search.
    let (full, raw) = futures::join!(
        search_sharing(
            engine,
            game,
            &plan.avoid,
            settings.max_visits,
            seed,
            share,
            cancel
        ),
        search(engine, game, &[], 1, seed ^ 7, cancel)
    );
    let full = full?;
    let raw_policy = raw?.policy;
    let size = game.size();
    let prior_of = |mv: Move, fallback: f64| -> f32 {
        let i = match mv {
            Move::Play(p) => size.row_major(p),
            Move::Pass => size.area(),
        };
        raw_policy
            .as_ref()
            .and_then(|p| p.get(i).copied())
            .filter(|p| p.is_finite())
            .unwrap_or(fallback as f32)
    };
    let mut chosen = Vec::new();
    for (rank, m) in full
        .moves
        .iter()
        .filter(|m| legal.contains(&m.mv))
        .enumerate()
    {
        if rank == 0 || m.visits >= settings.quick_visits {
            chosen.push((m.mv, prior_of(m.mv, m.prior)));
        }
    }
    if chosen.is_empty() {
        // The engine found nothing to say about the remaining moves: take the first legal one.
        chosen.push((legal[0], prior_of(legal[0], 1.0 / legal.len() as f64)));
    }
    let mut avoid_after = plan.avoid.clone();
    avoid_after.extend(chosen.iter().map(|c| c.0));
    let left: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| !avoid_after.contains(m))
        .collect();
    let quick_self = async {
        if left.is_empty() {
            Ok(exhausted_values(game.to_move()))
        } else {
            let r = search_sharing(
                engine,
                game,
                &avoid_after,
                settings.quick_visits,
                seed ^ 1,
                share,
                cancel,
            )
            .await?;
            report_values(&r, game, &avoid_after, raw_policy.as_deref())
                .ok_or_else(|| no_values(engine))
        }
    };
    let children = futures::future::join_all(chosen.iter().enumerate().map(|(i, &(mv, _))| {
        let mut child = game.clone();
        async move {
            if child.play(mv).is_err() {
                return Err(EngineError::BadQuery(format!(
                    "the engine proposed the illegal move {}",
                    mv.to_gtp(child.size())
                )));
            }
            if child.is_over() {
                return Ok((terminal_values(&child, settings.quick_visits as f64), true));
            }
            // Starts from the full search's subtree below the move where the engine kept it.
            let r = search_sharing(
                engine,
                &child,
                &[],
                settings.quick_visits,
                seed ^ (i as u64 + 2),
                share,
                cancel,
            )
            .await?;
            let values = report_values(&r, &child, &[], r.policy.as_deref())
                .ok_or_else(|| no_values(engine))?;
            Ok((values, false))
        }
    }));
    let (own, children) = futures::join!(quick_self, children);
    let own = own?;
    let mut added = Vec::new();
    for ((mv, prior), result) in chosen.into_iter().zip(children) {
        let (values, ends_game) = result?;
        added.push(AddedMove {
            mv,
            prior,
            values,
            ends_game,
        });
    }
    Ok(Outcome {
        plan,
        added,
        not_in_book: own,
        can_expand: !left.is_empty(),
        by: engine.id(),
    })
}

/// A sort key that keeps edges in KataGo's order (pass first, then row by row), so ties break the same way.
fn edge_order(mv: Move) -> (u8, usize, usize) {
    match mv {
        Move::Pass => (0, 0, 0),
        Move::Play(p) => (1, p.y(), p.x()),
    }
}

/// Adds `mv` (node space of `parent`, whose game is `game`) to the book, merging into an existing node on
/// a transposition; `by` is the engine (or the records) that chose it. Returns the child and whether it
/// is new.
pub fn add_move(
    book: &mut Book,
    parent: NodeId,
    game: &Game,
    mv: Move,
    prior: f32,
    by: EngineRef,
) -> Result<(NodeId, bool), DagError> {
    let size = book.meta.size;
    let (stored_mv, s) = book.representative(parent, mv);
    if let Some(e) = book.node(parent).edge_for(stored_mv) {
        return Ok((e.child, false));
    }
    let mut next = game.clone();
    next.play(mv).map_err(|_| DagError::NotInBook {
        mv: mv.to_gtp(size),
    })?;
    let canonical = crate::go::hash::canonical(&next, book.meta.rep_bound);
    // Parent space after the stored move → after `mv` (undo s) → canonical → the child's node space.
    let (child, is_new) = match book.find(&canonical.hash) {
        Some(existing) => (existing, false),
        None => {
            let syms = conjugate_self_symmetries(&canonical.self_symmetries, Symmetry::IDENTITY);
            let mut node = Node::new(canonical.hash, next.to_move(), syms, Symmetry::IDENTITY);
            node.created_by = by;
            (book.push_node(node), true)
        }
    };
    let to_child = s
        .inverse()
        .then(canonical.to_canonical)
        .then(book.node(child).to_canonical.inverse());
    let edge = Edge::new(stored_mv, to_child, child, prior, by);
    let node = book.node_mut(parent);
    let at = node
        .edges
        .partition_point(|e| edge_order(e.mv) < edge_order(stored_mv));
    node.insert_edge(at, edge);
    book.node_mut(child).push_parent(ParentLink {
        parent,
        mv: stored_mv,
    });
    Ok((child, is_new))
}

/// Applies searched results to the book; returns the nodes whose stored data changed.
pub fn apply(book: &mut Book, outcome: Outcome) -> Result<(Vec<NodeId>, Expanded), DagError> {
    let id = outcome.plan.node;
    let by = book.register_engine(&outcome.by)?;
    let mut changed = vec![id];
    let mut names = Vec::new();
    let mut children = Vec::new();
    let mut new_nodes = 0;
    let mut transpositions = 0;
    for AddedMove {
        mv,
        prior,
        values,
        ends_game,
    } in outcome.added
    {
        let (child, is_new) = add_move(book, id, &outcome.plan.game, mv, prior, by)?;
        names.push(mv.to_gtp(book.meta.size));
        children.push(book.node(child).hash);
        let node = book.node_mut(child);
        if is_new {
            node.not_in_book = values;
            node.values_by = by;
            node.can_expand = !ends_game;
            new_nodes += 1;
        } else {
            transpositions += 1;
            // A transposed leaf takes the new values when they rest on more visits.
            if node.edges.is_empty() && values.visits > node.not_in_book.visits {
                book.set_values(child, values, by);
            }
        }
        changed.push(child);
    }
    book.set_values(id, outcome.not_in_book, by);
    let node = book.node_mut(id);
    node.can_expand = outcome.can_expand;
    node.can_re_expand = false;
    let report = Expanded {
        node: id,
        hash: book.node(id).hash,
        moves: names,
        children,
        book_nodes: book.len(),
        new_nodes,
        transpositions,
        costs_recomputed: 0,
        changed: Vec::new(),
    };
    Ok((changed, report))
}

/// One applied expansion, made durable (when a store is given) and backed up.
pub fn commit(
    book: &mut Book,
    store: Option<&mut BookStore>,
    outcome: Outcome,
) -> Result<Expanded, ExpandError> {
    let (changed, mut report) = apply(book, outcome)?;
    if let Some(store) = store {
        store.append_nodes(book, &changed)?;
    }
    let recomputed = super::recompute_after_change(book, &changed);
    report.costs_recomputed = recomputed.costs.len();
    report.changed = recomputed.nodes();
    Ok(report)
}

/// Gives nodes added without a search (lines traced from SGF) their own values with a quick search each,
/// and priors for the moves that lead to them; makes them durable and backs the book up.
pub async fn evaluate(
    book: &mut Book,
    store: Option<&mut BookStore>,
    engine: &dyn Engine,
    nodes: &[NodeId],
    touched: &[NodeId],
    visits: u64,
    cancel: &CancelToken,
) -> Result<usize, ExpandError> {
    let by = book.register_engine(&engine.id())?;
    let mut games = Vec::new();
    for &id in nodes {
        games.push((id, book.game_at(id)?));
    }
    let searches = games.iter().map(|(id, game)| async move {
        if game.is_over() {
            return Ok((*id, terminal_values(game, visits as f64), false));
        }
        let r = search(engine, game, &[], visits, id.0 as u64, cancel).await?;
        let values =
            report_values(&r, game, &[], r.policy.as_deref()).ok_or_else(|| no_values(engine))?;
        Ok::<_, EngineError>((*id, values, true))
    });
    let results = futures::future::join_all(searches).await;
    let mut changed = Vec::new();
    for r in results {
        let (id, values, can_expand) = match r {
            Ok(v) => v,
            Err(EngineError::Cancelled) => continue,
            Err(source) => {
                return Err(ExpandError::Engine {
                    hash: book.node(NodeId(0)).hash,
                    source,
                });
            }
        };
        book.set_values(id, values, by);
        book.node_mut(id).can_expand = can_expand;
        changed.push(id);
        changed.extend(book.node(id).parents.iter().map(|p| p.parent));
    }
    // Traced moves have no prior from a search of their parent: give each the parent's remaining policy
    // share, as the uniform fallback KataGo would see for an unsearched move.
    for &id in &changed {
        let n = book.node(id).edges.len() as f32;
        let node = book.node_mut(id);
        for e in node.edges.iter_mut().filter(|e| e.prior == 0.0) {
            e.prior = 1.0 / (n + 1.0);
        }
    }
    changed.extend_from_slice(touched);
    changed.sort();
    changed.dedup();
    if let Some(store) = store {
        store.append_nodes(book, &changed)?;
    }
    super::recompute_after_change(book, &changed);
    Ok(changed.len())
}

mod grow;
pub use grow::{Progress, grow};

#[cfg(test)]
mod tests;
