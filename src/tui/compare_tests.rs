//! `:compare FILE` and record game counts in the workbench's moves table.

use super::action::{Action, Effect};
use super::app::App;
use super::test_support::{BOOK, app_on, command, screen};
use super::update::update;
use crate::book::NodeId;
use crate::book::interop::katabook;

fn app_with(book: &crate::book::Book) -> App {
    app_on(book, "t", 160, 40)
}

/// `:compare` asks the runtime to compare; the answer marks exactly the disagreeing moves, and
/// `:compare` alone clears the marks.
#[test]
fn compare_marks_the_disagreeing_positions() {
    let book = katabook::import_str(BOOK, "7x7").unwrap().0;
    let mut app = app_with(&book);
    let effects = command(&mut app, "compare other.book");
    assert_eq!(effects, vec![Effect::Compare("other.book".into())]);
    assert!(!screen(&app).contains('≠'));
    let child = app.current().unwrap().edges[0].child;
    update(
        &mut app,
        Action::Compared {
            path: "other.book".into(),
            result: Ok(vec![child.0]),
        },
    );
    assert_eq!(app.compared.as_ref().map(|s| s.len()), Some(1));
    assert!(app.compared.as_ref().unwrap().contains(&NodeId(child.0)));
    let text = screen(&app);
    assert_eq!(text.matches('≠').count(), 1, "{text}");
    command(&mut app, "compare");
    assert!(app.compared.is_none());
    assert!(!screen(&app).contains('≠'));
}

/// A book built from records shows each move's games in the moves table.
#[test]
fn record_games_show_in_the_moves_table() {
    use crate::go::{BoardSize, Move, Rules};
    use crate::records::tree::{Outcome, RecordTree};
    let size = BoardSize::square(9).unwrap();
    let mut tree = RecordTree::new(size);
    for _ in 0..37 {
        let moves = Move::alternating(&Move::parse_list("E5 C3", size).unwrap());
        tree.add_game(&moves, Some(Outcome::BlackWin), 16);
    }
    let (book, _) = crate::records::book::to_book(
        &tree,
        Rules::tromp_taylor(),
        crate::book::CostParams::default(),
    )
    .unwrap();
    let app = app_with(&book);
    assert_eq!(app.current().unwrap().edges[0].games, 37);
    assert!(screen(&app).contains("37g"), "{}", screen(&app));
}
