//! The variation-tree builder (Frejlak's rules): ask the proposer about every open node of a depth at once,
//! then give each node children by the thresholds. Defaults are the paper's values:
//! - "no move" above 30% → the node is a leaf (the root always gets moves);
//! - one colour holding more than 85% of the move probability → only that colour's moves are followed
//!   (the other colour's move is answered, i.e. the last move was sente);
//! - per followed colour, the moves above 30% of that colour's total, or its single best when none is;
//! - every node considers at least one move of each colour: the best move of a colour that is not followed
//!   becomes a leaf scored directly.
//!
//! Depth and node caps turn the remaining open nodes into leaves. Leaf scoring and aggregation live in
//! `value.rs`; this file only decides the shape of the tree.

use super::proposer::{LocalState, Proposal, Proposer, ProposerError};
use crate::endgame::region::Region;
pub use crate::endgame::types::TreeOptions;
use crate::go::{Color, Point};

/// Why a node has no children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafReason {
    /// The region is settled (local Benson): its count is exact.
    Settled,
    /// Finished in the course's sense (`local::finished_count`): reading decides every chain and no
    /// move changes the count.
    Finished,
    /// Small enough for the exact solver, which values it (`net/exact.rs`).
    Exact,
    /// Ownership is decided on every region point.
    Decided,
    /// The proposer says nobody plays here.
    NoMove,
    /// A move of a colour that was not followed, scored directly.
    Direct,
    /// Depth cap.
    Depth,
    /// Node cap.
    Cap,
    /// No legal move for either colour.
    NoMoves,
}

impl LeafReason {
    pub fn key(self) -> &'static str {
        match self {
            LeafReason::Settled => "settled",
            LeafReason::Finished => "finished",
            LeafReason::Exact => "exact",
            LeafReason::Decided => "ownership decided",
            LeafReason::NoMove => "no move",
            LeafReason::Direct => "scored directly",
            LeafReason::Depth => "depth cap",
            LeafReason::Cap => "node cap",
            LeafReason::NoMoves => "no legal move",
        }
    }
}

/// What the thresholds make of one proposal.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Choice {
    /// The node is a leaf ("no move").
    pub leaf: bool,
    /// Moves whose positions are expanded further.
    pub follow: Vec<(Color, Point, f32)>,
    /// Moves whose positions are leaves scored directly.
    pub direct: Vec<(Color, Point, f32)>,
}

/// Applies the thresholds to one node's proposal.
pub fn choose(proposal: &Proposal, root: bool, options: &TreeOptions) -> Choice {
    if !root && proposal.no_move > options.no_move_leaf {
        return Choice {
            leaf: true,
            ..Choice::default()
        };
    }
    let (tb, tw) = (proposal.total(Color::Black), proposal.total(Color::White));
    let moves = tb + tw;
    let share = |t: f32| if moves > 0.0 { t / moves } else { 0.5 };
    let followed = |color: Color| {
        if root {
            return true;
        }
        let other = match color {
            Color::Black => tw,
            Color::White => tb,
        };
        share(other) <= options.one_colour
    };
    let mut choice = Choice::default();
    for color in [Color::Black, Color::White] {
        let list = proposal.moves(color);
        let Some(&(best, best_p)) = list.first() else {
            continue;
        };
        if !followed(color) {
            choice.direct.push((color, best, best_p));
            continue;
        }
        let total = proposal.total(color);
        let breadth = if root { options.root_breadth } else { 0 };
        let mut picked: Vec<(Color, Point, f32)> = list
            .iter()
            .enumerate()
            .filter(|&(rank, &(_, p))| rank < breadth || p > options.relative * total)
            .map(|(_, &(pt, p))| (color, pt, p))
            .collect();
        if picked.is_empty() {
            picked.push((color, best, best_p));
        }
        choice.follow.extend(picked);
    }
    choice
}

/// Says which of a depth's open positions (flagged `true` for the root) are leaves, and why.
pub type TerminalCheck<'a> =
    dyn FnMut(&[(&LocalState, bool)]) -> Result<Vec<Option<LeafReason>>, ProposerError> + 'a;

/// One node of a built tree.
#[derive(Clone)]
pub struct BuiltNode {
    pub state: LocalState,
    pub mv: Option<(Color, Point)>,
    pub probability: Option<f32>,
    pub children: Vec<usize>,
    pub leaf: Option<LeafReason>,
    pub depth: usize,
}

