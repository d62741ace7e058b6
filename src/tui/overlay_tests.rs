//! Buffer tests of the board's overlays (ownership and policy drawn at their points, in any view) and of
//! how the app asks for evaluations: once per position, kept for walking back, and off with a reason when
//! the engine has no network.

use super::action::{Action, Command, Effect, Key};
use super::app::App;
use super::overlay::Overlay;
use super::panes::board::BoardPane;
use super::update::update;
use crate::book::interop::katabook;
use crate::go::{Move, Point};
use crate::jobs::JobEvent;
use crate::jobs::Request;
use crate::nn::output::NnEval;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::widgets::Widget;

use super::test_support::{BOOK, app};

fn key(app: &mut App, k: &str) -> Vec<Effect> {
    update(app, Action::Key(Key(k.into())))
}

fn point(app: &App, gtp: &str) -> Point {
    let size = app.book.as_ref().unwrap().size;
    match Move::parse_gtp(gtp, size).unwrap() {
        Move::Play(p) => p,
        Move::Pass => panic!("{gtp} is a pass"),
    }
}

/// An evaluation of the empty 7x7 board that owns and prefers a few chosen points (root orientation).
fn eval(app: &App, ownership: &[(&str, f32)], policy: &[(&str, f32)]) -> Box<NnEval> {
    let size = app.book.as_ref().unwrap().size;
    let n = size.width() * size.height();
    let mut e = NnEval::even(n, 10.0);
    for &(gtp, white) in ownership {
        e.white_ownership[size.row_major(point(app, gtp))] = white;
    }
    for &(gtp, p) in policy {
        e.policy[size.row_major(point(app, gtp))] = Some(p);
    }
    Box::new(e)
}

fn board(app: &App) -> Buffer {
    let (w, h) = BoardPane::size_for(app);
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    BoardPane { app }.render(buf.area, &mut buf);
    buf
}

/// The board cell of a screen point: columns start at x = 4 and go two cells a point; rows at y = 2.
fn cell(buf: &Buffer, sx: u16, sy: u16) -> &ratatui::buffer::Cell {
    &buf[(4 + 2 * sx, 2 + sy)]
}

/// The points the book's moves show on at the root (where the overlay must not be tested).
fn book_points(app: &App) -> Vec<Point> {
    let (node, step) = (app.current().unwrap(), app.current_step().unwrap());
    node.edges
        .iter()
        .flat_map(|e| app.edge_points_in_root(node, step, e))
        .filter_map(|m| match m {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        })
        .collect()
}

#[test]
fn ownership_is_drawn_on_its_points_in_any_view() {
    let mut app = app();
    for gtp in ["A7", "G1", "B6"] {
        assert!(!book_points(&app).contains(&point(&app, gtp)), "{gtp}");
    }
    let effects = update(
        &mut app,
        Action::Run(Command::Overlay(Some(Overlay::Ownership))),
    );
    assert_eq!(
        effects,
        vec![Effect::Job(Request::Evaluate { line: vec![] })]
    );
    // Black sure of A7, White sure of G1, Black leaning at B6 (the network's numbers are White's).
    let e = eval(&app, &[("A7", -0.9), ("G1", 0.9), ("B6", -0.3)], &[]);
    let more = update(
        &mut app,
        Action::Job(JobEvent::Evaluated {
            line: vec![],
            eval: Ok(e),
        }),
    );
    assert!(more.is_empty(), "an answered position is not asked again");
    let buf = board(&app);
    assert_eq!(cell(&buf, 0, 0).symbol(), "■", "A7: Black's, sure");
    assert_eq!(cell(&buf, 0, 0).fg, app.theme.ownership_black);
    assert_eq!(cell(&buf, 6, 6).symbol(), "□", "G1: White's, sure");
    assert_eq!(cell(&buf, 6, 6).fg, app.theme.ownership_white);
    assert_eq!(cell(&buf, 1, 1).symbol(), "▪", "B6: Black's, leaning");
    assert!(cell(&buf, 1, 1).modifier.contains(Modifier::DIM));
    assert_eq!(cell(&buf, 6, 0).symbol(), "┐", "G7: nobody's");
    // A quarter turn moves the squares with the board.
    key(&mut app, "r");
    let size = app.book.as_ref().unwrap().size;
    let a7 = app.view.apply(size, point(&app, "A7"));
    let g1 = app.view.apply(size, point(&app, "G1"));
    assert_ne!(a7, point(&app, "A7"));
    let buf = board(&app);
    assert_eq!(cell(&buf, a7.x() as u16, a7.y() as u16).symbol(), "■");
    assert_eq!(cell(&buf, g1.x() as u16, g1.y() as u16).symbol(), "□");
    // The ASCII theme draws the sides as x and o.
    update(
        &mut app,
        Action::ThemeFile {
            name: "ascii".into(),
            text: super::theme::BUILT_IN[4].1.into(),
        },
    );
    let buf = board(&app);
    assert_eq!(cell(&buf, a7.x() as u16, a7.y() as u16).symbol(), "x");
    assert_eq!(cell(&buf, g1.x() as u16, g1.y() as u16).symbol(), "o");
}

