//! Engines that misbehave (`tests/support/fake_gtp.sh`): one that exits at start, one that hangs, one that
//! writes garbage, one that dies mid-search. Each ends in an error that says which engine and what
//! happened, never in a panic or a wait without end.

use std::process::{Command, Output};
use std::time::Duration;
use tengen::engine::EngineError;
use tengen::engine::gtp::GtpClient;
use tengen::go::{BoardSize, Color};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/fake_gtp.sh");

/// `tengen analyze` on an empty 9x9 with the fake engine in `mode`; it must fail.
fn analyze_with(mode: &str) -> String {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["analyze", "--size", "9x9", "--visits", "10", "--engine"])
        .arg(format!("gtp:{FAKE} {mode}"))
        .output()
        .expect("tengen runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "{mode}: tengen succeeded:\n{}{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains("panicked"), "{mode}: {stderr}");
    // Named by its command line until it has told its name, by its name after.
    assert!(
        stderr.contains("fake_gtp.sh") || stderr.contains("FakeGTP 0.1"),
        "{mode}: names the engine: {stderr}"
    );
    stderr
}

#[test]
fn an_engine_that_exits_at_start_is_reported_with_its_stderr() {
    let err = analyze_with("exit-at-start");
    assert!(
        err.contains("cannot open the network file"),
        "the engine's own words: {err}"
    );
}

/// An engine that never ends a line (`cat /dev/zero`) is refused at the line cap, quoting the line's
/// start, whether it speaks GTP or KataGo's JSON: it used to be read into memory until the process
/// aborted (4.3 GB in 11 s).
#[test]
fn an_engine_line_without_end_is_refused_at_the_cap_quoting_its_start() {
    let err = analyze_with("endless-line");
    assert!(
        err.contains("runs past 1048576 bytes") && err.contains(r#"starts "\0\0\0"#),
        "{err}"
    );
    for spec in [
        "gtp:cat /dev/zero".to_string(),
        format!("katago:{FAKE} endless-line"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args([
                "analyze", "--size", "9x9", "--visits", "10", "--engine", &spec,
            ])
            .output()
            .expect("tengen runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {err}");
        assert!(
            err.contains("a line runs past") && err.contains(r#"starts "\0\0\0"#),
            "{spec}: {err}"
        );
    }
}

#[test]
fn an_engine_that_writes_garbage_is_refused() {
    let err = analyze_with("garbage");
    assert!(err.contains("not a GTP answer"), "{err}");
}

#[test]
fn an_engine_that_dies_mid_search_is_reported_with_its_stderr() {
    let err = analyze_with("die-mid-search");
    assert!(
        err.contains("out of memory in the search") && err.contains("ended"),
        "{err}"
    );
}

#[test]
fn an_engine_that_hangs_times_out() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut client = GtpClient::start(&[FAKE.to_string(), "hang".to_string()])
            .await
            .expect("the handshake works");
        client.timeout = Duration::from_millis(300);
        let size = BoardSize::square(9).unwrap();
        let err = client.genmove(Color::Black, size).await.unwrap_err();
        assert!(matches!(err, EngineError::TimedOut { .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("FakeGTP"), "names the engine: {text}");
    });
}

#[test]
fn garbage_at_start_is_a_clear_start_up_error() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        for (mode, says) in [("garbage", "not a GTP answer"), ("binary", "not text")] {
            let err = match GtpClient::start(&[FAKE.to_string(), mode.to_string()]).await {
                Ok(_) => panic!("a {mode}-writing engine must not start"),
                Err(e) => e.to_string(),
            };
            assert!(
                err.contains("did not answer `name`") && err.contains(says),
                "{mode}: {err}"
            );
        }
    });
}
