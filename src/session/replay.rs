//! Replaying a recording: headless into text frames (one file per consumed action), or on screen at a
//! chosen speed.

use super::Record;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::render;
use crate::tui::update::update;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Feeds every record to a fresh app and draws after each; returns the last frame as text.
pub fn frames(records: &[Record], mut on_frame: impl FnMut(usize, &str)) -> String {
    let mut app = App::new();
    let mut last = String::new();
    for (i, record) in records.iter().enumerate() {
        let _effects = update(&mut app, record.action.clone());
        last = frame_text(&app);
        on_frame(i, &last);
    }
    last
}

/// The largest frame a replay draws. A recording is a file like any other: a resize to 65535x65535 in it
/// would otherwise ask for a buffer of four billion cells.
pub const MAX_FRAME: (u16, u16) = (1000, 500);

/// The frame the app shows at its recorded terminal size (at most [`MAX_FRAME`]).
pub fn frame_text(app: &App) -> String {
    let area = Rect::new(
        0,
        0,
        app.width.min(MAX_FRAME.0),
        app.height.min(MAX_FRAME.1),
    );
    let mut buf = Buffer::empty(area);
    render::draw(app, area, &mut buf);
    render::buffer_text(&buf)
}

/// How many frames a headless replay writes unless told otherwise: a recording is a file like any other,
/// and 300,000 recorded keys would otherwise become 300,000 files.
pub const DEFAULT_MAX_FRAMES: usize = 10_000;

/// What [`write_frames`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct FramesWritten {
    /// Frame files written (`frame-000000.txt` on), at most the limit given.
    pub written: usize,
    /// Frames the recording holds (one per record).
    pub total: usize,
    /// `last.txt`: the frame after the last record, written whatever the limit.
    pub last: PathBuf,
}

