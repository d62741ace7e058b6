//! A thermograph drawn in the terminal (ratatui's canvas, braille dots): temperature up, value across
//! with Black's side (larger values) on the left as CGT books draw it, the left wall, the right wall,
//! the mast at the mean from the temperature up, and a dotted line at t = 0. The bottom row labels the
//! value axis.

use crate::endgame::cgt::Rational;
use crate::jobs::endgame::Report;
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::widgets::Widget;
use ratatui::widgets::canvas::{Canvas, Line};

pub struct ThermographPlot<'a> {
    pub left: &'a [(Rational, Rational)],
    pub right: &'a [(Rational, Rational)],
    pub temperature: Rational,
    pub mean: Rational,
    pub theme: &'a Theme,
}

impl<'a> ThermographPlot<'a> {
    pub fn of(report: &'a Report, theme: &'a Theme) -> ThermographPlot<'a> {
        ThermographPlot {
            left: &report.left_wall,
            right: &report.right_wall,
            temperature: report.temperature,
            mean: report.mean,
            theme,
        }
    }

    fn points(wall: &[(Rational, Rational)]) -> Vec<(f64, f64)> {
        wall.iter().map(|(t, v)| (t.to_f64(), v.to_f64())).collect()
    }
}

/// The `(t, value)` segments of a wall, with the mast from its last breakpoint up to `top`.
fn segments(points: &[(f64, f64)], top: f64) -> Vec<((f64, f64), (f64, f64))> {
    let mut out: Vec<_> = points.windows(2).map(|w| (w[0], w[1])).collect();
    if let Some(&(t, v)) = points.last()
        && t < top
    {
        out.push(((t, v), (top, v)));
    }
    out
}

impl Widget for ThermographPlot<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.height < 3 || area.width < 8 {
            return;
        }
        let theme = self.theme;
        let left = ThermographPlot::points(self.left);
        let right = ThermographPlot::points(self.right);
        let t = self.temperature.to_f64();
        // Room above the temperature for the mast to read as one.
        // (Numbers have temperature −1 or below 0; t = 0 stays inside the plot.)
        let top = (t + (t.abs() * 0.5).max(1.0)).max(1.0);
        let values = left.iter().chain(&right).map(|p| p.1);
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let (lo, hi) = if lo.is_finite() {
            (lo, hi)
        } else {
            let m = self.mean.to_f64();
            (m, m)
        };
        let pad = ((hi - lo) * 0.1).max(0.5);
        let plot = Rect {
            height: area.height - 1,
            ..area
        };
        let (left_segments, right_segments) = (segments(&left, top), segments(&right, top));
        let mast_color = theme.rank_best;
        Canvas::default()
            .marker(Marker::Braille)
            // Black (Left) is on the left: the value axis runs from high to low, so x is −value.
            .x_bounds([-(hi + pad), -(lo - pad)])
            .y_bounds([-1.0, top])
            .paint(|ctx| {
                ctx.draw(&Line {
                    x1: -(hi + pad),
                    y1: 0.0,
                    x2: -(lo - pad),
                    y2: 0.0,
                    color: theme.dim,
                });
                for (segs, color) in [
                    (&left_segments, theme.rank_good),
                    (&right_segments, theme.rank_poor),
                ] {
                    for &((t1, v1), (t2, v2)) in segs.iter() {
                        // The vertical part above the temperature is the mast, drawn in its own colour.
                        let color = if t1 >= t && v1 == v2 {
                            mast_color
                        } else {
                            color
                        };
                        ctx.draw(&Line {
                            x1: -v1,
                            y1: t1,
                            x2: -v2,
                            y2: t2,
                            color,
                        });
                    }
                }
            })
            .render(plot, buf);
        let axis = area.y + area.height - 1;
        let label = |f: f64| {
            // Axis ends are padded values: a binary fraction keeps them short.
            Rational::new((f * 4.0).round() as i64, 4).mixed()
        };
        let style = Style::default().fg(theme.dim);
        let high = format!("B {}", label(hi));
        let low = format!("{} W", label(lo));
        buf.set_stringn(area.x, axis, &high, area.width as usize, style);
        let low_width = low.chars().count() as u16;
        if area.width > low_width + high.chars().count() as u16 {
            buf.set_stringn(
                area.x + area.width - low_width,
                axis,
                &low,
                low_width as usize,
                style,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::cgt::{Game, Thermograph};

    type Walls = Vec<(Rational, Rational)>;

    fn walls(game: &Game) -> (Walls, Walls, Thermograph) {
        let th = Thermograph::of(game);
        let conv = |w: &crate::endgame::cgt::Wall| w.breakpoints().to_vec();
        (conv(&th.left), conv(&th.right), th)
    }

    /// `game`'s thermograph drawn into a fresh buffer of `area`.
    fn rendered(game: &Game, theme: &Theme, area: Rect) -> Buffer {
        let (left, right, th) = walls(game);
        let plot = ThermographPlot {
            left: &left,
            right: &right,
            temperature: th.temperature,
            mean: th.mean,
            theme,
        };
        let mut buf = Buffer::empty(area);
        plot.render(area, &mut buf);
        buf
    }

    #[test]
    fn a_gote_of_two_draws_two_walls_meeting_at_the_mast() {
        // {2 | -2}: temperature 2, mean 0.
        let game = Game::new(vec![Game::number(2)], vec![Game::number(-2)]);
        let theme = Theme::dark();
        let area = Rect::new(0, 0, 20, 6);
        let buf = rendered(&game, &theme, area);
        let text: Vec<String> = (0..area.height)
            .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect())
            .collect();
        // Walls from 3 and -3 at t = -1 (left and right of the t = 0 line), meeting at 0 at t = 2.
        let expected = [
            "          ⡇         ",
            "        ⢀⡠⠣⡀        ",
            "      ⢀⠔⠁  ⠈⠑⢄      ",
            "⠤⠤⠤⠤⡤⠮⠥⠤⠤⠤⠤⠤⠤⠤⠵⢤⡤⠤⠤⠤",
            " ⢀⠔⠊            ⠈⠢⡀ ",
            "B 3             -3 W",
        ];
        assert_eq!(text, expected, "\n{}", text.join("\n"));
        // The mast is in the mast colour, the walls in theirs.
        let mast = (0..area.width)
            .find(|&x| buf[(x, 0)].symbol() != " ")
            .unwrap();
        assert_eq!(buf[(mast, 0)].fg, theme.rank_best);
    }

    #[test]
    fn a_number_is_a_mast_from_the_bottom() {
        let game = Game::number(3);
        let theme = Theme::dark();
        let area = Rect::new(0, 0, 12, 5);
        let buf = rendered(&game, &theme, area);
        // One column of braille from the top row to the row above the axis labels, t = 0 crossing it.
        let columns: Vec<u16> = (0..area.width)
            .filter(|&x| buf[(x, 0)].symbol() != " ")
            .collect();
        assert_eq!(columns.len(), 1, "one mast column");
        assert!(buf[(columns[0], 3)].symbol() != " ");
        assert_eq!(buf[(columns[0], 0)].fg, theme.rank_best);
    }
}
