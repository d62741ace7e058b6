//! The jobs pane: every queued, running and recent job with its priority, state, a progress bar (visits
//! done of the target), elapsed time and an estimate of the time left.

use super::clock;
use crate::jobs::{JobKind, JobState};
use crate::tui::app::{App, Expansion};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub struct JobsPane<'a> {
    pub app: &'a App,
}

impl Widget for JobsPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let running = app
            .jobs
            .iter()
            .filter(|j| j.state == JobState::Running)
            .count();
        let queued = app
            .jobs
            .iter()
            .filter(|j| j.state == JobState::Queued)
            .count();
        let expansion = match app.expansion {
            Expansion::Running => "expansion running",
            Expansion::Paused => "expansion paused",
            Expansion::Stopped => "expansion stopped",
        };
        let inner = super::draw_block(
            super::pane_block(
                theme,
                format!(" Jobs · {running} running · {queued} queued · {expansion} "),
            ),
            area,
            buf,
        );
        if app.jobs.is_empty() && app.expansions_done == 0 {
            let hint = "no jobs · space starts expansion · a queues deep analysis of this line";
            Paragraph::new(Line::styled(hint, Style::default().fg(theme.dim))).render(inner, buf);
            return;
        }
        // The last row counts the expansion steps folded out of the list.
        let folded = app.expansions_done > 0;
        let rows = (inner.height as usize).saturating_sub(folded as usize);
        let first = if app.job_cursor >= rows {
            app.job_cursor + 1 - rows
        } else {
            0
        };
        let bar_width = if inner.width >= 100 { 20 } else { 10 };
        let mut lines = Vec::new();
        let order = app.job_order();
        for (i, job) in order
            .iter()
            .map(|&j| &app.jobs[j])
            .enumerate()
            .skip(first)
            .take(rows)
        {
            let what = match &job.kind {
                JobKind::Expand { line, .. } => format!("expand {}", short_line(app, line)),
                JobKind::AnalyzeLine { line } => format!("analyze {}", short_line(app, line)),
                JobKind::Endgame(request) => format!(
                    "endgame {} · {} points",
                    request.method.name(),
                    request.position.region.len()
                ),
            };
            let (state, state_color) = match job.state {
                JobState::Queued => ("queued", theme.dim),
                JobState::Running => ("running", theme.progress),
                JobState::Done => ("done", theme.text),
                JobState::Failed => ("failed", theme.error),
                JobState::Cancelled => ("cancelled", theme.dim),
            };
            let fraction = if job.target_visits == 0 {
                0.0
            } else {
                (job.visits as f64 / job.target_visits as f64).clamp(0.0, 1.0)
            };
            let filled = (fraction * bar_width as f64).round() as usize;
            let bar = format!("{}{}", "█".repeat(filled), "░".repeat(bar_width - filled));
            let elapsed = match (job.started_ms, job.finished_ms) {
                (Some(s), Some(f)) => f.saturating_sub(s),
                (Some(s), None) => app.now_ms.saturating_sub(s),
                _ => 0,
            };
            let eta = if job.state == JobState::Running && fraction > 0.0 && fraction < 1.0 {
                format!(
                    " eta {}",
                    clock((elapsed as f64 * (1.0 - fraction) / fraction) as u64)
                )
            } else {
                String::new()
            };
            let mut style = Style::default();
            if i == app.job_cursor {
                style = style.bg(theme.highlight_bg).add_modifier(Modifier::BOLD);
            }
            let note = if job.note.is_empty() {
                String::new()
            } else {
                format!(" · {}", job.note)
            };
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{:>3} p{:<3}", job.id.0, job.priority.0),
                    style.fg(theme.dim),
                ),
                Span::styled(format!("{state:<9} "), style.fg(state_color)),
                Span::styled(bar, style.fg(theme.progress)),
                Span::styled(
                    format!(
                        " {}/{} {}{eta} {what}{note}",
                        job.visits,
                        job.target_visits,
                        clock(elapsed)
                    ),
                    style.fg(theme.text),
                ),
            ]));
        }
        if folded {
            lines.push(Line::styled(
                format!(
                    "        {} expansions done",
                    super::thousands(app.expansions_done)
                ),
                Style::default().fg(theme.dim),
            ));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

fn short_line(app: &App, line: &[crate::go::Move]) -> String {
    if line.is_empty() {
        return "root".into();
    }
    let text: Vec<String> = line.iter().map(|m| app.screen_text(*m)).collect();
    if text.len() > 6 {
        format!("…{}", text[text.len() - 6..].join(" "))
    } else {
        text.join(" ")
    }
}
