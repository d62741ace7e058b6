//! The candidates' boards, boxed and reused. A search plays every move of both colours at each position
//! it expands, so it copies a board (8 KB) a dozen times a position; allocating and freeing blocks of
//! that size cost more than copying them. A dropped candidate's box goes back to its thread's spares.

use crate::go::Board;
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

/// Spare boxes kept per thread (about 9 MB at most).
const SPARES: usize = 1024;

thread_local! {
    static SPARE: RefCell<Vec<Box<Board>>> = const { RefCell::new(Vec::new()) };
}

/// A boxed copy of a board whose box is reused once it is dropped.
pub(super) struct BoxedBoard(Option<Box<Board>>);

impl BoxedBoard {
    pub fn copy_of(board: &Board) -> BoxedBoard {
        let spare = SPARE.with_borrow_mut(Vec::pop);
        let boxed = match spare {
            Some(mut boxed) => {
                boxed.as_mut().clone_from(board);
                boxed
            }
            None => Box::new(board.clone()),
        };
        BoxedBoard(Some(boxed))
    }
}

impl Deref for BoxedBoard {
    type Target = Board;

    fn deref(&self) -> &Board {
        // Only `drop` takes the box out.
        self.0
            .as_deref()
            .unwrap_or_else(|| unreachable!("a board is taken only when dropped"))
    }
}

impl DerefMut for BoxedBoard {
    fn deref_mut(&mut self) -> &mut Board {
        self.0
            .as_deref_mut()
            .unwrap_or_else(|| unreachable!("a board is taken only when dropped"))
    }
}

impl Drop for BoxedBoard {
    fn drop(&mut self) {
        if let Some(boxed) = self.0.take() {
            // A thread being torn down has no spares left to keep it in: the box is freed.
            let _ = SPARE.try_with(|spare| {
                let mut spare = spare.borrow_mut();
                if spare.len() < SPARES {
                    spare.push(boxed);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::test_support::board_with;

    #[test]
    fn a_reused_box_holds_the_board_copied_into_it() {
        let first = board_with(&["C19", "C18"], &["D19"]);
        let second = board_with(&["Q16"], &["D4", "E4"]);
        let copy = BoxedBoard::copy_of(&first);
        assert_eq!(copy.stone_hash(), first.stone_hash());
        let address = std::ptr::from_ref::<Board>(&copy);
        drop(copy);
        let reused = BoxedBoard::copy_of(&second);
        assert_eq!(
            std::ptr::from_ref::<Board>(&reused),
            address,
            "the spare box"
        );
        assert_eq!(reused.stone_hash(), second.stone_hash());
        assert_ne!(reused.stone_hash(), first.stone_hash());
    }
}
