//! Droplet erosion at the map's own cells, on windows: the tiles lie on
//! the world and are keyed by place, so a window grown by the stage's
//! halo computes its cells exactly as the whole map does.

use orogen_core::Heightmap;
use orogen_core::rng::stage_rng;
use orogen_core::stages::{HydraulicErosion, StageContext, StageOp};
use orogen_core::{Window, WorldWindow};

/// Hills and valleys of a few wavelengths, with cell-scale roughness.
fn terrain(w: usize, h: usize) -> Heightmap {
    let mut map = Heightmap::new(w, h);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32, y as f32);
            let hills = 30.0 * (fx * 0.011).sin() * (fy * 0.013).cos()
                + 12.0 * (fx * 0.047 + fy * 0.031).sin();
            let rough = ((x * 7919 + y * 104_729) % 997) as f32 / 997.0;
            map.set(x, y, 60.0 + hills + rough);
        }
    }
    map
}

fn stage() -> HydraulicErosion {
    HydraulicErosion {
        droplets: 400,
        max_lifetime: 12,
        brush_radius: 2,
        simulation_size: 129,
        ..HydraulicErosion::default()
    }
}

fn bits(map: &Heightmap) -> Vec<u32> {
    map.data().iter().map(|v| v.to_bits()).collect()
}

#[test]
fn a_window_of_full_resolution_droplets_is_a_crop() {
    let (ww, wh) = (1600, 1500);
    let input = terrain(ww, wh);
    let stage = stage();
    let whole_world = WorldWindow::whole(ww, wh);
    let mut whole = input.clone();
    stage
        .apply(&mut whole, &mut StageContext::new(stage_rng(5, 3)))
        .expect("the whole map runs");

    for (x, y, w, h) in [(750, 700, 100, 100), (0, 0, 64, 90), (1500, 1400, 100, 100)] {
        let output = whole_world.with_window(Window {
            x,
            y,
            width: w,
            height: h,
        });
        let reads = stage.input_window(&output, 1.0);
        assert!(
            x != 750 || !reads.is_whole(),
            "the halo stays inside a world this large: {reads:?}"
        );
        let mut map = reads.crop_of(&whole_world, &input);
        let mut ctx = StageContext::new(stage_rng(5, 3));
        ctx.window = Some(reads);
        stage.apply(&mut map, &mut ctx).expect("the window runs");
        let got = output.crop_of(&reads, &map);
        let want = output.crop_of(&whole_world, &whole);
        let before = output.crop_of(&whole_world, &input);
        assert_ne!(bits(&want), bits(&before), "droplets changed the window");
        assert_eq!(bits(&got), bits(&want), "window at {x},{y}");
    }
}

/// Above the simulation size droplets run at the map's cells, as many per
/// cell: twice the cells a side is four times the droplets, with the same
/// lifetime and brush in cells. Below it a preview scales them down.
#[test]
fn droplets_are_counted_per_area_above_the_simulation_size() {
    let stage = stage();
    let (same, n) = stage.at_sampling(129);
    assert_eq!((n, same.max_lifetime), (400, 12));
    let (fine, n) = stage.at_sampling(257);
    assert_eq!(n, 1600);
    assert_eq!((fine.max_lifetime, fine.brush_radius), (12, 2));
    let (coarse, n) = stage.at_sampling(65);
    assert_eq!(n, 100);
    assert_eq!(coarse.max_lifetime, 6);
    // And the fine map is eroded at its own cells: its change is not a
    // smooth interpolation (the rills are a cell or two wide), so the
    // change differs between neighbouring cells as much as at 129².
    let roughness = |side: usize| {
        let before = terrain(side, side);
        let mut map = before.clone();
        stage
            .apply(&mut map, &mut StageContext::new(stage_rng(9, 1)))
            .expect("runs");
        let change: Vec<f32> = map
            .data()
            .iter()
            .zip(before.data())
            .map(|(a, b)| a - b)
            .collect();
        let step: f64 = change
            .windows(2)
            .map(|p| (p[1] - p[0]).abs() as f64)
            .sum::<f64>()
            / change.len() as f64;
        let size: f64 = change.iter().map(|c| c.abs() as f64).sum::<f64>() / change.len() as f64;
        step / size
    };
    let (at_129, at_257) = (roughness(129), roughness(257));
    assert!(
        at_257 > 0.5 * at_129,
        "cell-to-cell change at 257² {at_257:.3} against {at_129:.3} at 129²"
    );
}

/// A run whose cancel flag is set stops before its next colour pass and
/// says so, instead of finishing minutes of droplets nobody waits for.
#[test]
fn a_cancelled_run_stops() {
    let flag = std::sync::atomic::AtomicBool::new(true);
    let mut map = terrain(300, 300);
    let before = map.clone();
    let mut ctx = StageContext::new(stage_rng(5, 3));
    ctx.cancel = Some(&flag);
    let result = stage().apply(&mut map, &mut ctx);
    assert!(
        matches!(result, Err(orogen_core::stages::StageError::Cancelled)),
        "{result:?}"
    );
    assert_eq!(bits(&map), bits(&before));
}
