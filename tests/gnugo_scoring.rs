//! Area scoring checked against a real peer: GNU Go's `final_score` under Chinese rules on the final
//! positions of random playouts (every group alive with two eyes, so the scores must agree exactly).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use tengen::go::playout::{FastRng, play_out};
use tengen::go::score::area_difference;
use tengen::go::{Board, BoardSize, Color};

const GNUGO: &str = "/usr/games/gnugo";

struct Gtp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Gtp {
    fn start() -> Gtp {
        let mut child = Command::new(GNUGO)
            .args(["--mode", "gtp", "--chinese-rules"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{GNUGO} must be installed (.ci/test installs Debian's gnugo): {e}")
            });
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Gtp {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").expect("gnugo reads commands");
        let mut response = String::new();
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).expect("gnugo answers") == 0 {
                panic!("gnugo exited during `{command}`");
            }
            if line.trim().is_empty() && !response.is_empty() {
                break;
            }
            response.push_str(&line);
        }
        assert!(
            response.starts_with('='),
            "gnugo refused `{command}`: {response}"
        );
        response.trim_start_matches('=').trim().to_string()
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

/// Parses GNU Go's `B+12.0`, `W+3.0` or `0` into Black's lead.
fn black_lead(result: &str) -> f64 {
    if result == "0" {
        return 0.0;
    }
    let (who, points) = result
        .split_once('+')
        .unwrap_or_else(|| panic!("unexpected score `{result}`"));
    let points: f64 = points
        .parse()
        .unwrap_or_else(|_| panic!("unexpected score `{result}`"));
    if who == "B" { points } else { -points }
}

fn check_size(side: usize, games: usize, seed: u64) {
    let size = BoardSize::square(side).expect("valid size");
    let mut gtp = Gtp::start();
    gtp.send(&format!("boardsize {side}"));
    gtp.send("komi 0");
    let mut rng = FastRng::new(seed);
    let mut nonzero = 0;
    for game in 0..games {
        let mut board = Board::new(size);
        play_out(&mut board, Color::Black, &mut rng, side * side * 4);
        gtp.send("clear_board");
        for p in size.points() {
            if let Some(c) = board.color_at(p) {
                let color = if c == Color::Black { "black" } else { "white" };
                gtp.send(&format!("play {color} {}", p.to_gtp(size)));
            }
        }
        let theirs = black_lead(&gtp.send("final_score"));
        let ours = area_difference(&board) as f64;
        assert_eq!(
            ours, theirs,
            "{side}x{side} game {game}: tengen {ours}, GNU Go {theirs}\n{board:?}"
        );
        nonzero += usize::from(ours != 0.0);
    }
    assert!(
        nonzero > games / 2,
        "the playouts should mostly end with a margin"
    );
}

#[test]
fn area_scores_match_gnugo_on_7x7() {
    check_size(7, 100, 7);
}

#[test]
fn area_scores_match_gnugo_on_9x9() {
    check_size(9, 100, 9);
}
