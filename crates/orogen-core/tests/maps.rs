//! Derived maps judged by an outside library, and their determinism.
//!
//! The default preset at 1025² is exported with its float heights and
//! `lakes.png` and `flow.png`; `scripts/maps-check.py` fills the float
//! heights with fastscapelib's priority flood and routes them with its D8
//! router: the lakes must cover the same cells (intersection over union
//! ≥ 0.9 on cells raised by more than 1 cm) and the flow must rank like
//! its drainage area (Spearman ≥ 0.8). No orogen routing code is involved
//! in the judgement. Without fastscapelib that test is ignored as skipped
//! (`support/outside_tools.rs`), except in CI.

use orogen_core::Heightmap;
use orogen_core::bake::{ExportRequest, export_map};
use orogen_core::io::height_files::HeightFormats;
use orogen_core::maps::{DerivedMap, MapPixels, MapSettings, derive_map};
use orogen_core::pipeline::{RunHooks, run_once};
use std::process::Command;

#[path = "support/outside_tools.rs"]
mod outside_tools;

fn preset_at(name: &str, size: u32) -> (orogen_core::Recipe, Heightmap) {
    let mut recipe = orogen_core::presets::load(name)
        .expect("shipped preset")
        .expect("valid preset");
    let (w, h) = recipe.sampling_for(size);
    recipe.set_sampling(w, h);
    let output = run_once(&recipe, None, RunHooks::default()).expect("the preset runs");
    let map = std::sync::Arc::unwrap_or_clone(output.map);
    (recipe, map)
}

fn lakes_and_flow_agree_with_fastscapelib_on_the_default_preset() {
    let (recipe, map) = preset_at("default", 1025);
    let request = ExportRequest {
        formats: HeightFormats::parse("exr").unwrap(),
        maps: vec![DerivedMap::Flow, DerivedMap::Lakes],
        ..ExportRequest::default()
    };
    let dir = tempfile::tempdir().unwrap();
    export_map(&map, &recipe, None, &request, dir.path()).expect("the export");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/maps-check.py");
    let out = Command::new("python3")
        .args([script, dir.path().to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "maps-check failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON from the checker");
    eprintln!("default 1025²: {v}");
    let num = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    assert!(
        num("lake_cells_library") > 1000.0,
        "the preset has lakes: {v}"
    );
    assert!(
        num("lake_iou") >= 0.9,
        "lakes against the priority flood: {v}"
    );
    assert!(
        num("flow_spearman") >= 0.8,
        "flow against D8 drainage area: {v}"
    );
}

fn the_sidecar_says_what_each_map_means() {
    let (recipe, map) = preset_at("default", 129);
    let (_, record) = orogen_core::pipeline::run_once_recording(&recipe, None, RunHooks::default())
        .expect("the preset runs");
    let request = ExportRequest {
        maps: DerivedMap::ALL.to_vec(),
        erosion: Some(std::sync::Arc::new(record)),
        ..ExportRequest::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let report = export_map(&map, &recipe, None, &request, dir.path()).expect("the export");
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("heightmap.json")).unwrap()).unwrap();
    let maps = sidecar["maps"].as_array().expect("a maps list");
    assert_eq!(maps.len(), DerivedMap::ALL.len());
    for (entry, kind) in maps.iter().zip(DerivedMap::ALL) {
        let file = format!("{}.png", kind.name());
        assert_eq!(entry["file"], file.as_str());
        assert!(entry["meaning"].as_str().is_some_and(|m| m.len() > 20));
        let image = image::open(dir.path().join(&file)).expect("a readable PNG");
        assert_eq!((image.width(), image.height()), (129, 129), "{file}");
        let bits = entry["bits"].as_u64();
        let sixteen = matches!(image, image::DynamicImage::ImageLuma16(_));
        assert_eq!(bits == Some(16), sixteen, "{file}");
        assert!(report.written.iter().any(|p| p.ends_with(&file)));
    }
    // The default preset has no erosion stage.
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("no erosion stage: wear.png and deposition.png are empty")),
        "{:?}",
        report.warnings
    );
}

fn derived_maps_are_the_same_bytes_on_any_thread_count() {
    let (recipe, map) = preset_at("eroded-mountains", 257);
    let settings = MapSettings {
        sea_level: Some(5.0),
        ..MapSettings::default()
    };
    let run = |threads: usize| -> Vec<MapPixels> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            DerivedMap::FROM_HEIGHTS
                .iter()
                .filter_map(|&kind| derive_map(&map, recipe.cell_size(), kind, &settings))
                .collect()
        })
    };
    let one = run(1);
    assert_eq!(one.len(), DerivedMap::FROM_HEIGHTS.len());
    assert_eq!(run(2), one);
    assert_eq!(run(8), one);
}

fn a_tiled_export_cuts_each_map_into_the_heights_tiles() {
    use orogen_core::io::height_files::ExportOptions;
    use orogen_core::io::tiled_export::map_tile_grid;
    let (recipe, map) = preset_at("default", 129);
    for flip_y in [false, true] {
        let request = ExportRequest {
            options: ExportOptions {
                flip_y,
                ..ExportOptions::default()
            },
            maps: vec![DerivedMap::Lakes, DerivedMap::Rivers],
            tiles: Some(map_tile_grid(129, 129, 2).expect("129 splits in 2")),
            ..ExportRequest::default()
        };
        let dir = tempfile::tempdir().unwrap();
        export_map(&map, &recipe, None, &request, dir.path()).expect("the export");
        for name in ["lakes", "rivers"] {
            let whole = image::open(dir.path().join(format!("{name}.png")))
                .expect("the whole map")
                .into_luma16();
            for (i, j) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let file = format!("heightmap_x{i}_y{j}_{name}.png");
                let tile = image::open(dir.path().join(&file))
                    .unwrap_or_else(|e| panic!("{file}: {e}"))
                    .into_luma16();
                assert_eq!(tile.dimensions(), (65, 65), "{file}");
                // Tile (i, j) starts at cell (64 i, 64 j) of the north-up
                // map; with flip-y both files run south first.
                for ty in 0..65u32 {
                    for tx in 0..65u32 {
                        let (x, y_north) =
                            (64 * i + tx, 64 * j + if flip_y { 64 - ty } else { ty });
                        let wy = if flip_y { 128 - y_north } else { y_north };
                        assert_eq!(
                            tile.get_pixel(tx, ty),
                            whole.get_pixel(x, wy),
                            "{file} at {tx},{ty} (flip {flip_y})"
                        );
                    }
                }
            }
        }
    }
}

fn main() -> std::process::ExitCode {
    use outside_tools::{Needs, Tool};
    let fastscapelib = outside_tools::fastscapelib(&[Tool::PythonModule("PIL", "pillow")]);
    let none = Needs::none();
    outside_tools::run(vec![
        fastscapelib.test(
            "lakes_and_flow_agree_with_fastscapelib_on_the_default_preset",
            lakes_and_flow_agree_with_fastscapelib_on_the_default_preset,
        ),
        none.test(
            "the_sidecar_says_what_each_map_means",
            the_sidecar_says_what_each_map_means,
        ),
        none.test(
            "derived_maps_are_the_same_bytes_on_any_thread_count",
            derived_maps_are_the_same_bytes_on_any_thread_count,
        ),
        none.test(
            "a_tiled_export_cuts_each_map_into_the_heights_tiles",
            a_tiled_export_cuts_each_map_into_the_heights_tiles,
        ),
    ])
}
