//! The snapshot's columns read back into nodes: the node table, moves, parents, cached values and
//! costs, marks and game counts.

use super::*;

pub(super) fn symmetry(file: &str, id: u8, offset: usize) -> Result<Symmetry, StoreError> {
    Symmetry::from_id(id).ok_or_else(|| corrupt(file, offset, format!("bad symmetry id {id}")))
}

/// `target` as a node id of a book of `n` nodes; `what` and `owner` only name the culprit in the error.
pub(super) fn link(
    file: &str,
    n: usize,
    target: u32,
    offset: usize,
    what: &str,
    owner: usize,
) -> Result<NodeId, StoreError> {
    if (target as usize) < n {
        Ok(NodeId(target))
    } else {
        Err(corrupt(
            file,
            offset,
            format!("{what} {owner} links to node {target}, the book has {n} nodes"),
        ))
    }
}

/// A node from its NODE record (moves and parents come from their own sections).
pub(super) fn node_from(file: &str, i: usize, rec: &[u8], at: usize) -> Result<Node, StoreError> {
    let to_move = match rec[32] {
        0 => Color::Black,
        1 => Color::White,
        x => {
            return Err(corrupt(
                file,
                at + 32,
                format!("node {i}: player to move {x}"),
            ));
        }
    };
    let hash = BookHash {
        state: u128::from_le_bytes(le(rec, 0)),
        history: u128::from_le_bytes(le(rec, 16)),
    };
    let mut node = Node::new(
        hash,
        to_move,
        SymmetrySet(rec[33]),
        symmetry(file, rec[34], at + 34)?,
    );
    node.can_expand = rec[35] & 1 != 0;
    node.not_in_book = values_at(rec, 44);
    Ok(node)
}

/// Installs a VALS record (cached values and costs) in `node`.
pub(super) fn install_values(node: &mut Node, v: &[u8]) {
    let f = |k: usize| f64_at(v, 8 * k);
    node.values = RecursiveValues {
        win_loss: f(0),
        score_mean: f(1),
        sharp_score: f(2),
        win_loss_lcb: f(3),
        win_loss_ucb: f(4),
        score_lcb: f(5),
        score_ucb: f(6),
        weight: f(7),
        visits: f(8),
        adjusted_visits: f(9),
    };
    node.cost = NodeCost {
        min_depth: u32_at(v, 80),
        min_cost_from_root: f64_at(v, 84),
        expansion_cost: f64_at(v, 92),
        min_cost_wl_pv: f64_at(v, 100),
        biggest_wl_cost: f64_at(v, 108),
        best_parent: u32_at(v, 116),
        expansion_is_wl_pv: v[120] != 0,
    };
}

/// The NODE section: the node arena and each node's move and parent counts.
pub(super) struct NodeColumns {
    pub(super) head: Head,
    pub(super) arena: Vec<Node>,
    pub(super) edge_counts: Vec<u32>,
    pub(super) parent_counts: Vec<u32>,
}

pub(super) fn read_nodes(r: &mut Reader<'_, impl Read>) -> Result<NodeColumns, StoreError> {
    let head = r.head(NODES)?;
    let n = head.count;
    if n == 0 || n > u32::MAX as usize {
        return Err(r.corrupt(head.body, format!("a book of {n} nodes")));
    }
    let file = r.file;
    let mut arena = Vec::with_capacity(n);
    let (mut edge_counts, mut parent_counts) = (Vec::with_capacity(n), Vec::with_capacity(n));
    r.records(&head, NODE_WIDTH, |i, rec, at| {
        edge_counts.push(u32_at(rec, 36));
        parent_counts.push(u32_at(rec, 40));
        arena.push(node_from(file, i, rec, at)?);
        Ok(())
    })?;
    Ok(NodeColumns {
        head,
        arena,
        edge_counts,
        parent_counts,
    })
}

/// The next section, whose records are per-node lists: it must hold as many records as `counts` (from
/// the verified NODE section) adds up to, checked before any list is allocated.
pub(super) fn list_head(
    r: &mut Reader<'_, impl Read>,
    section: ([u8; 4], Option<usize>),
    nodes: &Head,
    counts: &[u32],
    what: &str,
) -> Result<Head, StoreError> {
    let head = r.head(section)?;
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    if total != head.count {
        let name = tag_name(&head.tag);
        return Err(r.corrupt(
            nodes.body,
            format!(
                "the nodes list {total} {what}, the {name} section holds {}",
                head.count
            ),
        ));
    }
    Ok(head)
}