/// Grows the tree from `root`. `terminal` is asked, a depth at a time, which open positions are leaves
/// before the proposer sees them (settled regions, decided ownership); it gets `true` for the root.
pub fn build(
    root: LocalState,
    region: &Region,
    proposer: &dyn Proposer,
    options: &TreeOptions,
    terminal: &mut TerminalCheck,
) -> Result<Vec<BuiltNode>, ProposerError> {
    let mut nodes = vec![BuiltNode {
        state: root,
        mv: None,
        probability: None,
        children: Vec::new(),
        leaf: None,
        depth: 0,
    }];
    let mut frontier = vec![0usize];
    while !frontier.is_empty() {
        let asked: Vec<(&LocalState, bool)> = frontier
            .iter()
            .map(|&i| (&nodes[i].state, i == 0))
            .collect();
        let verdicts = terminal(&asked)?;
        let mut open = Vec::new();
        for (k, &i) in frontier.iter().enumerate() {
            let verdict = verdicts.get(k).copied().flatten();
            if verdict.is_some() {
                nodes[i].leaf = verdict;
            } else if nodes[i].depth >= options.max_depth {
                nodes[i].leaf = Some(LeafReason::Depth);
            } else {
                open.push(i);
            }
        }
        let states: Vec<&LocalState> = open.iter().map(|&i| &nodes[i].state).collect();
        let proposals = proposer.propose(region, &states)?;
        let mut next = Vec::new();
        for (&i, proposal) in open.iter().zip(&proposals) {
            let choice = choose(proposal, i == 0, options);
            if choice.leaf {
                nodes[i].leaf = Some(LeafReason::NoMove);
                continue;
            }
            let moves = choice
                .follow
                .iter()
                .map(|m| (m, false))
                .chain(choice.direct.iter().map(|m| (m, true)));
            for (&(color, point, p), direct) in moves {
                let Some(state) = nodes[i].state.play(color, point) else {
                    continue;
                };
                let leaf = if direct {
                    Some(LeafReason::Direct)
                } else if nodes.len() >= options.max_nodes {
                    Some(LeafReason::Cap)
                } else {
                    None
                };
                let id = nodes.len();
                nodes.push(BuiltNode {
                    state,
                    mv: Some((color, point)),
                    probability: Some(p),
                    children: Vec::new(),
                    leaf,
                    depth: nodes[i].depth + 1,
                });
                nodes[i].children.push(id);
                if leaf.is_none() {
                    next.push(id);
                }
            }
            if nodes[i].children.is_empty() {
                nodes[i].leaf = Some(LeafReason::NoMoves);
            }
        }
        frontier = next;
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{Board, BoardSize};

    fn pt(x: usize, y: usize) -> Point {
        Point::new(x, y)
    }

    fn proposal(black: &[(Point, f32)], white: &[(Point, f32)], no_move: f32) -> Proposal {
        Proposal {
            black: black.to_vec(),
            white: white.to_vec(),
            no_move,
        }
        .sorted()
    }

    #[test]
    fn no_move_above_the_threshold_ends_a_node_but_not_the_root() {
        let p = proposal(&[(pt(0, 0), 0.3)], &[(pt(1, 0), 0.3)], 0.4);
        let options = TreeOptions::default();
        assert!(choose(&p, false, &options).leaf);
        let root = choose(&p, true, &options);
        assert!(!root.leaf);
        assert_eq!(root.follow.len(), 2);
        let under = proposal(&[(pt(0, 0), 0.36)], &[(pt(1, 0), 0.36)], 0.28);
        assert!(!choose(&under, false, &options).leaf);
    }

    #[test]
    fn a_dominant_colour_is_followed_and_the_other_scored_directly() {
        let p = proposal(
            &[(pt(0, 0), 0.7), (pt(2, 0), 0.2)],
            &[(pt(1, 0), 0.05), (pt(3, 0), 0.03)],
            0.02,
        );
        let c = choose(&p, false, &TreeOptions::default());
        assert_eq!(c.follow, vec![(Color::Black, pt(0, 0), 0.7)]);
        assert_eq!(c.direct, vec![(Color::White, pt(1, 0), 0.05)]);
        // The root follows both colours whatever the shares.
        let root = choose(&p, true, &TreeOptions::default());
        assert!(root.direct.is_empty());
        assert!(root.follow.contains(&(Color::White, pt(1, 0), 0.05)));
        // Raising the threshold follows both.
        let lenient = TreeOptions {
            one_colour: 0.95,
            ..TreeOptions::default()
        };
        assert!(choose(&p, false, &lenient).direct.is_empty());
    }

    #[test]
    fn per_colour_moves_above_the_relative_threshold_else_the_single_best() {
        // Black: 0.2 and 0.15 of 0.4 are 50% and 37.5%, 0.05 is 12.5%: two followed.
        // White: five moves of 0.1 each are 20% of their total: only the best (first by point) is.
        let p = proposal(
            &[(pt(0, 0), 0.2), (pt(1, 0), 0.15), (pt(2, 0), 0.05)],
            &[
                (pt(4, 4), 0.1),
                (pt(3, 4), 0.1),
                (pt(2, 4), 0.1),
                (pt(1, 4), 0.1),
                (pt(0, 4), 0.1),
            ],
            0.1,
        );
        let c = choose(&p, false, &TreeOptions::default());
        let black: Vec<Point> = c
            .follow
            .iter()
            .filter(|m| m.0 == Color::Black)
            .map(|m| m.1)
            .collect();
        let white: Vec<Point> = c
            .follow
            .iter()
            .filter(|m| m.0 == Color::White)
            .map(|m| m.1)
            .collect();
        assert_eq!(black, vec![pt(0, 0), pt(1, 0)]);
        assert_eq!(white.len(), 1);
    }

    /// A deterministic stand-in for a network: Black prefers the lowest free point of row 0, White the
    /// highest; "no move" once `stop_after` local moves are on the board.
    struct Scripted {
        stop_after: usize,
        sente_black: bool,
    }

    impl Proposer for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }

        fn propose(
            &self,
            region: &Region,
            states: &[&LocalState],
        ) -> Result<Vec<Proposal>, ProposerError> {
            Ok(states
                .iter()
                .map(|s| {
                    let mut free: Vec<Point> = region.empty_points(s.board());
                    free.sort();
                    if s.moves.len() >= self.stop_after || free.is_empty() {
                        return Proposal {
                            no_move: 0.9,
                            ..Proposal::default()
                        };
                    }
                    let (b, w) = (free[0], free[free.len() - 1]);
                    let (pb, pw) = if self.sente_black && !s.moves.is_empty() {
                        (0.9, 0.05)
                    } else {
                        (0.45, 0.45)
                    };
                    proposal(&[(b, pb)], &[(w, pw)], 1.0 - pb - pw)
                })
                .collect())
        }
    }

    fn row_region() -> (Board, Region) {
        let board = Board::new(BoardSize::square(5).expect("5x5"));
        let region = Region::new((0..5).map(|x| pt(x, 0)));
        (board, region)
    }

    fn never(states: &[(&LocalState, bool)]) -> Result<Vec<Option<LeafReason>>, ProposerError> {
        Ok(vec![None; states.len()])
    }

    /// The tree the scripted proposer grows on the 5-point row region from an empty board.
    fn grow_row(
        stop_after: usize,
        sente_black: bool,
        options: &TreeOptions,
        terminal: &mut TerminalCheck,
    ) -> Vec<BuiltNode> {
        let (board, region) = row_region();
        let proposer = Scripted {
            stop_after,
            sente_black,
        };
        build(
            LocalState::root(&board),
            &region,
            &proposer,
            options,
            terminal,
        )
        .expect("built")
    }

    #[test]
    fn trees_follow_both_colours_until_no_move() {
        let nodes = grow_row(2, false, &TreeOptions::default(), &mut never);
        // Root → 2 children → 4 grandchildren, which say "no move".
        assert_eq!(nodes.len(), 7);
        assert_eq!(nodes[0].children.len(), 2);
        let leaves: Vec<_> = nodes.iter().filter_map(|n| n.leaf).collect();
        assert_eq!(leaves, vec![LeafReason::NoMove; 4]);
        assert!(nodes.iter().all(|n| n.depth <= 2));
    }

    #[test]
    fn caps_and_terminal_checks_end_nodes() {
        let shallow = TreeOptions {
            max_depth: 1,
            ..TreeOptions::default()
        };
        let nodes = grow_row(10, false, &shallow, &mut never);
        assert_eq!(nodes.len(), 3);
        assert!(nodes[1..].iter().all(|n| n.leaf == Some(LeafReason::Depth)));
        let small = TreeOptions {
            max_nodes: 5,
            ..TreeOptions::default()
        };
        let nodes = grow_row(10, false, &small, &mut never);
        // Moves past the cap still appear (each node keeps its moves), but only as leaves.
        let kept = nodes
            .iter()
            .filter(|n| n.leaf != Some(LeafReason::Cap))
            .count();
        assert!(kept <= 5, "{kept} nodes below the cap");
        assert!(nodes.iter().any(|n| n.leaf == Some(LeafReason::Cap)));
        // A terminal check that settles every non-root position leaves the root's two children.
        let mut settle = |states: &[(&LocalState, bool)]| {
            Ok(states
                .iter()
                .map(|&(_, root)| (!root).then_some(LeafReason::Settled))
                .collect())
        };
        let nodes = grow_row(10, false, &TreeOptions::default(), &mut settle);
        assert_eq!(nodes.len(), 3);
    }

    #[test]
    fn sente_nodes_give_the_answering_colour_one_direct_leaf() {
        let nodes = grow_row(2, true, &TreeOptions::default(), &mut never);
        let directs = nodes
            .iter()
            .filter(|n| n.leaf == Some(LeafReason::Direct))
            .count();
        // Each of the root's two children follows Black and scores White's best directly.
        assert_eq!(directs, 2);
        for &c in &nodes[0].children {
            let kids = &nodes[c].children;
            assert_eq!(kids.len(), 2);
            assert!(
                kids.iter()
                    .any(|&k| nodes[k].leaf == Some(LeafReason::Direct)
                        && nodes[k].mv.map(|m| m.0) == Some(Color::White))
            );
        }
    }

    #[test]
    fn exhaustive_options_follow_every_move() {
        let p = proposal(
            &[(pt(0, 0), 0.25), (pt(1, 0), 0.25)],
            &[(pt(2, 0), 0.25), (pt(3, 0), 0.25)],
            0.0,
        );
        let c = choose(&p, false, &TreeOptions::exhaustive());
        assert_eq!(c.follow.len(), 4);
        assert!(c.direct.is_empty());
    }
}
