//! The opening book: a DAG of positions grown by searching the cheapest nodes, KataGo-style
//! (`facts/katago-book.md`). Separate concerns, separate files: the graph (`dag`), value backup
//! (`values`), the cost model and selection (`cost`), manual marks (`marks`), one expansion step against
//! any [`crate::engine::Engine`] (`expand`), the screen query (`view`), the crash-safe file (`store`) and
//! KataGo/HTML/SGF interop (`interop`).

pub mod cost;
pub mod dag;
pub mod expand;
pub mod interop;
pub mod marks;
pub mod provenance;
pub mod store;
pub mod study;
pub mod synthetic;
pub mod trim;
pub mod values;
pub mod view;

pub use cost::{CostParams, NodeCost};
pub use dag::{Book, BookMeta, Edge, GameCounts, Node, NodeId, OrientedNode, SearchValues};
pub use marks::{Mark, Marks};
pub use provenance::{EngineRef, Provenance};
pub use values::RecursiveValues;
pub use view::{MoveRow, NodeTable, node_table};

/// Recomputes all values then all costs, as after loading a book.
pub fn recompute_everything(book: &mut Book) {
    values::recompute_all(book);
    cost::recompute_all_costs(book);
}

/// Recomputes values for the changed nodes and their ancestors, then costs for the region that moved.
pub fn recompute_after_change(book: &mut Book, changed: &[NodeId]) -> Recomputed {
    let values = values::recompute_from(book, changed);
    let costs = cost::recompute_costs_from(book, &values);
    Recomputed { values, costs }
}

/// What [`recompute_after_change`] touched: every other node kept its values and costs.
#[derive(Debug, Clone, Default)]
pub struct Recomputed {
    /// Nodes whose values were recomputed: the changed nodes and their ancestors.
    pub values: std::collections::HashSet<NodeId>,
    /// Nodes whose costs were recomputed, parents first.
    pub costs: Vec<NodeId>,
}

impl Recomputed {
    /// Every node recomputed, each once, in id order.
    pub fn nodes(&self) -> Vec<NodeId> {
        let mut all: Vec<NodeId> = self.values.iter().chain(&self.costs).copied().collect();
        all.sort();
        all.dedup();
        all
    }
}

/// KataGo's 146-node 7x7 reference book from `../shared`, for the book's unit tests.
#[cfg(test)]
pub(crate) fn reference_book() -> Book {
    const KATABOOK: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/katabook/7x7-tt-k9-146.katabook"
    );
    interop::katabook::import(std::path::Path::new(KATABOOK))
        .expect("the reference book")
        .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::playout::FastRng;

    /// The incremental update after a change gives the same values, costs and selection as recomputing
    /// the whole book, on KataGo's real book with random changes at random nodes.
    #[test]
    fn incremental_backup_equals_a_full_recompute() {
        let mut book = reference_book();
        let mut rng = FastRng::new(5);
        for round in 0..40 {
            let id = NodeId(rng.below(book.len()) as u32);
            let v = &mut book.node_mut(id).not_in_book;
            v.win_loss = (v.win_loss + rng.unit() - 0.5).clamp(-1.0, 1.0);
            v.score_mean += rng.unit() * 6.0 - 3.0;
            v.visits += 100.0;
            if round % 7 == 0 {
                book.marks.insert(
                    id,
                    Marks {
                        bonus: 1.0,
                        ..Marks::default()
                    },
                );
            }
            recompute_after_change(&mut book, &[id]);
            let mut full = book.clone();
            recompute_everything(&mut full);
            for ((i, a), (_, b)) in book.nodes().zip(full.nodes()) {
                assert_eq!(a.values, b.values, "round {round}, node {i:?}");
                assert!(
                    (a.cost.total() - b.cost.total()).abs() < 1e-6,
                    "round {round}, node {i:?}"
                );
                for (x, y) in a.edges.iter().zip(b.edges.iter()) {
                    assert!(
                        (x.cost_from_root - y.cost_from_root).abs() < 1e-6,
                        "round {round}, node {i:?}"
                    );
                }
            }
            assert_eq!(
                cost::cheapest(&book, 8),
                cost::cheapest(&full, 8),
                "round {round}"
            );
        }
    }
}
