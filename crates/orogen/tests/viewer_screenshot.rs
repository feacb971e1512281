//! Runs the real viewer under Xvfb with software Vulkan, takes a
//! screenshot once the terrain is shown, and checks the picture is a
//! picture: many colours, real variance, terrain and panel both present.
//! `scripts/test.sh` installs Xvfb and Mesa when run as root; without
//! them (and outside CI) this test is ignored as skipped.

mod common;
#[path = "../../orogen-core/tests/support/outside_tools.rs"]
mod outside_tools;

fn screenshot_mode_renders_terrain_and_panels() {
    let dir = tempfile::tempdir().unwrap();
    let img = common::view_screenshot(
        dir.path(),
        "shot.png",
        &["--recipe", "default", "--frames", "2"],
    );
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

fn main() -> std::process::ExitCode {
    outside_tools::run(vec![outside_tools::xvfb().test(
        "screenshot_mode_renders_terrain_and_panels",
        screenshot_mode_renders_terrain_and_panels,
    )])
}
