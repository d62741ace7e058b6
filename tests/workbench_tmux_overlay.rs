//! End to end, through a real terminal: the ownership and policy overlays from the shipped network show on
//! the board, mouse clicks (SGR mouse reports typed into the pane) walk into a row of the moves table and
//! into a book move on the board, and the recording of it all replays to the frame tmux captured. With
//! an engine that has no network, the overlay says it is unavailable.

use std::path::{Path, PathBuf};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_tengen");

#[path = "support/tmux.rs"]
mod tmux;
use tmux::{Tmux, trimmed};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A left click at (column, row), 0-based, as the terminal reports it to a program that asked for SGR
/// mouse reports: press, then release.
fn click(tmux: &Tmux, column: usize, row: usize) {
    let (x, y) = (column + 1, row + 1);
    for report in [format!("\x1b[<0;{x};{y}M"), format!("\x1b[<0;{x};{y}m")] {
        tmux.run(&["send-keys", "-t", "wb", "-l", &report]);
    }
    std::thread::sleep(Duration::from_millis(150));
}

/// The screen cell (column, row) where the moves table's row `rank` shows its move, and the move.
fn table_row(screen: &str, rank: &str) -> Option<(usize, usize, String)> {
    screen.lines().enumerate().find_map(|(y, line)| {
        let cells: Vec<&str> = line.split('│').collect();
        // The moves table is the second pane on the line: board | moves.
        let cell = cells.get(3)?;
        let mut words = cell.split_whitespace();
        (words.next()? == rank).then_some(())?;
        let mv = words.next()?.trim_end_matches('⇄').to_string();
        let column = line.find(cell)?;
        let column = line[..column].chars().count() + cell.find(&mv)?;
        Some((column, y, mv))
    })
}

/// The board's rows (7x7: the 7 lines after the column letters), as (row, text).
fn board_rows(screen: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.contains("A B C D E F G"))
        .expect("the board's column letters");
    (top + 1..top + 8)
        .map(|y| (y, lines[y].chars().take(19).collect()))
        .collect()
}

fn start(tmux: &Tmux, dir: &Path, engine: Option<&str>, session: Option<&Path>) {
    let config = dir.join("config");
    let data = dir.join("data");
    write(&config.join("config.toml"), "theme = \"dark\"\n");
    let engine = engine.map(|e| format!(" --engine {e}")).unwrap_or_default();
    let record = session.map_or(" --no-record".to_string(), |s| {
        format!(" --record '{}'", s.display())
    });
    let command = format!(
        "TENGEN_CONFIG='{}' TENGEN_DATA='{}' '{BIN}' open{engine}{record}; echo EXITED $?; sleep 60",
        config.display(),
        data.display(),
    );
    tmux.start(&command);
    tmux.wait_for("the default book", Duration::from_secs(60), |s| {
        s.contains("Moves · 3 in book")
    });
}

#[test]
fn overlays_and_clicks_show_on_screen_and_replay_to_the_same_frame() {
    let dir = tempfile::tempdir().unwrap();
    let session: PathBuf = dir.path().join("session.tengen-session");
    let tmux = Tmux {
        socket: format!("tengen-e2e-overlay-{}", std::process::id()),
    };
    // The default engine: the shipped network.
    start(&tmux, dir.path(), None, Some(&session));

    tmux.keys(&["o"]);
    let screen = tmux.wait_for("the ownership overlay", Duration::from_secs(60), |s| {
        s.contains("· ownership ·")
    });
    let squares: usize = board_rows(&screen)
        .iter()
        .map(|(_, r)| r.chars().filter(|c| "■□▪▫".contains(*c)).count())
        .sum();
    assert!(squares > 0, "no ownership drawn:\n{screen}");

    tmux.keys(&[":", "overlay policy", "Enter"]);
    let screen = tmux.wait_for("the policy overlay", Duration::from_secs(30), |s| {
        s.contains("· policy ·")
    });
    let numbers: usize = board_rows(&screen)
        .iter()
        .map(|(_, r)| r.chars().skip(4).filter(|c| c.is_ascii_digit()).count())
        .sum();
    assert!(numbers > 0, "no policy drawn:\n{screen}");

    // A click on the table's second row walks into that move.
    let (x, y, second) = table_row(&screen, "2").expect("a second book move");
    click(&tmux, x, y);
    tmux.wait_for(
        "the clicked move on the line",
        Duration::from_secs(10),
        |s| s.contains(&format!("root 1.{second}")),
    );
    // Ownership again, for the new position; then a click on the board's best reply (rank 1).
    tmux.keys(&[":", "overlay ownership", "Enter"]);
    let screen = tmux.wait_for("ownership after the click", Duration::from_secs(30), |s| {
        s.contains("· ownership ·")
    });
    let (_, _, reply) = table_row(&screen, "1").expect("a reply in the book");
    let (y, row) = board_rows(&screen)
        .into_iter()
        .find(|(_, r)| r.chars().skip(4).any(|c| c == '1'))
        .expect("rank 1 on the board");
    let x = row.chars().skip(4).position(|c| c == '1').unwrap() + 4;
    click(&tmux, x, y);
    tmux.wait_for("the reply on the line", Duration::from_secs(10), |s| {
        s.contains(&format!("1.{second} 2.{reply}")) && s.contains("· ownership ·")
    });
    // The frame to compare is one the evaluations and the job feed have settled on.
    let last = tmux::settled(&tmux, Duration::from_millis(1000), 10);
    tmux.keys(&["q"]);
    tmux.wait_for("the program to exit", Duration::from_secs(10), |s| {
        s.contains("EXITED 0")
    });

    let replayed = tmux::replay_last_frame(BIN, &session, &dir.path().join("frames"));
    assert_eq!(
        trimmed(&replayed),
        trimmed(&last),
        "replayed:\n{replayed}\ncaptured:\n{last}"
    );
}

#[test]
fn an_engine_without_a_network_says_the_overlay_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux {
        socket: format!("tengen-e2e-overlay-off-{}", std::process::id()),
    };
    start(&tmux, dir.path(), Some("rollout"), None);
    tmux.keys(&["o"]);
    let screen = tmux.wait_for("the overlay's refusal", Duration::from_secs(10), |s| {
        s.contains("overlay unavailable")
    });
    assert!(screen.contains("runs no network"), "{screen}");
    assert!(!screen.contains("· ownership"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("the program to exit", Duration::from_secs(10), |s| {
        s.contains("EXITED 0")
    });
}