/// Writes `frame-000000.txt`, … (the first `max_frames` frames) and `last.txt` into `dir`. Each file is
/// written whole or not at all, so a full disk leaves no empty or cut frame.
pub fn write_frames(
    records: &[Record],
    dir: &Path,
    max_frames: usize,
) -> std::io::Result<FramesWritten> {
    std::fs::create_dir_all(dir).map_err(|e| crate::files::error_at(dir, e))?;
    let mut error = None;
    let last = frames(records, |i, text| {
        if error.is_none() && i < max_frames {
            let path = dir.join(format!("frame-{i:06}.txt"));
            error = crate::files::write_whole_unsynced(&path, text.as_bytes()).err();
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    let last_path = dir.join("last.txt");
    crate::files::write_whole(&last_path, last.as_bytes())?;
    Ok(FramesWritten {
        written: records.len().min(max_frames),
        total: records.len(),
        last: last_path,
    })
}

/// The on-screen replay's controls: paused or playing, and how fast.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playback {
    pub speed: f64,
    pub paused: bool,
    /// Records played so far, and in all.
    pub at: usize,
    pub total: usize,
}

/// What a key does to a replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Control {
    /// Space: pause or go on.
    TogglePause,
    /// `.`: play the next record (pausing first).
    Step,
    Faster,
    Slower,
    Quit,
}

impl Control {
    pub fn of_key(key: &str) -> Option<Control> {
        match key {
            "space" => Some(Control::TogglePause),
            "." => Some(Control::Step),
            "+" | "=" | ">" => Some(Control::Faster),
            "-" | "<" => Some(Control::Slower),
            "q" | "ctrl-c" | "esc" => Some(Control::Quit),
            _ => None,
        }
    }
}

/// Speeds are doubled and halved within these bounds.
const SPEEDS: (f64, f64) = (1.0 / 16.0, 256.0);

impl Playback {
    /// Applies a control; returns true when one record should be played now (a step).
    pub fn apply(&mut self, control: Control) -> bool {
        match control {
            Control::TogglePause => self.paused = !self.paused,
            Control::Step => {
                self.paused = true;
                return self.at < self.total;
            }
            Control::Faster => self.speed = (self.speed * 2.0).min(SPEEDS.1),
            Control::Slower => self.speed = (self.speed / 2.0).max(SPEEDS.0),
            Control::Quit => {}
        }
        false
    }

    /// The status line's replay label.
    pub fn label(&self) -> String {
        let state = if self.at >= self.total {
            "end of the recording"
        } else if self.paused {
            "paused"
        } else {
            "playing"
        };
        format!(
            " replaying {}/{} · {state} · {}× · Space pause · . step · + - speed · q quit ",
            self.at,
            self.total,
            format_speed(self.speed)
        )
    }
}

fn format_speed(speed: f64) -> String {
    if speed >= 1.0 {
        format!("{speed}")
    } else {
        format!("1/{}", (1.0 / speed).round())
    }
}

/// Draws the replay label over the right-hand end of the status line (the bottom row).
pub fn paint_label(playback: &Playback, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let label = playback.label();
    let width = (label.chars().count() as u16).min(area.width);
    let x = area.x + area.width - width;
    let y = area.y + area.height - 1;
    let style = ratatui::style::Style::default()
        .add_modifier(ratatui::style::Modifier::REVERSED | ratatui::style::Modifier::BOLD);
    buf.set_stringn(x, y, label, width as usize, style);
}

/// Plays a recording on the terminal, `speed` times as fast as it was recorded. Space pauses, `.` steps
/// one record, `+` and `-` double and halve the speed, `q` or Ctrl-C stops.
pub async fn on_screen(records: Vec<Record>, speed: f64) -> std::io::Result<()> {
    use crossterm::event::{Event, EventStream, KeyEventKind};
    use futures::StreamExt;
    let mut terminal = ratatui::try_init()?;
    let mut app = App::new();
    let mut events = EventStream::new();
    let mut playback = Playback {
        speed,
        paused: false,
        at: 0,
        total: records.len(),
    };
    let draw = |terminal: &mut ratatui::DefaultTerminal, app: &App, playback: &Playback| {
        terminal
            .draw(|f| {
                render::render(app, f);
                paint_label(playback, f.area(), f.buffer_mut());
            })
            .map(|_| ())
    };
    let result: std::io::Result<()> = async {
        let mut previous = 0;
        draw(&mut terminal, &app, &playback)?;
        loop {
            let step = 'wait: {
                let Some(record) = records.get(playback.at) else {
                    break 'wait false;
                };
                let wait = if playback.paused {
                    Duration::from_secs(3600)
                } else {
                    let ms = record.at_ms.saturating_sub(previous) as f64 / playback.speed;
                    Duration::from_millis(ms as u64)
                };
                tokio::select! {
                    _ = tokio::time::sleep(wait) => true,
                    ev = events.next() => {
                        let control = match ev {
                            Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => {
                                crate::tui::runtime::key_text(&k).and_then(|key| Control::of_key(&key.0))
                            }
                            Some(Ok(_)) => None,
                            Some(Err(e)) => return Err(e),
                            None => Some(Control::Quit),
                        };
                        match control {
                            Some(Control::Quit) => return Ok(()),
                            Some(c) => playback.apply(c),
                            None => false,
                        }
                    }
                }
            };
            if let Some(record) = records.get(playback.at).filter(|_| step) {
                previous = record.at_ms;
                playback.at += 1;
                // The replay shows the recorded keys' effects, but draws at the current terminal's size.
                if !matches!(record.action, Action::Resize { .. }) {
                    let _ = update(&mut app, record.action.clone());
                }
            } else if playback.at >= playback.total {
                draw(&mut terminal, &app, &playback)?;
                // The end: wait for q (the other controls do nothing more).
                match events.next().await {
                    Some(Ok(Event::Key(k)))
                        if k.kind == KeyEventKind::Press
                            && crate::tui::runtime::key_text(&k)
                                .and_then(|key| Control::of_key(&key.0))
                                == Some(Control::Quit) =>
                    {
                        return Ok(());
                    }
                    Some(Err(e)) => return Err(e),
                    None => return Ok(()),
                    _ => {}
                }
            }
            draw(&mut terminal, &app, &playback)?;
        }
    }
    .await;
    ratatui::restore();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playback_pauses_steps_and_changes_speed() {
        let mut p = Playback {
            speed: 1.0,
            paused: false,
            at: 0,
            total: 2,
        };
        assert!(!p.apply(Control::of_key("space").unwrap()));
        assert!(p.paused);
        assert!(p.label().contains("replaying 0/2 · paused · 1×"));
        p.apply(Control::of_key("+").unwrap());
        p.apply(Control::of_key("+").unwrap());
        assert_eq!(p.speed, 4.0);
        for _ in 0..10 {
            p.apply(Control::Slower);
        }
        assert_eq!(p.speed, 1.0 / 16.0);
        assert!(p.label().contains("1/16×"));
        assert!(p.apply(Control::of_key(".").unwrap()));
        p.at = 2;
        assert!(!p.apply(Control::Step), "no step past the end");
        assert!(p.label().contains("end of the recording"));
        let area = Rect::new(0, 0, 120, 3);
        let mut buf = Buffer::empty(area);
        paint_label(&p, area, &mut buf);
        let text = crate::tui::render::buffer_text(&buf);
        assert!(
            text.lines().nth(2).unwrap().contains("replaying 2/2"),
            "{text}"
        );
    }
}