#[test]
fn policy_is_drawn_as_percent_on_its_points() {
    let mut app = app();
    for gtp in ["B6", "F2", "A7"] {
        assert!(!book_points(&app).contains(&point(&app, gtp)), "{gtp}");
    }
    update(
        &mut app,
        Action::Run(Command::Overlay(Some(Overlay::Policy))),
    );
    let best = book_points(&app)[0];
    let best_gtp = Move::Play(best).to_gtp(app.book.as_ref().unwrap().size);
    let e = eval(
        &app,
        &[],
        &[("B6", 0.42), ("F2", 0.07), ("A7", 0.001), (&best_gtp, 0.3)],
    );
    update(
        &mut app,
        Action::Job(JobEvent::Evaluated {
            line: vec![],
            eval: Ok(e),
        }),
    );
    let buf = board(&app);
    // Two digits take the point and the grid line to its right.
    assert_eq!(cell(&buf, 1, 1).symbol(), "4", "B6");
    assert_eq!(buf[(4 + 2 + 1, 2 + 1)].symbol(), "2", "B6's second digit");
    assert_eq!(cell(&buf, 1, 1).fg, app.theme.policy);
    assert_eq!(cell(&buf, 5, 5).symbol(), "7", "F2");
    assert_eq!(
        buf[(4 + 10 + 1, 2 + 5)].symbol(),
        "─",
        "one digit leaves the grid line"
    );
    assert_eq!(
        cell(&buf, 0, 0).symbol(),
        "┌",
        "A7: under half a percent, not drawn"
    );
    // A book move keeps its policy number in the colour of its points lost.
    let book_cell = cell(&buf, best.x() as u16, best.y() as u16);
    assert_eq!(book_cell.symbol(), "3");
    assert_ne!(book_cell.fg, app.theme.policy);
}

#[test]
fn each_position_is_evaluated_once_and_walking_back_is_instant() {
    let mut app = app();
    assert_eq!(
        key(&mut app, "o"),
        vec![Effect::Job(Request::Evaluate { line: vec![] })],
        "o turns the ownership overlay on"
    );
    assert_eq!(app.overlay, Overlay::Ownership);
    assert!(app.status.text.contains("ownership"), "{}", app.status.text);
    // Walking on before the answer asks for the next position; the first is still on its way.
    let effects = key(&mut app, "l");
    let line = app.line();
    assert_eq!(
        effects,
        vec![Effect::Job(Request::Evaluate { line: line.clone() })]
    );
    for l in [vec![], line.clone()] {
        let e = eval(&app, &[("A7", -0.9)], &[]);
        update(
            &mut app,
            Action::Job(JobEvent::Evaluated {
                line: l,
                eval: Ok(e),
            }),
        );
    }
    assert_eq!(key(&mut app, "h"), vec![], "the root is known");
    assert_eq!(cell(&board(&app), 0, 0).symbol(), "■");
    assert_eq!(key(&mut app, "l"), vec![], "so is D4");
    // o cycles on to policy, then off; off asks for nothing and draws nothing.
    assert_eq!(key(&mut app, "o"), vec![]);
    assert_eq!(app.overlay, Overlay::Policy);
    key(&mut app, "o");
    assert_eq!(app.overlay, Overlay::Off);
    assert_ne!(cell(&board(&app), 0, 0).symbol(), "■");
}

#[test]
fn an_engine_without_a_network_says_the_overlay_is_unavailable() {
    use crate::jobs::runner::SharedBook;
    let mut app = app();
    let (book, _) = katabook::import_str(BOOK, "books/7x7-tt-k9.katabook").unwrap();
    let shared = SharedBook::new(book, None);
    let rollout = crate::engine::rollout::RolloutEngine::new(1);
    let effects = key(&mut app, "o");
    let Some(Effect::Job(Request::Evaluate { line })) = effects.first().cloned() else {
        panic!("no evaluation asked for: {effects:?}");
    };
    let eval = crate::jobs::evaluate::evaluate(&shared, &rollout, &line);
    assert!(eval.is_err());
    update(&mut app, Action::Job(JobEvent::Evaluated { line, eval }));
    assert_eq!(app.overlay, Overlay::Off);
    assert!(app.status.is_error);
    assert!(
        app.status.text.contains("overlay unavailable")
            && app.status.text.contains("runs no network"),
        "{}",
        app.status.text
    );
}

#[test]
fn a_stone_on_the_other_sides_ground_is_drawn_dead() {
    let mut app = app();
    key(&mut app, "l");
    let size = app.book.as_ref().unwrap().size;
    let stone = app.line()[0];
    let Move::Play(p) = stone else {
        panic!("the book's first move is a pass")
    };
    let gtp = stone.to_gtp(size);
    key(&mut app, "o");
    // White owns the point of Black's stone: the network reads the stone as dead.
    let e = eval(&app, &[(&gtp, 0.95)], &[]);
    let line = app.line();
    update(
        &mut app,
        Action::Job(JobEvent::Evaluated { line, eval: Ok(e) }),
    );
    let buf = board(&app);
    let c = cell(&buf, p.x() as u16, p.y() as u16);
    assert_eq!(c.symbol(), "●", "the stone stays a stone");
    assert!(c.modifier.contains(Modifier::CROSSED_OUT), "{c:?}");
    // Where Black owns it, it is drawn as ever.
    let e = eval(&app, &[(&gtp, -0.95)], &[]);
    let line = app.line();
    update(
        &mut app,
        Action::Job(JobEvent::Evaluated { line, eval: Ok(e) }),
    );
    let buf = board(&app);
    assert!(
        !cell(&buf, p.x() as u16, p.y() as u16)
            .modifier
            .contains(Modifier::CROSSED_OUT)
    );
}
