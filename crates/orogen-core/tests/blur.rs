//! The box blur beyond the naive reference (tests/reference.rs): how far
//! the fused fractional pass's f32 sums drift from the f64 passes, the
//! same bytes on any thread count, and whole boxes pinned bit for bit.

use orogen_core::Heightmap;
use orogen_core::rng::stage_rng;
use orogen_core::stages::blur::fractional::{fractional_box_pass, separable_box_pass};
use orogen_core::stages::blur::{self, Blur};
use orogen_core::stages::{DiamondSquare, StageContext, StageOp};
use proptest::prelude::*;

/// Largest absolute difference the fused fractional pass may show against
/// the f64 passes, three passes over diamond-square heights of up to about
/// 100 (docs/performance.md, blur): some 25 f32 steps at that magnitude, where the
/// largest seen is 1.24e-4.
const FRACTIONAL_BOUND: f32 = 2e-4;

fn terrain(width: usize, height: usize) -> Heightmap {
    let mut map = Heightmap::new(width, height);
    DiamondSquare::default()
        .apply(&mut map, &mut StageContext::new(stage_rng(1, 0)))
        .expect("diamond-square runs on any size");
    map
}

fn random_map(w: usize, h: usize, seed: u64) -> Heightmap {
    let mut rng = stage_rng(seed, 99);
    let data = (0..w * h)
        .map(|_| orogen_core::rng::range_f32(&mut rng, -50.0, 50.0))
        .collect();
    Heightmap::from_vec(w, h, data).expect("w * h values")
}

fn largest_difference(a: &Heightmap, b: &Heightmap) -> f32 {
    a.data()
        .iter()
        .zip(b.data())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Three passes of half-width `radius` with the fused pass, the f64
/// separable pass and (when `naive` is set) the naive weighted mean.
fn three_passes(map: &Heightmap, radius: f32, naive: bool) -> (Heightmap, Heightmap, Heightmap) {
    let (mut fused, mut separable, mut reference) = (map.clone(), map.clone(), map.clone());
    let mut scratch = Vec::new();
    for _ in 0..3 {
        fractional_box_pass(&mut fused, radius, &mut scratch);
        separable_box_pass(&mut separable, radius, &mut scratch);
        if naive {
            reference = blur::reference::fractional_box_pass(&reference, radius as f64);
        }
    }
    (fused, separable, reference)
}

#[test]
fn fractional_blur_stays_near_the_f64_passes_at_1025() {
    // A box 12 cells wide, the figure in docs/performance.md.
    let map = terrain(1025, 1025);
    let (fused, separable, reference) = three_passes(&map, 5.5, true);
    let (against_separable, against_reference) = (
        largest_difference(&fused, &separable),
        largest_difference(&fused, &reference),
    );
    let (low, high) = map
        .data()
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), &v| (l.min(v), h.max(v)));
    println!(
        "1025² heights {low}..{high}, r 5.5: {against_separable:e} vs f64 separable, \
         {against_reference:e} vs naive"
    );
    assert!(against_separable <= FRACTIONAL_BOUND, "{against_separable}");
    assert!(against_reference <= FRACTIONAL_BOUND, "{against_reference}");
    // The blur did move the heights: a bound on no change would be empty.
    assert!(largest_difference(&fused, &map) > 1.0);
}

#[test]
fn fractional_blur_stays_near_the_f64_passes_at_every_reach() {
    let map = terrain(300, 260);
    for radius in [0.25, 1.5, 3.75, 12.1, 31.5, 63.9] {
        let (fused, separable, _) = three_passes(&map, radius, false);
        let difference = largest_difference(&fused, &separable);
        println!("300×260, r {radius}: {difference:e}");
        assert!(difference <= FRACTIONAL_BOUND, "r {radius}: {difference}");
    }
}

fn blurred_bits(map: &Heightmap, width: f32, threads: usize) -> Vec<u32> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    pool.install(|| {
        let mut map = map.clone();
        let blur = Blur {
            passes: 3,
            width,
            ..Blur::default()
        };
        blur.apply(&mut map, &mut StageContext::new(stage_rng(1, 1)))
            .expect("the blur runs");
        map.data().iter().map(|v| v.to_bits()).collect()
    })
}

#[test]
fn blur_bytes_do_not_depend_on_the_thread_count() {
    // Tall enough for several bands of rows at every width, the last
    // wider than the fused pass's ring (the separable pass).
    let map = terrain(97, 1100);
    for width in [1.8, 3.0, 12.0, 13.0, 41.5, 140.0] {
        let one = blurred_bits(&map, width, 1);
        assert_eq!(one, blurred_bits(&map, width, 2), "width {width}: 1 vs 2");
        assert_eq!(one, blurred_bits(&map, width, 8), "width {width}: 1 vs 8");
    }
}

/// FNV-1a over the bits: a stable fingerprint without a dependency.
fn fingerprint(bits: &[u32]) -> u64 {
    bits.iter()
        .flat_map(|b| b.to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, byte| {
            (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3)
        })
}

#[test]
fn whole_boxes_keep_their_bytes() {
    // Boxes of a whole odd number of cells take the integer pass, whose
    // output the fractional pass's changes left bit for bit as it was.
    let map = terrain(257, 300);
    let pinned = [
        (3.0, 0xe6f9_a2f1_b0e6_33acu64),
        (13.0, 0xeed6_c99d_7622_f43e),
        (41.0, 0x2567_963c_0b7d_c45d),
    ];
    for (width, expected) in pinned {
        let found = fingerprint(&blurred_bits(&map, width, 2));
        assert_eq!(found, expected, "width {width}: {found:#018x}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    // The separable pass now serves only boxes beyond the fused pass's
    // ring; held to the weighted mean at small radii, where the naive
    // loop is cheap.
    #[test]
    fn separable_blur_matches_the_weighted_box_mean(w in 1usize..30, h in 1usize..120,
            r in 0.0f32..9.0, seed in any::<u64>()) {
        let mut fast = random_map(w, h, seed);
        let slow = blur::reference::fractional_box_pass(&fast, r as f64);
        separable_box_pass(&mut fast, r, &mut Vec::new());
        for (a, b) in fast.data().iter().zip(slow.data()) {
            prop_assert!((a - b).abs() <= 1e-4, "separable {a} vs naive {b} at r {r}");
        }
    }
}
