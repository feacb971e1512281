//! Fast stage implementations against naive, obviously correct ones.

use orogen::terrain::Heightmap;
use orogen::terrain::params::Choice;
use orogen::terrain::params::Span;
use orogen::terrain::rng::stage_rng;
use orogen::terrain::stages::blur::box_blur_pass;
use orogen::terrain::stages::hill_features::{
    Distribution, Easing, FeatureBlend, FeatureShape, HillFeatures,
};
use orogen::terrain::stages::hills_pits::{HillLayer, HillsAndPits, apply_caps};
use proptest::prelude::*;

fn random_map(w: usize, h: usize, seed: u64) -> Heightmap {
    let mut rng = stage_rng(seed, 99);
    let data = (0..w * h)
        .map(|_| orogen::terrain::rng::range_f32(&mut rng, -50.0, 50.0))
        .collect();
    Heightmap::from_vec(w, h, data).unwrap()
}

/// Mean over the (2r+1)² box clipped to the map, reading only `src`.
fn naive_blur(src: &Heightmap, r: usize) -> Heightmap {
    let (w, h) = (src.width(), src.height());
    let mut out = Heightmap::new(w, h);
    for y in 0..h {
        for x in 0..w {
            let (mut sum, mut n) = (0.0f64, 0);
            for yy in y.saturating_sub(r)..=(y + r).min(h - 1) {
                for xx in x.saturating_sub(r)..=(x + r).min(w - 1) {
                    sum += src.get(xx, yy) as f64;
                    n += 1;
                }
            }
            out.set(x, y, (sum / n as f64) as f32);
        }
    }
    out
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
        slow = naive_blur(&slow, r);
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
        let caps = stage.place(w, h, &mut stage_rng(seed, 1));
        let mut fast = base.clone();
        apply_caps(&mut fast, &caps);
        // The article's loop over every cell, with the intended d > 0 test.
        let mut slow = base.clone();
        for cap in &caps {
            for y in 0..h {
                for x in 0..w {
                    let dx = cap.cx - x as f32;
                    let dy = cap.cy - y as f32;
                    let d = cap.radius * cap.radius - (dx * dx + dy * dy);
                    if d > 0.0 {
                        let v = slow.get(x, y) + d * cap.factor;
                        slow.set(x, y, v);
                    }
                }
            }
        }
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
        for f in &features {
            for y in 0..h {
                for x in 0..w {
                    if let Some(v) = stage.influence(f, x as i64 - f.cx, y as i64 - f.cy, slow.get(x, y)) {
                        slow.set(x, y, v);
                    }
                }
            }
        }
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
    let caps = stage.place(64, 64, &mut stage_rng(5, 0));
    apply_caps(&mut map, &caps);
    let s = map.stats();
    assert_eq!(s.min, 0.0, "the article's bug would push cells below zero");
    assert!((s.max - 0.3 * 25.0).abs() < 2.0);
}
