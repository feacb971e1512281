use orogen_core::Heightmap;
use orogen_core::rng::stage_rng;
use orogen_core::stages::diamond_square::{DiamondSquare, lattice_side};
use orogen_core::stages::{StageContext, StageOp};

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

/// Offsets are keyed by world place: a 257² map's points are every
/// fourth point of the 1025² map, bit for bit, and a map stopped at a
/// level shows that level's lattice at any size.
#[test]
fn a_coarse_map_is_the_finer_map_at_shared_points() {
    for ds in [
        DiamondSquare::default(),
        DiamondSquare {
            roughness: 0.3,
            clamp_negatives_as_generated: true,
            ..DiamondSquare::default()
        },
    ] {
        let fine = run(&ds, 1025, 1025, 3);
        let coarse = run(&ds, 257, 257, 3);
        for y in 0..257 {
            for x in 0..257 {
                assert_eq!(coarse.get(x, y), fine.get(4 * x, 4 * y), "({x}, {y})");
            }
        }
    }
}

/// Another sampling of the same world is the lattice resampled: the
/// world's longer side spans the lattice, so a 300x200 map is the 513
/// lattice at 512/299 steps per cell.
#[test]
fn non_power_sizes_sample_the_next_lattice() {
    let ds = DiamondSquare::default();
    assert_eq!(lattice_side(300), 513);
    let lattice = run(&ds, 513, 513, 3);
    let map = run(&ds, 300, 200, 3);
    let per_cell = 512.0 / 299.0;
    for y in 0..200 {
        for x in 0..300 {
            let want = lattice.sample_bilinear(x as f32 * per_cell, y as f32 * per_cell);
            assert_eq!(map.get(x, y), want, "({x}, {y})");
        }
    }
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

proptest::proptest! {
    /// The row-parallel lattice equals the point-by-point definition bit
    /// for bit, at every size up to 129 and any roughness and seed, with
    /// and without clamping negatives as they are generated.
    #[test]
    fn lattice_matches_the_point_by_point_definition(
        levels in 1u32..8, roughness in 0.0f32..3.0, base in -50.0f32..50.0,
        extent in 0.0f32..500.0, seed in proptest::prelude::any::<u64>(),
        clamp_negatives_as_generated in proptest::prelude::any::<bool>(),
    ) {
        let n = (1usize << levels) + 1;
        let ds = DiamondSquare {
            roughness, base, extent, clamp_negatives_as_generated, ..DiamondSquare::default()
        };
        let fast = ds.lattice(n, &stage_rng(seed, 0));
        let naive = orogen_core::stages::diamond_square::reference::lattice(&ds, n, seed);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        proptest::prop_assert_eq!(bits(&fast), bits(&naive));
    }
}

/// Article 003 clamps each new value when it is computed. The reference
/// clamps a value before anything reads it and never changes it after (a
/// border twin is a copy), so a lattice equal to the reference's with no
/// value below 0 means no value below 0 was ever averaged. Clamping as
/// generated leaves far fewer cells flat at 0 than clamping afterwards.
#[test]
fn clamping_as_generated_never_averages_a_negative() {
    let n = 257;
    let ds = DiamondSquare {
        roughness: 0.8,
        base: 0.0,
        extent: 200.0,
        clamp_negatives_as_generated: true,
        ..DiamondSquare::default()
    };
    let mut flat_as_generated = 0;
    let mut flat_after = 0;
    for seed in 1..=6 {
        let fast = ds.lattice(n, &stage_rng(seed, 0));
        let naive = orogen_core::stages::diamond_square::reference::lattice(&ds, n, seed);
        assert_eq!(fast, naive, "seed {seed}");
        assert!(
            fast.iter().all(|&v| v >= 0.0),
            "seed {seed}: a negative value"
        );
        flat_as_generated += fast.iter().filter(|&&v| v == 0.0).count();
        let unclamped = DiamondSquare {
            clamp_negatives_as_generated: false,
            ..ds.clone()
        }
        .lattice(n, &stage_rng(seed, 0));
        flat_after += unclamped.iter().filter(|&&v| v <= 0.0).count();
    }
    assert!(
        flat_as_generated * 10 < flat_after,
        "flat cells: {flat_as_generated} clamped as generated, {flat_after} clamped afterwards"
    );
}

/// Stepping the demo through levels shows the same world at every size:
/// level L is the same lattice at 129² and 513², so a map stopped after
/// it has the same heights at the lattice's points, whatever the size.
#[test]
fn a_stopped_level_is_the_same_lattice_at_every_size() {
    for stop in [1u32, 3, 5] {
        let ds = DiamondSquare {
            stop_after_level: Some(stop),
            ..DiamondSquare::default()
        };
        let small = run(&ds, 129, 129, 21);
        let large = run(&ds, 513, 513, 21);
        let step = 128 >> stop;
        for y in (0..129).step_by(step) {
            for x in (0..129).step_by(step) {
                assert_eq!(
                    small.get(x, y),
                    large.get(4 * x, 4 * y),
                    "level {stop}, point ({x}, {y})"
                );
            }
        }
        assert!(roughness(&small) > 0.0, "level {stop} drew offsets");
    }
}
