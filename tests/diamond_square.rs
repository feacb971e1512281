use orogen::terrain::Heightmap;
use orogen::terrain::rng::stage_rng;
use orogen::terrain::stages::diamond_square::{DiamondSquare, lattice_side};
use orogen::terrain::stages::{StageContext, StageOp};

fn run(ds: &DiamondSquare, w: usize, h: usize, seed: u64) -> Heightmap {
    let mut map = Heightmap::new(w, h);
    let mut ctx = StageContext::new(stage_rng(seed, 0));
    ds.apply(&mut map, &mut ctx).unwrap();
    map
}

fn roughness(map: &Heightmap) -> f64 {
    let (w, h) = (map.width(), map.height());
    let mut sum = 0.0;
    let mut n = 0;
    for y in 0..h {
        for x in 0..w - 1 {
            sum += (map.get(x + 1, y) - map.get(x, y)).abs() as f64;
            n += 1;
        }
    }
    sum / n as f64
}

#[test]
fn corners_stay_at_base_and_level_zero_is_flat() {
    let ds = DiamondSquare {
        base: 37.5,
        ..DiamondSquare::default()
    };
    let map = run(&ds, 129, 129, 7);
    for (x, y) in [(0, 0), (128, 0), (0, 128), (128, 128)] {
        assert_eq!(map.get(x, y), 37.5);
    }
    let before_offsets = DiamondSquare {
        base: 37.5,
        stop_after_level: Some(0),
        ..DiamondSquare::default()
    };
    let flat = run(&before_offsets, 129, 129, 7);
    assert!(flat.data().iter().all(|&v| v == 37.5));
}

#[test]
fn larger_h_gives_a_smoother_map() {
    let mut rough_total = 0.0;
    let mut smooth_total = 0.0;
    for seed in 0..5 {
        rough_total += roughness(&run(
            &DiamondSquare {
                roughness: 0.3,
                ..DiamondSquare::default()
            },
            257,
            257,
            seed,
        ));
        smooth_total += roughness(&run(
            &DiamondSquare {
                roughness: 1.2,
                ..DiamondSquare::default()
            },
            257,
            257,
            seed,
        ));
    }
    assert!(
        smooth_total < rough_total * 0.5,
        "H=1.2 {smooth_total} vs H=0.3 {rough_total}"
    );
}

#[test]
fn non_power_sizes_are_the_crop_of_the_next_lattice() {
    let ds = DiamondSquare::default();
    assert_eq!(lattice_side(300), 513);
    let big = run(&ds, 513, 513, 3);
    let cropped = run(&ds, 300, 200, 3);
    assert_eq!(cropped.data(), big.cropped(300, 200).data());
}

#[test]
fn each_level_adds_detail() {
    let coarse = run(
        &DiamondSquare {
            stop_after_level: Some(2),
            ..DiamondSquare::default()
        },
        129,
        129,
        9,
    );
    let full = run(&DiamondSquare::default(), 129, 129, 9);
    // The stepped demo keeps the lattice points of the full run.
    for y in (0..129).step_by(32) {
        for x in (0..129).step_by(32) {
            assert_eq!(coarse.get(x, y), full.get(x, y));
        }
    }
    assert!(roughness(&coarse) < roughness(&full));
}

#[test]
fn the_lattice_tiles_seamlessly() {
    let map = run(&DiamondSquare::default(), 257, 257, 12);
    for i in 0..257 {
        assert_eq!(map.get(0, i), map.get(256, i), "west and east borders");
        assert_eq!(map.get(i, 0), map.get(i, 256), "north and south borders");
    }
    // No border spikes: border steps are like interior steps.
    let step = |x0: usize, x1: usize| {
        (0..257)
            .map(|y| (map.get(x0, y) - map.get(x1, y)).abs())
            .fold(0.0f32, f32::max)
    };
    assert!(step(255, 256) < 3.0 * step(127, 128).max(step(128, 129)));
}

/// Diamond-square written point by point from its definition, serially:
/// each (level, phase, row) draws its words from its own position of the
/// stage stream (word `((level·2 + phase)·n + y)·n`), point k of a row
/// taking word k; square points wrap across the border; border twins are
/// copied after each level.
fn naive_lattice(ds: &DiamondSquare, n: usize, seed: u64) -> Vec<f32> {
    use orogen::terrain::rng::{at_word, unit_from_word};
    use rand::RngCore;
    let rng = stage_rng(seed, 0);
    let period = n - 1;
    let mut g = vec![0.0f32; n * n];
    for (x, y) in [(0, 0), (period, 0), (0, period), (period, period)] {
        g[y * n + x] = ds.base;
    }
    let row_words = |level: usize, phase: usize, y: usize| -> Vec<u32> {
        let mut r = at_word(&rng, (((level * 2 + phase) * n + y) * n) as u128);
        (0..n).map(|_| r.next_u32()).collect()
    };
    let (mut range, mut step, mut level) = (1.0f32, period, 0);
    while step > 1 {
        let half = step / 2;
        let scale = range * ds.extent;
        let offset = |word: u32| (unit_from_word(word) - 0.5) * scale;
        for y in (half..n).step_by(step) {
            let words = row_words(level, 0, y);
            for x in (half..n).step_by(step) {
                let sum = g[(y - half) * n + x - half]
                    + g[(y - half) * n + x + half]
                    + g[(y + half) * n + x - half]
                    + g[(y + half) * n + x + half];
                g[y * n + x] = sum * 0.25 + offset(words[(x - half) / step]);
            }
        }
        let first_column = |y: usize| {
            if (y / half).is_multiple_of(2) {
                half
            } else {
                0
            }
        };
        let before = g.clone();
        for y in (0..n).step_by(half) {
            let words = row_words(level, 1, y);
            let first = first_column(y);
            let (up, down) = ((y + period - half) % period, (y + half) % period);
            for x in (first..n).step_by(step) {
                let (left, right) = ((x + period - half) % period, (x + half) % period);
                let sum = before[up * n + x]
                    + before[down * n + x]
                    + before[y * n + left]
                    + before[y * n + right];
                g[y * n + x] = sum * 0.25 + offset(words[(x - first) / step]);
            }
        }
        for y in (0..n).step_by(half) {
            if first_column(y) == 0 {
                g[y * n + period] = g[y * n];
            }
        }
        for x in (half..n).step_by(step) {
            g[period * n + x] = g[x];
        }
        range *= 0.5f32.powf(ds.roughness);
        step = half;
        level += 1;
    }
    g
}

proptest::proptest! {
    /// The row-parallel lattice equals the point-by-point definition bit
    /// for bit, at every size up to 129 and any roughness and seed.
    #[test]
    fn lattice_matches_the_point_by_point_definition(
        levels in 1u32..8, roughness in 0.0f32..3.0, base in -50.0f32..50.0,
        extent in 0.0f32..500.0, seed in proptest::prelude::any::<u64>(),
    ) {
        let n = (1usize << levels) + 1;
        let ds = DiamondSquare { roughness, base, extent, ..DiamondSquare::default() };
        let fast = ds.lattice(n, &stage_rng(seed, 0));
        let naive = naive_lattice(&ds, n, seed);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        proptest::prop_assert_eq!(bits(&fast), bits(&naive));
    }
}
