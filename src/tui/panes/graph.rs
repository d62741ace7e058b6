//! The winrate and score graph along the current line (`w`): Black's win rate and Black's score at each
//! position from the root to here, then on along the book's best moves, with the current position marked.

use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Chart, Clear, Dataset, GraphType, Widget};

/// How many moves past the current position the graph follows the best line.
const AHEAD: usize = 20;

pub struct GraphPane<'a> {
    pub app: &'a App,
}

/// Black's (win rate %, score) at each position of the line and its best continuation, and how many of
/// them are the line itself.
pub fn series(app: &App) -> (Vec<(f64, f64)>, usize) {
    let Some(book) = &app.book else {
        return (Vec::new(), 0);
    };
    let mut out: Vec<(f64, f64)> = app
        .path
        .iter()
        .filter_map(|s| book.node(s.node))
        .map(|n| (n.values.winrate * 100.0, n.values.score))
        .collect();
    let walked = out.len();
    let mut node = app.current();
    for _ in 0..AHEAD {
        let Some(best) = node.and_then(|n| n.edges.first()) else {
            break;
        };
        node = book.node(best.child);
        if let Some(n) = node {
            out.push((n.values.winrate * 100.0, n.values.score));
        }
    }
    (out, walked)
}

impl Widget for GraphPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        Clear.render(area, buf);
        let inner = super::draw_block(
            super::pane_block(
                theme,
                " Graph · B win% and B score along the line, then the best moves · w hides ",
            ),
            area,
            buf,
        );
        let (points, walked) = series(app);
        if points.is_empty() {
            return;
        }
        let last = (points.len().max(2) - 1) as f64;
        let here = walked.saturating_sub(1) as f64;
        let winrate: Vec<(f64, f64)> = points
            .iter()
            .enumerate()
            .map(|(i, p)| (i as f64, p.0))
            .collect();
        let score: Vec<(f64, f64)> = points
            .iter()
            .enumerate()
            .map(|(i, p)| (i as f64, p.1))
            .collect();
        let reach = score.iter().map(|p| p.1.abs()).fold(1.0, f64::max).ceil();
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(inner);
        let wr_at = winrate.get(here as usize).copied().unwrap_or((0.0, 50.0));
        let sc_at = score.get(here as usize).copied().unwrap_or((0.0, 0.0));
        draw(
            Chart::new(vec![
                Dataset::default()
                    .name("B win%")
                    .marker(Marker::Braille)
                    .graph_type(GraphType::Line)
                    .style(Style::default().fg(theme.rank_best))
                    .data(&winrate),
                Dataset::default()
                    .marker(Marker::Block)
                    .graph_type(GraphType::Scatter)
                    .style(Style::default().fg(theme.last_move))
                    .data(std::slice::from_ref(&wr_at)),
            ]),
            [0.0, last],
            [0.0, 100.0],
            ["0%".into(), "100%".into()],
            theme,
            top,
            buf,
        );
        draw(
            Chart::new(vec![
                Dataset::default()
                    .name("B score")
                    .marker(Marker::Braille)
                    .graph_type(GraphType::Line)
                    .style(Style::default().fg(theme.rank_fair))
                    .data(&score),
                Dataset::default()
                    .marker(Marker::Block)
                    .graph_type(GraphType::Scatter)
                    .style(Style::default().fg(theme.last_move))
                    .data(std::slice::from_ref(&sc_at)),
            ]),
            [0.0, last],
            [-reach, reach],
            [format!("{:+}", -reach), format!("{reach:+}")],
            theme,
            bottom,
            buf,
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn draw(
    chart: Chart,
    x: [f64; 2],
    y: [f64; 2],
    labels: [String; 2],
    theme: &crate::tui::theme::Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    chart
        .x_axis(Axis::default().bounds(x))
        .y_axis(
            Axis::default()
                .bounds(y)
                .labels(labels.map(|l| Span::styled(l, Style::default().fg(theme.dim)))),
        )
        .render(area, buf);
}
