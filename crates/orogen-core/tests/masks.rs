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

mod painted {
    //! Masks painted with a brush: named by the hash of their pixels,
    //! saved beside the recipe, read back and checked, and sampled over the
    //! world so they hold at every size.

    use super::{base, blur, run};
    use orogen_core::params::Span;
    use orogen_core::pipeline::{RunHooks, run_once};
    use orogen_core::stages::mask::painted::{self, Brush, PAINT_SIDE, PaintedImage, PaintedMask};
    use orogen_core::stages::mask::{MaskSource, StageMask};
    use orogen_core::{Heightmap, Recipe, StageEntry};

    /// A blank image with `strokes` painted over a world `extent`.
    fn paint(extent: [f32; 2], strokes: &[([f32; 2], [f32; 2], Brush)]) -> PaintedImage {
        let mut image = PaintedImage::blank(PAINT_SIDE, PAINT_SIDE);
        for (from, to, brush) in strokes {
            image.stroke(*from, *to, extent, brush);
        }
        image
    }

    fn brush(radius: f32, hardness: f32) -> Brush {
        Brush {
            radius,
            hardness,
            strength: 1.0,
            erase: false,
        }
    }

    fn extent_of(recipe: &Recipe) -> [f32; 2] {
        [recipe.extent.x, recipe.extent.y]
    }

    fn masked(recipe: &Recipe, mask: PaintedMask) -> Recipe {
        let mut masked = recipe.clone();
        masked.stages.push(StageEntry {
            mask: Some(StageMask {
                source: MaskSource::Painted(mask),
                range: Span::new(0.0, 1.0),
                soft: 0.0,
                invert: false,
            }),
            ..StageEntry::new(blur())
        });
        masked
    }

    pub(super) fn pearson(a: &[f32], b: &[f32]) -> f64 {
        let n = a.len() as f64;
        let mean = |v: &[f32]| v.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
        let (ma, mb) = (mean(a), mean(b));
        let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
        for (&x, &y) in a.iter().zip(b) {
            let (dx, dy) = (f64::from(x) - ma, f64::from(y) - mb);
            sab += dx * dy;
            saa += dx * dx;
            sbb += dy * dy;
        }
        sab / (saa * sbb).sqrt()
    }

