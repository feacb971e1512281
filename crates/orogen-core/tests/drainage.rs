//! The eroded presets judged by an outside geomorphology library: each is
//! exported as float heights (EXR), then `scripts/drainage-check.py`
//! routes it with fastscapelib (D8 plus its minimum-spanning-tree sink
//! resolver), fits Flint's law S ∝ A^−θ over cells draining ≥ 2000 m² and
//! counts closed pits. Rivers give θ 0.35–0.6; eroded land has almost no
//! closed pits. No orogen routing code is involved in the judgement.
//!
//! `scripts/test.sh` run as root installs fastscapelib (PyPI); elsewhere,
//! without it, the tests are ignored as skipped
//! (`support/outside_tools.rs`), except in CI. Sizes come from
//! `OROGEN_DRAINAGE_SIZES` (default 513); `scripts/drainage-tier.sh` runs
//! 2049 and 4097 in release mode.

use orogen_core::Recipe;
use orogen_core::bake::{ExportRequest, export_map};
use orogen_core::io::height_files::HeightFormats;
use orogen_core::pipeline::{RunHooks, run_once, run_once_recording};
use std::process::Command;

#[path = "support/outside_tools.rs"]
mod outside_tools;

/// (θ, r², closed pits in %) of `recipe` at `size` cells a side.
fn judge(recipe: Recipe, size: u32) -> (f64, f64, f64) {
    judge_channels(recipe, size, false)
}

