//! The annotated game in the workbench (`:annotate FILE.sgf`), on the real 7x7 book that ships in `books/`:
//! stepping through the game walks the book, the notes agree with `tengen book annotate`, and a recording
//! replays the same frames.

use super::action::{Action, Effect, Key};
use super::annotation;
use super::app::App;
use super::test_support::{app_on, command, keys, screen, shipped_book};
use super::update::update;
use crate::book::Book;
use crate::book::view::book_view;
use crate::go::{BoardSize, Color, Move};

/// Two book moves (D4 E5), a Black move the book does not hold (A7), then three more outside the book.
const GAME: &str = "(;GM[1]FF[4]SZ[7]KM[9]RU[tromp-taylor];B[dd];W[ec];B[aa];W[gg];B[ag];W[ga])";

fn app(width: u16, height: u16) -> (App, Book) {
    let book = shipped_book();
    (app_on(&book, "7x7-tt-k9", width, height), book)
}

fn game_moves(size: BoardSize) -> Vec<(Color, Move)> {
    let game = crate::go::sgf::parse_str(GAME, std::path::Path::new("g.sgf"))
        .expect("the test game parses")
        .remove(0);
    assert_eq!(game.size, size);
    game.main_line()
        .iter()
        .filter_map(|n| n.get_move())
        .collect()
}

/// Loads the game the way the runtime does: the command asks for the file, its text comes back.
fn load(app: &mut App) {
    let effects = command(app, "annotate games/g.sgf");
    assert_eq!(effects, vec![Effect::ReadGame("games/g.sgf".into())]);
    let effects = update(
        app,
        Action::GameFile {
            path: "games/g.sgf".into(),
            text: Ok(GAME.into()),
        },
    );
    assert!(effects.is_empty());
}

#[test]
fn stepping_through_the_game_walks_the_book() {
    let (mut app, _) = app(80, 24);
    load(&mut app);
    assert!(!app.status.is_error, "{}", app.status.text);
    let game = app.annotation.clone().expect("the game is loaded");
    let moves = game_moves(game_size(&app));
    assert_eq!(game.moves, moves);
    assert_eq!(game.book_moves(), 2, "{:?}", game.notes);
    assert_eq!(game.left_book_at(), Some(3));
    assert_eq!(game.notes.len(), 3, "the notes stop where the game leaves");
    let line: Vec<Move> = moves.iter().map(|&(_, m)| m).collect();
    assert_eq!(
        app.line(),
        Vec::<Move>::new(),
        "the game starts at the root"
    );
    keys(&mut app, &["."]);
    assert_eq!(app.line(), line[..1]);
    keys(&mut app, &["."]);
    assert_eq!(app.line(), line[..2]);
    assert!(!app.status.is_error, "{}", app.status.text);
    // Past the book the board stays at the last book position and the status says so.
    keys(&mut app, &[".", "."]);
    assert_eq!(app.line(), line[..2]);
    assert_eq!(app.annotation.as_ref().map(|a| a.at), Some(4));
    assert!(
        app.status.text.contains("out of the book since move 3"),
        "{}",
        app.status.text
    );
    keys(&mut app, &[".", ".", ".", "."]);
    assert_eq!(app.annotation.as_ref().map(|a| a.at), Some(moves.len()));
    keys(&mut app, &[","; 5]);
    assert_eq!(app.line(), line[..1]);
    keys(&mut app, &[","; 3]);
    assert_eq!(app.line(), Vec::<Move>::new());
    command(&mut app, "annotate");
    assert!(app.annotation.is_none());
    keys(&mut app, &["."]);
    assert!(app.status.text.contains(":annotate"), "{}", app.status.text);
}

fn game_size(app: &App) -> BoardSize {
    app.book.as_ref().map(|b| b.size).expect("a book")
}

