//! The workbench under abuse, through a real terminal (tmux): a window shrunk to 20x10 and grown back, and
//! a burst of 10,000 keys. It keeps drawing, answers the next key, and quits cleanly.

use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_tengen");

#[path = "support/tmux.rs"]
mod tmux;
use tmux::Workbench;

#[test]
fn survives_a_20x10_terminal_and_a_burst_of_ten_thousand_keys() {
    let wb = Workbench::new("faults", "record_sessions = false\n");
    wb.start(BIN, "");
    let tmux = &wb.tmux;
    tmux.wait_for("the default book", Duration::from_secs(30), |s| {
        s.contains("146 positions")
    });

    // Too small for the layout: whatever it draws, it stays up, and comes back whole.
    tmux.resize(20, 10);
    tmux.wait_for("a 20x10 screen", Duration::from_secs(10), |s| {
        s.lines().count() <= 10 && !s.contains("EXITED")
    });
    tmux.resize(1, 1);
    std::thread::sleep(Duration::from_millis(300));
    tmux.resize(100, 30);
    tmux.wait_for("the full layout again", Duration::from_secs(10), |s| {
        s.contains("146 positions")
    });

    // Navigation keys only (no quit, no `:` line, no expansion): down, up, into, parent, siblings, rotate.
    let pattern = "jjlkhJlKhljjrhhkl";
    let burst: Vec<char> = pattern.chars().cycle().take(10_000).collect();
    // Written as ten writes of 1,000 keys: one 10,000-key `send-keys` stalls inside tmux 3.3a once the
    // pane's 4 KiB input buffer is full, until some other input arrives (the workbench sits idle, waiting).
    for chunk in burst.chunks(1000) {
        let chunk: String = chunk.iter().collect();
        tmux.run(&["send-keys", "-t", "wb", "-l", &chunk]);
        std::thread::sleep(Duration::from_millis(200));
    }
    // A key after the burst is answered once the burst has been consumed: `T` switches to the light theme.
    tmux.run(&["send-keys", "-t", "wb", "-l", "T"]);
    let screen = tmux.wait_for("the key after the burst", Duration::from_secs(120), |s| {
        s.contains("theme light") || s.contains("EXITED")
    });
    assert!(!screen.contains("EXITED"), "it died:\n{screen}");

    tmux.run(&["send-keys", "-t", "wb", "q"]);
    let screen = tmux.wait_for("the program to exit", Duration::from_secs(30), |s| {
        s.contains("EXITED")
    });
    assert!(screen.contains("EXITED 0"), "a clean exit:\n{screen}");
}
