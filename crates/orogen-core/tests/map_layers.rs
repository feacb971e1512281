//! Derived maps as engine layers (`--engine` with `--maps`), read back
//! with the `image` crate and checked against the documented weights,
//! recomputed here from the 16-bit files: Unreal and Godot get one grey
//! 8-bit image per map at the map's size, Unity RGBA alphamaps one texel
//! narrower, four maps to an image.

use orogen_core::Recipe;
use orogen_core::bake::{ExportRequest, export_map};
use orogen_core::io::engines::Engine;
use orogen_core::maps::DerivedMap;
use orogen_core::pipeline::{ErosionRecord, RunHooks, run_once_recording};
use std::path::Path;
use std::sync::Arc;

/// Five maps, so Unity needs two alphamaps: 16-bit and 8-bit ones.
const MAPS: [DerivedMap; 5] = [
    DerivedMap::Flow,
    DerivedMap::Wetness,
    DerivedMap::Lakes,
    DerivedMap::Occlusion,
    DerivedMap::Wear,
];

fn eroded_at(side: u32) -> (Recipe, orogen_core::Heightmap, ErosionRecord) {
    let mut recipe = orogen_core::presets::load("eroded-mountains")
        .expect("shipped preset")
        .expect("valid preset");
    recipe.set_sampling(side, side);
    let (output, record) =
        run_once_recording(&recipe, None, RunHooks::default()).expect("the preset runs");
    (recipe, Arc::unwrap_or_clone(output.map), record)
}

fn export_for(engine: Engine, side: u32, dir: &Path) -> serde_json::Value {
    let (recipe, map, record) = eroded_at(side);
    let request = ExportRequest {
        maps: MAPS.to_vec(),
        erosion: Some(Arc::new(record)),
        ..ExportRequest::default()
    }
    .for_engine(engine, side as usize, side as usize)
    .expect("an engine size");
    export_map(&map, &recipe, None, &request, dir).expect("the export");
    serde_json::from_slice(&std::fs::read(dir.join("heightmap.json")).expect("a sidecar"))
        .expect("JSON")
}

