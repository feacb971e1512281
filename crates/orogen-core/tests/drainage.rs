//! The eroded presets judged by an outside geomorphology library: each is
//! exported as float heights (EXR), then `scripts/drainage-check.py`
//! routes it with fastscapelib (D8 plus its minimum-spanning-tree sink
//! resolver), fits Flint's law S ∝ A^−θ over cells draining ≥ 2000 m² and
//! counts closed pits. Rivers give θ 0.35–0.6; eroded land has almost no
//! closed pits. No orogen routing code is involved in the judgement.
//!
//! `scripts/test.sh` run as root installs fastscapelib (PyPI); elsewhere a
//! missing library is skipped with a note, except in CI. Sizes come from
//! `OROGEN_DRAINAGE_SIZES` (default 513); `scripts/drainage-tier.sh` runs
//! 2049 and 4097 in release mode.

use orogen_core::flow::{ExportRequest, export_map};
use orogen_core::io::height_files::HeightFormats;
use orogen_core::pipeline::{RunHooks, run_once};
use std::process::Command;

fn have_fastscapelib() -> bool {
    Command::new("python3")
        .args(["-c", "import fastscapelib, OpenEXR, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// (θ, r², closed pits in %) of `preset` at `size` cells a side.
fn judge(preset: &str, size: u32) -> (f64, f64, f64) {
    let mut recipe = orogen_core::presets::load(preset)
        .expect("shipped preset")
        .expect("valid preset");
    let (w, h) = recipe.sampling_for(size);
    recipe.width = w;
    recipe.height = h;
    let output = run_once(&recipe, None, RunHooks::default()).expect("the preset runs");
    let request = ExportRequest {
        formats: HeightFormats::parse("exr").unwrap(),
        ..ExportRequest::default()
    };
    let dir = tempfile::tempdir().unwrap();
    export_map(&output.map, &recipe, None, &request, dir.path()).expect("the export");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/drainage-check.py"
    );
    let out = Command::new("python3")
        .args([script, dir.path().to_str().unwrap(), "--json"])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "drainage-check failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON from the checker");
    let num = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    (num("theta"), num("r2"), num("pits_percent"))
}

fn sizes() -> Vec<u32> {
    std::env::var("OROGEN_DRAINAGE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![513])
}

fn check(preset: &str) {
    if !have_fastscapelib() {
        assert!(
            std::env::var_os("CI").is_none(),
            "fastscapelib is missing in CI: scripts/test.sh should have installed it"
        );
        eprintln!("skipping: python3 with fastscapelib, OpenEXR and numpy not installed");
        return;
    }
    for size in sizes() {
        let (theta, r2, pits) = judge(preset, size);
        eprintln!("{preset} {size}²: θ {theta:.3}, r² {r2:.3}, pits {pits:.4} %");
        assert!(
            (0.35..=0.6).contains(&theta),
            "{preset} at {size}²: concavity θ {theta:.3} outside 0.35..0.6 (r² {r2:.3})"
        );
        assert!(
            r2 >= 0.8,
            "{preset} at {size}²: Flint's-law fit r² {r2:.3} below 0.8"
        );
        assert!(
            pits <= 0.1,
            "{preset} at {size}²: {pits:.3} % closed pits (limit 0.1 %)"
        );
    }
}

#[test]
fn eroded_mountains_drains_like_rivers() {
    check("eroded-mountains");
}

#[test]
fn river_valley_drains_like_rivers() {
    check("river-valley");
}
