//! The properties every fuzz target checks, shared by the libFuzzer targets (`cargo fuzz run`) and the
//! smoke test that CI runs over the seed corpora (`tests/fuzz_smoke.rs`): any input gives a result or a
//! clear error, never a panic, a hang or an unbounded allocation, and what is written reads back the same.

use std::path::Path;
use tengen::go::sgf::parse_str;
use tengen::go::{BoardSize, Move, Rules};
use tengen::records::mcst;
use tengen::records::posdb::{EntryRecord, Position};

/// SGF reading; read → write → read gives the same tree; replaying the main line never panics.
pub fn sgf(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(games) = parse_str(&text, Path::new("fuzz.sgf")) else {
        return;
    };
    for game in games {
        let again =
            parse_str(&game.to_sgf(), Path::new("rewritten.sgf")).expect("written SGF reads back");
        assert_eq!(again.len(), 1);
        assert_eq!(again[0], game, "read → write → read changed the tree");
        let line = game.main_line();
        let _ = game.replay(
            &line,
            game.rules_or(Rules::chinese()),
            true,
            Path::new("fuzz.sgf"),
        );
    }
}

/// The records module's text formats (MCST trees, position-database lines) and the small parsers they use.
pub fn records_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let size = BoardSize::square(9).expect("9x9");
    if let Ok(tree) = mcst::read(&text, size) {
        let written = mcst::write(&tree);
        let again = mcst::read(&written, size).expect("written MCST reads back");
        assert_eq!(mcst::write(&again), written);
    }
    if let Ok(record) = serde_json::from_str::<EntryRecord>(&text) {
        let _ = Position::from_record(&record, 1);
    }
    let _ = BoardSize::parse(&text);
    let _ = Rules::parse(&text);
    let _ = Move::parse_list(&text, size);
}
