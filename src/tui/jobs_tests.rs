//! The jobs pane: the highlight stays on a cancelled job so that Ctrl-R retries it, and finished
//! expansion steps fold into one counter row.

use super::action::{Action, Effect, Key};
use super::app::App;
use super::test_support::app;
use super::update::update;
use crate::book::NodeId;
use crate::jobs::Request;
use crate::jobs::{JobEvent, JobId, JobKind, Priority};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn job(app: &mut App, id: u32) {
    update(
        app,
        Action::Job(JobEvent::Queued {
            id: JobId(id),
            kind: JobKind::Expand {
                node: NodeId(0),
                line: Vec::new(),
            },
            priority: Priority(0),
            target_visits: 200,
        }),
    );
    update(
        app,
        Action::Job(JobEvent::Started {
            id: JobId(id),
            at_ms: 0,
        }),
    );
}

fn key(app: &mut App, k: &str) -> Vec<Effect> {
    update(app, Action::Key(Key(k.into())))
}

#[test]
fn the_highlight_stays_on_a_cancelled_job_and_ctrl_r_retries_it() {
    let mut app = app();
    for id in 1..=3 {
        job(&mut app, id);
    }
    key(&mut app, "]");
    assert_eq!(app.selected_job().unwrap().id, JobId(2));
    assert_eq!(
        key(&mut app, "c"),
        vec![Effect::Job(Request::Cancel(JobId(2)))]
    );
    update(
        &mut app,
        Action::Job(JobEvent::Cancelled {
            id: JobId(2),
            at_ms: 10,
        }),
    );
    assert_eq!(app.selected_job().unwrap().id, JobId(2));
    assert_eq!(
        key(&mut app, "ctrl-r"),
        vec![Effect::Job(Request::Retry(JobId(2)))]
    );
    // Another job finishing does not move the highlight either.
    update(
        &mut app,
        Action::Job(JobEvent::Finished {
            id: JobId(1),
            at_ms: 20,
            summary: "added C3".into(),
        }),
    );
    assert_eq!(app.selected_job().unwrap().id, JobId(2));
}

#[test]
fn finished_expansions_fold_into_a_counter_row() {
    let mut app = app();
    for id in 1..=1210 {
        job(&mut app, id);
        update(
            &mut app,
            Action::Job(JobEvent::Finished {
                id: JobId(id),
                at_ms: id as u64,
                summary: format!("added {id}"),
            }),
        );
    }
    job(&mut app, 1211);
    assert_eq!(app.jobs.len(), 6, "five finished ones and the running one");
    assert_eq!(app.expansions_done, 1205);
    let area = Rect::new(0, 0, 100, 30);
    let mut buf = Buffer::empty(area);
    super::render::draw(&app, area, &mut buf);
    let text = super::render::buffer_text(&buf);
    assert!(text.contains("1,205 expansions done"), "{text}");
    assert!(
        text.contains("added 1210") && !text.contains("added 1205 "),
        "{text}"
    );
    assert_eq!(super::panes::thousands(1_234_567), "1,234,567");
    assert_eq!(super::panes::thousands(999), "999");
}
