//! The moves table against a real book whose marks change: marks shown whole, costs that follow the
//! marks, and no forcing push shown as a cost.

use super::action::{Action, Key};
use super::app::App;
use super::test_support::{app_on, screen, shipped_book};
use super::update::update;
use crate::book::marks::Mark;
use crate::book::view::node_view;
use crate::book::{self, Book};
use crate::jobs::JobEvent;

fn setup() -> (App, Book) {
    let book = shipped_book();
    (app_on(&book, "7x7", 120, 30), book)
}

/// Marks `line`'s node in the book as the runner does, and hands the app every changed view.
fn mark(app: &mut App, book: &mut Book, line: &[crate::go::Move], marks: &[Mark]) {
    let id = book.follow_line(line).unwrap().id;
    book.marks.remove(&id);
    for &m in marks {
        book::marks::set_mark(book, id, m.check().unwrap());
    }
    book::recompute_after_change(book, &[id]);
    let views = (0..book.len())
        .map(|i| node_view(book, book::NodeId(i as u32)))
        .collect();
    update(app, Action::Job(JobEvent::NodesChanged(views)));
}

/// The moves table's data rows (those with a `%` in them), first the book's moves, then "other".
fn rows(app: &App) -> Vec<String> {
    screen(app)
        .lines()
        .filter(|l| l.contains('%') && !l.contains("win%"))
        .map(str::to_string)
        .collect()
}

#[test]
fn marks_show_whole_and_costs_follow_them() {
    let (mut app, mut book) = setup();
    let first = app.current().unwrap().edges[0].clone();
    let line = vec![app.edge_move_in_root(&first)];
    mark(
        &mut app,
        &mut book,
        &line,
        &[Mark::Visits(1000.0), Mark::Branch(3)],
    );
    let table = rows(&app);
    assert!(table[0].contains("V1000 K3"), "{table:#?}");

    // `+` (a bonus of 1 at the root) lowers every cost the table shows by one.
    let before = rows(&app);
    let root_line: Vec<crate::go::Move> = Vec::new();
    mark(&mut app, &mut book, &root_line, &[Mark::Bonus(1.0)]);
    let after = rows(&app);
    let cost = |row: &str| -> f64 {
        let words: Vec<&str> = row.split_whitespace().collect();
        let i = words.iter().position(|w| w.ends_with('%')).unwrap();
        words[i + 3].parse().unwrap()
    };
    let (b, a) = (cost(&before[1]), cost(&after[1]));
    assert!(
        (b - a - 1.0).abs() < 0.011,
        "{b} → {a}\n{before:#?}\n{after:#?}"
    );
}

#[test]
fn a_branch_mark_reads_forced_not_minus_seven_hundred() {
    let (mut app, mut book) = setup();
    // Down the first move, where the book has fewer than 5 moves.
    update(&mut app, Action::Key(Key("l".into())));
    let n = app.current().unwrap().edges.len();
    let line = app.line();
    mark(&mut app, &mut book, &line, &[Mark::Branch(n as u32 + 2)]);
    let text = screen(&app);
    let other = text.lines().find(|l| l.contains("other")).unwrap();
    assert!(other.contains("forced"), "{other}");
    assert!(!text.contains("-6"), "{text}");
    // VISITS on a node with fewer visits than asked forces it too.
    mark(&mut app, &mut book, &line, &[Mark::Visits(100_000_000.0)]);
    let text = screen(&app);
    assert!(text.contains("forced"), "{text}");
}
