//! End to end, through a real terminal: `:export` writes the current line and the subtree below it as
//! SGF with the book's values in the comments, the same text `tengen book export --sgf` writes.

use std::process::Command;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_tengen");

#[path = "support/tmux.rs"]
mod tmux;
use tmux::Workbench;

#[test]
fn export_writes_the_line_and_the_subtree_as_book_export_does() {
    let wb = Workbench::new("e2e-export", "theme = \"dark\"\n");
    wb.start(BIN, "open --no-record --engine rollout");
    let tmux = &wb.tmux;
    tmux.wait_for("the default book", Duration::from_secs(30), |s| {
        s.contains("Moves · 3 in book")
    });
    // D4, the book's best first move.
    tmux.keys(&["l"]);
    tmux.wait_for("the first move", Duration::from_secs(10), |s| {
        s.contains("root 1.D4")
    });
    let line = wb.path("line.sgf");
    let subtree = wb.path("subtree.sgf");
    tmux.keys(&[":", &format!("export {}", line.display()), "Enter"]);
    tmux.wait_for("the line written", Duration::from_secs(10), |s| {
        s.contains("wrote the line")
    });
    tmux.keys(&[
        ":",
        &format!("export {} subtree", subtree.display()),
        "Enter",
    ]);
    tmux.wait_for("the subtree written", Duration::from_secs(10), |s| {
        s.contains("wrote the subtree")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the program to exit", Duration::from_secs(10), |s| {
        s.contains("EXITED 0")
    });
    let line = std::fs::read_to_string(&line).unwrap();
    assert!(
        line.starts_with("(;GM[1]") && line.contains("SZ[7]"),
        "{line}"
    );
    assert!(line.contains(";B[dd]"), "{line}");
    assert_eq!(line.matches("C[Black").count(), 2, "root and D4: {line}");
    assert!(
        !line.contains("(;B") && !line.contains("(;W"),
        "no variations: {line}"
    );
    // The subtree is what `book export --sgf` writes for the same line of the same book.
    let book = wb.path("data/books/7x7-tt-k9.tengenbook");
    let cli = wb.path("cli.sgf");
    let out = Command::new(BIN)
        .args(["book", "export", book.to_str().unwrap(), "--sgf"])
        .arg(&cli)
        .args(["--line", "D4"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let subtree = std::fs::read_to_string(&subtree).unwrap();
    assert_eq!(subtree, std::fs::read_to_string(&cli).unwrap());
    assert!(subtree.matches("C[Black").count() > 10, "{subtree}");
}
