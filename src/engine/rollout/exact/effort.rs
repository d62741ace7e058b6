//! Where a solve's nodes go (the `solver_effort` diagnostic): counted in test builds only.

use super::{Geometry, PASS_CODE, Position};
use crate::go::Color;

/// Where a solve's nodes go, counted in test builds only (the hot path stays as it is).
#[derive(Debug, Default, Clone)]
pub struct Effort {
    /// Nodes by depth below the solved position.
    pub by_depth: Vec<u64>,
    /// Moves searched by kind: passes, captures, self-ataris (a non-capturing move leaving its chain one
    /// liberty), the rest.
    pub passes: u64,
    pub captures: u64,
    pub self_ataris: u64,
    pub other: u64,
    /// Lines that reached the cut.
    pub cut_leaves: u64,
    /// Games finished by two passes.
    pub finished: u64,
    /// Nodes settled by the static bounds or the table without searching their moves.
    pub bounded: u64,
    pub from_table: u64,
    /// Nodes per search of `settle`: (cut, the cut value Black gets, nodes).
    pub searches: Vec<(usize, i32, u64)>,
    /// The solved position's depth on the line.
    pub(super) root_depth: usize,
}

impl Effort {
    pub(super) fn count_node(&mut self, depth: usize) {
        if self.by_depth.len() <= depth {
            self.by_depth.resize(depth + 1, 0);
        }
        self.by_depth[depth] += 1;
    }

    pub(super) fn count_move(
        &mut self,
        geo: &Geometry,
        next: &Position,
        color: Color,
        code: u8,
        captured: bool,
    ) {
        if code == PASS_CODE {
            self.passes += 1;
        } else if captured {
            self.captures += 1;
        } else {
            let own = next.stones[color.index()];
            let chain = geo.flood(own, 1 << code);
            let liberties = geo.neighbours(chain) & geo.all & !next.occupied();
            if liberties.count_ones() == 1 {
                self.self_ataris += 1;
            } else {
                self.other += 1;
            }
        }
    }
}
