//! Fast stage implementations against naive, obviously correct ones.

use orogen_core::Heightmap;
use orogen_core::params::Choice;
use orogen_core::params::Span;
use orogen_core::place_rng::{PlaceKey, world_coordinate, world_steps_per_cell};
use orogen_core::rng::stage_rng;
use orogen_core::rng::unit_from_word;
use orogen_core::stages::blur::fractional::fractional_box_pass;
use orogen_core::stages::blur::{self, box_blur_pass};
use orogen_core::stages::hill_features::{
    self, Distribution, Easing, FeatureBlend, FeatureShape, HillFeatures,
};
use orogen_core::stages::hills_pits::{self, HillLayer, HillsAndPits, apply_caps};
use orogen_core::stages::{Combine, RandomValues, StageContext, StageOp};
use proptest::prelude::*;

fn random_map(w: usize, h: usize, seed: u64) -> Heightmap {
    let mut rng = stage_rng(seed, 99);
    let data = (0..w * h)
        .map(|_| orogen_core::rng::range_f32(&mut rng, -50.0, 50.0))
        .collect();
    Heightmap::from_vec(w, h, data).unwrap()
}

/// `passes` fast blur passes against as many naive ones, on a random map.
fn blur_matches_naive(
    w: usize,
    h: usize,
    r: usize,
    passes: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut fast = random_map(w, h, seed);
    let mut slow = fast.clone();
    let mut scratch = Vec::new();
    for _ in 0..passes {
        box_blur_pass(&mut fast, r, &mut scratch);
        slow = blur::reference::box_blur_pass(&slow, r);
    }
    for (a, b) in fast.data().iter().zip(slow.data()) {
        prop_assert!((a - b).abs() <= 1e-3, "fast {a} vs naive {b}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn blur_matches_naive_box_mean(w in 1usize..40, h in 1usize..40, r in 1usize..5,
                                   passes in 1usize..4, seed in any::<u64>()) {
        blur_matches_naive(w, h, r, passes, seed)?;
    }

    // A box whose half-width falls between cells (a world width at some
    // sampling): the separable sliding version against the weighted mean
    // over every box cell, across bands of rows.
    #[test]
    fn fractional_blur_matches_the_weighted_box_mean(w in 1usize..30, h in 1usize..200,
            r in 0.0f32..12.0, passes in 1usize..3, seed in any::<u64>()) {
        let mut fast = random_map(w, h, seed);
        let mut slow = fast.clone();
        let mut scratch = Vec::new();
        for _ in 0..passes {
            fractional_box_pass(&mut fast, r, &mut scratch);
            slow = blur::reference::fractional_box_pass(&slow, r as f64);
        }
        for (a, b) in fast.data().iter().zip(slow.data()) {
            prop_assert!((a - b).abs() <= 1e-3, "fast {a} vs naive {b} at r {r}");
        }
    }

    // Tall, narrow maps: several bands of rows, so the rows a band borrows
    // from its neighbours (and the wider bands of large radii) are checked.
    #[test]
    fn blur_matches_naive_box_mean_across_bands(w in 1usize..6, h in 60usize..500,
                                                r in 1usize..24, passes in 1usize..3,
                                                seed in any::<u64>()) {
        blur_matches_naive(w, h, r, passes, seed)?;
    }

    // Wide, short maps: every radius's window sums along rows, from
    // power-of-two blocks, inside rows and clipped at both ends.
    #[test]
    fn blur_matches_naive_box_mean_along_wide_rows(w in 20usize..160, h in 1usize..5,
                                                   r in 1usize..48, seed in any::<u64>()) {
        blur_matches_naive(w, h, r, 1, seed)?;
    }

    #[test]
    fn hills_and_pits_match_the_article_formula(w in 1usize..60, h in 1usize..60,
            count in 0u32..40, rmin in 0.5f32..10.0, rextra in 0.0f32..10.0,
            seed in any::<u64>()) {
        let stage = HillsAndPits { layers: vec![
            HillLayer { pit: false, count, radius: Span::new(rmin, rmin + rextra), height: Span::new(0.2, 0.4) },
            HillLayer { pit: true, count: count / 2, radius: Span::new(rmin, rmin + rextra), height: Span::new(0.2, 0.4) },
        ]};
        let base = random_map(w, h, seed);
        let extent = ((w.max(2) - 1) as f32, (h.max(2) - 1) as f32);
        let caps = stage.place(extent, 1.0, &mut stage_rng(seed, 1));
        let mut fast = base.clone();
        apply_caps(&mut fast, &caps);
        // The article's loop over every cell, with the intended d > 0 test.
        let mut slow = base.clone();
        hills_pits::reference::apply_caps(&mut slow, &caps);
        prop_assert_eq!(fast.data(), slow.data());
    }

    #[test]
    fn hill_features_match_a_loop_over_every_cell(w in 2usize..70, h in 2usize..70,
            frequency in 0.3f32..4.0, shape in 0usize..7, easing in 0usize..7,
            blend in 0usize..7, island in any::<bool>(), seed in any::<u64>()) {
        let stage = HillFeatures {
            frequency,
            shape: FeatureShape::ALL[shape],
            easing: Easing::ALL[easing],
            blend: FeatureBlend::ALL[blend],
            distribution: if island { Distribution::Island } else { Distribution::Uniform },
            ..HillFeatures::default()
        };
        let base = random_map(w, h, seed);
        let features = stage.place(w, h, &mut stage_rng(seed, 2));
        let mut fast = base.clone();
        stage.apply_features(&mut fast, &features);
        let mut slow = base.clone();
        hill_features::reference::apply_features(&stage, &mut slow, &features);
        prop_assert_eq!(fast.data(), slow.data());
    }
}

#[test]
fn blur_keeps_a_constant_map_and_smooths_a_spike() {
    let mut flat = Heightmap::filled(9, 7, 4.0);
    let mut scratch = Vec::new();
    box_blur_pass(&mut flat, 2, &mut scratch);
    assert!(flat.data().iter().all(|&v| (v - 4.0).abs() < 1e-6));
    let mut spike = Heightmap::new(5, 5);
    spike.set(2, 2, 9.0);
    box_blur_pass(&mut spike, 1, &mut scratch);
    assert!((spike.get(2, 2) - 1.0).abs() < 1e-6);
    assert!((spike.get(1, 1) - 1.0).abs() < 1e-6);
    assert_eq!(spike.get(0, 0), 0.0);
}

#[test]
fn a_hill_never_lowers_the_map_outside_its_radius() {
    let stage = HillsAndPits {
        layers: vec![HillLayer {
            pit: false,
            count: 1,
            radius: Span::new(5.0, 5.0),
            height: Span::new(0.3, 0.3),
        }],
    };
    let mut map = Heightmap::new(64, 64);
    let caps = stage.place((63.0, 63.0), 1.0, &mut stage_rng(5, 0));
    apply_caps(&mut map, &caps);
    let s = map.stats();
    assert_eq!(s.min, 0.0, "the article's bug would push cells below zero");
    assert!((s.max - 0.3 * 25.0).abs() < 2.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random values, row kernel (sides of 2^k + 1) and point by point
    /// (other sides), every combine mode, against each cell's word.
    #[test]
    fn random_values_match_each_cells_word(k in 1u32..7, extra in 0usize..40, wide in any::<bool>(),
            mode in 0usize..6, seed in any::<u64>()) {
        let long = (1usize << k) + 1 + extra;
        let short = (long / 2).max(1);
        let (w, h) = if wide { (long, short) } else { (short, long) };
        let stage = RandomValues {
            values: Span::new(-3.0, 5.0),
            combine: Combine::ALL[mode],
        };
        let base = random_map(w, h, seed);
        let mut fast = base.clone();
        let rng = stage_rng(seed, 4);
        stage.apply(&mut fast, &mut StageContext::new(rng.clone())).unwrap();
        let key = PlaceKey::of_stage(&rng);
        let steps = world_steps_per_cell(w.max(h));
        for y in 0..h {
            for x in 0..w {
                let word = key.word(0, world_coordinate(x, steps), world_coordinate(y, steps));
                let value = -3.0 + 8.0 * unit_from_word(word);
                let expected = stage.combine.apply(base.get(x, y), value);
                prop_assert_eq!(fast.get(x, y).to_bits(), expected.to_bits(), "cell ({}, {})", x, y);
            }
        }
    }
}
