//! Tests of `update` and of whole frames (insta snapshots at 80x24 and 160x48), on the real 7x7 book that
//! ships in `books/`.

use super::action::{Action, Command, Effect};
use super::app::{App, EngineStatus, Expansion, Mode};
use super::render;
use super::test_support::{app_on, keys, screen, shipped_book};
use super::update::{run, update};
use crate::book::Book;
use crate::book::marks::Mark;
use crate::book::view::{book_view, node_view};
use crate::go::{Move, Symmetry};
use crate::jobs::Request;
use crate::jobs::{JobEvent, JobId, JobKind, JobState, Priority};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn book() -> Book {
    shipped_book()
}

fn app(width: u16, height: u16) -> (App, Book) {
    let book = book();
    (app_on(&book, "7x7-tt-k9", width, height), book)
}

fn gtp(app: &App, mv: Move) -> String {
    app.screen_text(mv)
}

/// The app's position, hashed canonically, is the book node it says it is at.
fn assert_at_the_right_node(app: &App, book: &Book) {
    let step = app.current_step().unwrap();
    let hash = crate::go::hash::canonical(app.game.as_ref().unwrap(), book.meta.rep_bound).hash;
    assert_eq!(
        hash,
        book.node(crate::book::NodeId(step.node.0)).hash,
        "line {:?}",
        app.line()
    );
}

#[test]
fn walking_into_and_back_keeps_position_and_cursor() {
    let (mut app, book) = app(80, 24);
    assert_eq!(app.path.len(), 1);
    keys(&mut app, &["l"]);
    assert_eq!(
        app.line().iter().map(|m| gtp(&app, *m)).collect::<Vec<_>>(),
        ["D4"]
    );
    assert_at_the_right_node(&app, &book);
    keys(&mut app, &["j", "l", "h"]);
    assert_eq!(app.path.len(), 2);
    assert_eq!(
        app.cursor, 1,
        "back to the parent highlights the move we came by"
    );
    keys(&mut app, &["g"]);
    assert_eq!(app.path.len(), 1);
    keys(&mut app, &["B"]);
    assert!(app.path.len() > 5, "the best line goes deep into the book");
    assert!(app.current().unwrap().edges.is_empty());
    assert_at_the_right_node(&app, &book);
}

#[test]
fn every_book_move_shown_is_an_empty_point_and_every_step_reaches_its_node() {
    // Walk every edge of the first four plies through the app: symmetric images and transpositions
    // must keep the board, the book node and the displayed moves consistent.
    let (mut app, book) = app(80, 24);
    let mut stack: Vec<Vec<Move>> = vec![Vec::new()];
    let mut visited = 0;
    while let Some(line) = stack.pop() {
        let texts = line.iter().map(|mv| gtp(&app, *mv)).collect();
        run(&mut app, Command::Goto(texts));
        assert_eq!(app.line(), line, "goto walked the whole line");
        assert_at_the_right_node(&app, &book);
        visited += 1;
        let node = app.current().unwrap().clone();
        let step = app.current_step().unwrap().clone();
        let board = app.game.as_ref().unwrap().board().clone();
        for edge in &node.edges {
            for mv in app.edge_points_in_root(&node, &step, edge) {
                if let Move::Play(p) = mv {
                    assert!(
                        board.color_at(p).is_none(),
                        "book move {} on a stone",
                        gtp(&app, mv)
                    );
                }
            }
            if line.len() < 4 {
                let mut next = line.clone();
                next.push(app.edge_move_in_root(edge));
                stack.push(next);
            }
        }
    }
    assert!(visited > 30, "visited {visited}");
}

#[test]
fn symmetric_moves_and_rotated_views_reach_the_same_positions() {
    let (mut app, book) = app(80, 24);
    // After D4 every image of E4 is the same book move.
    run(&mut app, Command::Goto(vec!["D4".into(), "C4".into()]));
    assert_eq!(app.path.len(), 3, "{}", app.status.text);
    assert_at_the_right_node(&app, &book);
    let node = app.current_step().unwrap().node;
    run(&mut app, Command::Goto(vec!["D4".into(), "E4".into()]));
    assert_eq!(app.current_step().unwrap().node, node);
    // Rotating the view changes the coordinates typed and shown, never the position reached.
    run(&mut app, Command::Rotate);
    assert_ne!(app.view, Symmetry::IDENTITY);
    let e4_on_screen =
        app.screen_text(Move::parse_gtp("E4", app.book.as_ref().unwrap().size).unwrap());
    assert_ne!(e4_on_screen, "E4");
    run(&mut app, Command::Goto(vec!["D4".into(), e4_on_screen]));
    assert_eq!(app.current_step().unwrap().node, node);
    assert_at_the_right_node(&app, &book);
    run(&mut app, Command::Goto(vec!["A1".into()]));
    assert!(
        app.status.is_error && app.status.text.contains("not in the book"),
        "{}",
        app.status.text
    );
}

