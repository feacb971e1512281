//! Sediment transport and deposition in fluvial erosion: the fast solve
//! against its readable definition, the bedrock-only result when
//! deposition is off, the same bytes on any thread count, deposits where
//! water slows, and the `deposition` map taking what the stage laid down.

use orogen_core::Heightmap;
use orogen_core::Recipe;
use orogen_core::hydro::{Edges, FlowGrid, Outlets, Routing};
use orogen_core::rng::{range_f32, stage_rng};
use orogen_core::stages::fluvial::deposition::share_under;
use orogen_core::stages::fluvial::deposition::{
    MAX_SWEEPS, SETTLED, SETTLED_RMS, SedimentParams, Sweeps, incise_depositing,
    incise_depositing_with,
};
use orogen_core::stages::fluvial::step::{
    CutLayer, StepFields, StepParams, incise, incise_layered, incise_layered_with_levels,
    incise_with_levels, uplift_cells,
};
use orogen_core::stages::fluvial::{UpliftShape, reference};
use orogen_core::stages::{FluvialErosion, Stage, StageContext, StageOp};
use proptest::prelude::*;

/// Heights in metres: `kind` 0 uniform noise in [0, 20] (many pits), 1 a
/// plane tilted towards the south edge plus a little noise, 2 a steep
/// block in the north third above a gentle plain.
fn heights(w: usize, h: usize, seed: u64, kind: u8) -> Vec<f32> {
    let mut rng = stage_rng(seed, 9);
    (0..w * h)
        .map(|i| {
            let (y, noise) = ((i / w) as f32, range_f32(&mut rng, 0.0, 1.0));
            match kind {
                0 => 20.0 * noise,
                1 => (h as f32 - y) * 2.0 + noise,
                _ if y < h as f32 / 3.0 => 40.0 + (h as f32 / 3.0 - y) * 8.0 + 4.0 * noise,
                _ => (h as f32 - y) * 0.02 + 0.01 * noise,
            }
        })
        .collect()
}

/// Stream power on 10 m cells (K 1e-3, m 0.5, n 1), `dt` years a step,
/// water leaving over every edge, outlets at `base_level` when given.
fn ten_metre_cells(dt: f64, base_level: Option<f32>) -> StepParams {
    StepParams {
        erodibility: 1e-3,
        area_exponent: 0.5,
        slope_exponent: 1.0,
        dt,
        cell_size: 10.0,
        outlets: Outlets::ALL_EDGES,
        held: Edges::default(),
        base_level,
    }
}

