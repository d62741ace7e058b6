//! End to end, through a real terminal: the workbench runs in tmux on the default book with the default
//! engine (the shipped network); the test walks three moves, marks the position, starts expansion, waits
//! for a job to finish and a new move to appear, stops, quits, then replays the recording headless and
//! compares the last frame with the screen tmux captured. Other tests grow the default book for a while
//! and check its root, and ask before growing it with rollout.

use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tengen");

#[path = "support/tmux.rs"]
mod tmux;
use tmux::{Tmux, Workbench, trimmed, write};

/// "Moves · N in book" of the current position.
fn moves_in_book(screen: &str) -> Option<u32> {
    let at = screen.find("Moves · ")? + "Moves · ".len();
    screen[at..].split_whitespace().next()?.parse().ok()
}

/// The first row of the moves table: the move, Black's win rate in percent and Black's score.
fn top_row(screen: &str) -> Option<(String, f64, f64)> {
    screen.lines().find_map(|line| {
        line.split('│').find_map(|cell| {
            let mut words = cell.split_whitespace();
            if words.next()? != "1" {
                return None;
            }
            let mv = words.next()?.to_string();
            let winrate: f64 = words.next()?.parse().ok()?;
            let score: f64 = words.next()?.parse().ok()?;
            (0.0..=100.0)
                .contains(&winrate)
                .then_some((mv, winrate, score))
        })
    })
}

#[test]
fn walk_mark_expand_quit_and_replay_the_same_last_frame() {
    // Small searches keep the test to seconds.
    let wb = Workbench::new("e2e", "[jobs]\nconcurrent = 2\nexpand_visits = 100\n");
    let session = wb.path("session.tengen-session");
    wb.start(BIN, &format!("open --record '{}'", session.display()));
    let tmux = &wb.tmux;

    tmux.wait_for("the default book", Duration::from_secs(30), |s| {
        s.contains("146 positions")
    });
    tmux.keys(&["l", "j", "l", "l"]);
    let screen = tmux.wait_for("three moves on the line", Duration::from_secs(10), |s| {
        s.contains("3.")
    });
    assert!(screen.contains("move 3"), "{screen}");
    let before = moves_in_book(&screen).expect("the moves pane shows its count");

    // EXPAND takes this much off the node's own expansion cost, so it is the cheapest to expand. (VISITS,
    // KataGo's forced deepening, makes the whole subtree cheap, and the network's searches then deepen the
    // line below it, which its strong priors make cheapest, before they widen the node itself.)
    tmux.keys(&[":", "mark expand 1000", "Enter"]);
    tmux.wait_for("the mark on the line", Duration::from_secs(10), |s| {
        s.contains("[E1000]")
    });
    tmux.keys(&["Space"]);
    let screen = tmux.wait_for(
        "a finished job and a new move here",
        Duration::from_secs(60),
        |s| {
            s.contains(" done ")
                && s.contains("added")
                && moves_in_book(s).is_some_and(|n| n > before)
        },
    );
    assert!(screen.contains("expansion"), "{screen}");

    tmux.keys(&["Escape"]);
    tmux.wait_for("all jobs to stop", Duration::from_secs(60), |s| {
        s.contains("0 running · 0 queued · expansion stopped")
    });
    // The job feed passes changed values of the nodes on screen once a second: the frame to compare is
    // the one after the feed has nothing left to pass, so wait until two captures 1.5 s apart agree.
    let last = tmux::settled(tmux, Duration::from_millis(1500), 20);
    tmux.keys(&["q"]);
    wb.wait_for_exit(Duration::from_secs(10));

    let replayed = tmux::replay_last_frame(BIN, &session, &wb.path("frames"));
    assert_eq!(
        trimmed(&replayed),
        trimmed(&last),
        "replayed:\n{replayed}\ncaptured:\n{last}"
    );
    // The book grew on disk, in the data directory.
    let log = wb.data.join("books").join("7x7-tt-k9.tengenbook.log");
    assert!(
        std::fs::metadata(&log).unwrap().len() > 100,
        "the expansion was appended to {}",
        log.display()
    );
}

