//! Where the bounded search's positions go: counters kept only when `TENGEN_SOLVER_STATS` is set and
//! printed to standard error when the search ends.

use std::fmt::Write;

/// The kind of an expanded node, by the rule that decided how many of its options were searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeKind {
    /// A ko capture among the options, or reached by one.
    Ko,
    /// Only one colour has a move.
    OneSided,
    /// Options bounded, the node hot.
    Hot,
    /// Options bounded, the node a number.
    Number,
}

const KINDS: [NodeKind; 4] = [
    NodeKind::Ko,
    NodeKind::OneSided,
    NodeKind::Hot,
    NodeKind::Number,
];

#[derive(Default)]
pub(super) struct Stats {
    /// Expanded nodes by kind.
    expanded: [usize; 4],
    /// Positions below the outermost node of each kind (inclusive), by kind.
    below: [usize; 4],
    /// Which kinds are open on the current line, with the count of positions at entry.
    open: [Option<usize>; 4],
    options: [usize; 4],
    probes: usize,
    /// Proofs tried, proved, and the positions they visited.
    proofs: usize,
    proved: usize,
    proof_positions: usize,
    failed_positions: usize,
    unstored: usize,
    unstored_gap: Vec<usize>,
    by_empty: Vec<usize>,
}

fn index(kind: NodeKind) -> usize {
    KINDS.iter().position(|&k| k == kind).unwrap_or(0)
}

impl Stats {
    pub fn from_env() -> Option<Stats> {
        std::env::var_os(crate::endgame::exact::stats::STATS_VAR).map(|_| Stats::default())
    }

    /// A node starts its expansion (before its kind is known, `visited` positions so far).
    pub fn enter(&mut self, empty: usize) {
        if self.by_empty.len() <= empty {
            self.by_empty.resize(empty + 1, 0);
        }
        self.by_empty[empty] += 1;
    }

    /// The node's kind became known: positions from here on count below it.
    pub fn kind(&mut self, kind: NodeKind, options: usize, visited: usize) -> bool {
        let i = index(kind);
        self.expanded[i] += 1;
        self.options[i] += options;
        if self.open[i].is_none() {
            self.open[i] = Some(visited);
            return true;
        }
        false
    }

    /// The outermost node of `kind` ends.
    pub fn close(&mut self, kind: NodeKind, visited: usize) {
        let i = index(kind);
        if let Some(at) = self.open[i].take() {
            self.below[i] += visited - at;
        }
    }

    pub fn probe(&mut self) {
        self.probes += 1;
    }

    /// A proof ended, having visited `positions`.
    pub fn proof(&mut self, proved: bool, positions: usize) {
        self.proofs += 1;
        self.proved += usize::from(proved);
        if !proved {
            self.failed_positions += positions;
        }
    }

    pub fn proof_position(&mut self) {
        self.proof_positions += 1;
    }

    /// A result not stored: it depends on the line position `gap` moves above it.
    pub fn unstored(&mut self, gap: usize) {
        self.unstored += 1;
        if self.unstored_gap.len() <= gap {
            self.unstored_gap.resize(gap + 1, 0);
        }
        self.unstored_gap[gap] += 1;
    }

    pub fn report(&self, visited: usize) -> String {
        let mut s = format!(
            "bounded search: {visited} positions, {} probes, {} proofs ({} proved; {} positions, {} in failed ones)\n",
            self.probes, self.proofs, self.proved, self.proof_positions, self.failed_positions
        );
        for (i, kind) in KINDS.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {kind:?}: {} nodes, {} options, {} positions below the outermost",
                self.expanded[i], self.options[i], self.below[i]
            );
        }
        let _ = write!(
            s,
            "  results not stored (line-dependent): {}; by the gap to the deepest line position they depend on:",
            self.unstored
        );
        for (g, n) in self.unstored_gap.iter().enumerate() {
            if *n > 0 {
                let _ = write!(s, " {g}:{n}");
            }
        }
        let _ = writeln!(s);
        let _ = write!(s, "  expansions by empty points:");
        for (e, n) in self.by_empty.iter().enumerate() {
            if *n > 0 {
                let _ = write!(s, " {e}:{n}");
            }
        }
        s
    }
}