/// One step of the fast solve: uplift, routing, erosion and deposition.
fn fast_step(
    heights: &mut [f32],
    sediment: &mut [f32],
    width: usize,
    fields: &StepFields,
    p: &StepParams,
    s: &SedimentParams,
) {
    let mut grid = FlowGrid::new(heights, width, &p.outlets, p.held);
    grid.update_sea(heights);
    if let Some(uplift) = fields.uplift {
        uplift_cells(heights, &grid, uplift, p.dt);
    }
    let routing = Routing::on_grid(heights, &grid);
    incise_depositing::<false>(heights, sediment, &routing, &grid, fields.erodibility, p, s);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// Random maps up to 24², steps, G, sediment erodibility, uplift and
    /// outlets: each step of the fast solve satisfies the step's
    /// equations written plainly (one plain sweep from its result moves
    /// no cell by more than 1 mm), or, where they have no settled answer
    /// (a cell at a lake's edge that stands in the lake only if it passes
    /// its load on), equals the plain sweeps within 2 mm as it runs the
    /// same sweeps then; and the layer follows the heights.
    #[test]
    fn deposition_satisfies_the_plain_equations(
        w in 3usize..=24, h in 3usize..=24, seed in any::<u64>(), kind in 0u8..3,
        steps in 1usize..=3, g in 0.05f64..=1.0, share in 0.5f64..3.0,
        uplift in any::<bool>(), fixed_outlets in any::<bool>(),
    ) {
        let case = Case::new(w, h, seed, kind, g, share, uplift, fixed_outlets);
        let (mut fast, mut layer) = (case.start.clone(), vec![0f32; w * h]);
        for step in 0..steps {
            let (before, layer_before) = (fast.clone(), layer.clone());
            fast_step(&mut fast, &mut layer, w, &case.fields(), &case.p, &case.s);
            let residual = reference::depositing_residual(
                &before, &fast, &layer_before, w, &case.fields(), &case.p, &case.s,
            );
            if residual > 1e-3 {
                let (mut slow, mut slow_layer) = (before.clone(), layer_before.clone());
                reference::stream_power_step_depositing(
                    &mut slow, &mut slow_layer, w, &case.fields(), &case.p, &case.s,
                );
                for i in 0..w * h {
                    prop_assert!((fast[i] - slow[i]).abs() <= 2e-3,
                        "step {step} cell {i}: {} vs {} (a plain sweep moves {residual} m)",
                        fast[i], slow[i]);
                }
            }
            let mut lifted = before.clone();
            if let Some(u) = &case.uplift {
                let grid = FlowGrid::new(&before, w, &case.p.outlets, case.p.held);
                uplift_cells(&mut lifted, &grid, u, case.p.dt);
            }
            for i in 0..w * h {
                let want = (layer_before[i] + fast[i] - lifted[i]).max(0.0);
                prop_assert!((layer[i] - want).abs() <= 1e-4,
                    "step {step} cell {i} sediment: {} vs {want}", layer[i]);
            }
        }
    }
}

/// One random case of the reference tests.
struct Case {
    start: Vec<f32>,
    uplift: Option<Vec<f32>>,
    hardness: Vec<f32>,
    p: StepParams,
    s: SedimentParams,
}

impl Case {
    #[allow(clippy::too_many_arguments)]
    fn new(
        w: usize,
        h: usize,
        seed: u64,
        kind: u8,
        g: f64,
        share: f64,
        uplift: bool,
        fixed_outlets: bool,
    ) -> Self {
        let start = heights(w, h, seed, kind);
        let lowest = start.iter().copied().fold(f32::INFINITY, f32::min);
        let mut rng = stage_rng(seed, 4);
        let uplift = uplift.then(|| (0..w * h).map(|_| range_f32(&mut rng, 0.0, 2e-3)).collect());
        let hardness = (0..w * h).map(|_| range_f32(&mut rng, 0.3, 1.0)).collect();
        Self {
            start,
            uplift,
            hardness,
            p: ten_metre_cells(2000.0, (!fixed_outlets).then_some(lowest)),
            s: SedimentParams {
                deposition: g,
                sediment_share: share,
            },
        }
    }

    fn fields(&self) -> StepFields<'_> {
        StepFields {
            uplift: self.uplift.as_deref(),
            erodibility: Some(&self.hardness),
        }
    }
}

