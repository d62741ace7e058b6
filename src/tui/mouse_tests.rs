//! The mouse at the `Action` level: a click where the screen shows a row of the moves table or a book
//! move on the board yields the command that walks into it, the wheel moves through the tables, and a
//! session with clicks replays to the same frames.

use super::action::{Action, Command, Key};
use super::app::App;
use super::mouse;
use super::render::{self, areas};
use super::update::update;
use crate::book::interop::katabook;
use crate::book::view::book_view;
use crate::go::Move;
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::test_support::{BOOK, app};

fn event(kind: MouseEventKind, column: u16, row: u16) -> MouseEvent {
    MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }
}

fn click(column: u16, row: u16) -> MouseEvent {
    event(MouseEventKind::Down(MouseButton::Left), column, row)
}

fn frame(app: &App) -> Buffer {
    let area = Rect::new(0, 0, app.width, app.height);
    let mut buf = Buffer::empty(area);
    render::draw(app, area, &mut buf);
    buf
}

/// Where the screen shows `text` first, searching `within`.
fn find(buf: &Buffer, within: Rect, text: &str) -> Option<(u16, u16)> {
    for y in within.top()..within.bottom() {
        for x in within.left()..within.right() {
            if buf[(x, y)].symbol() == text {
                return Some((x, y));
            }
        }
    }
    None
}

fn line_text(app: &App) -> Vec<String> {
    app.line().iter().map(|&m| app.screen_text(m)).collect()
}

#[test]
fn a_click_on_a_table_row_walks_into_that_move() {
    let mut app = app();
    let moves = areas(&app, Rect::new(0, 0, app.width, app.height)).moves;
    let second = app.current().unwrap().edges[1].clone();
    let expected = app.screen_text(app.edge_move_in_root(&second));
    // The border, the header, then the rows: the second move is three rows down.
    let buf = frame(&app);
    let row_text: String = (moves.x..moves.right())
        .map(|x| buf[(x, moves.y + 3)].symbol().to_string())
        .collect();
    assert!(row_text.contains(&expected), "{row_text}");
    let action = mouse::action(&app, &click(moves.x + 5, moves.y + 3)).unwrap();
    assert_eq!(action, Action::Run(Command::Goto(vec![expected.clone()])));
    update(&mut app, action);
    assert_eq!(line_text(&app), [expected]);
    assert_eq!(app.current_step().unwrap().node, second.child);
    // The header and the border play nothing.
    assert_eq!(mouse::action(&app, &click(moves.x + 5, moves.y + 1)), None);
    assert_eq!(mouse::action(&app, &click(moves.x, moves.y + 3)), None);
}

#[test]
fn a_click_on_a_book_move_on_the_board_plays_it_in_any_view() {
    let mut app = app();
    update(&mut app, Action::Key(Key("r".into())));
    let board = areas(&app, Rect::new(0, 0, app.width, app.height)).board;
    // The best move's rank `1`, wherever the rotated view draws it.
    let (x, y) = find(&frame(&app), board, "1").expect("the best move on the board");
    let best = app.current().unwrap().edges[0].clone();
    // A click on the grid line right of the point counts for the point.
    let action = mouse::action(&app, &click(x + 1, y)).unwrap();
    update(&mut app, action);
    assert_eq!(app.current_step().unwrap().node, best.child);
    assert_eq!(app.line().len(), 1);
    // An empty point that is no book move plays nothing: the corner.
    let inner_x = board.x + 1 + 3;
    let inner_y = board.y + 1 + 1;
    assert_eq!(mouse::action(&app, &click(inner_x, inner_y)), None);
    // Nor do the coordinates.
    assert_eq!(mouse::action(&app, &click(board.x + 1, inner_y)), None);
}

#[test]
fn the_wheel_moves_through_the_moves_and_the_jobs() {
    let mut app = app();
    let at = areas(&app, Rect::new(0, 0, app.width, app.height));
    let down = event(MouseEventKind::ScrollDown, at.moves.x + 4, at.moves.y + 4);
    assert_eq!(
        mouse::action(&app, &down),
        Some(Action::Run(Command::CursorDown))
    );
    let action = mouse::action(&app, &down).unwrap();
    update(&mut app, action);
    assert_eq!(app.cursor, 1);
    let up = event(MouseEventKind::ScrollUp, at.jobs.x + 4, at.jobs.y + 1);
    assert_eq!(mouse::action(&app, &up), Some(Action::Run(Command::JobUp)));
    let down = event(MouseEventKind::ScrollDown, at.jobs.x + 4, at.jobs.y + 1);
    assert_eq!(
        mouse::action(&app, &down),
        Some(Action::Run(Command::JobDown))
    );
    // While the help is open the wheel scrolls it; while typing a command the mouse does nothing.
    update(&mut app, Action::Key(Key("?".into())));
    assert_eq!(
        mouse::action(&app, &down),
        Some(Action::Key(Key("down".into())))
    );
    update(&mut app, Action::Key(Key("esc".into())));
    update(&mut app, Action::Key(Key(":".into())));
    assert_eq!(
        mouse::action(&app, &click(at.moves.x + 5, at.moves.y + 3)),
        None
    );
}

#[test]
fn a_session_with_clicks_replays_to_the_same_frames() {
    let mut app = app();
    let (book, _) = katabook::import_str(BOOK, "books/7x7-tt-k9.katabook").unwrap();
    let mut records = vec![
        Action::Resize {
            width: 100,
            height: 30,
        },
        Action::BookLoaded(Box::new(book_view(&book, "7x7"))),
    ];
    let mut live = Vec::new();
    for _ in 0..3 {
        let moves = areas(&app, Rect::new(0, 0, app.width, app.height)).moves;
        let action = mouse::action(&app, &click(moves.x + 5, moves.y + 2)).unwrap();
        records.push(action.clone());
        update(&mut app, action);
        live.push(render::buffer_text(&frame(&app)));
    }
    assert_eq!(app.line().len(), 3);
    assert!(app.line().iter().all(|m| *m != Move::Pass));
    let records: Vec<crate::session::Record> = records
        .into_iter()
        .map(|action| crate::session::Record { at_ms: 0, action })
        .collect();
    // Through the file format, as a recording is.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clicks.tengen-session");
    let mut recorder = crate::session::Recorder::create(&path).unwrap();
    for r in &records {
        recorder.record(r.at_ms, &r.action).unwrap();
    }
    let read = crate::session::read(&path).unwrap();
    let mut replayed = Vec::new();
    crate::session::replay::frames(&read, |_, f| replayed.push(f.to_string()));
    assert_eq!(replayed[replayed.len() - 3..], live[..]);
}
