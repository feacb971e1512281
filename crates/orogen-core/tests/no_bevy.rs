//! The core stays a library a game or a build script can use: its normal
//! dependencies include no Bevy, egui, winit or clap crate.

use std::process::Command;

#[test]
fn the_core_depends_on_no_bevy_egui_winit_or_clap_crate() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "orogen-core",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.contains(&"orogen-core"), "unexpected tree: {tree}");
    assert!(
        names.contains(&"rayon"),
        "the tree lists the core's dependencies: {tree}"
    );
    let forbidden: Vec<&&str> = names
        .iter()
        .filter(|n| {
            ["bevy", "egui", "winit", "clap"]
                .iter()
                .any(|f| n.starts_with(f))
        })
        .collect();
    assert!(forbidden.is_empty(), "the core depends on {forbidden:?}");
}
