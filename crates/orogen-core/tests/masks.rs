//! Stage masks through the pipeline: unmasked cells keep their input bit
//! for bit, masked ones take the stage's output, an image mask holds at
//! every size, masked erosion leaves no new closed hollow, and a recipe
//! with a mask round-trips through its file.

use orogen_core::params::Span;
use orogen_core::pipeline::{RunHooks, run_once};
use orogen_core::stages::mask::{MaskSource, StageMask};
use orogen_core::stages::{Blur, Normalize, Stage, ThermalErosion};
use orogen_core::{Recipe, StageEntry};

fn base(size: u32) -> Recipe {
    let mut recipe = orogen_core::presets::load("default")
        .expect("shipped preset")
        .expect("valid preset");
    recipe
        .stages
        .push(StageEntry::new(Stage::Normalize(Normalize {
            range: Span::new(0.0, 100.0),
        })));
    let (w, h) = recipe.sampling_for(size);
    recipe.set_sampling(w, h);
    recipe
}

fn run(recipe: &Recipe) -> Vec<f32> {
    run_once(recipe, None, RunHooks::default())
        .expect("the recipe runs")
        .map
        .data()
        .to_vec()
}

fn blur() -> Stage {
    Stage::Blur(Blur {
        passes: 4,
        width: 24.0,
        legacy_radius: None,
    })
}

#[test]
fn a_height_mask_confines_a_stage_and_keeps_the_rest_bit_for_bit() {
    let plain = base(257);
    let before = run(&plain);
    let mut blurred = plain.clone();
    blurred.stages.push(StageEntry::new(blur()));
    let everywhere = run(&blurred);
    let mut masked = plain.clone();
    masked.stages.push(StageEntry {
        mask: Some(StageMask {
            source: MaskSource::Height,
            range: Span::new(0.0, 40.0),
            soft: 0.0,
            invert: false,
        }),
        ..StageEntry::new(blur())
    });
    let confined = run(&masked);
    let (mut kept, mut changed) = (0, 0);
    for i in 0..before.len() {
        if before[i] <= 40.0 {
            assert_eq!(
                confined[i].to_bits(),
                everywhere[i].to_bits(),
                "cell {i} masked"
            );
            changed += usize::from(confined[i] != before[i]);
        } else {
            assert_eq!(confined[i].to_bits(), before[i].to_bits(), "cell {i} kept");
            kept += 1;
        }
    }
    assert!(
        kept > 1000 && changed > 1000,
        "both parts are real: {kept} kept, {changed} changed"
    );
}

#[test]
fn a_soft_edge_blends_between_input_and_output() {
    let plain = base(129);
    let before = run(&plain);
    let mut blurred = plain.clone();
    blurred.stages.push(StageEntry::new(blur()));
    let everywhere = run(&blurred);
    let mask = StageMask {
        source: MaskSource::Height,
        range: Span::new(0.0, 40.0),
        soft: 20.0,
        invert: false,
    };
    let mut masked = plain.clone();
    masked.stages.push(StageEntry {
        mask: Some(mask.clone()),
        ..StageEntry::new(blur())
    });
    let confined = run(&masked);
    let mut ramp = 0;
    for i in 0..before.len() {
        let w = mask.weight(before[i]);
        let expected = if w <= 0.0 {
            before[i]
        } else if w >= 1.0 {
            everywhere[i]
        } else {
            ramp += 1;
            before[i] + (everywhere[i] - before[i]) * w
        };
        assert_eq!(confined[i].to_bits(), expected.to_bits(), "cell {i}");
    }
    assert!(ramp > 100, "cells on the ramp: {ramp}");
}

#[test]
fn an_image_mask_covers_the_world_at_every_size() {
    let dir = tempfile::tempdir().unwrap();
    // West half white, east half black.
    let image =
        image::GrayImage::from_fn(64, 32, |x, _| image::Luma([if x < 32 { 255 } else { 0 }]));
    image.save(dir.path().join("west.png")).unwrap();
    for size in [129, 257] {
        let plain = base(size);
        let before = run(&plain);
        let mut masked = plain.clone();
        masked.stages.push(StageEntry {
            mask: Some(StageMask {
                source: MaskSource::Image("west.png".into()),
                range: Span::new(0.0, 1.0),
                soft: 0.0,
                invert: false,
            }),
            ..StageEntry::new(blur())
        });
        let out = run_once(&masked, Some(dir.path().to_path_buf()), RunHooks::default())
            .expect("the masked recipe runs")
            .map;
        let w = out.width();
        let east_kept = (0..out.height())
            .flat_map(|y| (w * 3 / 4..w).map(move |x| y * w + x))
            .all(|i| out.data()[i].to_bits() == before[i].to_bits());
        let west_changed = (0..out.height())
            .flat_map(|y| (0..w / 4).map(move |x| y * w + x))
            .filter(|&i| out.data()[i] != before[i])
            .count();
        assert!(east_kept, "{size}: the black half is untouched");
        assert!(
            west_changed > w,
            "{size}: the white half is blurred ({west_changed})"
        );
    }
    // A missing image is one line naming it, and nothing runs.
    let mut missing = base(65);
    missing.stages.push(StageEntry {
        mask: Some(StageMask {
            source: MaskSource::Image("nowhere.png".into()),
            range: Span::new(0.0, 1.0),
            soft: 0.0,
            invert: false,
        }),
        ..StageEntry::new(blur())
    });
    let error = run_once(
        &missing,
        Some(dir.path().to_path_buf()),
        RunHooks::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("nowhere.png") && error.lines().count() == 1,
        "{error}"
    );
}