#[test]
fn marks_history_bookmarks_and_the_command_line() {
    let (mut app, _) = app(80, 24);
    keys(&mut app, &["l", "l"]);
    let line = app.line();
    let effects = keys(&mut app, &["X"]);
    assert_eq!(
        effects,
        vec![Effect::Job(Request::SetMarks {
            line: line.clone(),
            marks: vec![Mark::Expand(1.0)]
        })]
    );
    assert_eq!(app.current().unwrap().marks, vec![Mark::Expand(1.0)]);
    keys(&mut app, &["V", "X"]);
    assert_eq!(
        app.current().unwrap().marks.len(),
        2,
        "a second EXPAND replaces the first"
    );
    let effects = keys(&mut app, &["-"]);
    assert_eq!(
        effects,
        vec![Effect::Job(Request::SetMarks {
            line: line.clone(),
            marks: vec![]
        })]
    );

    keys(&mut app, &["ctrl-b", "g", "alt-left"]);
    assert_eq!(
        app.line(),
        line,
        "history back returns to the line before the root"
    );
    keys(&mut app, &["alt-right"]);
    assert_eq!(app.path.len(), 1);
    keys(&mut app, &["'"]);
    assert_eq!(app.line(), line, "the bookmark jumps back");

    keys(&mut app, &[":"]);
    assert_eq!(app.mode, Mode::Command(String::new()));
    keys(&mut app, &["g", "o", "t", "o", "space", "D", "4", "enter"]);
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(app.path.len(), 2);
    keys(&mut app, &[":", "f", "l", "y", "enter"]);
    assert!(app.status.is_error && app.status.text.contains("unknown command"));
    keys(&mut app, &["%"]);
    assert!(app.status.text.contains("not bound"));
    let effects = keys(&mut app, &["A"]);
    assert_eq!(
        effects,
        vec![Effect::Job(Request::AnalyzeLine {
            line: app.line(),
            priority: Priority(10)
        })]
    );
}

#[test]
fn an_engine_with_a_caution_is_named_on_the_status_line_and_space_asks_first() {
    let (mut app, _) = app(100, 30);
    let engine = EngineStatus {
        name: "rollout (1 threads)".into(),
        caution: crate::engine::spec::caution("rollout", crate::go::BoardSize::square(7).unwrap()),
        mixing: None,
    };
    update(&mut app, Action::Engine(engine));
    let text = screen(&app);
    assert!(text.contains("rollout is unreliable on 7x7"), "{text}");
    // Space asks; `n` leaves the expansion stopped.
    assert_eq!(keys(&mut app, &["space"]), vec![]);
    assert!(matches!(app.mode, Mode::Confirm { .. }));
    assert!(screen(&app).contains("anyway? y / n"));
    assert_eq!(keys(&mut app, &["n"]), vec![]);
    assert_eq!(app.expansion, Expansion::Stopped);
    let text = screen(&app);
    assert!(text.contains("expansion not started"), "{text}");
    // With a shorter message the right-hand side has room to name the engine and its caution.
    assert!(text.contains("(unreliable here)"), "{text}");
    // `y` starts it, and the question is not asked again.
    keys(&mut app, &["space"]);
    assert_eq!(
        keys(&mut app, &["y"]),
        vec![Effect::Job(Request::StartExpansion)]
    );
    assert_eq!(
        keys(&mut app, &["space"]),
        vec![Effect::Job(Request::PauseExpansion)]
    );
    assert_eq!(
        keys(&mut app, &["space"]),
        vec![Effect::Job(Request::StartExpansion)]
    );
    // The network engine has nothing to confirm.
    let (mut app, _) = app_with_engine("mcts (g170-b6c96)");
    assert!(screen(&app).contains("engine mcts (g170-b6c96)"));
    assert_eq!(
        keys(&mut app, &["space"]),
        vec![Effect::Job(Request::StartExpansion)]
    );
}

#[test]
fn an_engine_that_did_not_grow_the_book_asks_before_mixing() {
    let (mut app, book) = app(100, 30);
    let rollout = crate::engine::EngineId::new(crate::engine::EngineKind::Rollout);
    let engine = EngineStatus {
        name: "rollout (1 threads)".into(),
        caution: None,
        mixing: book.mixing(&rollout),
    };
    assert!(engine.mixing.is_some(), "KataGo grew the shipped book");
    update(&mut app, Action::Engine(engine));
    assert!(screen(&app).contains("mixes values"), "{}", screen(&app));
    assert_eq!(keys(&mut app, &["space"]), vec![]);
    assert!(screen(&app).contains("mix in rollout (1 threads)'s values? y / n"));
    assert_eq!(keys(&mut app, &["n"]), vec![]);
    assert!(screen(&app).contains("trim it"), "{}", screen(&app));
    keys(&mut app, &["space"]);
    assert_eq!(
        keys(&mut app, &["y"]),
        vec![Effect::Job(Request::StartExpansion)]
    );
}

