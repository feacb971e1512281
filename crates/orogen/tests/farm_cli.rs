//! A world built as windows by the real binary: `orogen plan` loops until
//! it prints nothing, its jobs run by `sh`, and the windows' float heights,
//! stitched, equal the whole-map export bit for bit (their 16-bit samples
//! too: every window stores the world's height range).

mod common;
use common::*;
use orogen_core::io::float_files::decode_tiff;
use orogen_core::io::owner_lock::OwnerLock;
use std::path::Path;
use std::process::Command;

/// Runs `orogen plan ARGS`, then its jobs with `sh`, until the plan is
/// empty; returns the number of job lines of each round.
fn farm(plan: &[&str]) -> Vec<usize> {
    let mut rounds = Vec::new();
    for _ in 0..10 {
        let (ok, stdout, stderr) = run(plan);
        assert!(ok, "plan failed: {stderr}");
        let jobs: Vec<&str> = stdout.lines().collect();
        if jobs.is_empty() {
            return rounds;
        }
        rounds.push(jobs.len());
        for job in jobs {
            let out = Command::new("sh")
                .args(["-c", job])
                .output()
                .expect("sh runs");
            assert!(
                out.status.success(),
                "{job}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    panic!("the plan never emptied: {rounds:?}");
}

/// A float TIFF's heights.
fn tif(path: &Path) -> (usize, usize, Vec<f32>) {
    let map = decode_tiff(&std::fs::read(path).expect("the TIFF exists")).expect("it decodes");
    (map.width, map.height, map.heights.expect("float heights"))
}

fn sidecar(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("heightmap.json")).expect("a sidecar"))
        .expect("it parses")
}

/// Builds `recipe` at `size` (when given) as `tiles x tiles` windows and as
/// one whole map, and compares the stitched windows with the whole map.
fn windows_equal_the_whole_map(recipe: &str, size: Option<&str>, tiles: usize, barriers: usize) {
    let dir = tempfile::tempdir().unwrap();
    let farm_dir = dir.path().join("farm");
    let whole = dir.path().join("whole");
    let mut common_args = vec!["--recipe", recipe];
    if let Some(size) = size {
        common_args.extend(["--size", size]);
    }
    let tiles_text = tiles.to_string();
    let mut plan = vec!["plan"];
    plan.extend(&common_args);
    plan.extend([
        "--tiles",
        &tiles_text,
        "--out",
        farm_dir.to_str().unwrap(),
        "--formats",
        "tif,r16",
    ]);
    let rounds = farm(&plan);
    let windows = tiles * tiles;
    // Each Normalize's facts, the final range's facts, then the windows.
    assert_eq!(rounds, vec![windows; barriers + 2]);
    let mut generate = vec!["generate"];
    generate.extend(&common_args);
    generate.extend(["--out", whole.to_str().unwrap(), "--formats", "tif,r16"]);
    let (ok, _, stderr) = run(&generate);
    assert!(ok, "{stderr}");
    let (width, height, heights) = tif(&whole.join("heightmap.tif"));
    let samples = std::fs::read(whole.join("heightmap.r16")).unwrap();
    let whole_json = sidecar(&whole);
    let mut stitched = vec![f32::NAN; width * height];
    let mut stitched_r16 = vec![0u8; width * height * 2];
    let mut covered = vec![0u8; width * height];
    for j in 0..tiles {
        for i in 0..tiles {
            let tile = farm_dir.join(format!("tile_{i}_{j}"));
            let json = sidecar(&tile);
            let w = &json["window"];
            let field = |name: &str| w[name].as_u64().expect("a window field") as usize;
            let (x, y, tw, th) = (field("x"), field("y"), field("width"), field("height"));
            assert_eq!(
                (field("world_width"), field("world_height")),
                (width, height)
            );
            assert_eq!(
                (json["width"].as_u64(), json["height"].as_u64()),
                (Some(tw as u64), Some(th as u64))
            );
            // One height range for every window: the whole map's.
            assert_eq!(json["min_height"], whole_json["min_height"]);
            assert_eq!(json["max_height"], whole_json["max_height"]);
            let (fw, fh, values) = tif(&tile.join("heightmap.tif"));
            assert_eq!((fw, fh), (tw, th));
            let r16 = std::fs::read(tile.join("heightmap.r16")).unwrap();
            assert_eq!(r16.len(), tw * th * 2);
            for row in 0..th {
                for col in 0..tw {
                    let at = (y + row) * width + x + col;
                    stitched[at] = values[row * tw + col];
                    covered[at] += 1;
                    let from = (row * tw + col) * 2;
                    stitched_r16[at * 2..at * 2 + 2].copy_from_slice(&r16[from..from + 2]);
                }
            }
        }
    }
    assert!(
        covered.iter().all(|&n| n == 1),
        "the windows partition the map"
    );
    let differing = stitched
        .iter()
        .zip(&heights)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    assert_eq!(differing, 0, "cells differing from the whole map");
    assert!(
        stitched_r16 == samples,
        "16-bit samples differ from the whole map's"
    );
    // A finished farm lists nothing, however often it is asked.
    let (ok, stdout, _) = run(&plan);
    assert!(ok && stdout.is_empty(), "{stdout}");
}

#[test]
fn the_default_preset_as_four_windows_equals_the_whole_map() {
    windows_equal_the_whole_map("default", Some("513"), 2, 1);
}

/// Fluvial erosion couples the whole map: below its block size every
/// window runs the world's erosion itself, so it is still an exact crop.
/// (Three Normalize barriers: before and after the clamp that makes its
/// valley floors, and the last.)
#[test]
fn eroded_mountains_as_four_windows_equals_the_whole_map() {
    windows_equal_the_whole_map("eroded-mountains", Some("257"), 2, 3);
}

#[test]
fn odd_windows_of_an_oblong_world_equal_the_whole_map() {
    let dir = tempfile::tempdir().unwrap();
    // 301 x 203 cells: windows of 150 and 151 columns, 101 and 102 rows.
    let recipe = default_world_of(dir.path(), 301, 203);
    windows_equal_the_whole_map(&recipe, None, 2, 1);
}

#[test]
fn bad_windows_are_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    let generate = |window: &'static str| {
        [
            "generate",
            "--recipe",
            "default",
            "--size",
            "513",
            "--formats",
            "tif",
            "--out",
            out_s,
            "--window",
            window,
        ]
    };
    for (window, expect) in [
        ("0,0,0,4", "empty"),
        ("0,0,4,0", "empty"),
        ("-1,0,4,4", "x is -1"),
        ("0,-8,4,4", "y is -8"),
        ("500,0,14,4", "outside the 513x513 map"),
        ("0,510,4,4", "outside"),
        ("1,2,3", "four whole numbers"),
        ("1,2,3,x", "four whole numbers"),
        ("1,2,3,4,5", "four whole numbers"),
        ("", "four whole numbers"),
    ] {
        assert_refused(&generate(window), &out, expect);
    }
    // A recipe with a barrier needs the world's facts; the error says how.
    assert_refused(&generate("0,0,64,64"), &out, "orogen plan");
    let facts = dir.path().join("missing.json");
    let mut args = generate("0,0,64,64").to_vec();
    args.extend(["--facts", facts.to_str().unwrap()]);
    assert_refused(&args, &out, "cannot read facts file");
    // Windows export heights only.
    let mut args = generate("0,0,64,64").to_vec();
    args.extend(["--texture", "64"]);
    assert_refused(&args, &out, "drop --texture");
    // Memory is checked per window: a small window of a 32769² world
    // (about 34 GB whole) runs within 256 MiB (its blur reads its rows
    // from the west edge); a larger one is refused.
    let report = dir.path().join("small.json");
    let (ok, stdout, stderr) = run(&[
        "facts",
        "--recipe",
        "default",
        "--size",
        "32769",
        "--window",
        "32700,100,64,64",
        "--stage",
        "3",
        "--memory-limit",
        "256",
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("stage 3 (normalize)"), "{stdout}");
    let big = [
        "generate",
        "--recipe",
        "default",
        "--size",
        "32769",
        "--formats",
        "tif",
        "--out",
        out_s,
        "--window",
        "28672,0,4096,4096",
        "--memory-limit",
        "256",
    ];
    assert_refused(&big, &out, "window needs about");
    // A facts job checks its window the same way.
    let report = dir.path().join("r.json");
    let (ok, _, stderr) = run(&[
        "facts",
        "--recipe",
        "default",
        "--size",
        "513",
        "--window",
        "0,0,600,4",
        "--stage",
        "3",
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(
        !ok && stderr.lines().count() == 1 && stderr.contains("outside"),
        "{stderr}"
    );
    assert!(!report.exists());
}

/// A recipe whose windows cannot be exact (a stage masked by slope;
/// fluvial erosion by blocks with a flow uplift map) is refused by
/// `orogen plan` in one line with nothing written; as one window (the
/// whole map) it plans.
#[test]
fn a_plan_of_windows_that_cannot_be_exact_is_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let slope = dir.path().join("slope.ron");
    std::fs::write(
        &slope,
        "(extent: (x: 256.0, y: 256.0), size: (width: 257, height: 257), seed: 2, stages: [
            (enabled: true, stage: Noise(kind: Perlin, frequency: 2.5, octaves: 4, lacunarity: 2.0, persistence: 0.5, amplitude: 70.0, offset: 0.0, combine: Replace)),
            (enabled: true, stage: Blur(passes: 1, width: 3.0), mask: (source: Slope, range: (min: 0.0, max: 20.0), soft: 0.0)),
        ])",
    )
    .unwrap();
    let flow = dir.path().join("flow.ron");
    let mut recipe = orogen_core::presets::load("eroded-mountains")
        .expect("preset exists")
        .expect("preset is valid")
        .resampled(257);
    for entry in &mut recipe.stages {
        if let orogen_core::stages::Stage::FluvialErosion(f) = &mut entry.stage {
            f.coarse_size = 33;
            f.block_size = 64;
            f.uplift_map = Some(orogen_core::stages::mask::StageMask {
                source: orogen_core::stages::mask::MaskSource::Flow,
                range: orogen_core::params::Span::new(1000.0, 1e12),
                soft: 0.0,
                invert: false,
            });
        }
    }
    std::fs::write(&flow, recipe.to_ron().expect("serialises")).unwrap();
    for (recipe, expect) in [(&slope, "slope, flow or lakes mask"), (&flow, "uplift_map")] {
        let out = dir.path().join("world");
        let plan = |tiles: &str| {
            run(&[
                "plan",
                "--recipe",
                recipe.to_str().unwrap(),
                "--tiles",
                tiles,
                "--out",
                out.to_str().unwrap(),
            ])
        };
        let (ok, stdout, stderr) = plan("2");
        assert!(!ok, "{}: refused", recipe.display());
        assert!(
            stderr.trim().lines().count() == 1 && stderr.contains(expect),
            "{stderr}"
        );
        assert!(
            stdout.is_empty() && !out.exists(),
            "nothing planned or written"
        );
        let (ok, stdout, stderr) = plan("1");
        assert!(ok, "{stderr}");
        assert_eq!(stdout.lines().count(), 1, "one window: {stdout}");
        std::fs::remove_dir_all(&out).unwrap();
    }
}

