//! The annotated game (`:annotate FILE.sgf`): one row per move while the game stays in the book and one
//! for the move that leaves it, with the move played, the book's preference, Black's win rate and score
//! after the move, and what it lost (coloured like the board's rank numbers). The current move of the
//! game is highlighted; `.` and `,` step through it and the board follows the book walk.

use super::Badness;
use crate::book::view::BlackValues;
use crate::records::annotate::MoveNote;
use crate::tui::annotation::Annotation;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

pub struct AnnotatePane<'a> {
    pub app: &'a App,
    pub game: &'a Annotation,
}

impl AnnotatePane<'_> {
    /// Where the pane goes: the lower half of the right-hand column, over the jobs, leaving the top of
    /// the moves table (the book's view of the current position) in sight.
    pub fn area(main: Rect, board_width: u16) -> Rect {
        let x = main.x + board_width.min(main.width);
        let top = main.y + main.height / 2;
        Rect::new(
            x,
            top,
            main.right().saturating_sub(x),
            main.bottom().saturating_sub(top),
        )
    }
}

impl Widget for AnnotatePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (app, game) = (self.app, self.game);
        let theme = &app.theme;
        let name = std::path::Path::new(&game.path)
            .file_name()
            .map_or(game.path.clone(), |n| n.to_string_lossy().into_owned());
        let left = match game.left_book_at() {
            Some(n) => format!(" · leaves the book at {n}"),
            None => String::new(),
        };
        let title = format!(
            " Game {name} · move {}/{}{left} ",
            game.at,
            game.moves.len()
        );
        Clear.render(area, buf);
        let inner = super::draw_block(super::pane_block(theme, title), area, buf);
        let dim = Style::default().fg(theme.dim);
        let mut lines = vec![Line::styled(
            format!(
                "{:>4} {:<6} {:<5} {:>6} {:>7} {:>5}  {}",
                "#", "played", "book", "B win%", "B score", "loss", "note"
            ),
            dim,
        )];
        let rows = inner.height.saturating_sub(1) as usize;
        let extra = usize::from(game.moves.len() > game.notes.len());
        let total = game.notes.len() + extra;
        // Keep the current move in sight, a little below the top when the list scrolls.
        let current = game.at.saturating_sub(1).min(total.saturating_sub(1));
        let first = current
            .saturating_sub(rows / 3)
            .min(total.saturating_sub(rows));
        for i in (first..total).take(rows) {
            let highlight = game.at > 0 && i == current;
            let line = match game.notes.get(i) {
                Some(note) => note_line(app, i + 1, note),
                None => Line::styled(
                    format!(
                        "{:>4} {} more moves, out of the book",
                        "…",
                        game.moves.len() - game.notes.len()
                    ),
                    dim,
                ),
            };
            lines.push(if highlight {
                line.style(Style::default().bg(theme.highlight_bg))
            } else {
                line
            });
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

fn note_line(app: &App, number: usize, note: &MoveNote) -> Line<'static> {
    let theme = &app.theme;
    let values = |winrate, score| BlackValues {
        winrate,
        score,
        ..Default::default()
    };
    let badness = Badness::of(
        &values(note.played_black_winrate, note.played_black_score),
        &values(note.best_black_winrate, note.best_black_score),
        note.color,
    );
    let best = note.book_best.map_or("-".into(), |m| app.screen_text(m));
    let what = if note.in_book {
        Span::styled("in the book", Style::default().fg(theme.dim))
    } else {
        Span::styled("left the book", Style::default().fg(theme.error))
    };
    Line::from(vec![
        Span::raw(format!(
            "{number:>4} {:<6} {best:<5} {:>6.1} {:>+7.1} ",
            format!("{} {}", note.color.letter(), app.screen_text(note.played)),
            note.played_black_winrate * 100.0,
            note.played_black_score,
        )),
        Span::styled(
            format!("{:>5.1}", note.score_loss),
            Style::default().fg(badness.color(theme)),
        ),
        Span::raw("  "),
        what,
    ])
}
