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

/// Runs `orogen view ARGS --screenshot <dir>/NAME` under Xvfb at
/// 1280×800 with software Vulkan; returns the screenshot, or panics with
/// the end of the viewer's log.
pub fn view_screenshot(dir: &Path, name: &str, args: &[&str]) -> image::RgbImage {
    let shot = dir.join(name);
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).expect("runtime dir");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
            .expect("runtime dir permissions");
    }
    let run = || {
        Command::new("timeout")
            .args(["300", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24"])
            .arg(env!("CARGO_BIN_EXE_orogen"))
            .arg("view")
            .args(args)
            .arg("--screenshot")
            .arg(&shot)
            .env("XDG_RUNTIME_DIR", &runtime)
            .output()
            .expect("xvfb-run runs")
    };
    // `xvfb-run -a` picks a free display number, and tests running side
    // by side can race for the same one: the viewer then finds no display
    // at all. That is the harness, not the viewer: try again, twice.
    let mut output = run();
    for _ in 0..2 {
        let lost_display = String::from_utf8_lossy(&output.stderr).contains("XOpenDisplayFailed");
        if output.status.success() || !lost_display {
            break;
        }
        output = run();
    }
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "viewer exited with {:?}:\n{}",
        output.status,
        log.lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
    image::open(&shot).expect("screenshot is a PNG").to_rgb8()
}