#[test]
fn a_window_with_a_live_writer_is_not_listed_again_and_plans_do_not_mix() {
    let dir = tempfile::tempdir().unwrap();
    let farm_dir = dir.path().join("farm");
    let out = farm_dir.to_str().unwrap();
    // Float files only, a recipe without barriers: windows at once.
    let plan = [
        "plan",
        "--recipe",
        "article-003-diamond-square",
        "--size",
        "129",
        "--tiles",
        "2",
        "--out",
        out,
        "--formats",
        "exr",
    ];
    let (ok, stdout, stderr) = run(&plan);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
    assert!(stdout.lines().all(|l| l.contains(" generate ")), "{stdout}");
    // A writer that holds its owner lock in tile_1_0 is alive.
    let tile = farm_dir.join("tile_1_0");
    std::fs::create_dir_all(&tile).unwrap();
    let lock = OwnerLock::create(&tile.join(".orogen-1-00000000000000ab.lock")).unwrap();
    let (_, stdout, _) = run(&plan);
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(!stdout.contains("tile_1_0"), "{stdout}");
    // Its writer gone (the lock let go), the window is listed again.
    drop(lock);
    // (A child another test forks shares the lock until it execs: retry.)
    let listed = (0..20).any(|_| {
        let (_, stdout, _) = run(&plan);
        stdout.contains("tile_1_0") || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            false
        }
    });
    assert!(listed, "a dead writer's window is listed again");
    // Another seed into the same folder would pass for this plan: refused.
    let mut other = plan.to_vec();
    other.extend(["--seed", "7"]);
    let (ok, stdout, stderr) = run(&other);
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("holds a plan for another recipe"),
        "{stderr}"
    );
}

