//! Windows of the world: every window computed alone equals the same crop
//! of the whole-map run, bit for bit, given the barrier facts gathered
//! from windows that cover the map.

use orogen_core::Heightmap;
use orogen_core::presets;
use orogen_core::recipe::Recipe;
use orogen_core::run_once;
use orogen_core::window::{
    Window, WindowError, WindowRunError, WorldFacts, barriers, gather_facts, run_window,
};

fn preset(name: &str, side: u32) -> Recipe {
    presets::load(name)
        .expect("preset exists")
        .expect("preset is valid")
        .resampled(side)
}

fn window(x: usize, y: usize, width: usize, height: usize) -> Window {
    Window {
        x,
        y,
        width,
        height,
    }
}

/// `k × k` windows covering a `width × height` map (the last row and
/// column of windows take the remainder).
fn tiles(width: usize, height: usize, k: usize) -> Vec<Window> {
    let cut = |len: usize, i: usize| len * i / k;
    let mut out = Vec::new();
    for j in 0..k {
        for i in 0..k {
            let (x0, x1) = (cut(width, i), cut(width, i + 1));
            let (y0, y1) = (cut(height, j), cut(height, j + 1));
            out.push(window(x0, y0, x1 - x0, y1 - y0));
        }
    }
    out
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

/// Windows worth checking on a `width × height` map: the corners, the
/// middle, odd sizes, single cells, whole rows and columns, the whole map.
fn probe_windows(width: usize, height: usize) -> Vec<Window> {
    let (w, h) = (width, height);
    vec![
        window(0, 0, w, h),
        window(0, 0, 1, 1),
        window(w - 1, h - 1, 1, 1),
        window(0, 0, 37, 29),
        window(w - 41, 0, 41, 23),
        window(0, h - 19, 53, 19),
        window(w - 64, h - 64, 64, 64),
        window(w / 2 - 50, h / 2 - 33, 101, 67),
        window(w / 3, h / 4, 1, 1),
        window(w / 2 + 3, 70, 3, 200.min(h - 70)),
        window(0, h / 2, w, 5),
        window(w / 2, 0, 7, h),
    ]
}

/// Every probe window of `recipe` equals the crop of the whole-map run.
fn windows_are_crops(recipe: &Recipe) {
    let (w, h) = (recipe.width as usize, recipe.height as usize);
    let whole = run_once(recipe, None, Default::default()).expect("whole map runs");
    let facts = gather_facts(recipe, &tiles(w, h, 3), None).expect("barrier phases run");
    assert_eq!(
        facts.stages.iter().map(|s| s.index).collect::<Vec<_>>(),
        barriers(recipe),
        "every barrier has its facts"
    );
    for probe in probe_windows(w, h) {
        let got = run_window(recipe, probe, &facts, None)
            .unwrap_or_else(|e| panic!("{probe:?} of {w}x{h}: {e}"));
        assert_eq!((got.width(), got.height()), (probe.width, probe.height));
        let got: Vec<u32> = got.data().iter().map(|v| v.to_bits()).collect();
        let want = crop(&whole.map, probe);
        let wrong = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        assert_eq!(wrong, 0, "{probe:?} of {w}x{h}: {wrong} cells differ");
    }
}

#[test]
fn default_preset_windows_are_crops_at_513_and_257() {
    windows_are_crops(&preset("default", 513));
    windows_are_crops(&preset("default", 257));
    // Not 2^k + 1: diamond-square's lattice is resampled to the world.
    windows_are_crops(&preset("default", 300));
}

#[test]
fn non_erosion_presets_windows_are_crops() {
    for name in [
        "article-000-hills-and-pits",
        "article-003-diamond-square",
        "three-terrain-hill",
        "three-terrain-hill-island",
    ] {
        windows_are_crops(&preset(name, 257));
    }
    windows_are_crops(&preset("article-000-hills-and-pits", 513));
}

/// Stages and sizes the presets do not reach: a world that is not
/// `2^k + 1` (diamond-square resampled from its lattice), non-square,
/// a box too wide for the fused blur, fractional boxes, thermal erosion's
/// halo, Terrace as a second barrier, every noise kind.
#[test]
fn other_stages_and_sizes_windows_are_crops() {
    let text = |size: (u32, u32), extent: (f32, f32), stages: &str| {
        format!(
            "(extent: (x: {}, y: {}), size: (width: {}, height: {}), seed: 9, stages: [{stages}])",
            extent.0, extent.1, size.0, size.1
        )
    };
    let ds = "(enabled: true, stage: DiamondSquare(roughness: 0.7, base: 5.0, extent: 100.0, stop_after_level: None, combine: Replace)),";
    let cases = [
        text(
            (300, 201),
            (299.0, 200.0),
            &format!(
                "{ds}
                (enabled: true, stage: Noise(kind: Fbm, frequency: 4.0, octaves: 4, lacunarity: 2.0, persistence: 0.5, amplitude: 20.0, offset: 0.0, combine: Add)),
                (enabled: true, stage: Blur(passes: 2, width: 2.5)),
                (enabled: true, stage: Normalize(range: (min: 0.0, max: 100.0))),
                (enabled: true, stage: ThermalErosion(talus_angle: 30.0, amount: 0.5, iterations: 7)),
                (enabled: true, stage: Terrace(levels: 6, sharpness: 0.5)),"
            ),
        ),
        text(
            (257, 257),
            (256.0, 256.0),
            &format!(
                "{ds}
                (enabled: true, stage: RandomValues(values: (min: -3.0, max: 3.0), combine: Add)),
                (enabled: true, stage: Blur(passes: 1, width: 141.0)),
                (enabled: true, stage: Noise(kind: OpenSimplex, frequency: 3.0, octaves: 1, lacunarity: 2.0, persistence: 0.5, amplitude: 10.0, offset: 0.0, combine: Add)),
                (enabled: true, stage: Noise(kind: Worley, frequency: 5.0, octaves: 1, lacunarity: 2.0, persistence: 0.5, amplitude: 5.0, offset: 0.0, combine: Max)),
                (enabled: true, stage: Blur(passes: 3, width: 9.0)),"
            ),
        ),
        text(
            (129, 257),
            (128.0, 256.0),
            "(enabled: true, stage: DiamondSquare(roughness: 0.9, base: 0.0, extent: 80.0, stop_after_level: Some(4), combine: Replace)),
             (enabled: true, stage: HillsAndPits(layers: [(pit: false, count: 60, radius: (min: 3.0, max: 20.0), height: (min: 0.1, max: 0.3))])),
             (enabled: true, stage: Clamp(range: (min: 0.0, max: 60.0))),",
        ),
    ];
    for recipe in &cases {
        let recipe = Recipe::from_ron(recipe).unwrap_or_else(|e| panic!("{e}"));
        windows_are_crops(&recipe);
    }
}

/// Droplet erosion's windows are crops (at 129² its halo covers the
/// world; `tests/droplet_windows.rs` has a world larger than it), and
/// the whole map as a window equals the whole-map run.
#[test]
fn droplet_erosion_windows_are_crops() {
    use orogen_core::recipe::StageEntry;
    use orogen_core::stages::{HydraulicErosion, Stage};
    let mut recipe = preset("default", 129);
    recipe
        .stages
        .push(StageEntry::new(Stage::HydraulicErosion(HydraulicErosion {
            droplets: 2000,
            ..HydraulicErosion::default()
        })));
    windows_are_crops(&recipe);
    let whole = run_window(
        &recipe,
        window(0, 0, 129, 129),
        &WorldFacts::default(),
        None,
    )
    .unwrap();
    let once = run_once(&recipe, None, Default::default()).unwrap();
    assert_eq!(whole.data(), once.map.data());
}

/// Fluvial erosion on a map within one block runs on the whole world
/// (its input window is all of it), so any window is still a crop.
#[test]
fn fluvial_erosion_within_one_block_gives_exact_windows() {
    windows_are_crops(&preset("eroded-mountains", 129));
}

#[test]
fn bad_windows_and_missing_facts_are_refused_in_one_line() {
    let recipe = preset("default", 257);
    let none = WorldFacts::default();
    for (bad, what) in [
        (window(0, 0, 0, 5), "empty"),
        (window(250, 0, 8, 8), "outside"),
        (window(0, 257, 1, 1), "outside"),
        (window(usize::MAX, 0, 2, 2), "outside"),
    ] {
        let err = run_window(&recipe, bad, &none, None).unwrap_err();
        assert!(matches!(err, WindowRunError::Window(_)), "{err}");
        let line = err.to_string();
        assert!(line.contains(what) && !line.contains('\n'), "{line}");
    }
    assert!(matches!(
        run_window(&recipe, window(250, 0, 8, 8), &none, None),
        Err(WindowRunError::Window(WindowError::Outside { .. }))
    ));
    let err = run_window(&recipe, window(0, 0, 8, 8), &none, None).unwrap_err();
    assert!(
        matches!(
            err,
            WindowRunError::MissingFacts {
                index: 3,
                kind: "normalize"
            }
        ),
        "{err}"
    );
    // The whole map needs no facts: it sees the whole world.
    assert!(run_window(&recipe, window(0, 0, 257, 257), &none, None).is_ok());
}

/// A 65537² world (too large to hold whole here) is addressable by
/// windows: its diamond-square keeps the coarse levels of the 16385²
/// world (every fourth point of the finer world is the coarser world's
/// point, bit for bit), and a window equals the crop of a larger window
/// around it, through the noise and the blur's halo.
#[test]
fn a_65537_world_is_addressable_by_windows() {
    let recipe = |side: u32| {
        let text = format!(
            "(extent: (x: 65536.0, y: 65536.0), size: (width: {side}, height: {side}), seed: 5, stages: [
                (enabled: true, stage: DiamondSquare(roughness: 0.8, base: 0.0, extent: 2000.0, stop_after_level: None, combine: Replace)),
            ])"
        );
        Recipe::from_ron(&text).unwrap_or_else(|e| panic!("{e}"))
    };
    let (fine, coarse) = (recipe(65537), recipe(16385));
    let none = WorldFacts::default();
    let (x, y) = (40_000usize, 12_345usize);
    let fine_map = run_window(
        &fine,
        window(4 * (x / 4), 4 * (y / 4), 4 * 40 + 1, 4 * 30 + 1),
        &none,
        None,
    )
    .unwrap();
    let coarse_map = run_window(&coarse, window(x / 4, y / 4, 41, 31), &none, None).unwrap();
    for j in 0..31 {
        for i in 0..41 {
            assert_eq!(
                fine_map.get(4 * i, 4 * j).to_bits(),
                coarse_map.get(i, j).to_bits(),
                "point ({i}, {j})"
            );
        }
    }
    // The finest levels add detail between the shared points.
    assert_ne!(fine_map.get(1, 0), fine_map.get(0, 0));

    let mut layered = fine.clone();
    let more = Recipe::from_ron(
        "(extent: (x: 1.0, y: 1.0), size: (width: 2, height: 2), seed: 5, stages: [
            (enabled: true, stage: Noise(kind: Ridged, frequency: 40.0, octaves: 6, lacunarity: 2.0, persistence: 0.5, amplitude: 300.0, offset: 0.0, combine: Add)),
            (enabled: true, stage: RandomValues(values: (min: 0.0, max: 1.0), combine: Add)),
            (enabled: true, stage: Blur(passes: 2, width: 5.0)),
        ])",
    )
    .unwrap();
    layered.stages.extend(more.stages);
    let outer = window(65_537 - 300, 20_000, 300, 260);
    let big = run_window(&layered, outer, &none, None).unwrap();
    for inner in [
        window(65_537 - 1, 20_000, 1, 1),
        window(65_537 - 157, 20_090, 57, 101),
    ] {
        let small = run_window(&layered, inner, &none, None).unwrap();
        for j in 0..inner.height {
            for i in 0..inner.width {
                let (bx, by) = (inner.x - outer.x + i, inner.y - outer.y + j);
                assert_eq!(
                    small.get(i, j).to_bits(),
                    big.get(bx, by).to_bits(),
                    "{inner:?} ({i}, {j})"
                );
            }
        }
    }
}

