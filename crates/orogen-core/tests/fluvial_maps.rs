//! Fluvial erosion's uplift and hardness maps: an uplift stripe raises a
//! ridge that rivers dissect and that drains; a band of hard rock steepens
//! the channels that cross it; the same bytes on 1, 2 and 8 threads; bad
//! maps refused in one line.

use orogen_core::hydro::{Outlets, Routing, fill_levels};
use orogen_core::params::Span;
use orogen_core::stages::fluvial::UpliftShape;
use orogen_core::stages::mask::{MaskSource, StageMask};
use orogen_core::stages::{DiamondSquare, FluvialErosion, Normalize, Stage};
use orogen_core::{Recipe, StageEntry};
use std::path::Path;

const SIDE: usize = 129;
/// Metres between cells.
const CELL: f32 = 10.0;

/// A low, rough plain (0..5 m) eroded at 129² in one level.
fn recipe(fluvial: FluvialErosion) -> Recipe {
    Recipe {
        width: SIDE as u32,
        height: SIDE as u32,
        seed: 5,
        extent: orogen_core::recipe::Extent {
            x: CELL * (SIDE - 1) as f32,
            y: CELL * (SIDE - 1) as f32,
        },
        stages: vec![
            StageEntry::new(Stage::DiamondSquare(DiamondSquare::default())),
            StageEntry::new(Stage::Normalize(Normalize {
                range: Span::new(0.0, 5.0),
            })),
            StageEntry::new(Stage::FluvialErosion(fluvial)),
        ],
        ..Recipe::default()
    }
}

fn fluvial() -> FluvialErosion {
    FluvialErosion {
        duration: 2_000_000.0,
        erodibility: 1e-4,
        area_exponent: 0.5,
        slope_exponent: 1.0,
        diffusivity: 0.0,
        uplift: 1e-3,
        uplift_shape: UpliftShape::Uniform,
        coarse_size: SIDE as u32,
        steps: 40,
        ..FluvialErosion::default()
    }
}

/// A grey image of `SIDE²` pixels, white where `inside(x, y)`.
fn write_image(path: &Path, inside: impl Fn(usize, usize) -> bool) {
    let image = image::GrayImage::from_fn(SIDE as u32, SIDE as u32, |x, y| {
        image::Luma([if inside(x as usize, y as usize) {
            255
        } else {
            0
        }])
    });
    image.save(path).expect("the image is written");
}

fn image_map(path: &Path) -> StageMask {
    StageMask {
        source: MaskSource::Image(path.to_string_lossy().into_owned()),
        range: Span::new(0.0, 1.0),
        soft: 0.0,
        invert: false,
    }
}

fn run(recipe: &Recipe) -> Vec<f32> {
    orogen_core::run_once(recipe, None, Default::default())
        .expect("the recipe runs")
        .map
        .data()
        .to_vec()
}

fn mean(values: impl Iterator<Item = f32>) -> f32 {
    let (sum, n) = values.fold((0.0f64, 0usize), |(s, n), v| (s + v as f64, n + 1));
    (sum / n.max(1) as f64) as f32
}

/// Whether column `x` lies in the uplift stripe (the middle third).
fn in_stripe(x: usize) -> bool {
    (SIDE / 3..2 * SIDE / 3).contains(&x)
}

#[test]
fn an_uplift_stripe_raises_a_ridge_that_drains() {
    let dir = tempfile::tempdir().unwrap();
    let stripe = dir.path().join("stripe.png");
    write_image(&stripe, |x, _| in_stripe(x));
    let recipe = recipe(FluvialErosion {
        uplift_map: Some(image_map(&stripe)),
        ..fluvial()
    });
    let heights = run(&recipe);
    let inside = mean(
        (0..heights.len())
            .filter(|i| in_stripe(i % SIDE))
            .map(|i| heights[i]),
    );
    let outside = mean(
        (0..heights.len())
            .filter(|i| {
                !in_stripe(i % SIDE) && (i % SIDE + 8 < SIDE / 3 || i % SIDE > 2 * SIDE / 3 + 8)
            })
            .map(|i| heights[i]),
    );
    eprintln!("ridge mean {inside} m, beside it {outside} m");
    assert!(
        inside > 20.0 && inside > 10.0 * outside,
        "ridge mean {inside} m against {outside} m beside it"
    );
    // It drains: no closed depression anywhere.
    let routing = Routing::new(&heights, SIDE, &Outlets::ALL_EDGES);
    assert_eq!(
        fill_levels(&heights, &routing),
        heights,
        "closed depressions left"
    );
    // Rivers cut it: on the ridge some cells drain 40 cells or more.
    let biggest = (0..heights.len())
        .filter(|i| in_stripe(i % SIDE))
        .map(|i| routing.cells[i])
        .max()
        .unwrap_or(0);
    eprintln!("the ridge's largest river drains {biggest} cells");
    assert!(
        biggest >= 40,
        "the ridge's largest river drains {biggest} cells"
    );
    // The same bytes on 1, 2 and 8 threads.
    let bits = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(&recipe).iter().map(|v| v.to_bits()).collect::<Vec<_>>())
    };
    let one = bits(1);
    assert!(one == bits(2) && one == bits(8), "threads change the bytes");
}