#[test]
fn engine_tiles_from_windows_equal_the_whole_maps_tiled_export() {
    let dir = tempfile::tempdir().unwrap();
    let farm_dir = dir.path().join("farm");
    let whole = dir.path().join("whole");
    let plan = [
        "plan",
        "--recipe",
        "default",
        "--size",
        "1025",
        "--tiles",
        "2",
        "--engine",
        "unity",
        "--out",
        farm_dir.to_str().unwrap(),
    ];
    assert_eq!(farm(&plan), [4, 4, 4]);
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--size",
        "1025",
        "--tiles",
        "2",
        "--engine",
        "unity",
        "--out",
        whole.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    // Unity's Terrain Tools names: heightmap_<x>_<z>, z from the south;
    // 513-cell tiles sharing a border, rows south first.
    for name in [
        "heightmap_0_0",
        "heightmap_1_0",
        "heightmap_0_1",
        "heightmap_1_1",
    ] {
        let ours = std::fs::read(farm_dir.join(format!("{name}.r16"))).unwrap();
        let theirs = std::fs::read(whole.join(format!("{name}.r16"))).unwrap();
        assert_eq!(ours.len(), 513 * 513 * 2, "{name}");
        assert!(
            ours == theirs,
            "{name}.r16 differs from the whole map's tile"
        );
    }
    let (ok, stdout, _) = run(&plan);
    assert!(ok && stdout.is_empty(), "{stdout}");
}
