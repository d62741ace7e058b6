//! Every real game record in `../shared/data/games/` loads, replays legally under its own rules, and
//! survives read → write → read unchanged.

use std::path::{Path, PathBuf};
use tengen::go::Rules;
use tengen::go::sgf::{self, SgfError};

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/games"));
    let mut files = Vec::new();
    for dir in ["9x9", "other_small"] {
        let entries = std::fs::read_dir(root.join(dir))
            .expect("the shared game records are beside the checkout");
        files.extend(
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "sgf")),
        );
    }
    files.sort();
    files
}

/// Records that break the rules on purpose (parser edge cases), with the reason.
const ILLEGAL_ON_PURPOSE: &[(&str, &str)] = &[
    (
        "littlego__sgf_Illegal_games_illegal-move.sgf",
        "a parser test: White plays on an occupied point",
    ),
    (
        "littlego__sgf_Illegal_games_situational-superko.sgf",
        "a parser test: a situational-superko violation",
    ),
];

#[test]
fn every_record_loads_replays_and_round_trips() {
    let files = corpus();
    assert!(
        files.len() >= 500,
        "expected the 501 shared records, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    let mut replayed = 0;
    for path in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let games = match sgf::read_file(path) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("load: {e}"));
                continue;
            }
        };
        for game in &games {
            let text = game.to_sgf();
            match sgf::parse_str(&text, path) {
                Ok(again) if again.len() == 1 && again[0] == *game => {}
                Ok(_) => failures.push(format!("{name}: read → write → read changed the tree")),
                Err(e) => failures.push(format!("{name}: rewritten file does not parse: {e}")),
            }
            // Records without (known) rules promise nothing about superko: replay them with simple ko.
            let rules = game.rules_or(Rules::chinese());
            let line = game.main_line();
            match game.replay(&line, rules, true, path) {
                Ok(_) => replayed += 1,
                Err(SgfError::IllegalMove { .. })
                    if ILLEGAL_ON_PURPOSE.iter().any(|(f, _)| *f == name) => {}
                Err(e) => failures.push(format!("replay: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(replayed >= files.len() - ILLEGAL_ON_PURPOSE.len());
}

#[test]
fn the_situational_superko_record_breaks_situational_superko() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/games/9x9/littlego__sgf_Illegal_games_situational-superko.sgf"
    ));
    let game = sgf::read_file(path).expect("loads").remove(0);
    let line = game.main_line();
    let situational = Rules::parse("aga").expect("a preset");
    match game.replay(&line, situational, true, path) {
        Err(SgfError::IllegalMove { reason, .. }) => {
            assert_eq!(reason, tengen::go::IllegalMove::Superko)
        }
        other => panic!(
            "expected a superko violation, got {:?}",
            other.map(|g| g.moves().len())
        ),
    }
    assert!(
        game.replay(&line, Rules::chinese(), true, path).is_ok(),
        "legal under simple ko"
    );
}
