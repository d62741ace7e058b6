//! The GTP client against GNU Go for real, and the analysis-line parser on KataGo's format.

use super::*;
use crate::go::score::final_score;
use crate::go::{Game, Komi};

const GNUGO: &str = "/usr/games/gnugo";

fn gnugo(extra: &[&str]) -> Vec<String> {
    [GNUGO, "--mode", "gtp", "--seed", "42"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn size(n: usize) -> BoardSize {
    BoardSize::square(n).unwrap()
}

#[tokio::test]
async fn plays_and_refuses_like_gnu_go() {
    let mut client = GtpClient::start(&gnugo(&[])).await.unwrap();
    assert!(client.name().starts_with("GNU Go"), "{}", client.name());
    let rules = Rules::chinese().with_komi(Komi::from_f64(9.0).unwrap());
    client.new_game(size(7), rules).await.unwrap();
    let d4 = Move::parse_gtp("D4", size(7)).unwrap();
    client.play(Color::Black, d4, size(7)).await.unwrap();
    match client.play(Color::White, d4, size(7)).await {
        Err(EngineError::Refused { message, .. }) => {
            assert!(message.contains("illegal move"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    match client.command("foo").await {
        Err(EngineError::Refused { message, .. }) => assert!(message.contains("unknown command")),
        other => panic!("{other:?}"),
    }
    let GenMove::Play(reply) = client.genmove(Color::White, size(7)).await.unwrap() else {
        panic!("GNU Go resigned at move 2")
    };
    assert_ne!(reply, d4);
    client.quit().await;
}

#[tokio::test]
async fn final_scores_agree_with_tengens_area_count() {
    // GNU Go's own 7x7 self-play game at level 10 (see the protocol facts), played to two passes.
    let moves = "D4 E3 D3 E4 E5 F5 E6 F6 D5 E2 D2 D1 C1 E1 B2 F7 E7 pass pass";
    let rules = Rules::chinese().with_komi(Komi::from_f64(9.0).unwrap());
    let game = Game::from_gtp_moves(size(7), rules, moves).unwrap();
    let mut client = GtpClient::start(&gnugo(&["--chinese-rules"]))
        .await
        .unwrap();
    client.new_game(size(7), rules).await.unwrap();
    for &(c, mv) in game.moves() {
        client.play(c, mv, size(7)).await.unwrap();
    }
    let theirs = client.final_score().await.unwrap();
    assert_eq!(theirs, final_score(&game));
    client.quit().await;
}

#[tokio::test]
async fn gnu_go_behind_the_engine_trait_gives_its_choice() {
    let engine = GtpEngine::new(gnugo(&["--chinese-rules"]));
    let rules = Rules::chinese().with_komi(Komi::from_f64(9.0).unwrap());
    let game = Game::from_gtp_moves(size(7), rules, "D4 D5").unwrap();
    let report = engine
        .analyze(Query::from_game(&game))
        .final_report()
        .await
        .unwrap();
    assert_eq!(report.moves.len(), 1);
    assert!(game.is_legal(report.moves[0].mv));
    assert!(engine.name().starts_with("GNU Go"));
    // A bad position is refused with GNU Go's words, and the engine keeps working afterwards.
    let mut bad = Query::from_game(&game);
    bad.moves
        .push((Color::Black, Move::parse_gtp("D4", size(7)).unwrap()));
    match engine.analyze(bad).final_report().await {
        Err(EngineError::Refused { message, .. }) => {
            assert!(message.contains("illegal move"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(
        engine
            .analyze(Query::from_game(&game))
            .final_report()
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_missing_engine_is_unavailable() {
    match GtpClient::start(&["/nonexistent/engine".to_string()]).await {
        Err(EngineError::Unavailable { detail, .. }) => {
            assert!(detail.contains("/nonexistent/engine"))
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("started a missing engine"),
    }
}

#[test]
fn kata_analyze_lines_parse_to_blacks_view() {
    let line = "info move E4 visits 487 edgeVisits 487 utility -0.1 winrate 0.48 scoreMean -0.5 scoreStdev 10 \
                scoreLead -0.4 scoreSelfplay -0.6 prior 0.2 lcb 0.46 utilityLcb -0.2 weight 487 order 0 pv E4 E3 F3 \
                info move pass visits 3 winrate 0.30 scoreLead -3 prior 0.01 order 1 pv pass \
                rootInfo visits 500 winrate 0.47 scoreLead -0.45 scoreSelfplay -0.7 scoreStdev 11";
    let s = size(9);
    let white = parse_analysis(line, s, Color::White, true).unwrap();
    assert_eq!(white.moves.len(), 2);
    assert_eq!(white.moves[0].mv, Move::parse_gtp("E4", s).unwrap());
    assert_eq!(white.moves[0].pv.len(), 3);
    assert!((white.moves[0].winrate - 0.52).abs() < 1e-12);
    assert_eq!(white.moves[0].score_lead, 0.4);
    assert_eq!(white.moves[1].mv, Move::Pass);
    assert_eq!(white.root.visits, 500);
    assert!((white.root.winrate - 0.53).abs() < 1e-12);
    let lz = "info move D4 visits 10 winrate 4802 prior 1234 lcb 4000 order 0 pv D4 C3";
    let lz = parse_analysis(lz, s, Color::Black, false).unwrap();
    assert_eq!(lz.moves[0].winrate, 0.4802);
    assert_eq!(lz.root.visits, 10);
    assert!(parse_analysis("= ", s, Color::Black, true).is_none());
}

#[test]
fn scores_parse() {
    assert_eq!(parse_score("B+3.5"), Some(3.5));
    assert_eq!(parse_score("W+2.0"), Some(-2.0));
    assert_eq!(parse_score("0"), Some(0.0));
    assert_eq!(parse_score("W+R"), Some(f64::NEG_INFINITY));
    assert_eq!(parse_score("maybe"), None);
}

/// A GTP engine with `kata-analyze` or `lz-analyze` (its first argument) that writes each analysis
/// command it gets to the file named by its second argument and leaves the moves it was told to avoid
/// out of its answer, as KataGo and Leela Zero do.
const FAKE_ANALYZER: &str = r#"
import sys
kind, log = sys.argv[1], sys.argv[2]
def out(s):
    sys.stdout.write(s)
    sys.stdout.flush()
while True:
    line = sys.stdin.readline()
    if not line:
        break
    words = line.split()
    if not words:
        continue
    if words[0] == "name":
        out("= fake\n\n")
    elif words[0] == "version":
        out("= 1\n\n")
    elif words[0] == "list_commands":
        out("= " + "\n".join(["name", "version", "list_commands", "boardsize", "clear_board", "komi", "play", kind]) + "\n\n")
    elif words[0] == kind:
        with open(log, "a") as f:
            f.write(line)
        banned = set(words[words.index("avoid") + 2].split(",")) if "avoid" in words else set()
        moves = [m for m in ["D4", "C3", "E5", "pass"] if m not in banned]
        if kind == "kata-analyze":
            infos = ["info move %s visits %d winrate 0.5 scoreLead 0 prior 0.1 order %d pv %s" % (m, 10 - k, k, m) for k, m in enumerate(moves)]
            text = " ".join(infos) + " rootInfo visits 100 winrate 0.5 scoreLead 0"
        else:
            text = " ".join("info move %s visits %d winrate 5000 prior 1000 order %d pv %s" % (m, 10 - k, k, m) for k, m in enumerate(moves))
        out("=\n" + text + "\n")
        sys.stdin.readline()  # any line stops the analysis
        out("\n")
    else:
        out("=\n\n")
"#;

#[tokio::test]
async fn analysis_commands_carry_the_banned_moves() {
    let s = size(9);
    let game = Game::new(s, Rules::tromp_taylor());
    let banned = [
        Move::parse_gtp("D4", s).unwrap(),
        Move::parse_gtp("C3", s).unwrap(),
    ];
    for kind in ["kata-analyze", "lz-analyze"] {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("commands");
        let engine = GtpEngine::new(vec![
            "python3".into(),
            "-c".into(),
            FAKE_ANALYZER.into(),
            kind.into(),
            log.display().to_string(),
        ]);
        let query = Query::from_game(&game).with_visits(10).avoiding(&banned);
        let report = engine.analyze(query).final_report().await.unwrap();
        let moves: Vec<String> = report.moves.iter().map(|m| m.mv.to_gtp(s)).collect();
        assert_eq!(moves, ["E5", "pass"], "{kind}");
        let sent = std::fs::read_to_string(&log).unwrap();
        assert!(sent.starts_with(&format!("{kind} B ")), "{sent}");
        assert!(sent.contains(" avoid B D4,C3 1"), "{sent}");
    }
}

#[tokio::test]
async fn start_up_failures_show_the_engines_stderr() {
    let failing: Vec<String> = [
        "python3",
        "-c",
        "import sys; sys.stderr.write('fatal: cannot open the opening book\\n'); sys.exit(1)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    match GtpClient::start(&failing).await {
        Err(EngineError::Unavailable { detail, .. }) => {
            assert!(detail.contains("cannot open the opening book"), "{detail}")
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("an engine that exited at once was taken as started"),
    }
}