/// An import is sampled in world space: a window takes the cells of the
/// file resampled to the whole map, not to the window.
#[test]
fn an_imported_file_windows_are_crops() {
    let (fw, fh) = (37usize, 23usize);
    let values: Vec<f32> = (0..fw * fh)
        .map(|i| ((i % fw) as f32 * 0.7).sin() * 20.0 + (i / fw) as f32 * 1.3)
        .collect();
    let bytes = orogen_core::io::float_files::encode_tiff_f32(&values, fw, false).unwrap();
    let dir = std::env::temp_dir().join(format!("orogen-windows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("start.tif");
    std::fs::write(&path, bytes).unwrap();
    let text = format!(
        "(extent: (x: 256.0, y: 128.0), size: (width: 257, height: 129), seed: 2, stages: [
            (enabled: true, stage: Import(path: \"{}\", format: Auto, raw_width: None, raw_height: None, heights: (min: 0.0, max: 100.0), use_sidecar: false)),
            (enabled: true, stage: Blur(passes: 1, width: 3.0)),
            (enabled: true, stage: Normalize(range: (min: 0.0, max: 50.0))),
        ])",
        path.display()
    );
    let recipe = Recipe::from_ron(&text).unwrap_or_else(|e| panic!("{e}"));
    windows_are_crops(&recipe);
    std::fs::remove_dir_all(&dir).ok();
}

/// A window's bytes do not depend on the thread count.
#[test]
fn window_bytes_do_not_depend_on_the_thread_count() {
    let recipe = preset("default", 513);
    let facts = gather_facts(&recipe, &tiles(513, 513, 2), None).unwrap();
    let probe = window(100, 300, 211, 150);
    let many = run_window(&recipe, probe, &facts, None).unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| run_window(&recipe, probe, &facts, None).unwrap());
    assert_eq!(many.data(), one.data());
}

/// The export's height range is one more barrier phase, over every
/// stage: reduced from windows, it is the whole map's range.
#[test]
fn the_final_height_range_reduces_from_windows() {
    use orogen_core::window::{FINAL_HEIGHTS, StageFacts, final_range, window_range};
    let recipe = preset("default", 257);
    let facts = gather_facts(&recipe, &tiles(257, 257, 2), None).unwrap();
    let last = recipe.stages.len();
    let reports: Vec<StageFacts> = tiles(257, 257, 3)
        .into_iter()
        .map(|w| window_range(&recipe, w, &facts, None, last).unwrap())
        .collect();
    let world = StageFacts::reduce(&reports).unwrap();
    assert_eq!(world.kind, FINAL_HEIGHTS);
    let whole = run_once(&recipe, None, Default::default()).unwrap();
    let facts = facts.with(world);
    assert_eq!(final_range(&recipe, &facts), Some(whole.map.range()));
    assert_eq!(final_range(&recipe, &facts), Some((0.0, 150.0)));
    let err = window_range(&recipe, window(0, 0, 4, 4), &facts, None, last + 1).unwrap_err();
    assert!(matches!(err, WindowRunError::NoSuchStage { .. }), "{err}");
}

/// A stage masked by height weighs each cell by its own input: its
/// windows are crops too (lake-valley's hollows, pressed into the low
/// ground after its erosion, included). A slope mask reads neighbours and
/// is refused on a proper window, in one line.
#[test]
fn height_masked_stages_give_exact_windows_and_other_masks_are_refused() {
    use orogen_core::params::Span;
    use orogen_core::stages::mask::{MaskSource, StageMask};
    let mut recipe = preset("default", 257);
    let blur = recipe.stages[2].clone();
    recipe.stages.push(orogen_core::StageEntry {
        mask: Some(StageMask {
            source: MaskSource::Height,
            range: Span::new(-1000.0, 60.0),
            soft: 15.0,
            invert: false,
        }),
        ..blur
    });
    windows_are_crops(&recipe);
    windows_are_crops(&preset("lake-valley", 129));

    if let Some(mask) = recipe.stages.last_mut().and_then(|e| e.mask.as_mut()) {
        mask.source = MaskSource::Slope;
    }
    let facts = gather_facts(&recipe, &[window(0, 0, 257, 257)], None).expect("whole map runs");
    let error = run_window(&recipe, window(10, 10, 50, 50), &facts, None)
        .expect_err("a slope mask on a proper window")
        .to_string();
    assert!(
        matches!(
            run_window(&recipe, window(10, 10, 50, 50), &facts, None),
            Err(WindowRunError::Masked { index: 4, .. })
        ),
        "{error}"
    );
    assert!(
        !error.contains('\n') && error.contains("slope, flow or lakes mask"),
        "{error}"
    );
}

/// A stage masked by an image or a painting weighs each cell by its
/// place in the world: its windows are crops too.
#[test]
fn image_and_painted_masks_give_exact_windows() {
    use orogen_core::params::Span;
    use orogen_core::stages::mask::painted::{self, Brush, PAINT_SIDE, PaintedImage, PaintedMask};
    use orogen_core::stages::mask::{MaskSource, StageMask};
    let dir = tempfile::tempdir().expect("a temporary folder");
    let png = dir.path().join("mask.png");
    image::GrayImage::from_fn(41, 29, |x, y| image::Luma([((x * 7 + y * 13) % 256) as u8]))
        .save(&png)
        .expect("the image is written");
    let mut paint = PaintedImage::blank(PAINT_SIDE, PAINT_SIDE);
    let brush = Brush {
        radius: 0.1,
        hardness: 0.5,
        strength: 1.0,
        erase: false,
    };
    assert!(paint.stroke([0.2, 0.8], [0.7, 0.1], [1.0, 1.0], &brush));
    let mut recipe = preset("default", 257);
    let blur = recipe.stages[2].clone();
    let masked = |source| orogen_core::StageEntry {
        mask: Some(StageMask {
            source,
            range: Span::new(0.0, 1.0),
            soft: 0.0,
            invert: false,
        }),
        ..blur.clone()
    };
    recipe.stages.push(masked(MaskSource::Image(
        png.to_string_lossy().into_owned(),
    )));
    recipe.stages.push(masked(MaskSource::Painted(PaintedMask {
        file: String::new(),
        hash: painted::remember(paint),
    })));
    let unmasked = {
        let mut r = recipe.clone();
        r.stages.truncate(r.stages.len() - 2);
        run_once(&r, None, Default::default()).expect("runs")
    };
    let masked_map = run_once(&recipe, None, Default::default()).expect("runs");
    assert_ne!(
        masked_map.map.data(),
        unmasked.map.data(),
        "the masks blur somewhere"
    );
    windows_are_crops(&recipe);
}
