//! The endgame pane, drawn over the book's panes while it is open: the region board on the left, one
//! column per method on the right (two when comparing), each with the figures (temperature, mean,
//! value, classification, best moves), the thermograph and the variation tree.

pub mod board;
pub mod thermograph;
pub mod tree;

use crate::jobs::endgame::Report;
use crate::tui::app::App;
use crate::tui::endgame::{Column, EndgameState, Run, short_name};
use crate::tui::panes::{clock, thousands};
use crate::tui::theme::Theme;
use board::RegionBoard;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};
use thermograph::ThermographPlot;
use tree::TreeView;

pub struct EndgamePane<'a> {
    pub app: &'a App,
    pub state: &'a EndgameState,
}

impl Widget for EndgamePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (app, state) = (self.app, self.state);
        let theme = &app.theme;
        Clear.render(area, buf);
        let answer = state
            .position
            .answer
            .map(|a| format!(" · answer {}", a.mixed()))
            .unwrap_or_default();
        let title = format!(" Endgame · {}{answer} ", short_name(&state.position.name));
        let inner = super::draw_block(bold_block(theme, title).borders(Borders::TOP), area, buf);
        // The board takes what it needs up to about 45% of the width; the columns share the rest.
        let board_w = RegionBoard::width_for(state).min((inner.width as u32 * 45 / 100) as u16);
        let [board, results] =
            Layout::horizontal([Constraint::Length(board_w), Constraint::Min(0)]).areas(inner);
        let focus = state.focus.min(state.columns.len().saturating_sub(1));
        RegionBoard {
            state,
            best: state.columns.get(focus).and_then(Column::report),
            theme,
        }
        .render(board, buf);
        let n = state.columns.len().max(1) as u32;
        let areas = Layout::horizontal((0..n).map(|_| Constraint::Ratio(1, n))).split(results);
        for (i, (column, &rect)) in state.columns.iter().zip(areas.iter()).enumerate() {
            ColumnView {
                column,
                focused: i == focus,
                stale: column.revision != state.revision && column.report().is_some(),
                now_ms: app.now_ms,
                started_ms: column
                    .job
                    .and_then(|id| app.jobs.iter().find(|j| j.id == id))
                    .and_then(|j| j.started_ms),
                searched: column
                    .job
                    .and_then(|id| app.jobs.iter().find(|j| j.id == id))
                    .filter(|j| j.target_visits > 1 && j.visits > 0)
                    .map(|j| (j.visits, j.target_visits)),
                theme,
            }
            .render(rect, buf);
        }
    }
}

struct ColumnView<'a> {
    column: &'a Column,
    focused: bool,
    /// The region changed after this result was computed.
    stale: bool,
    now_ms: u64,
    started_ms: Option<u64>,
    /// While the exact search runs: the positions it has searched and its budget.
    searched: Option<(u64, u64)>,
    theme: &'a Theme,
}

impl ColumnView<'_> {
    /// The line above the figures: where the run stands, or what the result shown is.
    fn status(&self) -> Line<'static> {
        let theme = self.theme;
        let column = self.column;
        let dim = Style::default().fg(theme.dim);
        match &column.run {
            Run::Idle => Line::styled("r runs the analysis · m method · M compare", dim),
            Run::Waiting => Line::styled("queued…", dim),
            Run::Running => {
                let elapsed = self
                    .now_ms
                    .saturating_sub(self.started_ms.unwrap_or(self.now_ms));
                let searched = self.searched.map_or(String::new(), |(n, budget)| {
                    format!(" · {} / {} positions", thousands(n), thousands(budget))
                });
                Line::styled(
                    format!("running {}{searched} · c cancels", clock(elapsed)),
                    Style::default().fg(theme.progress),
                )
            }
            Run::Cancelled => Line::styled("cancelled · r runs again", dim),
            Run::Failed(e) => Line::styled(e.clone(), Style::default().fg(theme.error)),
            // The method changed after this result: it is not the new method's answer.
            Run::Done(r) if r.method != column.method => Line::styled(
                format!("stale: {} result · r runs {}", r.method, column.method),
                Style::default().fg(theme.rank_fair),
            ),
            Run::Done(r) if self.stale => Line::styled(
                format!("{} · region changed since: r re-runs", r.used),
                Style::default().fg(theme.rank_fair),
            ),
            Run::Done(r) => match &r.gave_up {
                Some(why) => Line::styled(
                    format!("{} → {} {why}", r.method, r.used),
                    Style::default().fg(theme.error),
                ),
                // `auto` says which method it chose.
                None if r.used != r.method => Line::styled(
                    format!("{} → {} in {} ms", r.method, r.used, r.elapsed_ms),
                    dim,
                ),
                None => Line::styled(format!("{} in {} ms", r.used, r.elapsed_ms), dim),
            },
        }
    }
}