    #[test]
    fn a_painted_mask_holds_across_sizes() {
        let recipe = base(257);
        let extent = extent_of(&recipe);
        let image = paint(
            extent,
            &[
                (
                    [0.2 * extent[0], 0.3 * extent[1]],
                    [0.7 * extent[0], 0.6 * extent[1]],
                    brush(0.08 * extent[0], 0.4),
                ),
                (
                    [0.8 * extent[0], 0.1 * extent[1]],
                    [0.6 * extent[0], 0.9 * extent[1]],
                    brush(0.03 * extent[0], 0.0),
                ),
            ],
        );
        let hash = painted::remember(image);
        let mask = StageMask {
            source: MaskSource::Painted(PaintedMask {
                file: String::new(),
                hash,
            }),
            range: Span::new(0.0, 1.0),
            soft: 0.0,
            invert: false,
        };
        let weights_at = |side: usize| {
            mask.weights(&Heightmap::new(side, side), 1.0, None)
                .expect("the painted mask is in memory")
        };
        let (coarse, fine) = (weights_at(257), weights_at(1025));
        // The same world points: every fourth cell of the finer map.
        let fine_at_coarse: Vec<f32> = (0..257)
            .flat_map(|y| (0..257).map(move |x| (y * 4) * 1025 + x * 4))
            .map(|i| fine[i])
            .collect();
        let r = pearson(&coarse, &fine_at_coarse);
        assert!(r >= 0.99, "correlation {r}");
        let painted_cells = coarse.iter().filter(|&&w| w > 0.5).count();
        assert!(
            painted_cells > 2_000 && painted_cells < 40_000,
            "a real part of the map is painted: {painted_cells}"
        );
        // Cell for cell the same weights, not merely correlated.
        let worst = coarse
            .iter()
            .zip(&fine_at_coarse)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "largest difference {worst}");
    }

    #[test]
    fn a_painted_stage_changes_no_cell_outside_the_painted_area() {
        let plain = base(257);
        let before = run(&plain);
        let mut blurred = plain.clone();
        blurred.stages.push(StageEntry::new(blur()));
        let everywhere = run(&blurred);
        let extent = extent_of(&plain);
        let image = paint(
            extent,
            &[(
                [0.3 * extent[0], 0.5 * extent[1]],
                [0.6 * extent[0], 0.5 * extent[1]],
                brush(0.1 * extent[0], 0.5),
            )],
        );
        let weights = image.weights(257, 257);
        let hash = painted::remember(image);
        let confined = run(&masked(
            &plain,
            PaintedMask {
                file: String::new(),
                hash,
            },
        ));
        let (mut kept, mut full, mut ramp) = (0, 0, 0);
        for i in 0..before.len() {
            let w = weights[i];
            if w <= 0.0 {
                assert_eq!(confined[i].to_bits(), before[i].to_bits(), "cell {i}");
                kept += 1;
            } else if w >= 1.0 {
                assert_eq!(confined[i].to_bits(), everywhere[i].to_bits(), "cell {i}");
                full += 1;
            } else {
                let expected = before[i] + (everywhere[i] - before[i]) * w;
                assert_eq!(confined[i].to_bits(), expected.to_bits(), "cell {i}");
                ramp += 1;
            }
        }
        assert!(
            kept > 30_000 && full > 1_000 && ramp > 500,
            "{kept} kept, {full} painted, {ramp} on the soft edge"
        );
        assert!(
            (0..before.len()).any(|i| weights[i] >= 1.0 && confined[i] != before[i]),
            "the painted part is blurred"
        );
    }

    #[test]
    fn a_painted_mask_survives_save_load_and_undo() {
        let dir = tempfile::tempdir().unwrap();
        let recipe_path = dir.path().join("valley.ron");
        let plain = base(129);
        let extent = extent_of(&plain);
        let first = paint(
            extent,
            &[(
                [0.1 * extent[0], 0.2 * extent[1]],
                [0.5 * extent[0], 0.8 * extent[1]],
                brush(0.05 * extent[0], 0.7),
            )],
        );
        let first_hash = painted::remember(first.clone());
        let recipe = masked(
            &plain,
            PaintedMask {
                file: String::new(),
                hash: first_hash.clone(),
            },
        );
        let in_memory = run(&recipe);

        // Save: the PNG beside the recipe, the recipe naming it and its hash.
        let saved = orogen_core::recipe::painted_files::save_beside(&recipe, &recipe_path, None)
            .expect("saves");
        std::fs::write(&recipe_path, saved.to_ron().unwrap()).unwrap();
        let last = saved.stages.len() - 1;
        let mask_file = dir.path().join(format!("valley.mask-{last}.png"));
        assert!(mask_file.is_file(), "{}", mask_file.display());
        let text = std::fs::read_to_string(&recipe_path).unwrap();
        assert!(text.contains(&first_hash), "{text}");
        assert!(text.contains(&format!("valley.mask-{last}.png")), "{text}");
        assert!(
            text.len() < 20_000,
            "the recipe names the mask, it holds no pixels"
        );

        // Load: the recipe reads back equal, the file's pixels are the
        // painted ones, and the run from disk is the run from memory.
        let (loaded, base_dir) =
            orogen_core::bake::load_recipe(recipe_path.to_str().unwrap()).expect("loads");
        assert_eq!(loaded.stages, recipe.stages);
        let Some(StageMask {
            source: MaskSource::Painted(loaded_mask),
            ..
        }) = &loaded.stages[last].mask
        else {
            panic!("the loaded stage has its painted mask");
        };
        assert_eq!(loaded_mask.hash, first_hash);
        let from_disk =
            painted::read_checked(&dir.path().join(&loaded_mask.file), &loaded_mask.hash)
                .expect("the file hashes to the recipe's hash");
        assert_eq!(from_disk.pixels(), first.pixels());
        let reloaded = run_once(&loaded, base_dir, RunHooks::default())
            .expect("runs")
            .map;
        assert_eq!(reloaded.data(), &in_memory[..]);

        // A second stroke, then undo: the earlier recipe (its hash) is
        // restored, its image is still in memory, and the map is the one
        // before the stroke, bit for bit.
        let mut second = first.clone();
        second.stroke(
            [0.8 * extent[0], 0.1 * extent[1]],
            [0.9 * extent[0], 0.9 * extent[1]],
            extent,
            &brush(0.05 * extent[0], 1.0),
        );
        let second_hash = painted::remember(second);
        assert_ne!(second_hash, first_hash);
        let edited = masked(
            &plain,
            PaintedMask {
                file: String::new(),
                hash: second_hash,
            },
        );
        assert_ne!(edited, recipe, "a stroke is an edit");
        assert_ne!(run(&edited), in_memory);
        let undone = recipe.clone();
        assert_eq!(undone, loaded, "undo restores the saved hash");
        let image = painted::recall(&first_hash).expect("kept by hash");
        assert_eq!(image.pixels(), first.pixels());
        assert_eq!(run(&undone), in_memory);
    }

    #[test]
    fn a_mask_read_from_disk_runs_without_being_painted_here() {
        // Never put in memory: the run must read and check the file.
        let dir = tempfile::tempdir().unwrap();
        let plain = base(65);
        let extent = extent_of(&plain);
        let mut image = paint(
            extent,
            &[(
                [0.5 * extent[0], 0.5 * extent[1]],
                [0.5 * extent[0], 0.5 * extent[1]],
                brush(0.2 * extent[0], 0.9),
            )],
        );
        // Pixels no other test paints.
        image = PaintedImage::from_pixels(
            image.width(),
            image.height(),
            image.pixels().iter().map(|&p| p / 3 * 2 + 1).collect(),
        )
        .unwrap();
        let hash = image.hash();
        std::fs::write(dir.path().join("disk.png"), image.to_png()).unwrap();
        let recipe = masked(
            &plain,
            PaintedMask {
                file: "disk.png".into(),
                hash: hash.clone(),
            },
        );
        assert!(painted::recall(&hash).is_none());
        let out = run_once(&recipe, Some(dir.path().to_path_buf()), RunHooks::default())
            .expect("runs from the file");
        let weights = image.weights(65, 65);
        let before = run(&plain);
        for i in 0..before.len() {
            if weights[i] <= 0.0 {
                assert_eq!(out.map.data()[i].to_bits(), before[i].to_bits());
            }
        }
        assert!(painted::recall(&hash).is_some(), "kept once read");
    }

    #[test]
    fn a_bad_or_mismatched_mask_file_is_refused_in_one_line_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let plain = base(65);
        let extent = extent_of(&plain);
        let image = paint(
            extent,
            &[(
                [0.1 * extent[0], 0.1 * extent[1]],
                [0.2 * extent[0], 0.9 * extent[1]],
                brush(0.1 * extent[0], 0.25),
            )],
        );
        // Stored under a hash that is not its own: the file was replaced.
        let wrong_hash = "0123456789abcdef0123456789abcdef".to_string();
        assert!(painted::recall(&wrong_hash).is_none());
        std::fs::write(dir.path().join("replaced.png"), image.to_png()).unwrap();
        std::fs::write(dir.path().join("broken.png"), b"not a png").unwrap();
        for (file, expect) in [
            ("replaced.png", "the recipe expects 0123456789abcdef"),
            ("broken.png", "broken.png"),
            ("missing.png", "missing.png"),
        ] {
            let mut recipe = masked(
                &plain,
                PaintedMask {
                    file: file.into(),
                    hash: wrong_hash.clone(),
                },
            );
            recipe
                .validate()
                .expect("well-formed; the file is checked at run");
            let error = run_once(&recipe, Some(dir.path().to_path_buf()), RunHooks::default())
                .expect_err("refused")
                .to_string();
            assert_eq!(error.lines().count(), 1, "{error}");
            assert!(error.contains(expect), "{file}: {error}");

            // Saving it elsewhere writes neither the mask nor anything else.
            let out = tempfile::tempdir().unwrap();
            let error = orogen_core::recipe::painted_files::save_beside(
                &recipe,
                &out.path().join("copy.ron"),
                Some(dir.path()),
            )
            .expect_err("refused")
            .to_string();
            assert_eq!(error.lines().count(), 1, "{error}");
            assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
        }
        // A hash that is no hash is refused with the recipe, naming the field.
        let mut recipe = masked(
            &plain,
            PaintedMask {
                file: "m.png".into(),
                hash: "xyz".into(),
            },
        );
        let error = recipe.validate().expect_err("refused").to_string();
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.contains(".mask.source"), "{error}");
        // Not in memory and no file named: one line saying so.
        let recipe = masked(
            &plain,
            PaintedMask {
                file: String::new(),
                hash: "fedcba9876543210fedcba9876543210".into(),
            },
        );
        let error = run_once(&recipe, None, RunHooks::default())
            .expect_err("refused")
            .to_string();
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.contains("names no file"), "{error}");
    }

    #[test]
    fn old_recipes_load_and_a_painted_mask_round_trips_through_ron() {
        let mut recipe = base(65);
        recipe.stages.push(StageEntry {
            mask: Some(StageMask {
                source: MaskSource::Painted(PaintedMask {
                    file: "r.mask-3.png".into(),
                    hash: "00112233445566778899aabbccddeeff".into(),
                }),
                range: Span::new(0.0, 1.0),
                soft: 0.0,
                invert: true,
            }),
            ..StageEntry::new(blur())
        });
        let text = recipe.to_ron().expect("saves");
        // The file and the hash, no pixels.
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains(
                r#"source: Painted( file: "r.mask-3.png", hash: "00112233445566778899aabbccddeeff", )"#
            ),
            "{text}"
        );
        let back = Recipe::from_ron(&text).expect("loads");
        assert_eq!(back.stages, recipe.stages);
        let Some(StageMask {
            source: MaskSource::Painted(mask),
            ..
        }) = &back.stages.last().unwrap().mask
        else {
            panic!("painted");
        };
        assert_eq!(mask.file, "r.mask-3.png");
        // Equal by hash alone: where the file sits is no edit.
        let moved = PaintedMask {
            file: "elsewhere.png".into(),
            hash: mask.hash.clone(),
        };
        assert_eq!(&moved, mask);
        // Every shipped preset (written before painted masks) still loads.
        for name in orogen_core::presets::names() {
            assert!(
                orogen_core::presets::load(name).is_some_and(|r| r.is_ok()),
                "{name}"
            );
        }
    }
}