#[test]
fn keymap_and_theme_files_reload_live_and_sigterm_exits_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let data = dir.path().join("data");
    write(&config.join("config.toml"), "record_sessions = false\n");
    let tmux = Tmux {
        socket: format!("tengen-e2e-reload-{}", std::process::id()),
    };
    // The pane's shell writes the workbench's exit status to a file. (tmux's `pane_dead_status` is not
    // used: tmux 3.3a sometimes leaves an exited child unreaped and never fills it in.)
    let exit_file = dir.path().join("exit-status");
    let command = format!(
        "TENGEN_CONFIG='{}' TENGEN_DATA='{}' '{BIN}'; echo $? > '{}'",
        config.display(),
        data.display(),
        exit_file.display()
    );
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "wb",
        "-x",
        "90",
        "-y",
        "26",
        &command,
    ]);
    tmux.run(&["set-option", "-t", "wb", "remain-on-exit", "on"]);
    tmux.wait_for("the default book", Duration::from_secs(30), |s| {
        s.contains("146 positions")
    });

    let keymap = config.join("keymap.toml");
    write(&keymap, "[normal\nthis is not toml");
    tmux.wait_for("the keymap error", Duration::from_secs(10), |s| {
        s.contains("previous kept") && s.contains("keymap.toml")
    });
    tmux.keys(&["l"]);
    tmux.wait_for(
        "the old keymap still working",
        Duration::from_secs(10),
        |s| s.contains("1.D4"),
    );
    write(
        &keymap,
        "[normal]\nprepend_keymap = [ { on = \"n\", run = \"root\", desc = \"mine\" } ]\n",
    );
    tmux.wait_for("the new keymap", Duration::from_secs(10), |s| {
        s.contains("keymap loaded")
    });
    tmux.keys(&["n"]);
    tmux.wait_for("the new binding", Duration::from_secs(10), |s| {
        !s.contains("1.D4")
    });
    write(
        &config.join("themes").join("dark.toml"),
        "rank_best = \"#ff0000\"\n",
    );
    tmux.wait_for("the reloaded theme", Duration::from_secs(10), |s| {
        s.contains("theme dark")
    });

    let shell = tmux.run(&["display-message", "-p", "-t", "wb", "#{pane_pid}"]);
    let pgrep = Command::new("pgrep")
        .args(["-P", shell.trim()])
        .output()
        .unwrap();
    let workbench = String::from_utf8_lossy(&pgrep.stdout).trim().to_string();
    assert!(
        !workbench.is_empty(),
        "the workbench runs under the pane's shell"
    );
    let status = Command::new("kill")
        .args(["-TERM", &workbench])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    let code = loop {
        if let Ok(code) = std::fs::read_to_string(&exit_file)
            && code.ends_with('\n')
        {
            break code;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the workbench did not exit within 10 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(code.trim(), "0", "SIGTERM ends the workbench cleanly");
}

#[test]
fn annotate_a_game_step_through_it_and_replay_the_same_last_frame() {
    let wb = Workbench::new("e2e-annotate", "theme = \"dark\"\n");
    // D4 and E5 are in the default book, A7 leaves it.
    let game = wb.path("game.sgf");
    write(&game, "(;GM[1]SZ[7]KM[9];B[dd];W[ec];B[aa];W[gg])");
    let session = wb.path("session.tengen-session");
    wb.start(BIN, &format!("open --record '{}'", session.display()));
    let tmux = &wb.tmux;
    tmux.wait_for("the default book", Duration::from_secs(30), |s| {
        s.contains("146 positions")
    });
    let typed = format!("annotate {}", game.display());
    tmux.keys(&[":", &typed, "Enter"]);
    tmux.wait_for("the game pane", Duration::from_secs(10), |s| {
        s.contains("Game game.sgf") && s.contains("leaves the book at move 3")
    });
    tmux.keys(&[".", "."]);
    let last = tmux.wait_for("the book walk at move 2", Duration::from_secs(10), |s| {
        s.contains("root 1.D4 2.E5") && s.contains("game move 2 of 4")
    });
    assert!(last.contains("left the book"), "{last}");
    tmux.keys(&["q"]);
    wb.wait_for_exit(Duration::from_secs(10));
    // The recording carries the game's text: the replay does not need the file.
    std::fs::remove_file(&game).unwrap();
    let replayed = tmux::replay_last_frame(BIN, &session, &wb.path("frames"));
    assert_eq!(
        trimmed(&replayed),
        trimmed(&last),
        "replayed:\n{replayed}\ncaptured:\n{last}"
    );
}

#[test]
fn endgame_pane_loads_a_problem_runs_exact_and_replays_the_same_frame() {
    // A development problem the exact solver gets right in milliseconds: a gote worth 3 (T = 1 1/2).
    let problem = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/endgame-dev/01-value-of-move/01.sgf"
    );
    let wb = Workbench::new("e2e-endgame", "[jobs]\nconcurrent = 1\n");
    let session = wb.path("session.tengen-session");
    wb.start(BIN, &format!("open --record '{}'", session.display()));
    let tmux = &wb.tmux;
    tmux.wait_for("the default book", Duration::from_secs(30), |s| {
        s.contains("146 positions")
    });
    tmux.keys(&[":", &format!("endgame load {problem}"), "Enter"]);
    tmux.wait_for("the problem's region", Duration::from_secs(10), |s| {
        s.contains("Region · 10 points, 2 empty") && s.contains("answer 3")
    });
    tmux.keys(&["r"]);
    tmux.wait_for("the exact temperature", Duration::from_secs(60), |s| {
        s.contains("T 1 1/2") && s.contains("value 3")
    });
    // `q` is not the pane's: it falls through to the book's keys and quits.
    tmux.keys(&["q"]);
    wb.wait_for_exit(Duration::from_secs(10));
    // The recording carries the problem and the result: the replay draws the pane without the file.
    let replayed = tmux::replay_last_frame(BIN, &session, &wb.path("frames"));
    assert!(replayed.contains("T 1 1/2"), "{replayed}");
    assert!(replayed.contains("Region · 10 points"), "{replayed}");
}

