//! Checks of a `.katabook`'s shape before it becomes a book: the setup stones fill exactly the board,
//! each node lists a move or a parent once, `repBound` is in KataGo's range, and moves lead to other
//! nodes and never back (no self-loops, no cycles). Each check is linear in the file's size.

use crate::go::{BoardSize, Point};
use std::collections::HashSet;
use std::hash::Hash;

/// KataGo's range for `repBound` (the same one `tengen book new --rep-bound` takes).
pub const REP_BOUND: std::ops::RangeInclusive<u64> = 3..=1000;

/// The setup stones of `initialBoard.stones`: one row per board line, each of the board's width, rows
/// ended by `|`, `X` for Black, `O` for White, `.` for empty.
pub fn setup_stones(stones: &str, size: BoardSize) -> Result<(Vec<Point>, Vec<Point>), String> {
    let rows: Vec<&str> = stones
        .strip_suffix('|')
        .unwrap_or(stones)
        .split('|')
        .collect();
    let (w, h) = (size.width(), size.height());
    if rows.len() != h {
        return Err(format!(
            "initialBoard.stones has {} rows; the board ({size}) has {h}",
            rows.len()
        ));
    }
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for (y, row) in rows.iter().enumerate() {
        let points = row.chars().count();
        if points != w {
            return Err(format!(
                "initialBoard.stones row {} has {points} points; the board ({size}) is {w} wide",
                y + 1
            ));
        }
        for (x, c) in row.chars().enumerate() {
            match c {
                'X' | 'x' => black.push(Point::new(x, y)),
                'O' | 'o' => white.push(Point::new(x, y)),
                '.' => {}
                other => {
                    return Err(format!(
                        "initialBoard.stones row {} column {}: {other:?} is not X, O or .",
                        y + 1,
                        x + 1
                    ));
                }
            }
        }
    }
    Ok((black, white))
}

/// `repBound` from the header, within [`REP_BOUND`].
pub fn rep_bound(value: Option<u64>) -> Result<usize, String> {
    let v = value.ok_or("no repBound")?;
    if !REP_BOUND.contains(&v) {
        return Err(format!(
            "repBound {v} is outside {}..{} (KataGo's range)",
            REP_BOUND.start(),
            REP_BOUND.end()
        ));
    }
    Ok(v as usize)
}

/// The first item listed twice, if any (in one pass).
pub fn first_repeat<T: Hash + Eq + Copy>(items: impl IntoIterator<Item = T>) -> Option<T> {
    let mut seen = HashSet::new();
    items.into_iter().find(|&item| !seen.insert(item))
}

/// Refuses a move from a node to itself or a cycle of moves: a book is a DAG, and what it leads to is
/// computed from its leaves up. `children[i]` are node `i`'s move targets, all known to exist.
pub fn acyclic(children: &[Vec<usize>]) -> Result<(), String> {
    for (i, c) in children.iter().enumerate() {
        if c.contains(&i) {
            return Err(format!("node {i} has a move to itself"));
        }
    }
    // Iterative depth-first search: 0 unvisited, 1 on the current path, 2 finished.
    let mut state = vec![0u8; children.len()];
    for start in 0..children.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some((node, next)) = stack.pop() {
            let Some(&child) = children[node].get(next) else {
                state[node] = 2;
                continue;
            };
            stack.push((node, next + 1));
            match state[child] {
                0 => {
                    state[child] = 1;
                    stack.push((child, 0));
                }
                1 => {
                    let mut cycle: Vec<String> = stack
                        .iter()
                        .map(|&(n, _)| n)
                        .skip_while(|&n| n != child)
                        .map(|n| n.to_string())
                        .collect();
                    cycle.push(child.to_string());
                    return Err(format!(
                        "the moves form a cycle: node {}",
                        cycle.join(" → node ")
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_rows_must_fill_the_board_exactly() {
        let size = BoardSize::new(3, 2).unwrap();
        let (b, w) = setup_stones("X..|..O|", size).unwrap();
        assert_eq!((b, w), (vec![Point::new(0, 0)], vec![Point::new(2, 1)]));
        for (stones, place) in [
            ("X...|...|", "row 1 has 4 points"),
            ("X.|...|", "row 1 has 2 points"),
            ("...|...|...|", "3 rows"),
            ("...|", "1 rows"),
            ("..#|...|", "row 1 column 3"),
        ] {
            let err = setup_stones(stones, size).unwrap_err();
            assert!(err.contains(place), "{stones}: {err}");
        }
    }

    #[test]
    fn cycles_and_self_loops_are_found_in_linear_time() {
        assert!(acyclic(&[vec![1, 2], vec![2], vec![]]).is_ok());
        let err = acyclic(&[vec![1], vec![1]]).unwrap_err();
        assert!(err.contains("node 1 has a move to itself"), "{err}");
        let err = acyclic(&[vec![1], vec![2], vec![0]]).unwrap_err();
        assert!(err.contains("node 0 → node 1 → node 2 → node 0"), "{err}");
        // A long chain: no recursion, so no stack to overflow.
        let chain: Vec<Vec<usize>> = (0..200_000)
            .map(|i| if i + 1 < 200_000 { vec![i + 1] } else { vec![] })
            .collect();
        assert!(acyclic(&chain).is_ok());
        assert_eq!(first_repeat([3, 1, 4, 1, 5]), Some(1));
        assert_eq!(rep_bound(Some(9)), Ok(9));
        assert!(rep_bound(Some(u64::MAX)).unwrap_err().contains("outside"));
    }
}