/// The EDGE section: every node's moves. Returns the section's header.
pub(super) fn read_edges(
    r: &mut Reader<'_, impl Read>,
    nodes: &mut NodeColumns,
) -> Result<Head, StoreError> {
    let head = list_head(r, EDGES, &nodes.head, &nodes.edge_counts, "moves")?;
    let (file, n) = (r.file, nodes.arena.len());
    let mut lists = Lists::new(&nodes.edge_counts);
    let arena = &mut nodes.arena;
    r.records(&head, EDGE_WIDTH, |_, e, at| {
        let owner = lists.owner();
        let edge = Edge::new(
            move_at(e, 0),
            symmetry(file, e[2], at + 2)?,
            link(file, n, u32_at(e, 4), at + 4, "a move of node", owner)?,
            f32::from_le_bytes(le(e, 8)),
            EngineRef::UNKNOWN,
        );
        if let Some((i, list)) = lists.push(edge) {
            arena[i].edges = list;
        }
        Ok(())
    })?;
    Ok(head)
}

/// The PRNT section: every node's parent links.
pub(super) fn read_parents(
    r: &mut Reader<'_, impl Read>,
    nodes: &mut NodeColumns,
) -> Result<(), StoreError> {
    let head = list_head(r, PARENTS, &nodes.head, &nodes.parent_counts, "parents")?;
    let (file, n) = (r.file, nodes.arena.len());
    let mut lists = Lists::new(&nodes.parent_counts);
    let arena = &mut nodes.arena;
    r.records(&head, PARENT_WIDTH, |_, p, at| {
        let owner = lists.owner();
        let parent = ParentLink {
            parent: link(file, n, u32_at(p, 0), at, "a parent link of node", owner)?,
            mv: move_at(p, 4),
        };
        if let Some((i, list)) = lists.push(parent) {
            arena[i].parents = list;
        }
        Ok(())
    })
}

/// The VALS and ECST sections, complete or both empty; installed only when `usable` (computed the way
/// this tengen computes). Returns whether they were installed. They are checksummed either way.
pub(super) fn read_cache(
    r: &mut Reader<'_, impl Read>,
    arena: &mut [Node],
    edges: &Head,
    usable: bool,
) -> Result<bool, StoreError> {
    let n = arena.len();
    let values = r.head(VALUES)?;
    let inconsistent = |edge_costs: usize| {
        corrupt(
            r.file,
            values.body,
            format!(
                "cached values for {} nodes and {edge_costs} moves in a book of {n} nodes and {} moves",
                values.count, edges.count
            ),
        )
    };
    if values.count != 0 && values.count != n {
        return Err(inconsistent(0));
    }
    let cached = usable && values.count == n;
    r.records(&values, VALUES_WIDTH, |i, v, _| {
        if cached {
            install_values(&mut arena[i], v);
        }
        Ok(())
    })?;
    let edge_costs = r.head(EDGE_COSTS)?;
    let expected = if values.count == 0 { 0 } else { edges.count };
    if edge_costs.count != expected {
        return Err(inconsistent(edge_costs.count));
    }
    // (node, move) of the next cached move cost; the counts were checked to match.
    let (mut i, mut j) = (0usize, 0usize);
    r.records(&edge_costs, EDGE_COST_WIDTH, |_, c, _| {
        if cached {
            while j == arena[i].edges.len() {
                (i, j) = (i + 1, 0);
            }
            let edge = &mut arena[i].edges[j];
            edge.cost_from_root = f64_at(c, 0);
            edge.biggest_wl_cost = f64_at(c, 8);
            edge.is_wl_pv = c[16] != 0;
            j += 1;
        }
        Ok(())
    })?;
    Ok(cached)
}

/// The MARK section, into `book`.
pub(super) fn read_marks(r: &mut Reader<'_, impl Read>, book: &mut Book) -> Result<(), StoreError> {
    let head = r.head(MARKS)?;
    let (file, n) = (r.file, book.len());
    book.marks.reserve(head.count);
    r.records(&head, MARK_WIDTH, |k, m, at| {
        let id = link(file, n, u32_at(m, 0), at, "mark record", k)?;
        let marks = Marks {
            bonus: f64_at(m, 4),
            expand: f64_at(m, 12),
            visits: f64_at(m, 20),
            branch: u32_at(m, 28),
        };
        book.marks.insert(id, marks);
        Ok(())
    })
}

/// The optional GAME section: one record per move, in edge order.
pub(super) fn read_games(
    r: &mut Reader<'_, impl Read>,
    book: &mut Book,
    edges: &Head,
) -> Result<(), StoreError> {
    let head = r.head(GAMES)?;
    if head.count != edges.count {
        return Err(r.corrupt(
            head.at,
            format!(
                "game counts for {} moves in a book of {} moves",
                head.count, edges.count
            ),
        ));
    }
    let (mut i, mut j) = (0usize, 0usize);
    let nodes = &mut book.nodes;
    r.records(&head, GAMES_WIDTH, |_, g, _| {
        while j == nodes[i].edges.len() {
            (i, j) = (i + 1, 0);
        }
        nodes[i].edges[j].games = GameCounts {
            games: u32_at(g, 0),
            scored: u32_at(g, 4),
            black_wins_x2: u32_at(g, 8),
        };
        j += 1;
        Ok(())
    })
}
