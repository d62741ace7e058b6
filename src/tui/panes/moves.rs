//! The moves table of the current position: rank, move, Black's win rate and score, the loss against the
//! best move, uncertainty, prior, visits, adjusted visits, cost, the child's marks, and the "other moves"
//! row. Rows are tinted by badness; columns drop out, least useful first, when the pane is narrow.

use super::{Badness, compact_count};
use crate::book::view::{BlackValues, NodeView};
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub struct MovesPane<'a> {
    pub app: &'a App,
}

/// A column: header, width, and how to fill it for one row.
struct Column {
    header: &'static str,
    width: usize,
    /// Lower goes first when the pane is too narrow.
    keep: u8,
}

/// The index of the marks column, the last one.
const MARKS: usize = 10;

const COLUMNS: &[Column] = &[
    Column {
        header: "#",
        width: 3,
        keep: 9,
    },
    Column {
        header: "Move",
        width: 5,
        keep: 9,
    },
    Column {
        header: "B win%",
        width: 7,
        keep: 9,
    },
    Column {
        header: "B score",
        width: 8,
        keep: 9,
    },
    Column {
        header: "Δscore",
        width: 7,
        keep: 8,
    },
    Column {
        header: "±win",
        width: 6,
        keep: 2,
    },
    Column {
        header: "Prior",
        width: 7,
        keep: 6,
    },
    Column {
        header: "Visits",
        width: 8,
        keep: 7,
    },
    Column {
        header: "AdjVis",
        width: 8,
        keep: 1,
    },
    Column {
        header: "Cost",
        width: 6,
        keep: 3,
    },
    Column {
        header: "Marks",
        width: 10,
        keep: 5,
    },
];

struct Row {
    cells: Vec<String>,
    style: Style,
}