fn app_with_engine(name: &str) -> (App, Book) {
    let (mut app, book) = app(100, 30);
    let engine = EngineStatus {
        name: name.into(),
        caution: None,
        mixing: None,
    };
    update(&mut app, Action::Engine(engine));
    (app, book)
}

#[test]
fn expansion_controls_and_job_events() {
    let (mut app, book) = app(80, 24);
    assert_eq!(
        keys(&mut app, &["space"]),
        vec![Effect::Job(Request::StartExpansion)]
    );
    assert_eq!(app.expansion, Expansion::Running);
    assert_eq!(
        keys(&mut app, &["space"]),
        vec![Effect::Job(Request::PauseExpansion)]
    );
    assert_eq!(
        keys(&mut app, &["esc"]),
        vec![Effect::Job(Request::StopExpansion)]
    );
    assert_eq!(app.expansion, Expansion::Stopped);

    let id = JobId(1);
    let kind = JobKind::Expand {
        node: crate::book::NodeId(0),
        line: vec![],
    };
    update(
        &mut app,
        Action::Job(JobEvent::Queued {
            id,
            kind,
            priority: Priority(0),
            target_visits: 400,
        }),
    );
    update(&mut app, Action::Job(JobEvent::Started { id, at_ms: 1000 }));
    update(
        &mut app,
        Action::Job(JobEvent::Progress { id, visits: 100 }),
    );
    update(&mut app, Action::Tick { now_ms: 3000 });
    assert_eq!(app.jobs[0].state, JobState::Running);
    assert!(
        screen(&app).contains("100/400 0:02 eta 0:06"),
        "{}",
        screen(&app)
    );
    assert_eq!(
        keys(&mut app, &["c"]),
        vec![Effect::Job(Request::Cancel(id))]
    );
    update(
        &mut app,
        Action::Job(JobEvent::Failed {
            id,
            at_ms: 4000,
            error: "engine died".into(),
        }),
    );
    assert!(app.status.is_error);
    assert_eq!(
        keys(&mut app, &["ctrl-r"]),
        vec![Effect::Job(Request::Retry(id))]
    );

    // A node update that reorders the moves keeps the cursor on the highlighted move.
    keys(&mut app, &["l", "j"]);
    let highlighted = app.highlighted().unwrap().mv;
    let here = app.current_step().unwrap().node;
    let mut changed = node_view(&book, crate::book::NodeId(here.0));
    changed.edges.reverse();
    update(&mut app, Action::Job(JobEvent::NodesChanged(vec![changed])));
    assert_eq!(app.highlighted().unwrap().mv, highlighted);
    assert_ne!(app.cursor, 1);
}

#[test]
fn broken_keymap_and_theme_files_keep_the_previous_ones() {
    let (mut app, _) = app(80, 24);
    let user = "[normal]\nprepend_keymap = [ { on = \"n\", run = \"into\", desc = \"next\" } ]";
    update(
        &mut app,
        Action::KeymapFile {
            path: "keymap.toml".into(),
            text: Some(user.into()),
        },
    );
    keys(&mut app, &["n"]);
    assert_eq!(app.path.len(), 2);
    let before = app.keymap.clone();
    update(
        &mut app,
        Action::KeymapFile {
            path: "keymap.toml".into(),
            text: Some("[normal\n".into()),
        },
    );
    assert!(
        app.status.is_error && app.status.text.contains("previous kept: keymap.toml"),
        "{}",
        app.status.text
    );
    assert_eq!(app.keymap, before);
    update(
        &mut app,
        Action::ThemeFile {
            name: "mine".into(),
            text: "rank_best = \"nope\"".into(),
        },
    );
    assert!(app.status.is_error && app.status.text.contains("rank_best"));
    assert_eq!(app.theme.name, "dark");
    update(
        &mut app,
        Action::ThemeFile {
            name: "light".into(),
            text: super::theme::BUILT_IN[1].1.into(),
        },
    );
    assert_eq!(app.theme.name, "light");
}

