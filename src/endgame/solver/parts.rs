//! Independent parts: a position whose live points fall into groups that only safe stones connect is the
//! sum of those groups' games, each solved by a nested search that shares the table (`SPLIT_INTO_PARTS`).

use super::{Node, Search, State};
use crate::endgame::cgt::Rational;
use crate::endgame::region::{Region, Sealed};
use crate::endgame::settle::Settlement;
use crate::go::board::{Cell, neighbours};
use crate::go::coord::GRID;
use crate::go::{Board, Color, Point, zobrist};
use std::sync::Arc;

impl Search<'_> {
    /// The independent parts of the position: live empty points connected through each other and through
    /// stones that can still be captured (such a chain ties its liberties together, and its capture frees
    /// space next to the chains it touches). Safe stones, sure territory and neutral dame separate them.
    /// Each part is the list of its region points (its empty points and its capturable stones).
    fn parts_of(&self, board: &Board, settlement: &Settlement) -> Vec<Vec<Point>> {
        let joins = |q: Point| match board.color_at(q) {
            None => self.is_live(board, settlement, q),
            Some(_) => {
                settlement.is_local(q) && !settlement.is_safe(q) && settlement.owner(q).is_none()
            }
        };
        let mut seen = vec![false; GRID];
        let mut parts = Vec::new();
        for &start in self.region.points() {
            if seen[start.index()] || board.color_at(start).is_some() || !joins(start) {
                continue;
            }
            let mut points = Vec::new();
            let mut stack = vec![start];
            seen[start.index()] = true;
            while let Some(p) = stack.pop() {
                if self.region.contains(p) {
                    points.push(p);
                }
                for n in neighbours(p) {
                    if !seen[n.index()] && board.cell(n) != Cell::Border && joins(n) {
                        seen[n.index()] = true;
                        stack.push(n);
                    }
                }
            }
            parts.push(points);
        }
        parts
    }

    /// The position as a sum of independent parts, each solved by its own search, when it splits.
    pub(super) fn split(
        &mut self,
        board: &Board,
        settlement: &Settlement,
        state: State,
    ) -> Option<Node> {
        let parts = self.parts_of(board, settlement);
        if parts.len() < 2 {
            return None;
        }
        self.splits += 1;
        let mut inside = vec![false; GRID];
        for &p in parts.iter().flatten() {
            inside[p.index()] = true;
        }
        let fixed: i64 = self
            .region
            .points()
            .iter()
            .filter(|p| !inside[p.index()])
            .map(|&p| settlement.point_count(board, p, self.area))
            .sum();
        let mut solved = Vec::with_capacity(parts.len());
        for points in parts {
            solved.push(self.solve_part(board, points, &state.sealed)?);
        }
        Some(Node::sum(solved, Rational::integer(fixed)))
    }

    /// Solves one independent part in a nested search on its own region (prisoners counted from zero),
    /// sharing the table: a part met again in another context is looked up, not searched.
    fn solve_part(
        &mut self,
        board: &Board,
        points: Vec<Point>,
        sealed: &Sealed,
    ) -> Option<Arc<Node>> {
        let region = Region::new(points);
        let mut part_sealed = Sealed::default();
        for &p in region.points() {
            for color in [Color::Black, Color::White] {
                if sealed.contains(self.region, color, p) {
                    part_sealed.capture(&region, color, &[p]);
                }
            }
        }
        let mut nested = Search::new(&region, self.area, self.max_positions);
        nested.whole = self.whole;
        nested.splits = self.splits;
        nested.scope = self.scope_of(&region);
        nested.context = self.context ^ self.hidden_stones(board, &region);
        nested.visited = self.visited;
        nested.table = std::mem::take(&mut self.table);
        let state = State {
            ban: None,
            sealed: part_sealed,
        };
        let node = nested.node(board, state, None, 0).node;
        self.visited = nested.visited;
        self.splits = nested.splits;
        self.table = std::mem::take(&mut nested.table);
        (self.visited <= self.max_positions).then_some(node)
    }

    /// The bits of `part`'s points among the whole region's (this search's scope maps its own points).
    fn scope_of(&self, part: &Region) -> u128 {
        let mine = self.region.points();
        let mut scope = 0u128;
        let mut bits = (0..128).filter(|&b| self.scope & (1u128 << b) != 0);
        for &p in mine {
            let bit = bits.next();
            if let (Some(b), true) = (bit, part.contains(p)) {
                scope |= 1u128 << b;
            }
        }
        scope
    }

    /// The stone keys of this search's region points that `part`'s play cannot see: not in the part and
    /// not next to it.
    fn hidden_stones(&self, board: &Board, part: &Region) -> u128 {
        let near = |p: Point| part.contains(p) || neighbours(p).iter().any(|&n| part.contains(n));
        self.region
            .points()
            .iter()
            .filter(|&&p| !near(p))
            .filter_map(|&p| {
                board
                    .color_at(p)
                    .map(|c| zobrist::STONE[c.index()][p.index()])
            })
            .fold(0, |h, k| h ^ k)
    }
}
