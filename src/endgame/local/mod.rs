//! What local play can still change in a region, without searching it: which chains and points are
//! settled for good (`settle`, a local Benson test), which chains reading kills or saves (`reading`), and
//! the count a player gives a finished position (`judged`).

mod area;
pub mod judged;
pub mod reading;
pub mod recent;
pub mod settle;
mod spheres;
#[cfg(test)]
mod tests;

pub use judged::{
    FINISHED_MAX_EMPTY, finished_count, finished_count_up_to, judged_count, judged_diagram,
    judged_territory_with_sente_dame, sente_dame_privilege,
};
pub use reading::{Status, chain_status};
pub use settle::Settlement;