#[test]
fn the_workbench_agrees_with_book_annotate() {
    let (app, book) = app(80, 24);
    let view = app.book.as_ref().expect("a book");
    let sgf_game = crate::go::sgf::parse_str(GAME, std::path::Path::new("g.sgf"))
        .expect("parses")
        .remove(0);
    let cli = crate::records::annotate::annotate(&book, &sgf_game).expect("annotates");
    let tui = annotation::annotate(view, &game_moves(view.size));
    assert_eq!(cli.len(), tui.len());
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    for (c, t) in cli.iter().zip(&tui) {
        assert_eq!(
            (c.color, c.played, c.in_book),
            (t.color, t.played, t.in_book)
        );
        assert!(
            close(c.played_black_winrate, t.played_black_winrate),
            "{c:?} {t:?}"
        );
        assert!(
            close(c.played_black_score, t.played_black_score),
            "{c:?} {t:?}"
        );
        assert!(
            close(c.best_black_winrate, t.best_black_winrate),
            "{c:?} {t:?}"
        );
        assert!(close(c.score_loss, t.score_loss), "{c:?} {t:?}");
        assert!(close(c.winrate_loss, t.winrate_loss), "{c:?} {t:?}");
    }
    assert!(
        tui.iter()
            .all(|n| n.score_loss >= 0.0 && n.winrate_loss >= 0.0)
    );
}

#[test]
fn bad_games_are_reported_and_nothing_changes() {
    let (mut app, _) = app(80, 24);
    update(
        &mut app,
        Action::GameFile {
            path: "big.sgf".into(),
            text: Ok("(;GM[1]SZ[9];B[ee])".into()),
        },
    );
    assert!(app.status.is_error);
    assert!(app.status.text.contains("9x9"), "{}", app.status.text);
    update(
        &mut app,
        Action::GameFile {
            path: "gone.sgf".into(),
            text: Err("No such file or directory (os error 2)".into()),
        },
    );
    assert!(
        app.status.text.contains("gone.sgf: No such file"),
        "{}",
        app.status.text
    );
    update(
        &mut app,
        Action::GameFile {
            path: "junk.sgf".into(),
            text: Ok("(;GM[1]SZ[7];B[dd]".into()),
        },
    );
    assert!(app.status.is_error, "{}", app.status.text);
    assert!(app.annotation.is_none());
}

#[test]
fn a_recorded_annotation_replays_the_same_frames() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("s.tengen-session");
    let mut recorder = crate::session::Recorder::create(&path).expect("a recording");
    let (_, book) = app(80, 24);
    let mut actions = vec![
        Action::Resize {
            width: 80,
            height: 24,
        },
        Action::BookLoaded(Box::new(book_view(&book, "7x7-tt-k9"))),
    ];
    actions.extend(":annotate g.sgf".chars().map(|c| {
        Action::Key(Key(if c == ' ' {
            "space".into()
        } else {
            c.to_string()
        }))
    }));
    actions.push(Action::Key(Key("enter".into())));
    actions.push(Action::GameFile {
        path: "g.sgf".into(),
        text: Ok(GAME.into()),
    });
    actions.extend([".", ".", "."].map(|k| Action::Key(Key(k.into()))));
    let mut live = App::new();
    for (i, a) in actions.iter().enumerate() {
        recorder.record(i as u64, a).expect("recorded");
        update(&mut live, a.clone());
    }
    drop(recorder);
    let records = crate::session::read(&path).expect("reads back");
    let replayed = crate::session::replay::frames(&records, |_, _| {});
    assert_eq!(replayed, screen(&live));
    assert!(replayed.contains("left the book"), "{replayed}");
}

#[test]
fn frame_80x24_annotated_game_out_of_the_book() {
    let (mut app, _) = app(80, 24);
    load(&mut app);
    keys(&mut app, &[".", ".", "."]);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn frame_160x48_annotated_game_in_the_book() {
    let (mut app, _) = app(160, 48);
    load(&mut app);
    keys(&mut app, &["."]);
    insta::assert_snapshot!(screen(&app));
}