/// Mean channel slope (cells draining ≥ 30 cells) over rows `rows`.
fn channel_slope(heights: &[f32], rows: std::ops::Range<usize>) -> f32 {
    let routing = Routing::new(heights, SIDE, &Outlets::ALL_EDGES);
    mean(
        (0..heights.len())
            .filter(|&i| rows.contains(&(i / SIDE)) && routing.cells[i] >= 30)
            .filter(|&i| routing.receivers[i] as usize != i)
            .map(|i| {
                let r = routing.receivers[i] as usize;
                let d = if i.abs_diff(r) == 1 || i.abs_diff(r) == SIDE {
                    CELL
                } else {
                    CELL * std::f32::consts::SQRT_2
                };
                (heights[i] - heights[r]) / d
            }),
    )
}

#[test]
fn hard_rock_steepens_the_channels_across_it() {
    let dir = tempfile::tempdir().unwrap();
    let band = dir.path().join("band.png");
    let rows = 50..80;
    write_image(&band, |_, y| rows.contains(&y));
    let soft = fluvial();
    let hard = FluvialErosion {
        hardness_map: Some(image_map(&band)),
        hard_rock: 0.2,
        ..fluvial()
    };
    let plain = run(&recipe(soft));
    let banded = run(&recipe(hard));
    let (before, after) = (
        channel_slope(&plain, rows.clone()),
        channel_slope(&banded, rows),
    );
    eprintln!("channel slope in the band {after} (without it {before})");
    assert!(
        after > 2.0 * before,
        "channel slope in the hard band {after} against {before} without it"
    );
    // Outside the band, far from it, the rock is the same.
    let (far_before, far_after) = (channel_slope(&plain, 0..20), channel_slope(&banded, 0..20));
    eprintln!("far from the band {far_after} (without it {far_before})");
    assert!(
        (far_after - far_before).abs() < 0.35 * far_before,
        "channel slope far from the band {far_after} against {far_before}"
    );
}

#[test]
fn bad_maps_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // A missing image: the run fails naming it, in one line.
    let missing = dir.path().join("missing.png");
    let recipe_missing = recipe(FluvialErosion {
        uplift_map: Some(image_map(&missing)),
        ..fluvial()
    });
    let Err(err) = orogen_core::run_once(&recipe_missing, None, Default::default()) else {
        panic!("a missing uplift image fails");
    };
    let err = err.to_string();
    assert!(err.contains("missing.png") && !err.contains('\n'), "{err}");
    // Not an image.
    let junk = dir.path().join("junk.png");
    std::fs::write(&junk, b"not a png").unwrap();
    let recipe_junk = recipe(FluvialErosion {
        hardness_map: Some(image_map(&junk)),
        ..fluvial()
    });
    let Err(err) = orogen_core::run_once(&recipe_junk, None, Default::default()) else {
        panic!("an unreadable hardness image fails");
    };
    let err = err.to_string();
    assert!(err.contains("junk.png") && !err.contains('\n'), "{err}");
    // A range that is not finite, in a recipe file: one line naming the field.
    let mut bad = recipe(FluvialErosion {
        uplift_map: Some(StageMask {
            source: MaskSource::Height,
            range: Span::new(f32::NAN, 3.0),
            soft: 0.0,
            invert: false,
        }),
        ..fluvial()
    });
    let err = bad
        .validate()
        .expect_err("a NaN range is refused")
        .to_string();
    assert!(
        err.contains("uplift_map.range") && !err.contains('\n'),
        "{err}"
    );
    // A negative hard-rock share is refused by its range.
    let mut negative = recipe(FluvialErosion {
        hard_rock: -1.0,
        ..fluvial()
    });
    let err = negative
        .validate()
        .expect_err("a negative share is refused")
        .to_string();
    assert!(err.contains("hard_rock") && !err.contains('\n'), "{err}");
    // A slope map on a stage eroded by blocks (a block cannot measure
    // slope over the world's share): refused, saying why.
    let mut blocked = recipe(FluvialErosion {
        uplift_map: Some(StageMask {
            source: MaskSource::Slope,
            range: Span::new(0.0, 10.0),
            soft: 0.0,
            invert: false,
        }),
        coarse_size: 33,
        block_size: 64,
        ..fluvial()
    });
    blocked.validate().expect("the recipe itself is valid");
    let Err(err) = orogen_core::run_once(&blocked, None, Default::default()) else {
        panic!("a slope map by blocks fails");
    };
    let err = err.to_string();
    assert!(
        err.contains("uplift_map") && err.contains("block") && !err.contains('\n'),
        "{err}"
    );
}

