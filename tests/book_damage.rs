//! `tengen book verify` and the writing commands on damaged books, through the binary (issue #28 rows 1
//! and 2): damage is an error naming the file and the byte, no command writes to a damaged book, a torn
//! last record is named, and `verify --repair` writes a new book beside the old one.

use std::process::{Command, Output};

const TENGEN: &str = env!("CARGO_BIN_EXE_tengen");

fn tengen(args: &[&str]) -> Output {
    Command::new(TENGEN)
        .args(args)
        .output()
        .expect("tengen runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Where each record of a format-3 log starts.
fn records(log: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 32;
    while at < log.len() {
        out.push(at);
        let len = u32::from_le_bytes(log[at..at + 4].try_into().unwrap()) as usize;
        at += 8 + len;
    }
    out
}

#[test]
fn a_damaged_book_is_refused_by_every_command_and_repaired_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.tengenbook").display().to_string();
    let lpath = format!("{book}.log");
    let new = tengen(&["book", "new", "--size", "5x5", "-o", &book]);
    assert!(new.status.success(), "{}", text(&new));
    for bonus in ["1", "2", "3"] {
        let mark = tengen(&["book", "mark", &book, "--bonus", bonus]);
        assert!(mark.status.success(), "{}", text(&mark));
    }
    let (snapshot, log) = (
        std::fs::read(&book).unwrap(),
        std::fs::read(&lpath).unwrap(),
    );
    let r = records(&log);
    assert_eq!(r.len(), 3);

    // The snapshot's generation byte: an error at the header, and no write.
    let mut flipped = snapshot.clone();
    flipped[16] ^= 0x01;
    std::fs::write(&book, &flipped).unwrap();
    let verify = tengen(&["book", "verify", &book]);
    assert!(!verify.status.success());
    assert!(
        text(&verify).contains("b.tengenbook is damaged at byte 0"),
        "{}",
        text(&verify)
    );
    assert!(
        !tengen(&["book", "mark", &book, "--bonus", "4"])
            .status
            .success()
    );
    assert_eq!(std::fs::read(&book).unwrap(), flipped);
    assert_eq!(std::fs::read(&lpath).unwrap(), log);
    std::fs::write(&book, &snapshot).unwrap();

    // One bit in record 2: damage at its offset, since record 3 is valid.
    let mut damaged = log.clone();
    damaged[r[1] + 9] ^= 0x10;
    std::fs::write(&lpath, &damaged).unwrap();
    let verify = tengen(&["book", "verify", &book]);
    assert!(!verify.status.success());
    let expected = format!("b.tengenbook.log is damaged at byte {}", r[1]);
    assert!(text(&verify).contains(&expected), "{}", text(&verify));
    assert!(
        !tengen(&["book", "mark", &book, "--bonus", "4"])
            .status
            .success()
    );
    assert_eq!(std::fs::read(&lpath).unwrap(), damaged);

    let repair = tengen(&["book", "verify", "--repair", &book]);
    assert!(repair.status.success(), "{}", text(&repair));
    let dropped = format!("dropped: {lpath}: bytes {}..{}", r[1], r[2]);
    assert!(text(&repair).contains(&dropped), "{}", text(&repair));
    assert_eq!(std::fs::read(&lpath).unwrap(), damaged);
    assert_eq!(std::fs::read(&book).unwrap(), snapshot);
    let repaired = format!("{book}.repaired");
    let verify = tengen(&["book", "verify", &repaired]);
    assert!(verify.status.success(), "{}", text(&verify));
    assert!(text(&verify).contains("1 nodes"), "{}", text(&verify));
    // Never over an earlier repair.
    assert!(
        !tengen(&["book", "verify", "--repair", &book])
            .status
            .success()
    );

    // A torn last record: named, a failure unless allowed, and cut by the next write.
    std::fs::write(&lpath, &log[..log.len() - 5]).unwrap();
    let verify = tengen(&["book", "verify", &book]);
    assert!(!verify.status.success());
    let torn = format!("from byte {}, are a torn record", r[2]);
    assert!(text(&verify).contains(&torn), "{}", text(&verify));
    let allowed = tengen(&["book", "verify", "--allow-torn-tail", &book]);
    assert!(allowed.status.success(), "{}", text(&allowed));
    let mark = tengen(&["book", "mark", &book, "--bonus", "5"]);
    assert!(mark.status.success(), "{}", text(&mark));
    let verify = tengen(&["book", "verify", &book]);
    assert!(verify.status.success(), "{}", text(&verify));
    assert!(text(&verify).contains("3 log records"), "{}", text(&verify));
}