/// [`judge`], with channels on 0.1 m of deposits or more left out of
/// the Flint fit when `bedrock_only` (the checker's `--deposits`).
fn judge_channels(mut recipe: Recipe, size: u32, bedrock_only: bool) -> (f64, f64, f64) {
    let (w, h) = recipe.sampling_for(size);
    recipe.width = w;
    recipe.height = h;
    let (output, record) =
        run_once_recording(&recipe, None, RunHooks::default()).expect("the preset runs");
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
    let mut args = vec![
        script.to_string(),
        dir.path().display().to_string(),
        "--json".into(),
    ];
    if bedrock_only {
        let laid = dir.path().join("deposits.f32");
        write_f32(&laid, &record.deposited());
        args.extend(["--deposits".into(), laid.display().to_string()]);
    }
    let out = Command::new("python3")
        .args(&args)
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

/// `values` as raw little-endian float32, the outside scripts' input.
fn write_f32(path: &std::path::Path, values: &[f32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).expect("a temporary file");
}

fn sizes() -> Vec<u32> {
    std::env::var("OROGEN_DRAINAGE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![513])
}

fn check_preset(preset: &str) {
    let recipe = orogen_core::presets::load(preset)
        .expect("shipped preset")
        .expect("valid preset");
    check(preset, &recipe);
}

fn check(preset: &str, recipe: &Recipe) {
    for size in sizes() {
        let (theta, r2, pits) = judge(recipe.clone(), size);
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

fn eroded_mountains_drains_like_rivers() {
    check_preset("eroded-mountains");
}

fn river_valley_drains_like_rivers() {
    check_preset("river-valley");
}

/// Lake-valley is river-valley's erosion with fourteen hollows pressed
/// into its low ground afterwards: lakes, each with one lowest cell, so
/// its closed pits stay far under the limit.
fn lake_valley_drains_like_rivers() {
    check_preset("lake-valley");
}

/// A low plain where nothing rises but under four soft brush strokes (a
/// ridge and three spurs, painted as the viewer paints them): the range
/// the strokes raise drains like the presets.
fn painted_range() -> Recipe {
    const BASE: f32 = 0.25;
    use orogen_core::stages::mask::painted::{self, Brush, PAINT_SIDE, PaintedImage, PaintedMask};
    use orogen_core::stages::mask::{MaskSource, StageMask};
    use orogen_core::stages::{FluvialErosion, Stage};
    let mut recipe = Recipe::from_ron(include_str!("../../../docs/examples/painted-range.ron"))
        .expect("the example recipe parses");
    let extent = [recipe.extent.x, recipe.extent.y];
    let brush = Brush {
        radius: 120.0,
        hardness: 0.03,
        strength: 1.0,
        erase: false,
    };
    let mut image = PaintedImage::blank(PAINT_SIDE, PAINT_SIDE);
    // First the whole plain at a quarter strength (one dab larger than
    // the world): it rises slowly, so its rivers are rivers too.
    image.dab(
        [512.0, 512.0],
        extent,
        &Brush {
            radius: 2048.0,
            hardness: 1.0,
            strength: BASE,
            erase: false,
        },
    );
    let strokes: [&[[f32; 2]]; 4] = [
        &[
            [150.0, 620.0],
            [300.0, 470.0],
            [512.0, 430.0],
            [720.0, 460.0],
            [880.0, 580.0],
        ],
        &[[512.0, 430.0], [560.0, 250.0], [620.0, 120.0]],
        &[[300.0, 470.0], [250.0, 700.0], [230.0, 900.0]],
        &[[720.0, 460.0], [820.0, 300.0], [900.0, 180.0]],
    ];
    for stroke in strokes {
        for pair in stroke.windows(2) {
            image.stroke(pair[0], pair[1], extent, &brush);
        }
    }
    let uplift = StageMask {
        source: MaskSource::Painted(PaintedMask {
            file: String::new(),
            hash: painted::remember(image),
        }),
        range: orogen_core::params::Span::new(0.0, 1.0),
        soft: 0.0,
        invert: false,
    };
    for entry in &mut recipe.stages {
        if let Stage::FluvialErosion(FluvialErosion { uplift_map, .. }) = &mut entry.stage {
            *uplift_map = Some(uplift.clone());
        }
    }
    recipe
}

/// Ranges shedding fans onto a flat floor. Channels on the fans and the
/// floor are alluvial: their slope follows the load they carry, not
/// Flint's law (on the floor the load no longer grows with the area, so
/// the slope falls as A^-(m+1)), and together with the ranges' bedrock
/// channels they scatter any one fit (r² 0.70–0.80 over the whole map).
/// So: no closed pits anywhere, and the bedrock channels (under 0.1 m of
/// deposit) concave as rivers are; r² is printed, not held.
fn alluvial_fans_drain_without_pits() {
    let recipe = orogen_core::presets::load("alluvial-fans")
        .expect("shipped preset")
        .expect("valid preset");
    for size in sizes() {
        let (theta, r2, pits) = judge_channels(recipe.clone(), size, true);
        eprintln!(
            "alluvial-fans {size}², bedrock channels: θ {theta:.3}, r² {r2:.3}, pits {pits:.4} %"
        );
        assert!(
            (0.35..=0.6).contains(&theta),
            "alluvial-fans at {size}²: bedrock concavity θ {theta:.3} outside 0.35..0.6"
        );
        assert!(
            pits <= 0.1,
            "alluvial-fans at {size}²: {pits:.3} % closed pits (limit 0.1 %)"
        );
    }
}

/// Close-ups that hold detail: every eroded preset at 4097² keeps the
/// power of its 4–16 cell wavelengths within 6 dB of the power law fitted
/// over the wavelengths a 513² map resolves (`scripts/detail-spectrum.py`:
/// radial spectrum of the heights, plane removed, Hann window; the fit
/// from a quarter of the extent down to 4 cells of 513²). Registered when
/// the sizes include 4097 (the release tier).
fn eroded_presets_keep_fine_detail() {
    const SIDE: u32 = 4097;
    let mut failures = Vec::new();
    for name in ERODED {
        let recipe = orogen_core::presets::load(name)
            .expect("shipped preset")
            .expect("valid preset")
            .resampled(SIDE);
        let output = run_once(&recipe, None, RunHooks::default()).expect("the preset runs");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("heights.f32");
        write_f32(&path, output.map.data());
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scripts/detail-spectrum.py"
        );
        let extent = recipe.extent.x.max(recipe.extent.y).to_string();
        let out = Command::new("python3")
            .args([script, path.to_str().unwrap(), &SIDE.to_string(), &extent])
            .output()
            .expect("python3 runs");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "detail-spectrum failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let db: f64 = text
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no figure in {text:?}"));
        eprintln!("{name} {SIDE}²: 4–16 cell band {db:+.1} dB against the power law");
        if db.abs() > 6.0 {
            failures.push(format!("{name}: {db:+.1} dB"));
        }
    }
    assert!(failures.is_empty(), "outside ±6 dB: {failures:?}");
}

/// By blocks: eroded-mountains and river-valley at 4097² in 1024-cell
/// blocks drain like rivers (θ 0.35–0.6, r² ≥ 0.8, closed pits ≤ 0.1 %),
/// stay within 0.1 m RMS of the coupled run (block_size 0), and show no
/// seam: in the 4-cell bands along the block edges the mean slope and
/// mean |curvature| are within 5 % of the coupled map's in the same
/// bands (the edges fall on the coarse levels' cell edges, so the bands
/// are compared with the same bands of the coupled map rather than with
/// the rest of the map). Registered when the sizes include 4097.
fn eroded_presets_by_blocks_drain_without_seams() {
    const SIDE: u32 = 4097;
    const BLOCK: u32 = 1024;
    for name in ["eroded-mountains", "river-valley"] {
        let preset = orogen_core::presets::load(name)
            .expect("shipped preset")
            .expect("valid preset");
        let with_blocks = |block: u32| {
            let mut recipe = preset.resampled(SIDE);
            for entry in &mut recipe.stages {
                if let orogen_core::stages::Stage::FluvialErosion(f) = &mut entry.stage {
                    f.block_size = block;
                }
            }
            recipe
        };
        let (theta, r2, pits) = judge(with_blocks(BLOCK), SIDE);
        eprintln!(
            "{name} {SIDE}², {BLOCK}-cell blocks: θ {theta:.3}, r² {r2:.3}, pits {pits:.4} %"
        );
        assert!(
            (0.35..=0.6).contains(&theta),
            "{name} by blocks: θ {theta:.3}"
        );
        assert!(r2 >= 0.8, "{name} by blocks: r² {r2:.3}");
        assert!(pits <= 0.1, "{name} by blocks: {pits:.3} % closed pits");
        let run = |recipe: Recipe| {
            run_once(&recipe, None, RunHooks::default())
                .expect("the preset runs")
                .map
        };
        let (blocked, coupled) = (run(with_blocks(BLOCK)), run(with_blocks(0)));
        let n = blocked.data().len() as f64;
        let rms = (blocked
            .data()
            .iter()
            .zip(coupled.data())
            .map(|(a, b)| ((a - b) as f64).powi(2))
            .sum::<f64>()
            / n)
            .sqrt();
        let cell = preset.resampled(SIDE).cell_size() as f64;
        let (slope_b, curv_b) = edge_band_means(&blocked, BLOCK as usize, cell);
        let (slope_c, curv_c) = edge_band_means(&coupled, BLOCK as usize, cell);
        eprintln!(
            "{name} {SIDE}² by blocks: RMS {rms:.4} m from coupled; edge bands: slope {:.4}, |curvature| {:.4} of the coupled map's",
            slope_b / slope_c,
            curv_b / curv_c
        );
        assert!(rms <= 0.1, "{name}: {rms:.3} m RMS from the coupled run");
        assert!(
            (slope_b / slope_c - 1.0).abs() <= 0.05,
            "{name}: slope seam"
        );
        assert!(
            (curv_b / curv_c - 1.0).abs() <= 0.05,
            "{name}: curvature seam"
        );
    }
}

/// Mean slope and mean |curvature| (5-point Laplacian) of the interior
/// cells within 2 cells of a block edge (the lines k·`block`, the edge
/// between cells k·block − 1 and k·block).
fn edge_band_means(map: &orogen_core::Heightmap, block: usize, cell: f64) -> (f64, f64) {
    let (w, h) = (map.width(), map.height());
    let near = |i: usize| {
        (1..w.max(h) / block).any(|k| {
            let edge = k * block;
            i + 2 >= edge && i < edge + 2
        })
    };
    let z = |x: usize, y: usize| map.get(x, y) as f64;
    let (mut slope, mut curv, mut count) = (0.0, 0.0, 0usize);
    for y in 1..h - 1 {
        let row_near = near(y);
        for x in 1..w - 1 {
            if !(row_near || near(x)) {
                continue;
            }
            let dx = (z(x + 1, y) - z(x - 1, y)) / (2.0 * cell);
            let dy = (z(x, y + 1) - z(x, y - 1)) / (2.0 * cell);
            let lap = (z(x + 1, y) + z(x - 1, y) + z(x, y + 1) + z(x, y - 1) - 4.0 * z(x, y))
                / (cell * cell);
            slope += dx.hypot(dy);
            curv += lap.abs();
            count += 1;
        }
    }
    (slope / count as f64, curv / count as f64)
}

/// The shipped presets with fluvial erosion.
const ERODED: [&str; 4] = [
    "eroded-mountains",
    "river-valley",
    "lake-valley",
    "alluvial-fans",
];

fn a_painted_range_drains_like_rivers() {
    check("painted range", &painted_range());
}

fn main() -> std::process::ExitCode {
    let fastscapelib = outside_tools::fastscapelib(&[]);
    let mut trials = vec![
        fastscapelib.test(
            "eroded_mountains_drains_like_rivers",
            eroded_mountains_drains_like_rivers,
        ),
        fastscapelib.test(
            "river_valley_drains_like_rivers",
            river_valley_drains_like_rivers,
        ),
        fastscapelib.test(
            "lake_valley_drains_like_rivers",
            lake_valley_drains_like_rivers,
        ),
        fastscapelib.test(
            "alluvial_fans_drain_without_pits",
            alluvial_fans_drain_without_pits,
        ),
        fastscapelib.test(
            "a_painted_range_drains_like_rivers",
            a_painted_range_drains_like_rivers,
        ),
    ];
    if sizes().contains(&4097) {
        trials.push(fastscapelib.test(
            "eroded_presets_keep_fine_detail",
            eroded_presets_keep_fine_detail,
        ));
        trials.push(fastscapelib.test(
            "eroded_presets_by_blocks_drain_without_seams",
            eroded_presets_by_blocks_drain_without_seams,
        ));
    }
    outside_tools::run(trials)
}
