//! What the workbench's unit tests share: the app on the shipped 7x7 book in a 100x30 terminal.

use super::action::Action;
use super::app::App;
use super::update::update;
use crate::book::interop::katabook;
use crate::book::view::book_view;

pub const BOOK: &str = include_str!("../../books/7x7-tt-k9.katabook");

/// The app in a 100x30 terminal, on the shipped 7x7 book at its root.
pub fn app() -> App {
    let (book, _) = katabook::import_str(BOOK, "books/7x7-tt-k9.katabook").unwrap();
    let mut app = App::new();
    update(
        &mut app,
        Action::Resize {
            width: 100,
            height: 30,
        },
    );
    update(
        &mut app,
        Action::BookLoaded(Box::new(book_view(&book, "7x7"))),
    );
    app
}
