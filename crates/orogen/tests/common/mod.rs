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

/// Writes the default preset as a world `width x height` cells of 2
/// units (a non-square world, sampled at exactly that size) and returns
/// the file's path.
pub fn default_world_of(dir: &Path, width: u32, height: u32) -> String {
    let mut recipe = orogen_core::presets::load("default")
        .expect("the default preset exists")
        .expect("the default preset loads");
    recipe.extent = orogen_core::recipe::Extent {
        x: (width - 1) as f32 * 2.0,
        y: (height - 1) as f32 * 2.0,
    };
    recipe.set_sampling(width, height);
    let path = dir.join(format!("default-{width}x{height}.ron"));
    std::fs::write(&path, recipe.to_ron().expect("the recipe saves")).expect("recipe written");
    path.to_string_lossy().into_owned()
}
