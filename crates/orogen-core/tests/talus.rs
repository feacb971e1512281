//! Scree at each finer level of fluvial erosion: slopes past the angle of
//! repose shed material to lower neighbours, conserving it, and leave
//! gentler ground as it was.

use orogen_core::Heightmap;
use orogen_core::rng::{range_f32, stage_rng};
use orogen_core::stages::FluvialErosion;

/// Neighbouring pairs (4-neighbourhood) steeper than `angle` degrees on
/// cells `cell` apart.
fn too_steep(map: &Heightmap, cell: f32, angle: f32) -> usize {
    let limit = angle.to_radians().tan() * cell;
    let (w, h) = (map.width(), map.height());
    let mut count = 0;
    for y in 0..h {
        for x in 0..w {
            let v = map.get(x, y);
            if x + 1 < w && (map.get(x + 1, y) - v).abs() > limit * 1.001 {
                count += 1;
            }
            if y + 1 < h && (map.get(x, y + 1) - v).abs() > limit * 1.001 {
                count += 1;
            }
        }
    }
    count
}

#[test]
fn talus_settles_slopes_past_the_angle_and_keeps_the_material() {
    let (side, cell) = (96usize, 2.0f32);
    let mut rng = stage_rng(3, 1);
    // A gentle ramp in the west half; crags (random heights over 6 m) in
    // the east half.
    let data: Vec<f32> = (0..side * side)
        .map(|i| {
            let x = i % side;
            if x < side / 2 {
                x as f32 * 0.1
            } else {
                10.0 + range_f32(&mut rng, 0.0, 6.0)
            }
        })
        .collect();
    let start = Heightmap::from_vec(side, side, data).expect("side² cells");
    let stage = FluvialErosion {
        talus_angle: 35.0,
        ..FluvialErosion::default()
    };
    let mut map = start.clone();
    let mut layer = Heightmap::new(side, side);
    stage.shed_talus(&mut map, Some(&mut layer), cell);
    let (before, after) = (too_steep(&start, cell, 35.0), too_steep(&map, cell, 35.0));
    // 8 sweeps settle most of them (5429 -> 2013 pairs here).
    assert!(after * 2 <= before, "steep pairs {before} -> {after}");
    let sum = |m: &Heightmap| m.data().iter().map(|&v| v as f64).sum::<f64>();
    let moved: f64 = start
        .data()
        .iter()
        .zip(map.data())
        .map(|(a, b)| (a - b).abs() as f64)
        .sum();
    assert!(moved > 0.0);
    assert!(
        (sum(&map) - sum(&start)).abs() <= 1e-4 * moved,
        "material not conserved"
    );
    // The ramp, far from the crags, is left as it was.
    for y in 0..side {
        for x in 0..side / 4 {
            assert_eq!(
                map.get(x, y).to_bits(),
                start.get(x, y).to_bits(),
                "({x}, {y})"
            );
        }
    }
    // What it laid down is in the layer, where it raised the map.
    for (i, (&l, (&a, &b))) in layer
        .data()
        .iter()
        .zip(start.data().iter().zip(map.data()))
        .enumerate()
    {
        assert_eq!(l, (b - a).max(0.0), "cell {i}");
    }
    // Off, nothing moves.
    let mut off = start.clone();
    FluvialErosion::default().shed_talus(&mut off, None, cell);
    assert_eq!(off.data(), start.data());
}

/// Scree on the map's own level comes before its closing fill: the eroded
/// map still drains, no cell lower than all eight neighbours.
#[test]
fn with_talus_every_cell_still_drains() {
    let mut recipe = orogen_core::presets::load("eroded-mountains")
        .expect("a shipped preset")
        .expect("it parses")
        .resampled(257);
    for entry in &mut recipe.stages {
        if let orogen_core::stages::Stage::FluvialErosion(f) = &mut entry.stage {
            f.talus_angle = 20.0;
        }
    }
    let map = orogen_core::run_once(&recipe, None, Default::default())
        .expect("the recipe runs")
        .map;
    let (w, h) = (map.width(), map.height());
    let mut pits = 0;
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let v = map.get(x, y);
            let lowest = (0..9)
                .filter(|&k| k != 4)
                .all(|k| map.get(x + k % 3 - 1, y + k / 3 - 1) > v);
            pits += lowest as usize;
        }
    }
    assert_eq!(pits, 0, "closed pits with talus");
}
