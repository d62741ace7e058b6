//! `tengen replay FILE [--speed X] [--headless --frames DIR [--max-frames N]]`: play a recorded session back.

use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use tengen::session::{self, replay};

#[derive(Args)]
pub struct ReplayArgs {
    /// A session recording (sessions are in the data directory's `sessions/`)
    pub file: PathBuf,
    /// Playback speed: 2 plays twice as fast as recorded
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Don't draw on the terminal: write every frame as text (needs --frames)
    #[arg(long, requires = "frames")]
    pub headless: bool,
    /// Where headless replay writes `frame-NNNNNN.txt` and `last.txt`
    #[arg(long, value_name = "DIR")]
    pub frames: Option<PathBuf>,
    /// Write at most N frame files (`last.txt` always shows the end of the recording)
    #[arg(long, value_name = "N", default_value_t = replay::DEFAULT_MAX_FRAMES)]
    pub max_frames: usize,
}

pub fn run(args: ReplayArgs) -> Result<ExitCode> {
    if args.speed.is_nan() || args.speed <= 0.0 {
        bail!("--speed must be above 0 (got {})", args.speed);
    }
    let records = session::read(&args.file)?;
    match (args.headless, &args.frames) {
        (true, Some(dir)) => {
            let done = replay::write_frames(&records, dir, args.max_frames)?;
            if done.written < done.total {
                eprintln!(
                    "note: the recording has {} frames; the first {} were written (--max-frames raises the limit)",
                    done.total, done.written
                );
            }
            println!(
                "{} frames written; the last is {}",
                done.written,
                done.last.display()
            );
        }
        _ => {
            let rt = super::args::runtime(None)?;
            rt.block_on(replay::on_screen(records, args.speed))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