#[test]
fn masked_erosion_leaves_no_new_closed_hollow_where_it_acted() {
    use orogen_core::hydro::{Outlets, Routing, fill_levels};
    let plain = base(129);
    let before = run(&plain);
    let mut masked = plain.clone();
    let mask = StageMask {
        source: MaskSource::Height,
        range: Span::new(30.0, 100.0),
        soft: 0.0,
        invert: false,
    };
    masked.stages.push(StageEntry {
        mask: Some(mask.clone()),
        ..StageEntry::new(Stage::ThermalErosion(ThermalErosion {
            talus_angle: 20.0,
            amount: 0.5,
            iterations: 50,
        }))
    });
    let out = run(&masked);
    let levels = |h: &[f32]| fill_levels(h, &Routing::new(h, 129, &Outlets::ALL_EDGES));
    let (lb, la) = (levels(&before), levels(&out));
    for i in 0..out.len() {
        if mask.weight(before[i]) > 0.0 {
            let new_hollow = la[i] > out[i] && lb[i] <= before[i];
            assert!(!new_hollow, "cell {i}: a new closed hollow inside the mask");
        } else {
            assert_eq!(out[i].to_bits(), before[i].to_bits());
        }
    }
}

#[test]
fn a_mask_round_trips_through_the_recipe_file() {
    let mut recipe = base(65);
    recipe.stages.push(StageEntry {
        mask: Some(StageMask {
            source: MaskSource::Slope,
            range: Span::new(10.0, 35.0),
            soft: 5.0,
            invert: true,
        }),
        ..StageEntry::new(blur())
    });
    let text = recipe.to_ron().expect("saves");
    assert!(text.contains("mask"), "{text}");
    let back = Recipe::from_ron(&text).expect("loads");
    assert_eq!(back.stages, recipe.stages);
    // Unmasked stages write no mask field: older readers and files agree.
    assert_eq!(text.matches("mask").count(), 1);
}

#[test]
fn a_mask_image_changed_on_disk_re_runs_its_stage() {
    use orogen_core::Pipeline;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mask.png");
    let half = |west_white: bool| {
        image::GrayImage::from_fn(16, 16, |x, _| {
            image::Luma([if (x < 8) == west_white { 255 } else { 0 }])
        })
    };
    half(true).save(&path).unwrap();
    let mut recipe = base(65);
    recipe.stages.push(StageEntry {
        mask: Some(StageMask {
            source: MaskSource::Image("mask.png".into()),
            range: Span::new(0.0, 1.0),
            soft: 0.0,
            invert: false,
        }),
        ..StageEntry::new(blur())
    });
    let last = recipe.stages.len() - 1;
    let mut pipeline = Pipeline::new().with_base_dir(Some(dir.path().to_path_buf()));
    let first = pipeline.run(&recipe, RunHooks::default()).unwrap();
    let again = pipeline.run(&recipe, RunHooks::default()).unwrap();
    assert!(!again.stages[last].reran, "nothing changed: cached");
    // The other half painted instead (a larger file, so the stamp moves
    // even within the file system's time resolution).
    let mut east = half(false);
    east.put_pixel(0, 0, image::Luma([7]));
    east.save(&path).unwrap();
    let changed = pipeline.run(&recipe, RunHooks::default()).unwrap();
    assert!(changed.stages[last].reran, "the mask file changed");
    assert_eq!(changed.first_rerun, last, "only from the masked stage");
    assert_ne!(changed.map.data(), first.map.data());
}

#[test]
fn a_bad_mask_is_refused_in_one_line_naming_its_field() {
    let bad = |source: MaskSource, range: (f32, f32), soft: f32| StageMask {
        source,
        range: Span {
            min: range.0,
            max: range.1,
        },
        soft,
        invert: false,
    };
    for (mask, field) in [
        (bad(MaskSource::Height, (50.0, 10.0), 0.0), "range"),
        (bad(MaskSource::Height, (f32::NAN, 10.0), 0.0), "range"),
        (bad(MaskSource::Slope, (0.0, 10.0), -2.0), "soft"),
        (
            bad(MaskSource::Image(" ".into()), (0.0, 1.0), 0.0),
            "source",
        ),
    ] {
        let mut recipe = base(65);
        recipe.stages.push(StageEntry {
            mask: Some(mask.clone()),
            ..StageEntry::new(blur())
        });
        let error = recipe.validate().expect_err("refused").to_string();
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(
            error.contains(&format!(".mask.{field}")),
            "{mask:?}: {error}"
        );
    }
    // Through the recipe file too: a saved mask edited into a bad range.
    let mut recipe = base(65);
    recipe.stages.push(StageEntry {
        mask: Some(bad(MaskSource::Height, (10.0, 50.0), 0.0)),
        ..StageEntry::new(blur())
    });
    let text = recipe.to_ron().expect("saves");
    assert!(Recipe::from_ron(&text).is_ok());
    let edited = text.replacen("max: 50.0", "max: 5.0", 1);
    assert_ne!(edited, text, "the mask's range is in the file");
    let error = Recipe::from_ron(&edited).expect_err("refused").to_string();
    assert!(error.contains("mask.range"), "{error}");
}
