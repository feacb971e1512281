//! Helpers shared by the tests that drive the `orogen` binary.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Runs `orogen ARGS`; returns (success, stdout, stderr).
pub fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_orogen"))
        .args(args)
        .output()
        .expect("the orogen binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The command fails with exactly one stderr line containing `expect`, and
/// `out` was not created.
pub fn assert_refused(args: &[&str], out: &Path, expect: &str) {
    let (ok, _, stderr) = run(args);
    assert!(!ok, "{args:?} should fail");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected: {stderr}");
    assert!(stderr.contains(expect), "expected '{expect}' in: {stderr}");
    assert!(!out.exists(), "nothing may be written");
}
