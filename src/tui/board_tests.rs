//! Buffer tests of the board pane (one-cell rank labels whatever the number of book moves, and stones
//! whose colours differ in shape) and of the graph along the line.

use super::action::{Action, Key};
use super::app::App;
use super::panes::board::{BoardPane, rank_label};
use super::update::update;
use crate::go::{Move, Point};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::test_support::app;

fn board_text(app: &App) -> Vec<String> {
    let (w, h) = BoardPane::size_for(app);
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    BoardPane { app }.render(area, &mut buf);
    crate::tui::render::buffer_text(&buf)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Gives the current node one book move on every empty point of the board's lower half, each worse than
/// the last (copies of its first move), so that the ranks run past 9.
fn many_moves(app: &mut App) -> usize {
    let step = app.current_step().unwrap().clone();
    let game = app.game.clone().unwrap();
    let book = app.book.as_mut().unwrap();
    let size = book.size;
    let node = &mut book.nodes[step.node.index()];
    let template = node.edges[0].clone();
    node.self_symmetries = vec![crate::go::Symmetry::IDENTITY];
    node.edges.clear();
    for y in 0..size.height() {
        for x in 0..size.width() {
            let p = Point::new(x, y);
            if game.board().color_at(p).is_none() && node.edges.len() < 30 {
                let mut edge = template.clone();
                edge.mv = step.to_root.inverse().apply_move(size, Move::Play(p));
                edge.values.winrate -= 0.01 * node.edges.len() as f64;
                node.edges.push(edge);
            }
        }
    }
    node.edges.len()
}

#[test]
fn rank_labels_are_one_cell() {
    let labels: Vec<String> = [0, 8, 9, 10, 34, 35, 400]
        .iter()
        .map(|&r| rank_label(r))
        .collect();
    assert_eq!(labels, ["1", "9", "a", "b", "z", "+", "+"]);
}

#[test]
fn a_board_with_two_digit_ranks_stays_a_board() {
    let mut app = app();
    // Two stones of each colour first, so that both shapes show.
    for key in ["l", "l", "l", "l"] {
        update(&mut app, Action::Key(Key(key.into())));
    }
    let moves = many_moves(&mut app);
    assert!(moves >= 20, "{moves} moves");
    let rows = board_text(&app);
    let size = app.book.as_ref().unwrap().size;
    let (w, h) = (size.width(), size.height());
    let board_rows = &rows[2..2 + h];
    for (i, row) in board_rows.iter().enumerate() {
        let cells: Vec<char> = row.chars().collect();
        // `│NN ` then two cells per point: its mark, then the grid line (or a space after the last).
        assert_eq!(cells.len(), 2 * w + 5, "row {i}: {row:?}");
        let label: String = cells[1..3].iter().collect();
        assert_eq!(label.trim(), (h - i).to_string(), "row {i}: {row:?}");
        for x in 0..w {
            let connector = cells[4 + 2 * x + 1];
            let want = if x + 1 < w { '─' } else { ' ' };
            assert_eq!(connector, want, "row {i}, column {x}: {row:?}");
        }
    }
    let text = board_rows.join("\n");
    for label in ["1", "9", "a", "k"] {
        assert!(text.contains(label), "rank {label} missing:\n{text}");
    }
    assert_eq!(text.matches('●').count(), 2, "{text}");
    assert_eq!(text.matches('○').count(), 2, "{text}");
}

#[test]
fn the_ascii_theme_draws_x_and_o() {
    let mut app = app();
    for key in ["l", "l", "l"] {
        update(&mut app, Action::Key(Key(key.into())));
    }
    let text = crate::tui::theme::Theme::built_in("ascii").unwrap();
    update(
        &mut app,
        Action::ThemeFile {
            name: "ascii".into(),
            text: text.into(),
        },
    );
    let rows = board_text(&app)[2..9].join("\n");
    assert_eq!(rows.matches('X').count(), 2, "{rows}");
    assert_eq!(rows.matches('O').count(), 1, "{rows}");
    assert!(!rows.contains('●') && !rows.contains('─'), "{rows}");
}

#[test]
fn the_graph_follows_the_line_and_draws_both_curves() {
    let mut app = app();
    for key in ["l", "l", "l"] {
        update(&mut app, Action::Key(Key(key.into())));
    }
    let (points, walked) = super::panes::graph::series(&app);
    assert_eq!(walked, 4, "the root and three moves");
    let book = app.book.as_ref().unwrap();
    for (step, point) in app.path.iter().zip(&points) {
        let node = book.node(step.node).unwrap();
        assert_eq!(*point, (node.values.winrate * 100.0, node.values.score));
    }
    assert!(
        points.len() > walked,
        "the best line goes on past the current position"
    );
    let area = Rect::new(0, 0, 120, 40);
    let draw = |app: &App| {
        let mut buf = Buffer::empty(area);
        crate::tui::render::draw(app, area, &mut buf);
        crate::tui::render::buffer_text(&buf)
    };
    assert!(!draw(&app).contains("Graph"));
    update(&mut app, Action::Key(Key("w".into())));
    let text = draw(&app);
    assert!(text.contains("Graph · B win%"), "{text}");
    assert!(text.contains("100%") && text.contains("0%"), "{text}");
    let braille = text
        .chars()
        .filter(|c| ('\u{2801}'..='\u{28ff}').contains(c))
        .count();
    assert!(braille > 20, "{braille} braille cells:\n{text}");
    update(&mut app, Action::Key(Key("w".into())));
    assert!(!draw(&app).contains("Graph"));
}
