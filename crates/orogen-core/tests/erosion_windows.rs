//! Fluvial erosion by blocks: windows of `eroded-mountains` equal the same
//! crops of the whole-map run bit for bit, at any thread count, and the
//! blocked run stays close to one globally coupled run.
//!
//! The preset runs here with small blocks (128 cells) and a small coarse
//! level (65 cells), so that at 513² two levels run by blocks (257² in
//! 2 × 2 blocks, 513² in 4 × 4) and the test stays quick.

use orogen_core::Heightmap;
use orogen_core::presets;
use orogen_core::recipe::Recipe;
use orogen_core::run_once;
use orogen_core::stages::Stage;
use orogen_core::window::{Window, WorldFacts, gather_facts, run_window};

fn window(x: usize, y: usize, width: usize, height: usize) -> Window {
    Window {
        x,
        y,
        width,
        height,
    }
}

/// `eroded-mountains` at `side` cells, its fluvial stage on blocks of
/// `block` cells from a `coarse`-cell coarse level.
fn mountains(side: u32, block: u32, coarse: u32) -> Recipe {
    let mut recipe = presets::load("eroded-mountains")
        .expect("preset exists")
        .expect("preset is valid")
        .resampled(side);
    let mut found = false;
    for entry in &mut recipe.stages {
        if let Stage::FluvialErosion(f) = &mut entry.stage {
            f.block_size = block;
            f.coarse_size = coarse;
            found = true;
        }
    }
    assert!(found, "eroded-mountains has a fluvial stage");
    recipe
}

fn whole(recipe: &Recipe) -> Heightmap {
    let out = run_once(recipe, None, Default::default()).expect("whole map runs");
    std::sync::Arc::unwrap_or_clone(out.map)
}

fn crop(map: &Heightmap, w: Window) -> Vec<u32> {
    let mut out = Vec::with_capacity(w.width * w.height);
    for y in w.y..w.y + w.height {
        for x in w.x..w.x + w.width {
            out.push(map.get(x, y).to_bits());
        }
    }
    out
}

/// Root mean square of the difference, in the maps' units (metres).
fn rms(a: &Heightmap, b: &Heightmap) -> f64 {
    let sum: f64 = a
        .data()
        .iter()
        .zip(b.data())
        .map(|(&x, &y)| ((x - y) as f64).powi(2))
        .sum();
    (sum / a.data().len() as f64).sqrt()
}

#[test]
fn eroded_mountains_windows_are_crops_of_the_blocked_whole_map() {
    windows_are_crops(&mountains(513, 128, 65));
}

/// With scree shed at each finer level too: the talus reads neighbours
/// for its sweeps, inside each block's halo.
#[test]
fn windows_with_talus_are_crops_of_the_blocked_whole_map() {
    let mut recipe = mountains(513, 128, 65);
    for entry in &mut recipe.stages {
        if let Stage::FluvialErosion(f) = &mut entry.stage {
            f.talus_angle = 20.0;
        }
    }
    assert_ne!(
        whole(&recipe).data(),
        whole(&mountains(513, 128, 65)).data()
    );
    windows_are_crops(&recipe);
}

/// With deposition on: rivers lay sediment down at the coarse level,
/// which every window computes whole, and the blocks carry the layer up
/// and cut into it. Windows' heights are still crops of the whole map's,
/// and the blocked run reports its layer as the deposits.
#[test]
fn windows_with_deposition_are_crops_of_the_blocked_whole_map() {
    let mut recipe = mountains(513, 128, 65);
    for entry in &mut recipe.stages {
        if let Stage::FluvialErosion(f) = &mut entry.stage {
            f.deposition = 1.0;
            f.steps = 40;
            f.diffusivity = 0.0;
        }
    }
    let (_, record) = orogen_core::pipeline::run_once_recording(&recipe, None, Default::default())
        .expect("the recipe runs");
    let laid = record.deposited();
    assert!(
        laid.iter().filter(|&&v| v >= 0.01).count() > 100,
        "the blocked run lays down sediment"
    );
    // The layer the blocked stage reports, not where its output rose
    // (with uplift the two differ).
    let rose: Vec<f32> = record.change().iter().map(|&c| c.max(0.0)).collect();
    assert_ne!(laid, rose, "the blocked stage reports its layer");
    windows_are_crops(&recipe);
}

