//! One recipe, one landscape at every sampling: each preset made at a
//! small and a larger size agrees at the points both sample.

use orogen_core::pipeline::generate;
use orogen_core::presets;
use orogen_core::sampling::shared_correlation;
use orogen_core::stages::Stage;
use orogen_core::{Heightmap, Recipe};

fn make(recipe: &Recipe, side: u32) -> Heightmap {
    let recipe = recipe.resampled(side);
    let out = generate(&recipe, None).expect("preset runs");
    (*out.map).clone()
}

fn has_erosion(recipe: &Recipe) -> bool {
    recipe.stages.iter().any(|e| {
        e.enabled
            && matches!(
                e.stage,
                Stage::HydraulicErosion(_) | Stage::ThermalErosion(_) | Stage::FluvialErosion(_)
            )
    })
}

/// The coarse level of the recipe's fluvial erosion, if it has one.
fn fluvial_coarse_size(recipe: &Recipe) -> Option<u32> {
    recipe.stages.iter().find_map(|e| match &e.stage {
        Stage::FluvialErosion(f) if e.enabled => Some(f.coarse_size),
        _ => None,
    })
}

/// The correlation each preset needs at `side`: 0.99, or 0.95 with
/// erosion; 0.9 for a preview coarser than the fluvial stage's coarse
/// level, which erodes its own, coarser valleys (every size from the
/// coarse level up starts from the same coarse erosion).
fn required(recipe: &Recipe, side: u32) -> f64 {
    if fluvial_coarse_size(recipe).is_some_and(|coarse| side < coarse) {
        0.9
    } else if has_erosion(recipe) {
        0.95
    } else {
        0.99
    }
}

fn check_sizes(sizes: &[u32]) {
    let mut failures = Vec::new();
    for name in presets::names() {
        let recipe = presets::load(name)
            .expect("preset exists")
            .expect("preset loads");
        let large = sizes[sizes.len() - 1];
        let reference = make(&recipe, large);
        for &side in &sizes[..sizes.len() - 1] {
            let map = make(&recipe, side);
            let r = shared_correlation(&map, &reference).expect("sizes nest");
            println!("{name}: {side}² vs {large}²: r = {r:.4}");
            if r < required(&recipe, side) {
                failures.push(format!("{name} {side}² vs {large}²: {r:.4}"));
            }
        }
    }
    assert!(failures.is_empty(), "below the bar: {failures:?}");
}

#[test]
fn every_preset_is_the_same_landscape_from_129_to_513() {
    check_sizes(&[129, 257, 513]);
}

/// The same up to 4097² (slow: `scripts/drainage-tier.sh`, which
/// `scripts/test.sh` runs, runs it in release with `--ignored`).
#[test]
#[ignore]
fn every_preset_is_the_same_landscape_up_to_4097() {
    check_sizes(&[257, 513, 1025, 2049, 4097]);
}

/// A preset's design size is untouched by resampling it to that size.
#[test]
fn resampling_to_the_design_size_changes_nothing() {
    for name in presets::names() {
        let recipe = presets::load(name).unwrap().unwrap();
        assert_eq!(recipe.resampled(recipe.width.max(recipe.height)), recipe);
    }
}