impl Widget for MovesPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let node = app.current();
        let title = match node {
            Some(n) => format!(
                " Moves · {} in book · {} visits ",
                n.edges.len(),
                compact_count(n.visits)
            ),
            None => " Moves ".into(),
        };
        let inner = super::draw_block(super::pane_block(theme, title), area, buf);
        let Some(node) = node else { return };

        let shown = visible_columns(inner.width as usize);
        let rows = rows(app, node);
        let header: Vec<Span> = shown
            .iter()
            .map(|&c| {
                Span::styled(
                    pad(COLUMNS[c].header, COLUMNS[c].width, c),
                    Style::default().fg(theme.title),
                )
            })
            .collect();
        let mut lines = vec![Line::from(header)];
        // The marks (the last column) get whatever room the others leave, so `V1000 K3` shows whole.
        let used: usize = shown
            .iter()
            .filter(|&&c| c != MARKS)
            .map(|&c| COLUMNS[c].width + 1)
            .sum();
        let width_of = |c: usize| {
            if c == MARKS {
                (inner.width as usize)
                    .saturating_sub(used + 1)
                    .max(COLUMNS[c].width)
            } else {
                COLUMNS[c].width
            }
        };
        let visible = inner.height.saturating_sub(1) as usize;
        let first = first_row(app.cursor, inner.height);
        for row in rows.iter().skip(first).take(visible) {
            let spans: Vec<Span> = shown
                .iter()
                .map(|&c| Span::styled(pad(&row.cells[c], width_of(c), c), row.style))
                .collect();
            lines.push(Line::from(spans));
        }
        if node.edges.is_empty() && node.other.is_none() {
            lines.push(Line::styled(
                "  nothing known about this position yet",
                Style::default().fg(theme.dim),
            ));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// The table's rows: the book's moves best first, then the "other moves" row.
fn rows(app: &App, node: &NodeView) -> Vec<Row> {
    let theme = &app.theme;
    let best = node
        .edges
        .first()
        .map(|e| e.values)
        .or(node.other.map(|o| o.values))
        .unwrap_or_default();
    let mut rows = Vec::new();
    for (i, edge) in node.edges.iter().enumerate() {
        let child = app.book.as_ref().and_then(|b| b.node(edge.child));
        let marks = child
            .map(|c| {
                c.marks
                    .iter()
                    .map(|m| m.short())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        let compared = app
            .compared
            .as_ref()
            .is_some_and(|set| set.contains(&edge.child));
        let marks = [
            (edge.games > 0).then(|| format!("{}g", compact_count(edge.games as f64))),
            compared.then(|| "≠".to_string()),
            (!marks.is_empty()).then_some(marks),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        let transposed = if child.is_some_and(|c| c.is_transposition()) {
            "⇄"
        } else {
            ""
        };
        let badness = Badness::of(&edge.values, &best, node.to_move);
        let mut style = Style::default().fg(badness.color(theme));
        if i == app.cursor {
            style = style.bg(theme.highlight_bg).add_modifier(Modifier::BOLD);
        }
        let mv = app.screen_text(app.edge_move_in_root(edge));
        rows.push(Row {
            cells: value_cells(
                format!("{}", i + 1),
                format!("{mv}{transposed}"),
                &edge.values,
                &best,
                node.to_move,
                edge.prior,
                edge.visits,
                edge.adjusted_visits,
                edge.cost.map(|c| node.path_cost + c),
                marks,
            ),
            style,
        });
    }
    if let Some(other) = node.other {
        let style = Style::default().fg(theme.dim);
        let marks = node
            .marks
            .iter()
            .map(|m| m.short())
            .collect::<Vec<_>>()
            .join(" ");
        rows.push(Row {
            cells: value_cells(
                "".into(),
                "other".into(),
                &other.values,
                &best,
                node.to_move,
                other.max_prior,
                other.visits,
                other.visits,
                node.expansion_cost.map(|c| node.path_cost + c),
                marks,
            ),
            style,
        });
    }
    rows
}

/// The first move row shown in a table of `inner_height` rows (a header, then the moves): the
/// highlighted row stays in view when the table is taller than the pane. The mouse reads rows with it.
pub fn first_row(cursor: usize, inner_height: u16) -> usize {
    let visible = inner_height.saturating_sub(1) as usize;
    if cursor >= visible {
        cursor + 1 - visible
    } else {
        0
    }
}

#[allow(clippy::too_many_arguments)]
fn value_cells(
    rank: String,
    mv: String,
    v: &BlackValues,
    best: &BlackValues,
    to_move: crate::go::Color,
    prior: f64,
    visits: f64,
    adjusted: f64,
    cost: Option<f64>,
    marks: String,
) -> Vec<String> {
    let sign = if to_move == crate::go::Color::Black {
        1.0
    } else {
        -1.0
    };
    let delta = sign * (v.score - best.score);
    vec![
        rank,
        mv,
        format!("{:.1}", v.winrate * 100.0),
        format!("{:+.2}", v.score),
        if delta.abs() < 0.005 {
            "0.00".into()
        } else {
            format!("{delta:+.2}")
        },
        if v.winrate_uncertainty > 0.0 {
            format!("{:.1}", v.winrate_uncertainty * 100.0)
        } else {
            "—".into()
        },
        format!("{:.2}%", prior * 100.0),
        compact_count(visits),
        compact_count(adjusted),
        cost.map_or("—".into(), cost_text),
        marks,
    ]
}

/// A row's cost: what expanding along it costs from the root, which the book expands cheapest first. A
/// VISITS or BRANCH mark (or a bonus of that size) subtracts hundreds to put a node ahead of everything;
/// such a number means "next", not a cost, so it reads `forced`.
pub fn cost_text(cost: f64) -> String {
    if cost < FORCED_BELOW {
        "forced".into()
    } else {
        format!("{cost:.2}")
    }
}

/// Costs without a forcing mark stay well above this (the marks subtract 200, 500 or 700).
const FORCED_BELOW: f64 = -100.0;

/// Column indices that fit `width`, in table order.
fn visible_columns(width: usize) -> Vec<usize> {
    let mut shown: Vec<usize> = (0..COLUMNS.len()).collect();
    let total = |s: &[usize]| s.iter().map(|&c| COLUMNS[c].width + 1).sum::<usize>();
    while total(&shown) > width && shown.len() > 2 {
        let drop = shown
            .iter()
            .copied()
            .min_by_key(|&c| (COLUMNS[c].keep, usize::MAX - c))
            .unwrap_or(0);
        shown.retain(|&c| c != drop);
    }
    shown
}

/// Text columns to the left, numbers to the right, one space between columns.
fn pad(text: &str, width: usize, column: usize) -> String {
    let cut: String = text.chars().take(width).collect();
    if column == 1 || column == MARKS {
        format!("{cut:<width$} ")
    } else {
        format!("{cut:>width$} ")
    }
}
