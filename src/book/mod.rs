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
pub mod store;
pub mod synthetic;
pub mod values;
pub mod view;

pub use cost::{CostParams, NodeCost};
pub use dag::{Book, BookMeta, Edge, Node, NodeId, NodeView, SearchValues};
pub use marks::{Mark, Marks};
pub use values::RecursiveValues;
pub use view::{MoveRow, NodeTable, node_table};

/// Recomputes all values then all costs, as after loading a book.
pub fn recompute_everything(book: &mut Book) {
    values::recompute_all(book);
    cost::recompute_all_costs(book);
}

/// Recomputes values for the changed nodes and their ancestors, then costs for the region that moved.
/// Returns how many nodes had their costs recomputed.
pub fn recompute_after_change(book: &mut Book, changed: &[NodeId]) -> usize {
    let dirty = values::recompute_from(book, changed);
    cost::recompute_costs_from(book, &dirty)
}
