//! What the workbench's unit tests share: the shipped 7x7 book, the app on it in a terminal of a given
//! size, keys and `:` commands typed through `update`, and the frame as text.

use super::action::{Action, Effect, Key};
use super::app::App;
use super::render;
use super::update::update;
use crate::book::Book;
use crate::book::interop::katabook;
use crate::book::view::book_view;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

pub const BOOK: &str = include_str!("../../books/7x7-tt-k9.katabook");

/// The 7x7 book that ships in `books/`.
pub fn shipped_book() -> Book {
    katabook::import_str(BOOK, "books/7x7-tt-k9.katabook")
        .expect("the shipped book imports")
        .0
}

/// The app in a `width`x`height` terminal with `book` loaded under `name`, at its root.
pub fn app_on(book: &Book, name: &str, width: u16, height: u16) -> App {
    let mut app = App::new();
    update(&mut app, Action::Resize { width, height });
    update(
        &mut app,
        Action::BookLoaded(Box::new(book_view(book, name))),
    );
    app
}

/// The app in a 100x30 terminal, on the shipped 7x7 book at its root.
pub fn app() -> App {
    app_on(&shipped_book(), "7x7", 100, 30)
}

/// Presses `keys` in order and returns every effect they asked for.
pub fn keys(app: &mut App, keys: &[&str]) -> Vec<Effect> {
    keys.iter()
        .flat_map(|k| update(app, Action::Key(Key(k.to_string()))))
        .collect()
}

/// Types a `:` command as the keys that spell it, then Enter.
pub fn command(app: &mut App, text: &str) -> Vec<Effect> {
    let mut typed: Vec<String> = vec![":".into()];
    typed.extend(text.chars().map(|c| match c {
        ' ' => "space".to_string(),
        c => c.to_string(),
    }));
    typed.push("enter".into());
    typed
        .into_iter()
        .flat_map(|k| update(app, Action::Key(Key(k))))
        .collect()
}

/// The whole frame as text.
pub fn screen(app: &App) -> String {
    let area = Rect::new(0, 0, app.width, app.height);
    let mut buf = Buffer::empty(area);
    render::draw(app, area, &mut buf);
    render::buffer_text(&buf)
}