impl Widget for ColumnView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let column = self.column;
        let border = if self.focused {
            theme.title
        } else {
            theme.border
        };
        let block = bold_block(theme, format!(" {} ", column.method.name()))
            .border_style(Style::default().fg(border));
        let inner = super::draw_block(block, area, buf);
        let dim = Style::default().fg(theme.dim);
        let text = Style::default().fg(theme.text);
        let status = self.status();
        let Some(report) = column.report() else {
            Paragraph::new(status)
                .wrap(Wrap { trim: true })
                .render(inner, buf);
            return;
        };
        let mut lines = vec![status];
        lines.extend(figures(report, theme, text, dim));
        // The analysis's own remarks (positions searched, why `auto` chose what it did), two at most.
        lines.extend(
            report
                .notes
                .iter()
                .take(2)
                .map(|n| Line::styled(n.clone(), dim)),
        );
        let figures_h = (lines.len() as u16).min(inner.height);
        let rest = inner.height - figures_h;
        let plot_h = if rest >= 10 {
            (rest / 2).clamp(5, 12)
        } else {
            rest.min(5)
        };
        let [top, plot, tree_title, tree] = Layout::vertical([
            Constraint::Length(figures_h),
            Constraint::Length(plot_h),
            Constraint::Length(u16::from(rest > plot_h)),
            Constraint::Min(0),
        ])
        .areas(inner);
        Paragraph::new(lines).render(top, buf);
        ThermographPlot::of(report, theme).render(plot, buf);
        buf.set_stringn(
            tree_title.x,
            tree_title.y,
            format!("Tree · {} moves · J/K o O", column.rows().len()),
            tree_title.width as usize,
            dim,
        );
        TreeView {
            column,
            focused: self.focused,
            theme,
        }
        .render(tree, buf);
    }
}

fn figures(report: &Report, theme: &Theme, text: Style, dim: Style) -> Vec<Line<'static>> {
    let value = Style::default()
        .fg(theme.rank_best)
        .add_modifier(Modifier::BOLD);
    let moves = |m: &[String]| {
        if m.is_empty() {
            "-".to_string()
        } else {
            m.join(" ")
        }
    };
    vec![
        Line::from(vec![
            Span::styled("T ", dim),
            Span::styled(report.temperature.mixed(), value),
            Span::styled("  mean ", dim),
            Span::styled(report.mean.mixed(), text),
            Span::styled("  value ", dim),
            Span::styled(report.value.mixed(), text),
        ]),
        Line::styled(report.kind.short(), text),
        Line::from(vec![
            Span::styled("B ", dim),
            Span::styled(
                moves(&report.best_black),
                Style::default().fg(theme.rank_good),
            ),
            Span::styled("  W ", dim),
            Span::styled(
                moves(&report.best_white),
                Style::default().fg(theme.rank_poor),
            ),
        ]),
    ]
}

/// A pane block whose title is bold: the endgame pane's frame and its columns'.
fn bold_block<'a>(theme: &Theme, title: String) -> Block<'a> {
    super::pane_block(theme, title).title_style(
        Style::default()
            .fg(theme.title)
            .add_modifier(Modifier::BOLD),
    )
}
