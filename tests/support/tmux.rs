//! A private tmux server for the end-to-end tests (`#[path]`-included by each test file that drives the
//! workbench in a real terminal). Each file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A private tmux server, killed when the test ends however it ends.
pub struct Tmux {
    pub socket: String,
}

impl Tmux {
    /// Starts the session `wb`, 100x30, running `command` in its shell.
    pub fn start(&self, command: &str) {
        self.run(&[
            "new-session",
            "-d",
            "-s",
            "wb",
            "-x",
            "100",
            "-y",
            "30",
            command,
        ]);
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux must be installed (.ci/test installs it)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        for key in keys {
            self.run(&["send-keys", "-t", "wb", key]);
            // One key at a time, as a person types: each gets its own frame.
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn resize(&self, width: u16, height: u16) {
        self.run(&[
            "resize-window",
            "-t",
            "wb",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-t", "wb", "-p"])
    }

    /// Waits until the screen satisfies `test`; panics with the last screen after `limit`.
    pub fn wait_for(&self, what: &str, limit: Duration, test: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if test(&screen) {
                return screen;
            }
            if start.elapsed() > limit {
                panic!("timed out waiting for {what}; the screen was:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

/// A workbench of its own: configuration and data folders in a temporary folder (`config/config.toml`
/// written from the start), and a private tmux server named `tengen-NAME-PID`.
pub struct Workbench {
    pub dir: tempfile::TempDir,
    pub config: PathBuf,
    pub data: PathBuf,
    pub tmux: Tmux,
}

impl Workbench {
    pub fn new(name: &str, config_toml: &str) -> Workbench {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        let data = dir.path().join("data");
        write(&config.join("config.toml"), config_toml);
        let tmux = Tmux {
            socket: format!("tengen-{name}-{}", std::process::id()),
        };
        Workbench {
            dir,
            config,
            data,
            tmux,
        }
    }

    /// A path inside the temporary folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `BIN ARGS` in the tmux session with these folders; when it ends the shell prints
    /// `EXITED <code>` and keeps the pane open.
    pub fn start(&self, bin: &str, args: &str) {
        let command = format!(
            "TENGEN_CONFIG='{}' TENGEN_DATA='{}' '{bin}' {args}; echo EXITED $?; sleep 60",
            self.config.display(),
            self.data.display(),
        );
        self.tmux.start(&command);
    }

    /// Waits for the program to exit with status 0.
    pub fn wait_for_exit(&self, limit: Duration) {
        self.tmux
            .wait_for("the program to exit", limit, |s| s.contains("EXITED 0"));
    }
}

/// Writes `text` to `path`, making its folder first.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The screen once it has stopped changing: two captures `interval` apart agree (at most `tries` waits).
/// Job feeds and network evaluations keep redrawing for a moment after the last key.
pub fn settled(tmux: &Tmux, interval: Duration, tries: usize) -> String {
    let mut last = tmux.screen();
    for _ in 0..tries {
        std::thread::sleep(interval);
        let now = tmux.screen();
        if now == last {
            break;
        }
        last = now;
    }
    last
}

/// The lines of a screen without trailing blanks or trailing empty lines.
pub fn trimmed(text: &str) -> Vec<String> {
    let lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    lines[..end].to_vec()
}

/// Replays `session` headless with `bin` into `frames` and returns the last frame's text.
pub fn replay_last_frame(bin: &str, session: &std::path::Path, frames: &std::path::Path) -> String {
    let out = Command::new(bin)
        .args([
            "replay",
            session.to_str().unwrap(),
            "--headless",
            "--frames",
            frames.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(frames.join("last.txt")).unwrap()
}