/// With an uplift map from an image file and a painted hardness map:
/// each block samples the images at its own world place, so windows are
/// still crops of the whole map, and the blocked run stays close to the
/// coupled one.
#[test]
fn windows_with_image_and_painted_maps_are_crops_of_the_blocked_whole_map() {
    use orogen_core::params::Span;
    use orogen_core::stages::mask::painted::{self, Brush, PAINT_SIDE, PaintedImage, PaintedMask};
    use orogen_core::stages::mask::{MaskSource, StageMask};
    let dir = tempfile::tempdir().expect("a temporary folder");
    // Uplift: a diagonal ramp, dark in the north-west, light in the
    // south-east, at a resolution unlike any level's.
    let uplift_png = dir.path().join("uplift.png");
    image::GrayImage::from_fn(97, 61, |x, y| {
        image::Luma([(x * 255 / 96 / 2 + y * 255 / 60 / 2) as u8])
    })
    .save(&uplift_png)
    .expect("the image is written");
    // Hardness: a stroke of hard rock across the middle.
    let mut hard = PaintedImage::blank(PAINT_SIDE, PAINT_SIDE);
    let extent = [1.0, 1.0];
    let brush = Brush {
        radius: 0.12,
        hardness: 0.6,
        strength: 1.0,
        erase: false,
    };
    assert!(hard.stroke([0.1, 0.3], [0.9, 0.6], extent, &brush));
    let map = |source| StageMask {
        source,
        range: Span::new(0.0, 1.0),
        soft: 0.0,
        invert: false,
    };
    let with_maps = |block| {
        let mut recipe = mountains(513, block, 65);
        for entry in &mut recipe.stages {
            if let Stage::FluvialErosion(f) = &mut entry.stage {
                f.uplift_map = Some(map(MaskSource::Image(
                    uplift_png.to_string_lossy().into_owned(),
                )));
                f.hardness_map = Some(map(MaskSource::Painted(PaintedMask {
                    file: String::new(),
                    hash: painted::remember(hard.clone()),
                })));
                f.hard_rock = 0.2;
            }
        }
        recipe
    };
    let recipe = with_maps(128);
    let plain = whole(&mountains(513, 128, 65));
    let mapped = whole(&recipe);
    let changed = rms(&plain, &mapped);
    assert!(
        changed > 1.0,
        "the maps change the land: RMS {changed:.3} m"
    );
    windows_are_crops(&recipe);
    let coupled = whole(&with_maps(0));
    let d = rms(&mapped, &coupled);
    eprintln!("513², 128-cell blocks with maps: RMS {d:.4} m against the coupled run");
    assert!(
        d < 1.0,
        "blocked vs coupled RMS {d:.3} m (heights 0..160 m)"
    );
}

fn windows_are_crops(recipe: &Recipe) {
    let recipe = recipe.clone();
    let full = whole(&recipe);
    // Windows covering the map, for the barrier phases (the Normalize
    // stages before and after erosion).
    let cover = [
        window(0, 0, 257, 257),
        window(257, 0, 256, 257),
        window(0, 257, 257, 256),
        window(257, 257, 256, 256),
    ];
    let facts = gather_facts(&recipe, &cover, None).expect("barrier phases run");
    let probes = [
        // A corner cell, a block's corner (blends of four blocks), a
        // window across several block edges, one on the east edge, a row.
        window(0, 0, 1, 1),
        window(120, 120, 16, 16),
        window(200, 60, 150, 97),
        window(470, 300, 43, 120),
        window(0, 384, 513, 3),
    ];
    for probe in probes {
        let got =
            run_window(&recipe, probe, &facts, None).unwrap_or_else(|e| panic!("{probe:?}: {e}"));
        let got: Vec<u32> = got.data().iter().map(|v| v.to_bits()).collect();
        let want = crop(&full, probe);
        let wrong = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        assert_eq!(
            wrong, 0,
            "{probe:?}: {wrong} cells differ from the whole map"
        );
    }
    // The whole map as a window is the whole-map run.
    let all = run_window(
        &recipe,
        window(0, 0, 513, 513),
        &WorldFacts::default(),
        None,
    )
    .expect("the whole map as a window runs");
    assert_eq!(all.data(), full.data());
}

#[test]
fn blocked_bytes_do_not_depend_on_the_thread_count() {
    let recipe = mountains(257, 64, 33);
    let many = whole(&recipe);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
        .install(|| whole(&recipe));
    assert_eq!(many.data(), one.data());
}

#[test]
fn blocks_stay_close_to_one_coupled_run_and_leave_small_maps_alone() {
    // Blocked (64-cell blocks) against coupled (block size 0) at 257².
    let blocked = whole(&mountains(257, 64, 33));
    let coupled = whole(&mountains(257, 0, 33));
    let d = rms(&blocked, &coupled);
    eprintln!("257², 64-cell blocks: RMS {d:.4} m against the coupled run");
    assert!(
        d > 0.0 && d < 3.0,
        "blocked vs coupled RMS {d:.3} m (heights 0..160 m)"
    );
    // A level within one block runs on the whole map: the default block
    // size leaves a 257² map as the coupled run makes it.
    let default = whole(&mountains(257, 1024, 33));
    assert_eq!(default.data(), coupled.data());
}

/// A block size under the minimum is refused in one line that says what
/// to use; 0 and the minimum run.
#[test]
fn a_block_size_below_the_minimum_is_refused() {
    use orogen_core::stages::fluvial::MIN_BLOCK_SIZE;
    let error = run_once(&mountains(129, 32, 33), None, Default::default())
        .expect_err("refused")
        .to_string();
    assert!(error.contains("block_size 32 is below 64 cells"), "{error}");
    assert!(!error.contains('\n'), "{error}");
    for ok in [0, MIN_BLOCK_SIZE] {
        run_once(&mountains(129, ok, 33), None, Default::default()).expect("runs");
    }
}
