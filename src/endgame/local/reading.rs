//! Life and death of the chains of a region by a bounded local search.
//!
//! Benson's test (`settle`) only knows chains that can never be captured. Course problems end their lines
//! in positions a player counts at once although they are not pass-alive: a group with a straight three
//! whose vital point is taken is dead, a stone inside a dead shape is safe. Reading decides those: a
//! chain is dead when its opponent captures it even if its owner moves first, and safe when its opponent
//! cannot capture it even moving first. The search plays only on the region's empty points, allows
//! passes (two in a row end it), forbids repeating a position of the line (superko), and is bounded: a
//! search that runs out of budget proves nothing, so the chain stays undecided.

use super::settle::Settlement;
use crate::endgame::cgt::fast_hash::{FastMap, fast_map};
use crate::endgame::region::Region;
use crate::go::board::neighbours;
use crate::go::{Board, BoardSize, Cell, Color, Point, PointSet};
use std::cell::RefCell;

/// What reading says about a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Cannot be captured even if the opponent moves first (or it is anchored or Benson-safe).
    Safe,
    /// Captured even if its owner moves first.
    Dead,
    /// Whoever moves first decides, or the search ran out of budget.
    Open,
}

/// Positions one life-and-death search may visit before it gives up (proving nothing).
pub(super) const READING_BUDGET: usize = 4_000;

/// The status of the chain through `at` (a stone inside the region or next to it).
pub fn chain_status(board: &Board, region: &Region, at: Point) -> Status {
    chain_status_within(board, region, at, READING_BUDGET)
}

pub(super) fn chain_status_within(
    board: &Board,
    region: &Region,
    at: Point,
    budget: usize,
) -> Status {
    let Some(owner) = board.color_at(at) else {
        return Status::Safe;
    };
    let key = ReadKey {
        region: region.fingerprint(),
        stones: board.stone_hash(),
        size: board.size(),
        at,
        budget,
    };
    if let Some(status) = READINGS.with_borrow(|memo| memo.get(&key).copied()) {
        return status;
    }
    let status = read_chain(board, region, at, owner, budget);
    READINGS.with_borrow_mut(|memo| {
        if memo.len() >= READINGS_KEPT {
            memo.clear();
        }
        memo.insert(key, status);
    });
    status
}

/// Everything a reading's verdict depends on: the region, the stones (the ko is cleared before reading),
/// the stone read from (its chain's stones are walked from it, which orders the moves) and the budget.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct ReadKey {
    region: u64,
    stones: u128,
    size: BoardSize,
    at: Point,
    budget: usize,
}

/// How many verdicts a thread keeps before it starts afresh (a few megabytes).
const READINGS_KEPT: usize = 1 << 18;

thread_local! {
    /// Verdicts already read on this thread. Searches judge the same chain in the same position again
    /// and again (through transpositions that differ only in the ko or the sealed space), and reading is
    /// the largest share of what they spend on a position.
    static READINGS: RefCell<FastMap<ReadKey, Status>> = RefCell::new(fast_map());
}

fn read_chain(board: &Board, region: &Region, at: Point, owner: Color, budget: usize) -> Status {
    if is_anchored(board, region, at) {
        return Status::Safe;
    }
    // Benson's test counts every chain with a liberty outside the region alive; one in atari is not.
    if board.liberty_count(at) >= 2 && Settlement::chain_is_safe(board, region, at) {
        return Status::Safe;
    }
    let mut start = board.clone();
    start.clear_ko();
    let attacker = owner.opponent();
    let mut reading = Reading::new(region, at, owner, budget);
    if reading.attacker_wins(&start, owner, 0, false) == Some(true) {
        return Status::Dead;
    }
    let mut reading = Reading::new(region, at, owner, budget);
    if reading.attacker_wins(&start, attacker, 0, true) == Some(false) {
        return Status::Safe;
    }
    Status::Open
}

/// A chain with a liberty outside the region and a second liberty: local play can never fill the
/// outside one. A chain in atari is not anchored by its last liberty lying outside: the opponent may
/// take it there (a stone that escapes along the edge into one liberty is still captured).
fn is_anchored(board: &Board, region: &Region, at: Point) -> bool {
    let (mut liberties, mut outside) = (0, false);
    board.for_each_liberty(at, |l| {
        liberties += 1;
        outside |= !region.contains(l);
    });
    liberties >= 2 && outside
}

/// One search for "can the attacker capture the chain through `target`".
struct Reading<'a> {
    region: &'a Region,
    target: Point,
    defender: Color,
    /// Positions on the current line (stones and player to move): repeating one is not allowed.
    path: FastMap<(u128, Color), ()>,
    memo: FastMap<(u128, Option<Point>, Color, bool), bool>,
    visited: usize,
    budget: usize,
    depth_limit: usize,
}

