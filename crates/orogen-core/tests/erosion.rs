use orogen_core::Heightmap;
use orogen_core::rng::stage_rng;
use orogen_core::stages::{HydraulicErosion, StageContext, StageOp, ThermalErosion};

/// A cone with a ring-shaped moat around it.
fn cone(side: usize) -> Heightmap {
    let c = (side - 1) as f32 / 2.0;
    let mut map = Heightmap::new(side, side);
    for y in 0..side {
        for x in 0..side {
            let d = ((x as f32 - c).powi(2) + (y as f32 - c).powi(2)).sqrt();
            let cone = (60.0 - d * 0.9).max(0.0);
            let moat = -8.0 * (-(d - 75.0).powi(2) / 30.0).exp();
            map.set(x, y, cone + moat);
        }
    }
    map
}

fn sum(map: &Heightmap) -> f64 {
    map.data().iter().map(|&v| v as f64).sum()
}

#[test]
fn hydraulic_erosion_conserves_material_lowers_peaks_and_fills_valleys() {
    let before = cone(201);
    let mut map = before.clone();
    let stage = HydraulicErosion {
        droplets: 60_000,
        ..HydraulicErosion::default()
    };
    let budget = stage.erode(&mut map, &stage_rng(3, 0));
    assert!(budget.eroded > 100.0, "{budget:?}");
    // Eroded = deposited + carried off the edges.
    let balance = budget.eroded - budget.deposited - budget.lost;
    assert!(
        balance.abs() < 1e-6 * budget.eroded.max(1.0) + 1e-3,
        "{budget:?}"
    );
    // And the map's volume dropped by exactly what left over the edges.
    let change = sum(&before) - sum(&map);
    assert!(
        (change - budget.lost).abs() < 1e-3 * budget.eroded.max(1.0),
        "change {change} vs lost {}",
        budget.lost
    );
    assert!(
        map.stats().max < before.stats().max - 0.5,
        "the peak is lowered"
    );
    // The moat at distance 75 collects sediment.
    let c = 100usize;
    let moat = |m: &Heightmap| -> f32 {
        (0..360)
            .step_by(10)
            .map(|a| {
                let t = (a as f32).to_radians();
                m.get(
                    (c as f32 + 75.0 * t.cos()) as usize,
                    (c as f32 + 75.0 * t.sin()) as usize,
                )
            })
            .sum()
    };
    let (moat_before, moat_after) = (moat(&before), moat(&map));
    assert!(
        moat_after > moat_before,
        "valleys fill: {moat_before} -> {moat_after}"
    );
}

fn with_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn erosion_is_identical_for_1_and_2_threads() {
    let run = || {
        let mut map = cone(300);
        let mut ctx = StageContext::new(stage_rng(9, 4));
        HydraulicErosion {
            droplets: 20_000,
            ..HydraulicErosion::default()
        }
        .apply(&mut map, &mut ctx)
        .unwrap();
        ThermalErosion {
            iterations: 20,
            ..ThermalErosion::default()
        }
        .apply(&mut map, &mut ctx)
        .unwrap();
        map.data().iter().map(|v| v.to_bits()).collect::<Vec<u32>>()
    };
    let one = with_threads(1, run);
    assert!(one == with_threads(2, run), "1 vs 2 threads");
    assert!(one == with_threads(4, run), "1 vs 4 threads");
}
