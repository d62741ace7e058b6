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

/// Plays a recording on the terminal, `speed` times as fast as it was recorded; `q` or Ctrl-C stops.
pub async fn on_screen(records: Vec<Record>, speed: f64) -> std::io::Result<()> {
    use crossterm::event::{Event, EventStream, KeyCode, KeyEventKind};
    use futures::StreamExt;
    let mut terminal = ratatui::try_init()?;
    let mut app = App::new();
    let mut events = EventStream::new();
    let mut previous = 0;
    let result: std::io::Result<()> = async {
        for record in records {
            let wait = record.at_ms.saturating_sub(previous) as f64 / speed.max(0.001);
            previous = record.at_ms;
            let sleep = tokio::time::sleep(Duration::from_millis(wait as u64));
            tokio::pin!(sleep);
            loop {
                tokio::select! {
                    _ = &mut sleep => break,
                    ev = events.next() => if let Some(Ok(Event::Key(k))) = ev
                        && k.kind == KeyEventKind::Press
                        && matches!(k.code, KeyCode::Char('q') | KeyCode::Char('c'))
                    {
                        return Ok(());
                    },
                }
            }
            // The replay shows the recorded keys' effects, but draws at the current terminal's size.
            if !matches!(record.action, Action::Resize { .. }) {
                let _ = update(&mut app, record.action);
            }
            terminal.draw(|f| render::render(&app, f))?;
        }
        app.status.text = "end of the recording · q quits".into();
        app.status.is_error = false;
        terminal.draw(|f| render::render(&app, f))?;
        while let Some(ev) = events.next().await {
            if let Ok(Event::Key(k)) = ev
                && k.kind == KeyEventKind::Press
            {
                break;
            }
        }
        Ok(())
    }
    .await;
    ratatui::restore();
    result
}