#[test]
fn moves_are_coloured_by_points_lost_on_the_board_and_in_the_table() {
    use super::panes::Badness;
    let (app, _) = app(80, 24);
    let area = Rect::new(0, 0, 80, 24);
    let mut buf = Buffer::empty(area);
    render::draw(&app, area, &mut buf);
    // The board's top-left intersection is at (4, 2); D4 is column 3, row 3 from the top.
    let cell = |x: usize, y: usize| &buf[(4 + 2 * x as u16, 2 + y as u16)];
    assert_eq!(cell(3, 3).symbol(), "1");
    assert_eq!(cell(3, 3).fg, app.theme.points_lost_0);
    assert_eq!(cell(4, 3).symbol(), "2", "E4");
    assert_eq!(
        cell(4, 3).fg,
        app.theme.points_lost_3,
        "E4 loses between 3 and 6 points for Black: KaTrain's orange"
    );
    // Each row of the table is in the colour of the class its Δscore falls in.
    let moves = render::areas(&app, area).moves;
    let node = app.current().unwrap();
    let best = node.edges[0].values;
    let mut classes = Vec::new();
    for (i, edge) in node.edges.iter().enumerate() {
        let y = moves.y + 2 + i as u16;
        let row: String = (moves.x + 1..moves.right() - 1)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        let delta: f64 = row.split_whitespace().nth(4).unwrap().parse().unwrap();
        let class = Badness::of_loss(-delta);
        assert_eq!(
            class,
            Badness::of(&edge.values, &best, node.to_move),
            "{row}"
        );
        // The highlighted row keeps its colour on the highlight.
        assert_eq!(buf[(moves.x + 3, y)].fg, class.color(&app.theme), "{row}");
        classes.push(class);
    }
    assert!(classes.contains(&Badness::Best) && classes.contains(&Badness::Mistake));
}

#[test]
fn frame_80x24_at_the_root() {
    let (app, _) = app(80, 24);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn frame_80x24_three_moves_in_with_a_mark_and_the_preview() {
    let (mut app, _) = app(80, 24);
    keys(&mut app, &["l", "j", "l", "l", "X", "p"]);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn frame_160x48_with_jobs_and_a_rotated_view() {
    let (mut app, _) = app(160, 48);
    keys(&mut app, &["l", "l", "r", "space"]);
    for (i, state) in [(1, "done"), (2, "running"), (3, "queued")] {
        let id = JobId(i);
        let line = app.line();
        let kind = if i == 3 {
            JobKind::AnalyzeLine { line }
        } else {
            JobKind::Expand {
                node: crate::book::NodeId(i),
                line,
            }
        };
        update(
            &mut app,
            Action::Job(JobEvent::Queued {
                id,
                kind,
                priority: Priority(i as i32),
                target_visits: 400,
            }),
        );
        if state != "queued" {
            update(&mut app, Action::Job(JobEvent::Started { id, at_ms: 500 }));
            update(
                &mut app,
                Action::Job(JobEvent::Progress {
                    id,
                    visits: 150 * i as u64,
                }),
            );
        }
        if state == "done" {
            update(
                &mut app,
                Action::Job(JobEvent::Finished {
                    id,
                    at_ms: 1700,
                    summary: "added C5 (new position)".into(),
                }),
            );
        }
    }
    update(&mut app, Action::Tick { now_ms: 2500 });
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn frame_80x24_help_and_command_line() {
    let (mut app, _) = app(80, 24);
    keys(&mut app, &["?"]);
    insta::assert_snapshot!("help_80x24", screen(&app));
    keys(&mut app, &["j"; 30]);
    assert!(matches!(app.mode, Mode::Help(30)));
    insta::assert_snapshot!("help_80x24_scrolled", screen(&app));
    keys(&mut app, &["x", ":", "g", "o", "t", "o", "space", "D"]);
    insta::assert_snapshot!("command_line_80x24", screen(&app));
}

#[test]
fn frame_160x48_help() {
    let (mut app, _) = app(160, 48);
    keys(&mut app, &["?"]);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn frame_80x24_of_a_new_19x19_book() {
    use crate::book::dag::BookMeta;
    use crate::book::{CostParams, recompute_everything};
    use crate::go::{BoardSize, Rules};
    let mut book = Book::new(
        BookMeta::new(BoardSize::square(19).unwrap(), Rules::japanese()),
        CostParams::default(),
    );
    recompute_everything(&mut book);
    let mut app = App::new();
    update(
        &mut app,
        Action::Resize {
            width: 80,
            height: 24,
        },
    );
    update(
        &mut app,
        Action::BookLoaded(Box::new(book_view(&book, "new-19x19"))),
    );
    keys(&mut app, &["l"]);
    assert!(
        app.status.text.contains("no book move here"),
        "{}",
        app.status.text
    );
    let text = screen(&app);
    assert_eq!(text.lines().count(), 24);
    assert!(
        text.contains(" 1 └") && text.contains("19 ┌"),
        "the whole board fits:\n{text}"
    );
    insta::assert_snapshot!(text);
}