#[test]
fn space_on_the_default_book_with_the_default_engine_keeps_the_root_at_d4() {
    // The default engine and the default jobs settings: what a new user gets.
    let wb = Workbench::new("e2e-default", "record_sessions = false\n");
    wb.start(BIN, "");
    let tmux = &wb.tmux;
    let screen = tmux.wait_for("the default book", Duration::from_secs(60), |s| {
        s.contains("146 positions") && s.contains("engine mcts (g170-b6c96)")
    });
    let (mv, winrate, score) = top_row(&screen).expect("the root's moves table");
    assert_eq!(
        (mv.as_str(), winrate, score),
        ("D4", 54.3, 0.42),
        "KataGo's root"
    );

    tmux.keys(&["Space"]);
    // Twenty seconds of growth: tens of expansions at the default 200 visits.
    std::thread::sleep(Duration::from_secs(20));
    tmux.wait_for(
        "several finished expansions",
        Duration::from_secs(180),
        |s| s.matches(" done ").count() >= 4,
    );
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("all jobs to stop", Duration::from_secs(60), |s| {
        s.contains("0 running · 0 queued · expansion stopped")
    });
    let (mv, winrate, score) = top_row(&screen).expect("the root's moves table");
    assert_eq!(mv, "D4", "{screen}");
    assert!(
        (45.0..=65.0).contains(&winrate),
        "Black {winrate}%: {screen}"
    );
    assert!(score.abs() <= 1.0, "score {score:+}: {screen}");
    tmux.keys(&["q"]);
    wb.wait_for_exit(Duration::from_secs(10));
}

#[test]
fn rollout_on_7x7_is_named_unreliable_and_space_asks_first() {
    let wb = Workbench::new(
        "e2e-rollout",
        "engine = \"rollout\"\nrecord_sessions = false\n[jobs]\nexpand_visits = 50\n",
    );
    wb.start(BIN, "");
    let tmux = &wb.tmux;
    tmux.wait_for("the caution", Duration::from_secs(30), |s| {
        s.contains("rollout is unreliable on 7x7")
    });
    tmux.keys(&["Space"]);
    tmux.wait_for("the question", Duration::from_secs(10), |s| {
        s.contains("unreliable on this board: grow the book with it anyway? y / n")
    });
    tmux.keys(&["n"]);
    let screen = tmux.wait_for("the refusal", Duration::from_secs(10), |s| {
        s.contains("expansion not started")
    });
    assert!(screen.contains("Jobs · 0 running · 0 queued"), "{screen}");
    assert!(
        screen.contains("(unreliable here)"),
        "the status line names it: {screen}"
    );
    tmux.keys(&["Space"]);
    tmux.wait_for("the question again", Duration::from_secs(10), |s| {
        s.contains("anyway? y / n")
    });
    tmux.keys(&["y"]);
    tmux.wait_for("a finished expansion", Duration::from_secs(120), |s| {
        s.contains(" done ")
    });
    // Once said yes, Space pauses and resumes without asking again.
    tmux.keys(&["Space", "Space"]);
    let screen = tmux.wait_for(
        "the expansion running again",
        Duration::from_secs(10),
        |s| s.contains("expansion running"),
    );
    assert!(!screen.contains("y / n"), "{screen}");
    tmux.keys(&["Escape", "q"]);
    wb.wait_for_exit(Duration::from_secs(30));
}

#[test]
fn open_size_9x9_starts_on_the_shipped_network_book() {
    let wb = Workbench::new("e2e-9x9", "record_sessions = false\n");
    wb.start(BIN, "open --size 9x9");
    let tmux = &wb.tmux;
    let screen = tmux.wait_for("the 9x9 book", Duration::from_secs(60), |s| {
        s.contains("9x9-cn-k7") && top_row(s).is_some()
    });
    let (mv, winrate, score) = top_row(&screen).unwrap();
    assert!(
        ["E5", "F5", "F6", "E4", "D5", "E6"].contains(&mv.as_str()),
        "a central move leads the root: {screen}"
    );
    assert!(
        (40.0..=60.0).contains(&winrate) && score.abs() < 2.0,
        "komi 7 is close to fair on 9x9: {screen}"
    );
    tmux.keys(&["q"]);
    wb.wait_for_exit(Duration::from_secs(30));
    // The first start copied the shipped book to the data directory, where it keeps what it learns.
    let copy = wb.data.join("books/9x9-cn-k7.tengenbook");
    let (book, _) = tengen::book::store::load(&copy).unwrap();
    assert!(book.len() > 3000, "{} nodes", book.len());
}