/// The fast solve against the plain one, step by step from the same
/// state, on 300 fixed random maps: the same heights and layer within
/// 2 mm at every cell in at least 95 % of them. The rest are maps where
/// a cell at a lake's edge lets the equations hold twice (whether it
/// stands in the lake depends on how far its receiver fills, which
/// depends on whether it passes its load on): the fast solve, which
/// satisfies them exactly, and the plain one, which sweeps from no flux,
/// found the two answers; or the plain sweeps (at most 40, as the
/// sweeps of the fast solve were) had not settled.
#[test]
fn deposition_matches_the_plain_solve() {
    let mut rng = stage_rng(77, 1);
    let (mut agree, mut total) = (0usize, 0usize);
    for case_index in 0..300u64 {
        let w = 3 + (range_f32(&mut rng, 0.0, 21.99) as usize);
        let h = 3 + (range_f32(&mut rng, 0.0, 21.99) as usize);
        let kind = (case_index % 3) as u8;
        let g = range_f32(&mut rng, 0.05, 1.0) as f64;
        let share = range_f32(&mut rng, 0.5, 3.0) as f64;
        let case = Case::new(
            w,
            h,
            case_index,
            kind,
            g,
            share,
            case_index % 2 == 0,
            case_index % 4 < 2,
        );
        let (mut fast, mut layer) = (case.start.clone(), vec![0f32; w * h]);
        let mut same = true;
        for _ in 0..2 {
            let (before, layer_before) = (fast.clone(), layer.clone());
            let (mut slow, mut slow_layer) = (fast.clone(), layer.clone());
            fast_step(&mut fast, &mut layer, w, &case.fields(), &case.p, &case.s);
            reference::stream_power_step_depositing(
                &mut slow,
                &mut slow_layer,
                w,
                &case.fields(),
                &case.p,
                &case.s,
            );
            let apart = (0..w * h)
                .filter(|&i| {
                    (fast[i] - slow[i]).abs() > 2e-3 || (layer[i] - slow_layer[i]).abs() > 2e-3
                })
                .count();
            if apart > 0 {
                // The plain solve found another answer, or its 40 sweeps
                // did not settle: how far it is from satisfying the
                // equations says which.
                let residual = reference::depositing_residual(
                    &before,
                    &slow,
                    &layer_before,
                    w,
                    &case.fields(),
                    &case.p,
                    &case.s,
                );
                eprintln!(
                    "case {case_index}: {apart} of {} cells apart; the plain solve is {residual} m from a solution",
                    w * h
                );
            }
            same &= apart == 0;
        }
        total += 1;
        agree += same as usize;
    }
    eprintln!("{agree} of {total} maps equal the plain solve within 2 mm");
    assert!(agree * 100 >= total * 95, "{agree} of {total}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// A finer level's incision through the sediment layer in one walk
    /// equals its plain definition in three passes: each cell's share
    /// under its layer, the incision with those shares, then the layer
    /// thinned by what each cell lost. The same bits, heights, layer and
    /// fill levels, with patches of bare rock and covered ground.
    #[test]
    fn the_layered_incision_is_shares_then_thinning(
        w in 3usize..=40, h in 3usize..=40, seed in any::<u64>(), kind in 0u8..3,
        share in 0.5f32..3.0, hard in any::<bool>(),
    ) {
        let start = heights(w, h, seed, kind);
        let mut rng = stage_rng(seed, 5);
        let layer: Vec<f32> = (0..w * h)
            .map(|_| range_f32(&mut rng, -0.3, 0.4).max(0.0))
            .collect();
        let hardness: Vec<f32> = (0..w * h).map(|_| range_f32(&mut rng, 0.3, 1.0)).collect();
        let rock = hard.then_some(hardness.as_slice());
        let p = ten_metre_cells(2000.0, None);
        let grid = FlowGrid::new(&start, w, &p.outlets, p.held);
        let routing = Routing::on_grid(&start, &grid);
        let shares: Vec<f32> = (0..w * h)
            .map(|i| share_under(layer[i], rock.map_or(1.0, |r| r[i] as f64), share as f64) as f32)
            .collect();
        let thinned = |before: &[f32], after: &[f32]| -> Vec<u32> {
            (0..w * h)
                .map(|i| (layer[i] - (before[i] - after[i]).max(0.0)).max(0.0).to_bits())
                .collect()
        };
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        let mut bits_scratch = Vec::new();
        // Without fill levels.
        let mut plain = start.clone();
        incise(&mut plain, &routing, &grid, Some(&shares), &p);
        let (mut walked, mut walked_layer) = (start.clone(), layer.clone());
        incise_layered(
            &mut walked,
            CutLayer::over(&mut walked_layer, share, &mut bits_scratch),
            &routing, &grid, rock, &p,
        );
        prop_assert_eq!(bits(&walked), bits(&plain));
        prop_assert_eq!(bits(&walked_layer), thinned(&start, &plain));
        // With them.
        let mut plain = start.clone();
        let plain_fill = incise_with_levels(&mut plain, &routing, &grid, Some(&shares), &p);
        let (mut walked, mut walked_layer) = (start.clone(), layer.clone());
        let walked_fill = incise_layered_with_levels(
            &mut walked,
            CutLayer::over(&mut walked_layer, share, &mut bits_scratch),
            &routing, &grid, rock, &p,
        );
        prop_assert_eq!(bits(&walked), bits(&plain));
        prop_assert_eq!(bits(&walked_fill), bits(&plain_fill));
        prop_assert_eq!(bits(&walked_layer), thinned(&start, &plain));
    }
}

/// A step conserves material: the block's rivers lay down some of what
/// they cut, and the rest leaves over the south edge.
#[test]
fn a_step_lays_down_no_more_than_it_eroded() {
    let (w, h) = (40, 60);
    let start = heights(w, h, 3, 2);
    let p = StepParams {
        outlets: Outlets {
            north: false,
            south: true,
            west: false,
            east: false,
            sea_level: None,
        },
        ..ten_metre_cells(5000.0, None)
    };
    let s = SedimentParams {
        deposition: 1.0,
        sediment_share: 2.0,
    };
    let mut map = start.clone();
    let mut layer = vec![0f32; w * h];
    fast_step(&mut map, &mut layer, w, &StepFields::default(), &p, &s);
    let eroded: f64 = start
        .iter()
        .zip(&map)
        .map(|(a, b)| (a - b).max(0.0) as f64)
        .sum();
    let laid: f64 = start
        .iter()
        .zip(&map)
        .map(|(a, b)| (b - a).max(0.0) as f64)
        .sum();
    assert!(laid > 0.0, "nothing laid down");
    assert!(laid < eroded, "laid {laid} m, eroded {eroded} m");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// The sweeps settle on the model's implicit answer: a step stopped
    /// by the default limits (1 mm of change, or 0.1 mm RMS, which lets a
    /// few cells at a lake's edge stop unsettled) is within 5 mm RMS and
    /// 5 cm at any cell of one swept until nothing moves by 10 nm (or
    /// 2000 sweeps), for G up to its cap of 2, where the first sweeps
    /// move cells by metres. Near G = 2 each sweep shrinks the change by
    /// only a third, so what is left after a 1 mm sweep is a few mm (1.4 mm
    /// RMS on a 5×18 map at G = 1.93).
    #[test]
    fn the_sweeps_converge(
        w in 4usize..=20, h in 4usize..=20, seed in any::<u64>(), kind in 0u8..3,
        g in 0.05f64..=1.0,
    ) {
        let start = heights(w, h, seed, kind);
        let p = ten_metre_cells(5000.0, None);
        let s = SedimentParams { deposition: g, sediment_share: 2.0 };
        let grid = FlowGrid::new(&start, w, &p.outlets, p.held);
        let routing = Routing::on_grid(&start, &grid);
        let (mut quick, mut settled) = (start.clone(), start.clone());
        let (mut a, mut b) = (vec![0f32; w * h], vec![0f32; w * h]);
        let default = Sweeps {
            most: MAX_SWEEPS, settled: SETTLED, settled_rms: SETTLED_RMS, direct: false,
        };
        incise_depositing_with::<false>(&mut quick, &mut a, &routing, &grid, None, &p, &s, default);
        let most = Sweeps { most: 2000, settled: 1e-8, settled_rms: 0.0, direct: false };
        incise_depositing_with::<false>(&mut settled, &mut b, &routing, &grid, None, &p, &s, most);
        let n = (w * h) as f64;
        let rms = (quick.iter().zip(&settled).map(|(a, b)| ((a - b) as f64).powi(2)).sum::<f64>() / n).sqrt();
        prop_assert!(rms <= 1e-3, "G {g}: RMS {rms} m from the settled solve");
        for i in 0..w * h {
            prop_assert!((quick[i] - settled[i]).abs() <= 1e-2,
                "G {g} cell {i}: {} vs {}", quick[i], settled[i]);
        }
    }
}

/// The block-and-plain map of [`heights`] as a `side`² heightmap.
fn front(side: usize) -> Heightmap {
    Heightmap::from_vec(side, side, heights(side, side, 21, 2)).expect("side² cells")
}

/// Fluvial erosion draining south only, long enough for the block to
/// shed sediment onto the plain.
fn shedding(deposition: f32) -> FluvialErosion {
    FluvialErosion {
        duration: 200_000.0,
        erodibility: 2e-4,
        area_exponent: 0.5,
        slope_exponent: 1.0,
        diffusivity: 0.0,
        uplift: 2e-3,
        uplift_shape: UpliftShape::ByHeight,
        drain_north: false,
        drain_west: false,
        drain_east: false,
        // Every step at the map's own cells: deposition runs at the
        // coarse level only.
        coarse_size: 129,
        steps: 10,
        refine_steps: 1,
        deposition,
        ..FluvialErosion::default()
    }
}

/// Runs `stage` alone on `map` (10 m cells); returns the eroded map and
/// what the stage says it laid down.
fn run_alone(stage: &FluvialErosion, map: &Heightmap) -> (Heightmap, Option<Vec<f32>>) {
    let mut out = map.clone();
    let mut ctx = StageContext::new(stage_rng(1, 0));
    ctx.cell_size = 10.0;
    stage.apply(&mut out, &mut ctx).expect("the stage runs");
    (out, ctx.laid_down)
}

/// Deposits sit where water slows: the plain below the block carries far
/// more than the block's slopes, a fair share of cells carries 0.1 m or
/// more, and the laid-down layer is what the stage reports.
#[test]
fn sediment_settles_where_the_slope_eases() {
    let side = 129;
    let map = front(side);
    let (eroded, laid) = run_alone(&shedding(1.0), &map);
    let laid = laid.expect("deposition on: the stage reports its deposits");
    assert_eq!(laid.len(), side * side);
    let plain = |i: usize| i / side > side / 3 + 2;
    let block = |i: usize| i / side < side / 3 - 2;
    let mean = |keep: &dyn Fn(usize) -> bool| {
        let v: Vec<f32> = (0..side * side)
            .filter(|&i| keep(i))
            .map(|i| laid[i])
            .collect();
        v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64
    };
    let (on_plain, on_block) = (mean(&plain), mean(&block));
    assert!(
        on_plain >= 5.0 * on_block,
        "plain {on_plain} m, block {on_block} m"
    );
    let thick = laid.iter().filter(|&&v| v >= 0.1).count() as f64 / laid.len() as f64;
    assert!(
        thick >= 0.02,
        "only {:.2} % of cells carry 0.1 m",
        thick * 100.0
    );
    // Without deposition nothing is reported and the plain is not raised.
    let (bare, none) = run_alone(&shedding(0.0), &map);
    assert!(none.is_none());
    let raised = |m: &Heightmap| {
        (0..side * side)
            .filter(|&i| plain(i))
            .map(|i| m.data()[i] as f64)
            .sum::<f64>()
    };
    assert!(raised(&eroded) > raised(&bare));
}

/// With deposition off the stage is the bedrock-only stage: the same
/// bytes whatever the sediment's erodibility says.
#[test]
fn without_deposition_the_stage_is_bedrock_only() {
    let map = front(97);
    let plain = run_alone(&shedding(0.0), &map).0;
    let other = FluvialErosion {
        sediment_erodibility: 7.0,
        ..shedding(0.0)
    };
    assert_eq!(bits(run_alone(&other, &map).0.data()), bits(plain.data()));
    assert_ne!(
        bits(run_alone(&shedding(0.5), &map).0.data()),
        bits(plain.data())
    );
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The eroded-mountains preset at `side`² with deposition on, in
/// shorter steps and without creep.
fn depositing_recipe(side: u32) -> Recipe {
    let mut recipe = orogen_core::presets::load("eroded-mountains")
        .expect("a shipped preset")
        .expect("it parses");
    recipe.width = side;
    recipe.height = side;
    for entry in &mut recipe.stages {
        if let Stage::FluvialErosion(f) = &mut entry.stage {
            // Shorter steps and no creep: the deposits stay.
            f.deposition = 1.0;
            f.steps = 40;
            f.diffusivity = 0.0;
        }
    }
    recipe
}

/// The same heights and deposition map on 1, 2 and 8 threads.
#[test]
fn deposition_is_the_same_on_1_2_and_8_threads() {
    let recipe = depositing_recipe(129);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        pool.install(|| {
            let out = orogen_core::pipeline::run_once_recording(&recipe, None, Default::default())
                .expect("the recipe runs");
            (bits(out.0.map.data()), bits(&out.1.deposited()))
        })
    };
    let one = run(1);
    assert!(
        one.1.iter().any(|&b| f32::from_bits(b) > 0.0),
        "nothing laid down"
    );
    assert_eq!(run(2), one);
    assert_eq!(run(8), one);
}

/// The `alluvial-fans` preset (ranges shedding fans onto a flat basin
/// floor) at 257² and its own 513²: deposits sit where water slows. At least 2 % of cells carry 0.1 m or more, and the mean deposit
/// on gentle low ground (slope under 0.1, draining 10⁴ m² or more) is at
/// least 5 times that on steep ground (slope over 0.5).
#[test]
fn the_fan_preset_lays_down_where_water_slows() {
    let preset = orogen_core::presets::load("alluvial-fans")
        .expect("shipped preset")
        .expect("valid preset");
    for size in [257, 513] {
        let recipe = preset.resampled(size);
        let (out, record) =
            orogen_core::pipeline::run_once_recording(&recipe, None, Default::default())
                .expect("the preset runs");
        let laid = record.deposited();
        let summary = orogen_core::maps::deposits::summarise(&out.map, &laid, recipe.cell_size());
        eprintln!("alluvial-fans {size}²: {summary:?}");
        assert_fans(&summary);
    }
}

/// The two presets with alluvial valley floors lay down where their
/// rivers slow too: at 513², at least 2 % of cells carry 0.1 m or more,
/// and gentle low ground at least 5 times the steep ground's mean.
#[test]
fn the_valley_presets_have_alluvial_floors() {
    for name in ["eroded-mountains", "river-valley"] {
        let recipe = orogen_core::presets::load(name)
            .expect("shipped preset")
            .expect("valid preset");
        let (out, record) =
            orogen_core::pipeline::run_once_recording(&recipe, None, Default::default())
                .expect("the preset runs");
        let laid = record.deposited();
        let summary = orogen_core::maps::deposits::summarise(&out.map, &laid, recipe.cell_size());
        eprintln!("{name}: {summary:?}");
        assert_fans(&summary);
    }
}

/// The fan numbers: at least 2 % of cells carry 0.1 m or more, and the
/// mean deposit on gentle low ground is at least 5 times that on steep
/// ground.
fn assert_fans(summary: &orogen_core::maps::deposits::DepositSummary) {
    let thick = summary.thick_share;
    assert!(thick >= 0.02, "{:.2} % of cells carry 0.1 m", thick * 100.0);
    let (gentle, steep) = (summary.gentle, summary.steep);
    assert!(
        gentle.1 > 0 && steep.1 > 0,
        "both kinds of ground: {gentle:?} {steep:?}"
    );
    assert!(
        gentle.0 >= 5.0 * steep.0,
        "gentle {} m against steep {} m",
        gentle.0,
        steep.0
    );
}
