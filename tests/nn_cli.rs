//! The network commands through the binary: import, raw evaluation, and the error without ONNX Runtime.

use std::process::Command;

const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/models/g170-b6c96-s175395328-d26788732.bin.gz"
);

fn tengen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
}

#[test]
fn import_then_eval_prints_kata_raw_nn_fields() {
    if let Err(e) = tengen::nn::runtime::check() {
        panic!("this test needs ONNX Runtime: {e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let onnx = dir.path().join("net.onnx");
    let out = tengen()
        .args(["model", "import", MODEL, "-o"])
        .arg(&onnx)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("model version 8, 6 blocks x 96 channels")
    );

    let out = tengen()
        .args(["nn", "eval", "--model"])
        .arg(&onnx)
        .args([
            "--size",
            "9x9",
            "--rules",
            "tromp-taylor",
            "--komi",
            "7",
            "--moves",
            "E5 C5",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in [
        "whiteWin",
        "whiteLoss",
        "noResult",
        "whiteLead",
        "policy",
        "policyPass",
        "whiteOwnership",
    ] {
        assert!(json.get(field).is_some(), "missing {field}: {json}");
    }
    let policy = json["policy"].as_array().unwrap();
    assert_eq!(policy.len(), 81);
    // E5 (row 5 from the top = index 4*9+4) and C5 are occupied: null.
    assert!(policy[4 * 9 + 4].is_null() && policy[4 * 9 + 2].is_null());
    let total: f64 = policy.iter().filter_map(|p| p.as_f64()).sum::<f64>()
        + json["policyPass"].as_f64().unwrap();
    assert!((total - 1.0).abs() < 1e-3, "policy sums to {total}");
}

#[test]
fn without_onnx_runtime_the_error_is_one_actionable_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = tengen()
        .env(
            "ORT_DYLIB_PATH",
            dir.path().join("missing/libonnxruntime.so"),
        )
        .args(["nn", "eval", "--model", "whatever.onnx", "--size", "9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("tengen setup") && stderr.contains("ORT_DYLIB_PATH"),
        "{stderr}"
    );
}

#[test]
fn unsupported_model_versions_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("newer.bin");
    std::fs::write(&bin, "kata1-b18c384nbt\n15\n22\n19\n").unwrap();
    let out = tengen()
        .args(["model", "import"])
        .arg(&bin)
        .args(["-o"])
        .arg(dir.path().join("x.onnx"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("model version 15 is not supported"),
        "{stderr}"
    );
}

#[test]
fn with_no_runtime_anywhere_the_error_lists_where_it_looked() {
    let home = tempfile::tempdir().unwrap();
    let out = tengen()
        .current_dir(home.path())
        .env_remove("ORT_DYLIB_PATH")
        .env_remove("LD_LIBRARY_PATH")
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("TENGEN_AUTO_SETUP", "0")
        .args(["nn", "eval", "--model", "net.onnx", "--size", "9"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("could not be loaded") {
        // A system-wide libonnxruntime.so exists on this machine; the search reached it, which is right too.
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ONNX Runtime was not found"), "{stderr}");
    assert!(
        stderr.contains("./.venv") && stderr.contains("tengen setup"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn an_onnx_spec_may_name_a_katago_file_which_is_imported_once() {
    if let Err(e) = tengen::nn::runtime::check() {
        panic!("this test needs ONNX Runtime: {e}");
    }
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    let run = || {
        tengen()
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", &data)
            .args(["bench", "search", "--engine", &format!("onnx:{MODEL}")])
            .args([
                "--size",
                "5x5",
                "--komi",
                "24",
                "--visits",
                "40",
                "--raw-seconds",
                "0",
                "--json",
            ])
            .output()
            .unwrap()
    };
    let out = run();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let converted = data.join("tengen/models/g170-b6c96-s175395328-d26788732.onnx");
    let made = std::fs::metadata(&converted)
        .and_then(|m| m.modified())
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["visits"], 40);
    // The second run reuses the converted file.
    assert!(run().status.success());
    assert_eq!(
        std::fs::metadata(&converted)
            .and_then(|m| m.modified())
            .unwrap(),
        made
    );
}
