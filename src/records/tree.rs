//! A tree of game records (Chen et al.'s book from game statistics).
//!
//! Canonically oriented games are merged move by move; each node counts the games through it, how many of
//! those had a result, and Black's wins among them (a draw is half a win). A tree rather than a DAG, as in
//! the paper: building it from records is fast, and it can be turned into a book afterwards.

use crate::go::{BoardSize, Color, Move};

/// How a game ended, for the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    BlackWin,
    WhiteWin,
    Draw,
}

impl Outcome {
    /// Parses SGF `RE`: `B+3.5`, `W+R`, `0`, `Draw`, `Jigo`; `None` for no or an unknown result.
    pub fn parse_sgf(result: &str) -> Option<Outcome> {
        let r = result.trim();
        let upper = r.to_ascii_uppercase();
        if upper.starts_with("B+") {
            Some(Outcome::BlackWin)
        } else if upper.starts_with("W+") {
            Some(Outcome::WhiteWin)
        } else if matches!(upper.as_str(), "0" | "DRAW" | "JIGO" | "B+0" | "W+0") {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// Black's share of the win in half points: 2, 1 or 0.
    fn black_halves(self) -> u32 {
        match self {
            Outcome::BlackWin => 2,
            Outcome::Draw => 1,
            Outcome::WhiteWin => 0,
        }
    }
}

pub type RecordId = usize;

#[derive(Debug, Clone, PartialEq)]
pub struct RecordNode {
    /// The move that leads here; `None` at the root.
    pub mv: Option<(Color, Move)>,
    /// Games through this node.
    pub games: u32,
    /// Games through this node that have a result.
    pub scored: u32,
    /// Black's wins among the scored games, in half points (a draw counts 1).
    pub black_wins_x2: u32,
    pub children: Vec<RecordId>,
}

impl RecordNode {
    /// Win rate of the player who made this node's move (Black's at the root), if any game was scored.
    pub fn mover_winrate(&self) -> Option<f64> {
        if self.scored == 0 {
            return None;
        }
        let black = self.black_wins_x2 as f64 / (2.0 * self.scored as f64);
        match self.mv {
            Some((Color::White, _)) => Some(1.0 - black),
            _ => Some(black),
        }
    }

    /// The mover's wins, draws counting half.
    pub fn mover_wins(&self) -> f64 {
        let black = self.black_wins_x2 as f64 / 2.0;
        match self.mv {
            Some((Color::White, _)) => self.scored as f64 - black,
            _ => black,
        }
    }
}

/// Whether merged counts are added (independent collections) or kept (two trims of one tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeCounts {
    Add,
    Keep,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RecordTree {
    pub size: BoardSize,
    nodes: Vec<RecordNode>,
}

pub const ROOT: RecordId = 0;

impl RecordTree {
    pub fn new(size: BoardSize) -> RecordTree {
        let root = RecordNode {
            mv: None,
            games: 0,
            scored: 0,
            black_wins_x2: 0,
            children: Vec::new(),
        };
        RecordTree {
            size,
            nodes: vec![root],
        }
    }

    pub fn node(&self, id: RecordId) -> &RecordNode {
        &self.nodes[id]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// Games that ended (or were cut at the depth limit) at this node: its games less its children's.
    pub fn ended_here(&self, id: RecordId) -> u32 {
        let through: u32 = self.nodes[id]
            .children
            .iter()
            .map(|&c| self.nodes[c].games)
            .sum();
        self.nodes[id].games.saturating_sub(through)
    }

    pub fn child(&self, id: RecordId, mv: (Color, Move)) -> Option<RecordId> {
        self.nodes[id]
            .children
            .iter()
            .copied()
            .find(|&c| self.nodes[c].mv == Some(mv))
    }

    /// Adds one oriented game, cut after `depth` moves.
    pub fn add_game(&mut self, moves: &[(Color, Move)], outcome: Option<Outcome>, depth: usize) {
        let mut id = ROOT;
        self.count(id, outcome, 1);
        for &mv in moves.iter().take(depth) {
            id = match self.child(id, mv) {
                Some(c) => c,
                None => self.push_child(id, mv),
            };
            self.count(id, outcome, 1);
        }
    }

    fn count(&mut self, id: RecordId, outcome: Option<Outcome>, games: u32) {
        let node = &mut self.nodes[id];
        node.games += games;
        if let Some(o) = outcome {
            node.scored += games;
            node.black_wins_x2 += o.black_halves() * games;
        }
    }

    fn push_child(&mut self, parent: RecordId, mv: (Color, Move)) -> RecordId {
        let id = self.nodes.len();
        self.nodes.push(RecordNode {
            mv: Some(mv),
            games: 0,
            scored: 0,
            black_wins_x2: 0,
            children: Vec::new(),
        });
        self.nodes[parent].children.push(id);
        id
    }

    /// Adds a node with given counts (the MCST reader builds trees this way).
    pub(crate) fn push_counted(&mut self, parent: RecordId, node: RecordNode) -> RecordId {
        let id = self.nodes.len();
        self.nodes.push(RecordNode {
            children: Vec::new(),
            ..node
        });
        self.nodes[parent].children.push(id);
        id
    }

    pub(crate) fn set_root_counts(&mut self, games: u32, scored: u32, black_wins_x2: u32) {
        let root = &mut self.nodes[ROOT];
        (root.games, root.scored, root.black_wins_x2) = (games, scored, black_wins_x2);
    }

    /// A copy keeping only the subtrees `keep` accepts (the root is always kept).
    fn filtered(&self, keep: &dyn Fn(&RecordTree, RecordId, RecordId) -> bool) -> RecordTree {
        let mut out = RecordTree {
            size: self.size,
            nodes: vec![RecordNode {
                children: Vec::new(),
                ..self.nodes[ROOT].clone()
            }],
        };
        let mut stack = vec![(ROOT, ROOT)];
        while let Some((from, to)) = stack.pop() {
            for &c in &self.nodes[from].children {
                if keep(self, from, c) {
                    let copy = out.push_counted(to, self.nodes[c].clone());
                    stack.push((c, copy));
                }
            }
        }
        out
    }

    /// Drops nodes with fewer than `min_games` games and moves whose mover won less than `min_winrate`.
    pub fn trimmed(&self, min_games: u32, min_winrate: f64) -> RecordTree {
        self.filtered(&|t, _, c| {
            let n = t.node(c);
            n.games >= min_games && n.mover_winrate().is_none_or(|w| w >= min_winrate)
        })
    }

    /// Chen et al.'s solution tree for `side`: at `side`'s turns only its `best` best moves (by win rate,
    /// then games), at the opponent's turns every reply.
    pub fn solution_tree(&self, side: Color, best: usize) -> RecordTree {
        let ranked = |t: &RecordTree, parent: RecordId| -> Vec<RecordId> {
            let mut kids = t.node(parent).children.clone();
            kids.sort_by(|&a, &b| {
                let (na, nb) = (t.node(a), t.node(b));
                let (wa, wb) = (
                    na.mover_winrate().unwrap_or(0.0),
                    nb.mover_winrate().unwrap_or(0.0),
                );
                wb.total_cmp(&wa).then(nb.games.cmp(&na.games))
            });
            kids
        };
        self.filtered(&|t, parent, c| {
            let mover = t.node(c).mv.map(|(col, _)| col);
            if mover != Some(side) {
                return true;
            }
            ranked(t, parent)
                .iter()
                .position(|&k| k == c)
                .is_some_and(|rank| rank < best)
        })
    }

    /// Merges `other` into this tree, matching children by move.
    pub fn merge(&mut self, other: &RecordTree, counts: MergeCounts) {
        self.merge_node(ROOT, other, ROOT, counts);
    }

    fn merge_node(
        &mut self,
        here: RecordId,
        other: &RecordTree,
        there: RecordId,
        counts: MergeCounts,
    ) {
        let theirs = other.node(there);
        let node = &mut self.nodes[here];
        match counts {
            MergeCounts::Add => {
                node.games += theirs.games;
                node.scored += theirs.scored;
                node.black_wins_x2 += theirs.black_wins_x2;
            }
            MergeCounts::Keep => {}
        }
        for &c in &theirs.children {
            let Some(mv) = other.node(c).mv else { continue };
            match self.child(here, mv) {
                Some(mine) => self.merge_node(mine, other, c, counts),
                None => {
                    let fresh = RecordNode {
                        games: 0,
                        scored: 0,
                        black_wins_x2: 0,
                        ..other.node(c).clone()
                    };
                    let id = self.push_counted(here, fresh);
                    self.merge_node(id, other, c, MergeCounts::Add);
                }
            }
        }
    }

    /// The principal line: from the root, the most-played child each time.
    pub fn main_line(&self) -> Vec<RecordId> {
        let mut line = Vec::new();
        let mut id = ROOT;
        while let Some(&next) = self.nodes[id]
            .children
            .iter()
            .max_by_key(|&&c| self.nodes[c].games)
        {
            line.push(next);
            id = next;
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(size: BoardSize, text: &str) -> Vec<(Color, Move)> {
        Move::alternating(&Move::parse_list(text, size).unwrap())
    }

    #[test]
    fn counts_add_up() {
        let size = BoardSize::square(9).unwrap();
        let mut t = RecordTree::new(size);
        t.add_game(&line(size, "E5 C3 G7"), Some(Outcome::BlackWin), 16);
        t.add_game(&line(size, "E5 C3"), Some(Outcome::WhiteWin), 16);
        t.add_game(&line(size, "E5 G3"), None, 16);
        t.add_game(&line(size, "E5 G3 C7 C3"), Some(Outcome::Draw), 2);
        assert_eq!(t.node(ROOT).games, 4);
        for id in 0..t.len() {
            let kids: u32 = t.node(id).children.iter().map(|&c| t.node(c).games).sum();
            assert_eq!(t.node(id).games, kids + t.ended_here(id));
        }
        let e5 = t.child(ROOT, line(size, "E5")[0]).unwrap();
        assert_eq!((t.node(e5).games, t.node(e5).scored), (4, 3));
        assert_eq!(t.node(e5).mover_winrate(), Some(1.5 / 3.0));
        assert_eq!(
            t.ended_here(t.node(e5).children[1]),
            2,
            "one game ended at G3, one was cut there"
        );
    }

    #[test]
    fn trimming_and_solution_trees() {
        let size = BoardSize::square(9).unwrap();
        let mut t = RecordTree::new(size);
        for i in 0..30 {
            let winner = if i < 20 {
                Outcome::BlackWin
            } else {
                Outcome::WhiteWin
            };
            t.add_game(&line(size, "E5 C3"), Some(winner), 16);
        }
        for i in 0..25 {
            let winner = if i < 5 {
                Outcome::BlackWin
            } else {
                Outcome::WhiteWin
            };
            t.add_game(&line(size, "E5 G3"), Some(winner), 16);
        }
        for _ in 0..5 {
            t.add_game(&line(size, "C3 E5"), Some(Outcome::WhiteWin), 16);
        }
        let trimmed = t.trimmed(20, 0.25);
        assert_eq!(
            trimmed.len(),
            4,
            "root, E5, C3, G3: the 5-game C3 opening is dropped"
        );
        let black = trimmed.solution_tree(Color::Black, 1);
        assert_eq!(black.len(), 4, "White's replies are all kept");
        let white = trimmed.solution_tree(Color::White, 1);
        assert_eq!(white.len(), 3, "White keeps only its best reply, G3");
        let mut both = black.clone();
        both.merge(&white, MergeCounts::Keep);
        assert_eq!(both, black);
    }
}