/// A painted uplift map and a painted hardness map are saved beside the
/// recipe under their own names, load back as the same recipe, and run
/// to the same bytes from disk as from memory; a file whose pixels were
/// changed is refused in one line.
#[test]
fn painted_maps_are_saved_beside_the_recipe_and_read_back() {
    use orogen_core::MapSlot;
    use orogen_core::stages::mask::painted::{self, Brush, PAINT_SIDE, PaintedImage, PaintedMask};
    let dir = tempfile::tempdir().unwrap();
    let extent = [CELL * (SIDE - 1) as f32; 2];
    let painted_map = |from: [f32; 2], to: [f32; 2], strength: f32| {
        let mut image = PaintedImage::blank(PAINT_SIDE, PAINT_SIDE);
        let brush = Brush {
            radius: extent[0] / 8.0,
            hardness: 0.6,
            strength,
            erase: false,
        };
        assert!(image.stroke(from, to, extent, &brush), "the stroke paints");
        StageMask {
            source: MaskSource::Painted(PaintedMask {
                file: String::new(),
                hash: painted::remember(image),
            }),
            range: Span::new(0.0, 1.0),
            soft: 0.0,
            invert: false,
        }
    };
    let (w, h) = (extent[0], extent[1]);
    let recipe = recipe(FluvialErosion {
        uplift_map: Some(painted_map([0.2 * w, 0.5 * h], [0.8 * w, 0.5 * h], 1.0)),
        hardness_map: Some(painted_map([0.5 * w, 0.1 * h], [0.5 * w, 0.9 * h], 0.5)),
        ..fluvial()
    });
    let in_memory = run(&recipe);
    let path = dir.path().join("range.ron");
    let saved =
        orogen_core::recipe::painted_files::save_beside(&recipe, &path, None).expect("saves");
    std::fs::write(&path, saved.to_ron().expect("serialises")).unwrap();
    for word in ["uplift", "hardness"] {
        let file = dir.path().join(format!("range.{word}-2.png"));
        assert!(file.is_file(), "{} is written", file.display());
    }
    let (loaded, base) =
        orogen_core::bake::load_recipe(path.to_str().expect("utf-8")).expect("loads");
    assert_eq!(loaded, recipe, "the same maps, by hash");
    let uplift = loaded.stages[2]
        .map(MapSlot::Uplift)
        .expect("an uplift map");
    let MaskSource::Painted(mask) = &uplift.source else {
        panic!("the uplift map is painted");
    };
    assert_eq!(mask.file, "range.uplift-2.png");
    // From disk alone (what a new process sees): the same bytes.
    painted::forget_all_but(&Default::default());
    let from_disk = orogen_core::run_once(&loaded, base.clone(), Default::default())
        .expect("runs from the files")
        .map
        .data()
        .to_vec();
    assert_eq!(from_disk, in_memory);
    // Painted at half strength: the hardness map's centre weighs a half.
    let hardness = painted::read_checked(
        &dir.path().join("range.hardness-2.png"),
        match &loaded.stages[2].map(MapSlot::Hardness).expect("set").source {
            MaskSource::Painted(mask) => &mask.hash,
            _ => panic!("painted"),
        },
    )
    .expect("hashes right");
    assert!((hardness.sample(0.5, 0.5) - 0.5).abs() < 1e-3);
    // A file changed behind the recipe's back: one line, naming it.
    let mut other = PaintedImage::blank(PAINT_SIDE, PAINT_SIDE);
    other.dab(
        [0.5 * w, 0.5 * h],
        extent,
        &Brush {
            radius: w / 4.0,
            hardness: 1.0,
            strength: 1.0,
            erase: false,
        },
    );
    std::fs::write(dir.path().join("range.uplift-2.png"), other.to_png()).unwrap();
    painted::forget_all_but(&Default::default());
    let Err(err) = orogen_core::run_once(&loaded, base.clone(), Default::default()) else {
        panic!("a changed file is refused");
    };
    let err = err.to_string();
    assert!(
        err.contains("range.uplift-2.png") && !err.contains('\n'),
        "{err}"
    );
}