/// The documented 8-bit weight of a 16-bit sample.
fn weight16(kind: DerivedMap, v: u16) -> u8 {
    let v = f64::from(v);
    let share = match kind {
        DerivedMap::Flow => {
            let area = (v / 2048.0).exp2() - 1.0;
            if area <= 500.0 {
                0.0
            } else {
                (area / 500.0).log10() / 500.0f64.log10()
            }
        }
        _ => (v / 100.0).min(10.0) / 10.0,
    };
    (share.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A map's weights, north first, from its own PNG (`south_first`: the
/// PNG's rows are flipped).
fn weights_from_png(dir: &Path, kind: DerivedMap, south_first: bool) -> (u32, Vec<u8>) {
    let image = image::open(dir.join(format!("{}.png", kind.name()))).expect("the map's PNG");
    let width = image.width();
    let mut weights: Vec<u8> = match kind.meaning().bits {
        16 => image
            .into_luma16()
            .into_raw()
            .into_iter()
            .map(|v| weight16(kind, v))
            .collect(),
        _ => image.into_luma8().into_raw(),
    };
    if south_first {
        let rows: Vec<Vec<u8>> = weights
            .chunks(width as usize)
            .rev()
            .map(<[u8]>::to_vec)
            .collect();
        weights = rows.concat();
    }
    (width, weights)
}

#[test]
fn unreal_and_godot_get_a_grey_weight_image_per_map() {
    for (engine, side) in [(Engine::Unreal, 127u32), (Engine::Godot, 65)] {
        let dir = tempfile::tempdir().expect("a temp folder");
        let sidecar = export_for(engine, side, dir.path());
        let entries = sidecar["maps"].as_array().expect("a maps list");
        assert_eq!(entries.len(), MAPS.len());
        for (kind, entry) in MAPS.into_iter().zip(entries) {
            let sixteen = kind.meaning().bits == 16;
            let file = if sixteen {
                format!("{}_weight.png", kind.name())
            } else {
                format!("{}.png", kind.name())
            };
            assert_eq!(entry["layer"]["file"], file.as_str(), "{engine:?}");
            assert_eq!(entry["layer"]["engine"], engine.name());
            let weights = image::open(dir.path().join(&file)).expect("a readable weight map");
            assert!(
                matches!(weights, image::DynamicImage::ImageLuma8(_)),
                "{file} is 8-bit grey"
            );
            assert_eq!((weights.width(), weights.height()), (side, side), "{file}");
            let (_, expected) = weights_from_png(dir.path(), kind, false);
            assert_eq!(
                weights.into_luma8().into_raw(),
                expected,
                "{engine:?} {file}"
            );
        }
        // The 16-bit maps stay beside their weights.
        let flow = image::open(dir.path().join("flow.png")).expect("flow.png");
        assert!(matches!(flow, image::DynamicImage::ImageLuma16(_)));
        assert!(!dir.path().join("maps_alpha_0.png").exists());
        assert!(!dir.path().join("wetness_weight.png").exists());
    }
}

#[test]
fn unity_gets_rgba_alphamaps_one_texel_narrower() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let sidecar = export_for(Engine::Unity, 65, dir.path());
    let entries = sidecar["maps"].as_array().expect("a maps list");
    let channels = ["r", "g", "b", "a"];
    let alphas: Vec<image::RgbaImage> = (0..2)
        .map(|i| {
            let image = image::open(dir.path().join(format!("maps_alpha_{i}.png")))
                .expect("a readable alphamap");
            assert!(matches!(image, image::DynamicImage::ImageRgba8(_)));
            assert_eq!((image.width(), image.height()), (64, 64));
            image.into_rgba8()
        })
        .collect();
    assert!(!dir.path().join("maps_alpha_2.png").exists());
    assert!(!dir.path().join("flow_weight.png").exists());
    for (index, (kind, entry)) in MAPS.into_iter().zip(entries).enumerate() {
        assert_eq!(
            entry["layer"]["file"],
            format!("maps_alpha_{}.png", index / 4).as_str()
        );
        assert_eq!(entry["layer"]["channel"], channels[index % 4]);
        // The maps' own PNGs follow the height file (south first); the
        // alphamaps are north first like the splat maps.
        let (width, weights) = weights_from_png(dir.path(), kind, true);
        let w = width as usize;
        let alpha = &alphas[index / 4];
        for ty in 0..64usize {
            for tx in 0..64usize {
                // A texel centre lies between four cells: their mean.
                let sum: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .map(|(dx, dy)| u32::from(weights[(ty + dy) * w + tx + dx]))
                    .sum();
                let expected = (f64::from(sum) / 4.0).round() as u8;
                let got = alpha.get_pixel(tx as u32, ty as u32).0[index % 4];
                assert_eq!(got, expected, "{kind:?} at texel ({tx}, {ty})");
            }
        }
    }
    // The unused channels of the last alphamap carry no weight.
    assert!(
        alphas[1]
            .pixels()
            .all(|p| p.0[1] == 0 && p.0[2] == 0 && p.0[3] == 0)
    );
    assert!(alphas[0].pixels().any(|p| p.0[0] > 0), "some flow");

    // Pillow reads them too, when it is installed.
    let script = format!(
        "from PIL import Image\nim = Image.open({:?})\nprint(im.mode, im.size)",
        dir.path().join("maps_alpha_0.png")
    );
    if let Ok(out) = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        && out.status.success()
    {
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "RGBA (64, 64)");
    }
}

#[test]
fn layer_files_are_the_same_bytes_on_any_thread_count() {
    let files = |threads: usize| -> Vec<Vec<u8>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let dir = tempfile::tempdir().expect("a temp folder");
        pool.install(|| export_for(Engine::Unity, 65, dir.path()));
        ["maps_alpha_0.png", "maps_alpha_1.png"]
            .iter()
            .map(|f| std::fs::read(dir.path().join(f)).expect("an alphamap"))
            .collect()
    };
    let one = files(1);
    assert_eq!(files(2), one);
    assert_eq!(files(8), one);
}