impl<'a> Reading<'a> {
    fn new(region: &'a Region, target: Point, defender: Color, budget: usize) -> Reading<'a> {
        Reading {
            budget,
            region,
            target,
            defender,
            path: fast_map(),
            memo: fast_map(),
            visited: 0,
            depth_limit: 2 * region.len().min(24) + 6,
        }
    }

    /// Whether the attacker captures the target with `to_move` to play; `None` when the budget or the
    /// depth limit ran out on every line that would decide it.
    fn attacker_wins(
        &mut self,
        board: &Board,
        to_move: Color,
        depth: usize,
        passed: bool,
    ) -> Option<bool> {
        if board.color_at(self.target) != Some(self.defender) {
            return Some(true);
        }
        if is_anchored(board, self.region, self.target) {
            return Some(false);
        }
        let key = (board.stone_hash(), board.ko_point(), to_move, passed);
        if let Some(&known) = self.memo.get(&key) {
            return Some(known);
        }
        self.visited += 1;
        if self.visited > self.budget || depth > self.depth_limit {
            return None;
        }
        if board.liberty_count(self.target) >= 2
            && Settlement::chain_is_safe(board, self.region, self.target)
        {
            self.memo.insert(key, false);
            return Some(false);
        }
        let attacking = to_move != self.defender;
        self.path.insert((board.stone_hash(), to_move), ());
        let mut unknown = false;
        let mut result = None;
        for p in self.moves(board, to_move) {
            let mut next = board.clone();
            next.place(to_move, p);
            if self
                .path
                .contains_key(&(next.stone_hash(), to_move.opponent()))
            {
                continue;
            }
            match self.attacker_wins(&next, to_move.opponent(), depth + 1, false) {
                Some(wins) if wins == attacking => {
                    result = Some(attacking);
                    break;
                }
                Some(_) => {}
                None => unknown = true,
            }
        }
        if result.is_none() {
            // A pass; two in a row end the reading with the target on the board.
            let pass = if passed {
                Some(false)
            } else {
                let mut next = board.clone();
                next.clear_ko();
                self.attacker_wins(&next, to_move.opponent(), depth + 1, true)
            };
            result = match pass {
                Some(wins) if wins == attacking => Some(attacking),
                Some(_) if !unknown => Some(!attacking),
                _ => None,
            };
        }
        self.path.remove(&(board.stone_hash(), to_move));
        if let Some(r) = result {
            self.memo.insert(key, r);
        }
        result
    }

    /// Legal moves near the target: its liberties, the liberties of the chains touching it, and the
    /// empty region points next to those. Reading elsewhere in the region cannot change its fate
    /// except through much longer fights than the ones a finished position holds.
    fn moves(&self, board: &Board, color: Color) -> Vec<Point> {
        let liberties = board.chain_liberties(self.target);
        let target_stones = board.chain_stones(self.target);
        // Each point once, where it is first met: the target's liberties, then those of the attacking
        // chains in the order their stones touch the target, then the empty points beside all of them.
        let mut seen = PointSet::default();
        let mut near: Vec<Point> = liberties.iter().copied().filter(|&l| seen.add(l)).collect();
        let mut chains_met = PointSet::default();
        for &s in &target_stones {
            for n in neighbours(s) {
                if board.color_at(n) == Some(self.defender.opponent()) && !chains_met.contains(n) {
                    for c in board.chain_stones(n) {
                        chains_met.insert(c);
                    }
                    board.for_each_liberty(n, |l| {
                        if seen.add(l) {
                            near.push(l);
                        }
                    });
                }
            }
        }
        for i in 0..near.len() {
            for n in neighbours(near[i]) {
                if board.cell(n) == Cell::Empty && seen.add(n) {
                    near.push(n);
                }
            }
        }
        // The last liberty of a chain in atari may be taken (or extended from) outside the region.
        let outside_ok = |p: Point| liberties.len() == 1 && liberties.contains(&p);
        let captures = self.captures_next_to_the_fight(board, color, &target_stones);
        let mut moves: Vec<Point> = Vec::new();
        let captures_new = captures.iter().copied().filter(|&p| seen.add(p));
        for p in near.iter().copied().chain(captures_new) {
            if (self.region.contains(p) || outside_ok(p) || captures.contains(&p))
                && board.check(color, p, false).is_ok()
            {
                moves.push(p);
            }
        }
        moves.sort_by_key(|p| !liberties.contains(p));
        moves
    }

    /// The last liberties of `color`'s opponent's chains in atari next to the fight (the chains touching
    /// the target, and the target's colour's other chains touching those), wherever they lie: the edge of
    /// the region does not save a stone in atari, so `color` may capture it there.
    fn captures_next_to_the_fight(
        &self,
        board: &Board,
        color: Color,
        target_stones: &[Point],
    ) -> Vec<Point> {
        let mut fighting: Vec<Point> = vec![self.target];
        for &s in target_stones {
            for n in neighbours(s) {
                if board.color_at(n) == Some(self.defender.opponent()) {
                    fighting.push(n);
                    for a in board.chain_stones(n) {
                        fighting.extend(neighbours(a).into_iter().filter(|&m| {
                            board.color_at(m) == Some(self.defender) && !target_stones.contains(&m)
                        }));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for p in fighting {
            if board.color_at(p) == Some(color.opponent()) && board.liberty_count(p) == 1 {
                let last = board.atari_liberty(p);
                if !out.contains(&last) {
                    out.push(last);
                }
            }
        }
        out
    }
}
