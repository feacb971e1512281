//! Incremental regeneration: editing stage k re-runs stages ≥ k only.

use orogen_core::pipeline::{Pipeline, RunHooks};
use orogen_core::presets;
use orogen_core::stages::Stage;

fn small_default() -> orogen_core::Recipe {
    let mut r = presets::load("default").unwrap().unwrap();
    r.width = 97;
    r.height = 97;
    r
}

#[test]
fn editing_stage_k_reruns_only_stages_from_k() {
    let mut recipe = small_default();
    let mut pipeline = Pipeline::new();
    let first = pipeline.run(&recipe, RunHooks::default()).unwrap();
    assert_eq!(first.first_rerun, 0);
    assert!(first.stages.iter().all(|s| s.reran));

    let again = pipeline.run(&recipe, RunHooks::default()).unwrap();
    assert_eq!(again.first_rerun, recipe.stages.len());
    assert!(again.stages.iter().all(|s| !s.reran));
    assert_eq!(again.map.data(), first.map.data());

    if let Stage::Blur(b) = &mut recipe.stages[2].stage {
        b.passes += 1;
    } else {
        panic!("default preset stage 2 should be a blur");
    }
    let edited = pipeline.run(&recipe, RunHooks::default()).unwrap();
    assert_eq!(edited.first_rerun, 2);
    let reran: Vec<bool> = edited.stages.iter().map(|s| s.reran).collect();
    assert_eq!(reran, vec![false, false, true, true]);
    // Outputs before the edit are the very same allocations.
    for i in 0..2 {
        assert!(std::sync::Arc::ptr_eq(
            &edited.stages[i].map,
            &first.stages[i].map
        ));
    }
    // And the result equals a cold run of the edited recipe.
    let cold = orogen_core::generate(&recipe, None).unwrap();
    assert_eq!(cold.map.data(), edited.map.data());
}

#[test]
fn changing_size_or_seed_reruns_everything() {
    let mut recipe = small_default();
    let mut pipeline = Pipeline::new();
    pipeline.run(&recipe, RunHooks::default()).unwrap();
    recipe.seed += 1;
    assert_eq!(
        pipeline
            .run(&recipe, RunHooks::default())
            .unwrap()
            .first_rerun,
        0
    );
    recipe.width = 65;
    let out = pipeline.run(&recipe, RunHooks::default()).unwrap();
    assert_eq!(out.first_rerun, 0);
    assert_eq!(out.map.width(), 65);
}

#[test]
fn editing_tiles_reruns_no_stage() {
    let mut recipe = small_default();
    let mut pipeline = Pipeline::new();
    pipeline.run(&recipe, RunHooks::default()).unwrap();
    recipe.tiles.tiles[0].scale = 2.0;
    let out = pipeline.run(&recipe, RunHooks::default()).unwrap();
    assert_eq!(out.first_rerun, recipe.stages.len());
}

#[test]
fn every_stage_output_is_kept_and_disabled_stages_pass_through() {
    let mut recipe = small_default();
    recipe.stages[2].enabled = false;
    let out = orogen_core::generate(&recipe, None).unwrap();
    assert_eq!(out.stages.len(), recipe.stages.len());
    assert_eq!(out.stages[2].map.data(), out.stages[1].map.data());
    assert_ne!(out.stages[1].map.data(), out.stages[0].map.data());
    assert_eq!(out.after_stage(3).data(), out.map.data());
}

#[test]
fn a_cancelled_run_stops() {
    let recipe = small_default();
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let result = Pipeline::new().run(
        &recipe,
        RunHooks {
            cancel: Some(&cancel),
            progress: None,
        },
    );
    assert!(matches!(
        result,
        Err(orogen_core::pipeline::PipelineError::Cancelled)
    ));
}

