//! The book crash test's other modes on a few interruptions each (`.ci/book-crash-test`; 200 of them:
//! `.ci/book-crash-bench`, figures in `docs/reliability.md`): SIGKILL during compaction, during
//! `import-katabook` and `import-sgf`, and a full disk (a file-size limit) during writes. After each, the
//! book loads, its histories rebuild, and nothing reported as done is missing.

use std::process::Command;

#[test]
fn kills_during_compaction_and_imports_and_a_full_disk_lose_nothing() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/book-crash-test");
    let out = Command::new("bash")
        .args([
            script,
            "2",
            env!("CARGO_BIN_EXE_tengen"),
            "compact,import-katabook,import-sgf,full-disk",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("book-crash-test: 8 kills"), "{text}");
    for mode in ["compact:", "import-katabook:", "import-sgf:", "full-disk:"] {
        assert!(text.contains(mode), "{mode} ran: {text}");
    }
}
