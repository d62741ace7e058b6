//! The endgame pane through `update` and whole frames (insta snapshots): painting a region with the
//! keyboard, a run as a job (the job's own analysis, fed back as the events the runner sends), the tree's
//! folding, two methods side by side, errors as notices.

use super::action::{Action, Command, Effect};
use super::app::App;
use super::endgame::{EndgameCommand, Run};
use super::test_support::{app_on, keys, screen, shipped_book};
use super::update::update;
use crate::go::Point;
use crate::jobs::endgame::{Analyzers, Method, Position, Request};
use crate::jobs::{JobEvent, JobId, JobKind, Priority, Request as JobRequest};

fn app(width: u16, height: u16) -> App {
    app_on(&shipped_book(), "7x7-tt-k9", width, height)
}

/// A development problem (`shared/data/endgame-dev`), named without the checkout's path so that
/// snapshots do not depend on it.
fn problem(name: &str) -> Position {
    let path = format!(
        "{}/../shared/data/endgame-dev/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let problem = crate::endgame::problem::Problem::read(std::path::Path::new(&path)).unwrap();
    let mut position = Position::from_problem(&problem);
    position.name = name.into();
    position
}

/// A gote worth 3 (temperature 1 1/2) that the exact solver gets right; its first moves settle it.
fn corner() -> Position {
    problem("01-value-of-move/01.sgf")
}

/// Does what the runner does for each requested analysis: queue, start, analyse, report, finish.
fn run_jobs(app: &mut App, effects: Vec<Effect>, first_id: u32) -> u32 {
    let mut id = first_id;
    for effect in effects {
        let Effect::Job(JobRequest::Endgame { request, .. }) = effect else {
            continue;
        };
        let job = JobId(id);
        id += 1;
        let result = Analyzers::default().analyze(&request);
        let mut events = vec![
            JobEvent::Queued {
                id: job,
                kind: JobKind::Endgame(request.clone()),
                priority: Priority(10),
                target_visits: 1,
            },
            JobEvent::Started { id: job, at_ms: 0 },
        ];
        match result {
            Ok(mut report) => {
                // Timings vary from run to run; the snapshots must not.
                report.elapsed_ms = 0;
                let summary = report.summary();
                events.push(JobEvent::EndgameReport {
                    id: job,
                    report: Box::new(report),
                });
                events.push(JobEvent::Finished {
                    id: job,
                    at_ms: 5,
                    summary,
                });
            }
            Err(error) => events.push(JobEvent::Failed {
                id: job,
                at_ms: 5,
                error,
            }),
        }
        for event in events {
            // Every event goes through a session record and back, as a replay would see it.
            let action = Action::Job(event);
            let bytes = rmp_serde::to_vec(&action).unwrap();
            let back: Action = rmp_serde::from_slice(&bytes).unwrap();
            assert_eq!(back, action);
            update(app, back);
        }
    }
    id
}

#[test]
fn painting_a_region_on_the_book_position_and_running_exact_as_a_job() {
    let mut app = app(80, 24);
    keys(&mut app, &["l", "E"]);
    let state = app.endgame_open().expect("E opens the pane");
    assert_eq!(
        state.position.black.len(),
        1,
        "the book's position after D4"
    );
    let start = state.cursor;
    // hjkl move the board cursor now, not the book.
    keys(&mut app, &["l", "x", "j", "x", "x"]);
    assert_eq!(app.line().len(), 1, "the book stayed where it was");
    let state = app.endgame.as_ref().unwrap();
    assert_eq!(
        state.position.region,
        vec![Point::new(start.x() + 1, start.y())]
    );
    // A rectangle from here two to the right and one down, then clear.
    keys(&mut app, &["v", "l", "l", "j", "v"]);
    assert_eq!(app.endgame.as_ref().unwrap().position.region.len(), 7);
    keys(&mut app, &["X"]);
    assert!(app.endgame.as_ref().unwrap().position.region.is_empty());
    let effects = keys(&mut app, &["r"]);
    assert!(effects.is_empty());
    assert!(app.status.is_error && app.status.text.contains("region is empty"));
    // Esc closes the pane and the book keys are back.
    keys(&mut app, &["esc", "h"]);
    assert!(app.endgame_open().is_none());
    assert_eq!(app.line().len(), 0);
}

#[test]
fn frame_80x24_a_loaded_problem_solved_exactly() {
    let mut app = app(80, 24);
    update(&mut app, Action::EndgameLoaded(Box::new(corner())));
    assert!(
        app.status.text.contains("10 points (2 empty)"),
        "{}",
        app.status.text
    );
    let effects = keys(&mut app, &["r"]);
    assert!(matches!(
        effects.as_slice(),
        [Effect::Job(JobRequest::Endgame { request: r, .. })] if r.method == Method::Exact && r.position.region.len() == 10
    ));
    assert!(matches!(
        app.endgame.as_ref().unwrap().columns[0].run,
        Run::Waiting
    ));
    run_jobs(&mut app, effects, 1);
    let column = &app.endgame.as_ref().unwrap().columns[0];
    let report = column.report().expect("the report reached the column");
    assert!(!report.tree.is_empty());
    assert_eq!(
        report.temperature.mixed(),
        "1 1/2",
        "the file's answer is 3 = 2T"
    );
    assert!(app.status.text.contains("T "), "{}", app.status.text);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn frame_160x48_two_methods_side_by_side_with_an_open_tree() {
    let mut app = app(160, 48);
    // A gote worth 4 1/2 whose Black move leaves a smaller gote: a tree two plies deep.
    let position = problem("07-subtraction-method/01.sgf");
    update(&mut app, Action::EndgameLoaded(Box::new(position)));
    // The second column: `auto`, the method after exact.
    keys(&mut app, &["M"]);
    let state = app.endgame.as_ref().unwrap();
    assert_eq!(
        state.columns.iter().map(|c| c.method).collect::<Vec<_>>(),
        [Method::Exact, Method::Auto]
    );
    let effects = keys(&mut app, &["r"]);
    assert_eq!(effects.len(), 2, "one job per column");
    run_jobs(&mut app, effects, 1);
    let column = &app.endgame.as_ref().unwrap().columns[0];
    let rows = column.rows().len();
    let openable = column
        .rows()
        .iter()
        .position(|(_, node)| !node.children.is_empty())
        .expect("a first move with replies");
    for _ in 0..openable {
        keys(&mut app, &["J"]);
    }
    keys(&mut app, &["o"]);
    let column = &app.endgame.as_ref().unwrap().columns[0];
    assert!(column.rows().len() > rows, "o opened the move");
    assert_eq!(column.tree_cursor, openable);
    keys(&mut app, &["O"]);
    assert_eq!(
        app.endgame.as_ref().unwrap().columns[0].rows().len(),
        rows,
        "O folds all"
    );
    keys(&mut app, &["O"]);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn a_method_that_cannot_run_and_a_cancel_are_reported_in_the_pane() {
    let mut app = app(80, 24);
    update(&mut app, Action::EndgameLoaded(Box::new(corner())));
    // A position from the book has no given lines to score.
    keys(&mut app, &["p", "x", "m", "m", "m", "m"]);
    assert_eq!(
        app.endgame.as_ref().unwrap().columns[0].method,
        Method::Lines
    );
    let effects = keys(&mut app, &["r"]);
    run_jobs(&mut app, effects, 1);
    let column = &app.endgame.as_ref().unwrap().columns[0];
    assert!(matches!(&column.run, Run::Failed(e) if e.contains("problem file")));
    assert!(app.status.is_error, "the failure is a notice too");
    assert!(screen(&app).contains("lines method"), "{}", screen(&app));
    // A run whose job is queued can be cancelled from the pane.
    keys(&mut app, &["m"]);
    let effects = keys(&mut app, &["r"]);
    let Some(Effect::Job(JobRequest::Endgame { request, .. })) = effects.first() else {
        panic!("{effects:?}");
    };
    update(
        &mut app,
        Action::Job(JobEvent::Queued {
            id: JobId(7),
            kind: JobKind::Endgame(request.clone()),
            priority: Priority(10),
            target_visits: 1,
        }),
    );
    assert_eq!(
        keys(&mut app, &["c"]),
        vec![Effect::Job(JobRequest::Cancel(JobId(7)))]
    );
    update(
        &mut app,
        Action::Job(JobEvent::Cancelled {
            id: JobId(7),
            at_ms: 1,
        }),
    );
    assert!(matches!(
        app.endgame.as_ref().unwrap().columns[0].run,
        Run::Cancelled
    ));
}

#[test]
fn commands_parse_and_the_help_lists_the_pane() {
    let parse = |s: &str| Command::parse(s);
    assert_eq!(parse("endgame"), Ok(Command::Endgame(EndgameCommand::Open)));
    assert_eq!(
        parse("endgame load a b.sgf"),
        Ok(Command::Endgame(EndgameCommand::Load("a b.sgf".into())))
    );
    assert_eq!(
        parse("endgame method lines"),
        Ok(Command::Endgame(EndgameCommand::Method(Some(
            Method::Lines
        ))))
    );
    assert!(parse("endgame fly").unwrap_err().contains("usage: endgame"));
    assert!(parse("endgame method magic").is_err());
    let mut app = app(80, 24);
    let effects = keys(
        &mut app,
        &[
            ":", "e", "n", "d", "g", "a", "m", "e", "space", "l", "o", "a", "d", "space", "x", ".",
            "s", "g", "f", "enter",
        ],
    );
    assert_eq!(effects, vec![Effect::LoadEndgame("x.sgf".into())]);
    let help = app.keymap.help_rows();
    assert!(
        help.iter()
            .any(|r| r.1 == "endgame run" && r.0.contains('r'))
    );
    assert!(help.iter().any(|r| r.1 == "endgame" && r.0 == "E"));
    // A request goes through a session record unchanged.
    let request = Request {
        tag: 3,
        method: Method::Exact,
        position: corner(),
    };
    let action = Action::Job(JobEvent::Queued {
        id: JobId(1),
        kind: JobKind::Endgame(Box::new(request)),
        priority: Priority(10),
        target_visits: 1,
    });
    let back: Action = rmp_serde::from_slice(&rmp_serde::to_vec(&action).unwrap()).unwrap();
    assert_eq!(back, action);
}

/// The pane's column text (everything right of the board) of a frame, for status-line checks.
fn frame_has(app: &App, text: &str) -> bool {
    screen(app).contains(text)
}

#[test]
fn a_result_under_a_changed_method_is_marked_stale_until_the_new_one_arrives() {
    let mut app = app(100, 30);
    update(&mut app, Action::EndgameLoaded(Box::new(corner())));
    let effects = keys(&mut app, &["r"]);
    run_jobs(&mut app, effects, 1);
    assert!(frame_has(&app, "exact in 0 ms"), "{}", screen(&app));
    keys(&mut app, &["m"]);
    assert_eq!(
        app.endgame.as_ref().unwrap().columns[0].method,
        Method::Auto
    );
    let frame = screen(&app);
    assert!(
        frame.contains("stale: exact result · r runs auto"),
        "{frame}"
    );
    // The new method's result replaces the mark.
    let effects = keys(&mut app, &["r"]);
    run_jobs(&mut app, effects, 2);
    let frame = screen(&app);
    assert!(!frame.contains("stale"), "{frame}");
    assert!(frame.contains("auto → exact in 0 ms"), "{frame}");
}

#[test]
fn a_running_solve_shows_its_positions_against_its_budget() {
    let mut app = app(100, 30);
    update(&mut app, Action::EndgameLoaded(Box::new(corner())));
    let effects = keys(&mut app, &["r"]);
    let Some(Effect::Job(JobRequest::Endgame { request, .. })) = effects.into_iter().next() else {
        panic!("r asks for an analysis");
    };
    let budget = crate::jobs::endgame::position_budget(request.method).expect("exact has a budget");
    let job = JobId(1);
    for event in [
        JobEvent::Queued {
            id: job,
            kind: JobKind::Endgame(request),
            priority: Priority(10),
            target_visits: budget as u64,
        },
        JobEvent::Started { id: job, at_ms: 0 },
        JobEvent::Progress {
            id: job,
            visits: 41_200,
        },
    ] {
        update(&mut app, Action::Job(event));
    }
    let frame = screen(&app);
    let shown = format!(
        "41,200 / {} positions",
        crate::tui::panes::thousands(budget as u64)
    );
    assert!(frame.contains(&shown), "{frame}");
}

#[test]
fn auto_says_when_it_gave_up() {
    let mut app = app(100, 30);
    update(&mut app, Action::EndgameLoaded(Box::new(corner())));
    keys(&mut app, &["m"]);
    let effects = keys(&mut app, &["r"]);
    let Some(Effect::Job(JobRequest::Endgame { request, .. })) = effects.into_iter().next() else {
        panic!("r asks for an analysis");
    };
    // The figures of a real run, with the verdict `auto` gives when the solver and its fallback both
    // give up (the facade's own test, in tests/endgame_net.rs, reaches it with the networks).
    let mut report = Analyzers::default().analyze(&request).expect("auto runs");
    let queued = JobEvent::Queued {
        id: JobId(1),
        kind: JobKind::Endgame(request),
        priority: Priority(10),
        target_visits: 1,
    };
    report.elapsed_ms = 0;
    report.used = Method::Blend;
    report.gave_up = Some(
        "gave up: the exact solver stopped (budget) and blend found no move worth playing".into(),
    );
    for event in [
        queued,
        JobEvent::Started {
            id: JobId(1),
            at_ms: 0,
        },
        JobEvent::EndgameReport {
            id: JobId(1),
            report: Box::new(report),
        },
    ] {
        update(&mut app, Action::Job(event));
    }
    let frame = screen(&app);
    assert!(frame.contains("auto → blend gave up"), "{frame}");
}