/// A layer of random heights 9e4..1e5, merged by `combine`: seven of
/// them multiplied make about 1e35, the eighth passes f32's 3.4e38.
fn big_layer(combine: orogen_core::stages::Combine) -> orogen_core::StageEntry {
    orogen_core::StageEntry::new(Stage::RandomValues(orogen_core::stages::RandomValues {
        values: orogen_core::params::Span::new(90_000.0, 100_000.0),
        combine,
    }))
}

/// `last` after seven big layers (1e5 replaced, then six multiplied in):
/// the cached pipeline and the one-shot run both refuse the result,
/// naming stage 7 and `kind`.
fn assert_overflow_named(size: u32, last: orogen_core::StageEntry, kind: &str) {
    use orogen_core::stages::Combine;
    let recipe = orogen_core::Recipe {
        width: size,
        height: size,
        extent: orogen_core::recipe::Extent {
            x: (size - 1) as f32,
            y: (size - 1) as f32,
        },
        stages: std::iter::once(big_layer(Combine::Replace))
            .chain((0..6).map(|_| big_layer(Combine::Multiply)))
            .chain(std::iter::once(last))
            .collect(),
        ..orogen_core::Recipe::default()
    };
    for result in [
        orogen_core::generate(&recipe, None),
        orogen_core::run_once(&recipe, None, RunHooks::default()),
    ] {
        let err = match result {
            Ok(_) => panic!("{kind}: overflow was not detected"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains(&format!("stage 7 ({kind})")) && err.contains("overflowed"),
            "{err}"
        );
    }
}

#[test]
fn overflowing_heights_are_refused_with_the_stage_named() {
    use orogen_core::stages::Combine;
    assert_overflow_named(8, big_layer(Combine::Multiply), "random-values");
}

/// Stages that check their own rows as they write them (noise, blur,
/// diamond-square merged into the map) still report an overflow.
#[test]
fn an_overflow_in_a_self_checking_stage_is_refused_too() {
    use orogen_core::stages::noise::{NoiseKind, NoiseStage};
    use orogen_core::stages::{Blur, Combine, DiamondSquare};
    let last_stages = [
        // Times noise of ±1e5 (offset 1e5).
        Stage::Noise(NoiseStage {
            kind: NoiseKind::Fbm,
            amplitude: 100_000.0,
            offset: 100_000.0,
            combine: Combine::Multiply,
            ..NoiseStage::default()
        }),
        // A 101 × 101 box of ~1e35 heights sums past 3.4e38.
        Stage::Blur(Blur {
            passes: 1,
            width: 101.0,
            ..Blur::default()
        }),
        // Corners of 1e5, multiplied in.
        Stage::DiamondSquare(DiamondSquare {
            base: 100_000.0,
            extent: 0.0,
            combine: Combine::Multiply,
            ..DiamondSquare::default()
        }),
    ];
    for last in last_stages {
        let kind = last.kind();
        assert_overflow_named(129, orogen_core::StageEntry::new(last), kind);
    }
}

/// A one-shot run works in place and keeps no per-stage maps, yet makes
/// the same bytes as the cached pipeline for every preset, disabled
/// stages included.
#[test]
fn a_one_shot_run_makes_the_same_bytes_without_per_stage_maps() {
    for name in orogen_core::presets::names() {
        let mut recipe = orogen_core::presets::load(name)
            .unwrap()
            .unwrap()
            .resampled(65);
        if recipe.stages.len() > 1 {
            recipe.stages[1].enabled = false;
        }
        let cached = orogen_core::generate(&recipe, None).unwrap();
        let once = orogen_core::run_once(&recipe, None, Default::default()).unwrap();
        assert_eq!(cached.map.data(), once.map.data(), "{name}");
        assert_eq!(once.stages.len(), recipe.stages.len());
        for (a, b) in once.stages.iter().zip(&cached.stages) {
            assert_eq!((a.kind, a.enabled), (b.kind, b.enabled), "{name}");
            assert!(
                std::sync::Arc::ptr_eq(&a.map, &once.map),
                "{name}: no copies kept"
            );
        }
    }
}
