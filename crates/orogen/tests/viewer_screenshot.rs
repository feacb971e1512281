//! Runs the real viewer under Xvfb with software Vulkan, takes a
//! screenshot once the terrain is shown, and checks the picture is a
//! picture: many colours, real variance, terrain and panel both present.
//! `scripts/test.sh` installs Xvfb and Mesa when run as root; without
//! them (and outside CI) this test says so and passes.

use std::process::Command;
use std::time::{Duration, Instant};

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn screenshot_mode_renders_terrain_and_panels() {
    if !have("xvfb-run") {
        assert!(
            std::env::var_os("CI").is_none(),
            "xvfb-run is missing in CI: scripts/test.sh should have installed it"
        );
        eprintln!("skipping: xvfb-run not installed (run scripts/test.sh as root to install it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("shot.png");
    let runtime = dir.path().join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let start = Instant::now();
    let output = Command::new("timeout")
        .args(["300", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_orogen"))
        .args([
            "view",
            "--recipe",
            "default",
            "--frames",
            "2",
            "--screenshot",
        ])
        .arg(&shot)
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "viewer exited with {:?} after {:?}:\n{}",
        output.status,
        start.elapsed(),
        log.lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
    assert!(start.elapsed() < Duration::from_secs(300));
    let img = image::open(&shot).expect("screenshot is a PNG").to_rgb8();
    assert!(
        img.width() >= 800 && img.height() >= 600,
        "{}x{}",
        img.width(),
        img.height()
    );
    let distinct: std::collections::HashSet<[u8; 3]> = img.pixels().map(|p| p.0).collect();
    assert!(
        distinct.len() > 2000,
        "only {} distinct colours",
        distinct.len()
    );
    let n = (img.width() * img.height()) as f64;
    let mean: f64 = img.pixels().map(|p| p.0[1] as f64).sum::<f64>() / n;
    let var: f64 = img
        .pixels()
        .map(|p| (p.0[1] as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    assert!(
        var > 200.0,
        "green-channel variance {var:.1} is too low: blank image?"
    );
    // The panel (left) is dark, the 3D view (right) shows sky and terrain.
    let panel: Vec<f64> = (img.height() - 80..img.height() - 20)
        .flat_map(|y| (10..300).map(move |x| (x, y)))
        .map(|(x, y)| img.get_pixel(x, y).0.iter().map(|&c| c as f64).sum::<f64>() / 3.0)
        .collect();
    let panel_mean = panel.iter().sum::<f64>() / panel.len() as f64;
    assert!(
        panel_mean < 90.0,
        "the bottom-left panel area averages {panel_mean:.0}: no panel?"
    );
    let view_colours: std::collections::HashSet<[u8; 3]> = (0..img.height())
        .flat_map(|y| (img.width() / 2..img.width()).map(move |x| (x, y)))
        .map(|(x, y)| img.get_pixel(x, y).0)
        .collect();
    assert!(
        view_colours.len() > 1000,
        "the 3D view has {} colours",
        view_colours.len()
    );
}