/// Height, slope and image masks weigh the same world points alike at
/// 257² and 1025²: the weights of the default world's cells at both
/// sizes, compared where the cells coincide (every 4th of the finer map),
/// correlate at 0.99 or more.
#[test]
fn height_slope_and_image_masks_hold_across_sizes() {
    let dir = tempfile::tempdir().unwrap();
    // A soft diagonal ramp, white in the north-west.
    let ramp = image::GrayImage::from_fn(128, 128, |x, y| {
        image::Luma([(255.0 * (1.0 - (x + y) as f32 / 254.0)).round() as u8])
    });
    ramp.save(dir.path().join("ramp.png")).unwrap();
    let mask = |source: MaskSource, lo: f32, hi: f32, soft: f32| StageMask {
        source,
        range: Span::new(lo, hi),
        soft,
        invert: false,
    };
    let masks = [
        ("height", mask(MaskSource::Height, 30.0, 60.0, 15.0)),
        ("slope", mask(MaskSource::Slope, 0.0, 8.0, 8.0)),
        (
            "image",
            mask(MaskSource::Image("ramp.png".into()), 0.0, 1.0, 0.0),
        ),
    ];
    let weights = |size: u32, mask: &StageMask| {
        let recipe = base(size);
        let map = run_once(&recipe, None, RunHooks::default())
            .expect("the recipe runs")
            .map;
        let w = mask
            .weights(&map, recipe.cell_size(), Some(dir.path()))
            .expect("weights");
        (map.width(), w)
    };
    for (name, mask) in &masks {
        let (coarse_w, coarse) = weights(257, mask);
        let (fine_w, fine) = weights(1025, mask);
        let step = (fine_w - 1) / (coarse_w - 1);
        let at_fine: Vec<f32> = (0..coarse.len())
            .map(|i| fine[(i / coarse_w) * step * fine_w + (i % coarse_w) * step])
            .collect();
        let r = painted::pearson(&coarse, &at_fine);
        eprintln!("{name} mask, 257² against 1025²: correlation {r:.4}");
        assert!(r >= 0.99, "{name}: correlation {r}");
    }
}
