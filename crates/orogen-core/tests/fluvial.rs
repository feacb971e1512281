//! Fluvial erosion and the shared drainage module: the fast kernels
//! against their readable definitions, the routing's invariants, bytes
//! that do not depend on the thread count, diffusion against the explicit
//! scheme, and what the stage promises about its output.

use orogen_core::Heightmap;
use orogen_core::hydro::{self, Edges, FlowGrid, NEIGHBOURS, Outlets, Routing, fill_levels};
use orogen_core::params::Span;
use orogen_core::rng::{range_f32, stage_rng};
use orogen_core::stages::fluvial::step::{self, StepFields, StepParams, StepReport};
use orogen_core::stages::fluvial::{UpliftShape, diffusion, reference, schedule};
use orogen_core::stages::{DiamondSquare, FluvialErosion, Normalize, Stage, StageContext, StageOp};
use orogen_core::{Recipe, StageEntry};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

// ---------------------------------------------------------------------
// Inputs.

/// A `w`×`h` map from `seed`. `kind` 0: uniform heights in [-2, 8];
/// 1: rounded to whole units (11 levels, flats and exact ties); 2:
/// rounded to 3 levels (wide plateaus); 3: a tilted plane plus a little
/// noise (long drainage paths, few pits). Zeros are +0.0 (rounding makes
/// −0.0 too: see `signed_zeros_do_not_change_the_routing`).
fn test_heights(w: usize, h: usize, seed: u64, kind: u8) -> Vec<f32> {
    signed_test_heights(w, h, seed, kind)
        .into_iter()
        .map(|v| v + 0.0)
        .collect()
}

/// [`test_heights`] with the −0.0 that rounding gives left in.
fn signed_test_heights(w: usize, h: usize, seed: u64, kind: u8) -> Vec<f32> {
    let mut rng = stage_rng(seed, 7);
    (0..w * h)
        .map(|i| {
            let v = range_f32(&mut rng, -2.0, 8.0);
            match kind {
                0 => v,
                1 => v.round(),
                2 => (v / 4.0).round() * 4.0,
                _ => {
                    let (x, y) = ((i % w) as f32, (i / w) as f32);
                    0.5 * x + 0.3 * y + 0.2 * v
                }
            }
        })
        .collect()
}

/// Outlets for a map of `heights` from `seed`. `mode` 0: every edge;
/// 1: each edge drains with probability ½ (possibly none); 2: random
/// edges plus a sea level inside the map's range; 3: a sea level only;
/// 4: nothing drains at all.
fn test_outlets(heights: &[f32], seed: u64, mode: u8) -> Outlets {
    let mut rng = stage_rng(seed, 11);
    let mut coin = || range_f32(&mut rng, 0.0, 1.0) < 0.5;
    let (lo, hi) = heights
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let sea = lo + (hi - lo) * 0.3;
    match mode {
        0 => Outlets::ALL_EDGES,
        1 => Outlets {
            north: coin(),
            south: coin(),
            west: coin(),
            east: coin(),
            sea_level: None,
        },
        2 => Outlets {
            north: coin(),
            south: coin(),
            west: coin(),
            east: coin(),
            sea_level: Some(sea),
        },
        3 => Outlets {
            north: false,
            south: false,
            west: false,
            east: false,
            sea_level: Some(sea),
        },
        _ => Outlets {
            north: false,
            south: false,
            west: false,
            east: false,
            sea_level: None,
        },
    }
}

fn is_outlet(outlets: &Outlets, heights: &[f32], width: usize, i: usize) -> bool {
    let height = heights.len() / width;
    outlets.is_outlet(i % width, i / width, width, height, heights[i])
}

/// The neighbours of cell `i` of a `w`×`h` map.
fn neighbours(i: usize, w: usize, h: usize) -> impl Iterator<Item = usize> {
    let (x, y) = ((i % w) as isize, (i / w) as isize);
    NEIGHBOURS.iter().filter_map(move |&(dx, dy)| {
        let (nx, ny) = (x + dx, y + dy);
        (nx >= 0 && ny >= 0 && nx < w as isize && ny < h as isize)
            .then(|| ny as usize * w + nx as usize)
    })
}

/// The lowest level water can leave cell `i` at: over every path from
/// `i` to an outlet, the least of the path's highest height (a priority
/// flood from the outlets). The independent definition of a filled
/// surface; `None` for cells that reach no outlet.
fn minimax_fill(heights: &[f32], width: usize, outlets: &Outlets) -> Vec<Option<f32>> {
    let height = heights.len() / width;
    let mut level: Vec<Option<f32>> = vec![None; heights.len()];
    let mut queue = BinaryHeap::new();
    let key = |v: f32| Reverse(OrdF32(v));
    for i in 0..heights.len() {
        if is_outlet(outlets, heights, width, i) {
            level[i] = Some(heights[i]);
            queue.push((key(heights[i]), Reverse(i)));
        }
    }
    let mut done = vec![false; heights.len()];
    while let Some((Reverse(OrdF32(l)), Reverse(i))) = queue.pop() {
        if done[i] {
            continue;
        }
        done[i] = true;
        for j in neighbours(i, width, height) {
            let through = l.max(heights[j]);
            if level[j].is_none_or(|old| through < old) {
                level[j] = Some(through);
                queue.push((key(through), Reverse(j)));
            }
        }
    }
    level
}

#[derive(Clone, Copy, PartialEq)]
struct OrdF32(f32);
impl Eq for OrdF32 {}
impl PartialOrd for OrdF32 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF32 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The first cell where two maps' bits differ, for a readable failure.
fn first_difference(a: &[f32], b: &[f32], width: usize) -> Option<String> {
    a.iter().zip(b).enumerate().find_map(|(i, (x, y))| {
        (x.to_bits() != y.to_bits())
            .then(|| format!("cell {i} (x {}, y {}): {x} vs {y}", i % width, i / width))
    })
}

// ---------------------------------------------------------------------
// 1 and 2: routing against the oracle, and its invariants.

fn routing_matches_reference(
    w: usize,
    h: usize,
    seed: u64,
    kind: u8,
    mode: u8,
) -> Result<(), TestCaseError> {
    let heights = test_heights(w, h, seed, kind);
    let outlets = test_outlets(&heights, seed, mode);
    let routing = Routing::new(&heights, w, &outlets);
    let receivers = hydro::reference::receivers(&heights, w, &outlets);
    prop_assert_eq!(&routing.receivers, &receivers, "receivers, {:?}", outlets);
    let cells = routing.cells.clone();
    prop_assert_eq!(&cells, &hydro::reference::drainage_cells(&receivers));
    let fast = fill_levels(&heights, &routing);
    let slow = hydro::reference::fill_levels(&heights, &receivers);
    // Numerically equal (a max of +0.0 and −0.0 may keep either sign).
    for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
        prop_assert!(a == b, "fill level of cell {}: {} vs {}", i, a, b);
    }
    Ok(())
}

fn routing_invariants(
    w: usize,
    h: usize,
    seed: u64,
    kind: u8,
    mode: u8,
) -> Result<(), TestCaseError> {
    let heights = test_heights(w, h, seed, kind);
    let outlets = test_outlets(&heights, seed, mode);
    let n = heights.len();
    let outlet = |i: usize| is_outlet(&outlets, &heights, w, i);
    let any_outlet = (0..n).any(outlet);
    let routing = Routing::new(&heights, w, &outlets);
    let r = &routing.receivers;
    prop_assert_eq!(routing.width, w);
    prop_assert_eq!(r.len(), n);

    // Receivers: self or a D8 neighbour; lower than the cell itself
    // before carving, so only carving may point uphill.
    for (i, &ri) in r.iter().enumerate() {
        let ri = ri as usize;
        prop_assert!(
            ri == i || neighbours(i, w, h).any(|j| j == ri),
            "cell {} hands its water to {}, not a neighbour",
            i,
            ri
        );
    }
    // Roots are exactly the outlets once anything drains; with nothing
    // draining, the roots are the steepest-descent pits, unresolved.
    let steepest = hydro::receivers::steepest_receivers(
        &heights,
        &FlowGrid::new(&heights, w, &outlets, Edges::default()),
    );
    let pits = (0..n)
        .filter(|&i| steepest[i] as usize == i && !outlet(i))
        .count();
    if any_outlet {
        for (i, &ri) in r.iter().enumerate() {
            prop_assert_eq!(ri as usize == i, outlet(i), "cell {} root vs outlet", i);
        }
        prop_assert_eq!(routing.pits_resolved, pits);
    } else {
        prop_assert_eq!(r, &steepest);
    }

    // Following receivers ends at a root within n steps (no cycles).
    let mut root = vec![0usize; n];
    for (start, root) in root.iter_mut().enumerate() {
        let mut i = start;
        let mut steps = 0;
        while r[i] as usize != i {
            i = r[i] as usize;
            steps += 1;
            prop_assert!(steps <= n, "cycle from cell {}", start);
        }
        *root = i;
        prop_assert!(
            !any_outlet || outlet(i),
            "cell {} drains to {}, no outlet",
            start,
            i
        );
    }

    // `order`: a permutation, every cell after its receiver.
    let mut position = vec![usize::MAX; n];
    prop_assert_eq!(routing.order.len(), n);
    for (k, &c) in routing.order.iter().enumerate() {
        prop_assert!(position[c as usize] == usize::MAX, "cell {} twice", c);
        position[c as usize] = k;
    }
    for i in 0..n {
        if r[i] as usize != i {
            prop_assert!(
                position[r[i] as usize] < position[i],
                "cell {} before its receiver",
                i
            );
        }
    }
    // Drainage area: 1 + what the donors carry; the roots hold every cell.
    let cells = routing.cells.clone();
    let mut expected = vec![1u32; n];
    for i in 0..n {
        if r[i] as usize != i {
            expected[r[i] as usize] += cells[i];
        }
    }
    prop_assert_eq!(&cells, &expected);
    let at_roots: u64 = (0..n)
        .filter(|&i| r[i] as usize == i)
        .map(|i| cells[i] as u64)
        .sum();
    prop_assert_eq!(at_roots, n as u64);

    // Fill levels: at least the height, never below the receiver's, so
    // the filled surface has no closed pit; and exactly the priority
    // flood's minimax level.
    let fill = fill_levels(&heights, &routing);
    for i in 0..n {
        prop_assert!(fill[i] >= heights[i]);
        if any_outlet && !outlet(i) {
            prop_assert!(fill[i] >= fill[r[i] as usize]);
            prop_assert!(
                neighbours(i, w, h).any(|j| fill[j] <= fill[i]),
                "cell {} is a closed pit of the filled surface",
                i
            );
        }
    }
    if any_outlet {
        let minimax = minimax_fill(&heights, w, &outlets);
        for i in 0..n {
            prop_assert!(
                Some(fill[i]) == minimax[i],
                "cell {}: fill level {} vs priority flood {:?}",
                i,
                fill[i],
                minimax[i]
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn routing_matches_the_reference(w in 3usize..=24, h in 3usize..=24, seed in any::<u64>(),
                                     kind in 0u8..4, mode in 0u8..5) {
        routing_matches_reference(w, h, seed, kind, mode)?;
    }

    #[test]
    fn routing_drains_every_cell_in_order(w in 3usize..=24, h in 3usize..=24,
                                          seed in any::<u64>(), kind in 0u8..4, mode in 0u8..5) {
        routing_invariants(w, h, seed, kind, mode)?;
    }
}

/// A long, thin map and a wide one: the row-parallel receivers and
/// basin passes over more rows than threads.
#[test]
fn routing_matches_the_reference_on_long_maps() {
    for (w, h) in [(3, 200), (200, 3), (64, 48)] {
        for kind in 0..4 {
            for mode in 0..5 {
                routing_matches_reference(w, h, 5 + kind as u64, kind, mode).unwrap();
                routing_invariants(w, h, 9 + mode as u64, kind, mode).unwrap();
            }
        }
    }
}

/// Maps of many bands of basin walks (the walks run in parallel, 16,384
/// start cells a task): the same receivers as the reference on 1, 2 and
/// 8 threads.
#[test]
fn routing_matches_the_reference_on_any_thread_count() {
    for (kind, mode) in [(0, 0), (1, 2), (2, 4), (3, 1)] {
        let (w, h) = (181, 97);
        let heights = test_heights(w, h, 31 + kind as u64, kind);
        let outlets = test_outlets(&heights, 7, mode);
        let expected = hydro::reference::receivers(&heights, w, &outlets);
        for threads in [1, 2, 8] {
            let routing = in_pool(threads, || Routing::new(&heights, w, &outlets));
            assert!(
                routing.pits_resolved > 0,
                "kind {kind}: the map should have pits to carve"
            );
            assert_eq!(
                routing.receivers, expected,
                "kind {kind}, mode {mode}, {threads} threads"
            );
        }
    }
}

/// −0.0 and +0.0 are the same height, so they must route the same. The
/// smallest map where they do not (found by search over the 3-level
/// maps): the centre is a pit at −0.0 whose two lowest passes, to the
/// corner cells 0 (+0.0) and 2 (−0.0), are both at height 0; the tie
/// goes to the lower cell, 0, which the reference picks. The fast kernel
/// keys its passes by `total_cmp`, where −0.0 < +0.0, and takes its pass
/// level from `f32::max(+0.0, −0.0)`, whose sign is unspecified, so it
/// sends the centre to cell 2; with +0.0 everywhere it picks cell 0.
#[test]
fn signed_zeros_do_not_change_the_routing() {
    let signed = [0.0, 4.0, -0.0, 8.0, -0.0, 4.0, 4.0, 4.0, 4.0f32];
    let plain = signed.map(|v| v + 0.0);
    let outlets = Outlets::ALL_EDGES;
    let with_signs = Routing::new(&signed, 3, &outlets).receivers;
    let without = Routing::new(&plain, 3, &outlets).receivers;
    assert_eq!(without, hydro::reference::receivers(&plain, 3, &outlets));
    assert_eq!(without[4], 0);
    assert_eq!(with_signs, without, "the sign of zero changed the routing");
    assert_eq!(
        with_signs,
        hydro::reference::receivers(&signed, 3, &outlets)
    );
    // And on random plateau maps with both zeros.
    for seed in 0..200 {
        for (w, h) in [(5, 14), (9, 9), (24, 3)] {
            let signed = signed_test_heights(w, h, seed, 2);
            let plain = test_heights(w, h, seed, 2);
            assert_eq!(
                Routing::new(&signed, w, &outlets).receivers,
                Routing::new(&plain, w, &outlets).receivers,
                "{w}x{h} seed {seed}"
            );
        }
    }
}

// ---------------------------------------------------------------------
// 3: one step against the oracle, bit for bit.

#[derive(Debug, Clone)]
struct StepCase {
    w: usize,
    h: usize,
    seed: u64,
    kind: u8,
    uplift: bool,
    n: f64,
    sea: bool,
    /// Outlets held fixed (no base level).
    fixed_outlets: bool,
    steps: usize,
}

fn step_case() -> impl Strategy<Value = StepCase> {
    (
        3usize..=24,
        3usize..=24,
        any::<u64>(),
        0u8..4,
        any::<bool>(),
        prop_oneof![Just(1.0), Just(1.5)],
        any::<bool>(),
        any::<bool>(),
        1usize..=4,
    )
        .prop_map(
            |(w, h, seed, kind, uplift, n, sea, fixed_outlets, steps)| StepCase {
                w,
                h,
                seed,
                kind,
                uplift,
                n,
                sea,
                fixed_outlets,
                steps,
            },
        )
}

/// The case's map, uplift field and step numbers. Without a sea the base
/// level is the map's lowest height (as the stage sets it); with one it
/// is the sea level; with `fixed_outlets`, none.
fn step_inputs(c: &StepCase) -> (Vec<f32>, Option<Vec<f32>>, StepParams) {
    let heights: Vec<f32> = test_heights(c.w, c.h, c.seed, c.kind)
        .iter()
        .map(|v| v * 20.0)
        .collect();
    let mut rng = stage_rng(c.seed, 3);
    let uplift = c.uplift.then(|| {
        (0..heights.len())
            .map(|_| range_f32(&mut rng, 0.0, 2e-3))
            .collect()
    });
    let lowest = heights.iter().copied().fold(f32::INFINITY, f32::min);
    let outlets = if c.sea {
        test_outlets(&heights, c.seed, 2)
    } else {
        Outlets::ALL_EDGES
    };
    let p = StepParams {
        erodibility: range_f32(&mut rng, 1e-5, 1e-2) as f64,
        area_exponent: range_f32(&mut rng, 0.3, 0.6) as f64,
        slope_exponent: c.n,
        dt: range_f32(&mut rng, 100.0, 5000.0) as f64,
        cell_size: range_f32(&mut rng, 1.0, 50.0) as f64,
        held: Edges::default(),
        base_level: (!c.fixed_outlets).then(|| outlets.sea_level.unwrap_or(lowest)),
        outlets,
    };
    (heights, uplift, p)
}

fn step_matches_reference(c: &StepCase) -> Result<(), TestCaseError> {
    let (mut fast, uplift, p) = step_inputs(c);
    let mut slow = fast.clone();
    for s in 0..c.steps {
        stream_power_step(&mut fast, c.w, uplift.as_deref(), &p);
        reference::stream_power_step(
            &mut slow,
            c.w,
            &StepFields {
                uplift: uplift.as_deref(),
                erodibility: None,
            },
            &p,
        );
        prop_assert!(
            bits(&fast) == bits(&slow),
            "step {}: {} ({:?})",
            s,
            first_difference(&fast, &slow, c.w).unwrap_or_default(),
            p
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn step_matches_the_reference_bit_for_bit(c in step_case()) {
        step_matches_reference(&c)?;
    }
}

/// The step without uplift only lowers cells; with uplift no cell ends
/// above its uplifted height. (Carving changes receivers, never heights.)
#[test]
fn the_solve_never_raises_a_cell() {
    for seed in 0..40u64 {
        for (kind, n, sea) in [
            (0, 1.0, false),
            (1, 1.5, true),
            (2, 1.0, true),
            (3, 1.5, false),
        ] {
            let c = StepCase {
                w: 5 + (seed as usize % 20),
                h: 4 + (seed as usize * 7 % 21),
                seed,
                kind,
                uplift: false,
                n,
                sea,
                fixed_outlets: seed % 3 == 0,
                steps: 1,
            };
            let (mut heights, _, p) = step_inputs(&c);
            for _ in 0..3 {
                let before = heights.clone();
                stream_power_step(&mut heights, c.w, None, &p);
                for (i, (a, b)) in heights.iter().zip(&before).enumerate() {
                    assert!(a <= b, "seed {seed}: cell {i} rose from {b} to {a}");
                }
            }
            let uplift: Vec<f32> = vec![1e-3; heights.len()];
            let mut uplifted = heights.clone();
            step::uplift_cells(
                &mut uplifted,
                &FlowGrid::new(&heights, c.w, &p.outlets, p.held),
                &uplift,
                p.dt,
            );
            stream_power_step(&mut heights, c.w, Some(&uplift), &p);
            for (i, (a, b)) in heights.iter().zip(&uplifted).enumerate() {
                assert!(
                    a <= b,
                    "seed {seed}: cell {i} rose above its uplifted {b} to {a}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------
// 4: the same bytes for any thread count.

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Diamond-square, normalised to 0..160, then fluvial erosion at 257²
/// from a 65-cell coarse level (65 → 129 → 257).
fn fluvial_recipe(fluvial: FluvialErosion) -> Recipe {
    Recipe {
        width: 257,
        height: 257,
        seed: 17,
        extent: orogen_core::recipe::Extent {
            x: 4096.0,
            y: 4096.0,
        },
        stages: vec![
            StageEntry::new(Stage::DiamondSquare(DiamondSquare::default())),
            StageEntry::new(Stage::Normalize(Normalize {
                range: Span::new(0.0, 160.0),
            })),
            StageEntry::new(Stage::FluvialErosion(fluvial)),
        ],
        ..Recipe::default()
    }
}

fn quick_fluvial() -> FluvialErosion {
    FluvialErosion {
        duration: 100_000.0,
        coarse_size: 65,
        steps: 20,
        refine_steps: 2,
        ..FluvialErosion::default()
    }
}

/// `refine_years` sets only the refine steps: 0 and the coarse step
/// (duration / steps) give the same bytes, another length changes the
/// finer levels, and a map no larger than the coarse level (no refine
/// steps) does not see it.
#[test]
fn refine_years_sets_only_the_refine_steps() {
    let run = |fluvial: FluvialErosion, side: u32| {
        let mut recipe = fluvial_recipe(fluvial);
        recipe.width = side;
        recipe.height = side;
        bits(
            orogen_core::run_once(&recipe, None, Default::default())
                .unwrap()
                .map
                .data(),
        )
    };
    let base = quick_fluvial();
    let coarse_step = base.duration / base.steps as f32;
    let with = |years: f32| FluvialErosion {
        refine_years: years,
        ..quick_fluvial()
    };
    assert!(run(with(0.0), 257) == run(with(coarse_step), 257));
    assert!(run(with(0.0), 257) != run(with(coarse_step / 10.0), 257));
    assert!(run(with(0.0), 65) == run(with(coarse_step / 10.0), 65));
}

#[test]
fn the_stage_gives_the_same_bytes_for_1_2_and_8_threads() {
    assert_eq!(
        schedule::levels(257, 257, 65),
        vec![(65, 65), (129, 129), (257, 257)]
    );
    let recipe = fluvial_recipe(quick_fluvial());
    let run = |threads| {
        in_pool(threads, || {
            let out = orogen_core::run_once(&recipe, None, Default::default()).unwrap();
            bits(out.map.data())
        })
    };
    let one = run(1);
    let input = {
        let mut before = recipe.clone();
        before.stages.pop();
        bits(
            orogen_core::run_once(&before, None, Default::default())
                .unwrap()
                .map
                .data(),
        )
    };
    assert_ne!(one, input, "the stage changed nothing");
    assert!(one == run(2), "1 vs 2 threads");
    assert!(one == run(8), "1 vs 8 threads");
}

/// A 300×300 step (90 000 cells, many outlet trees and carved pits, the
/// routing's rows split across threads) gives the same bytes on 1 and 8
/// threads, step after step.
#[test]
fn a_large_step_gives_the_same_bytes_for_1_and_8_threads() {
    let (w, h) = (300, 300);
    let mut rng = stage_rng(23, 1);
    let start: Vec<f32> = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as f32, (i / w) as f32);
            40.0 * ((x * 0.031).sin() * (y * 0.027).cos() + 1.0)
                + 0.002 * (x - 150.0) * (y - 150.0)
                + range_f32(&mut rng, 0.0, 3.0)
        })
        .collect();
    let uplift: Vec<f32> = (0..w * h).map(|i| 1e-3 * (1.0 + (i % 7) as f32)).collect();
    let p = StepParams {
        erodibility: 2e-4,
        area_exponent: 0.45,
        slope_exponent: 1.5,
        dt: 2000.0,
        cell_size: 10.0,
        outlets: Outlets {
            sea_level: Some(5.0),
            ..Outlets::ALL_EDGES
        },
        held: Edges::default(),
        base_level: Some(5.0),
    };
    let run = |threads| {
        in_pool(threads, || {
            let mut map = start.clone();
            let mut trees = 0;
            let mut pits = 0;
            for _ in 0..4 {
                let (routing, report) = stream_power_step(&mut map, w, Some(&uplift), &p);
                diffuse(&mut map, w, 0.05, p.dt, p.cell_size, &p.outlets);
                trees = (0..w * h)
                    .filter(|&i| routing.receivers[i] as usize == i)
                    .count();
                pits += report.pits_resolved;
            }
            (bits(&map), trees, pits)
        })
    };
    let one = run(1);
    assert!(one.1 > 64, "only {} outlet trees", one.1);
    assert!(one.2 > 0, "no pits: the carving is not exercised");
    assert!(one == run(8), "1 vs 8 threads");
}

// ---------------------------------------------------------------------
// 5: diffusion.

/// A smooth map: a few long waves (wavelengths 20 cells and more) over
/// 100..=200.
fn smooth_map(w: usize, h: usize, seed: u64) -> Vec<f32> {
    let mut rng = stage_rng(seed, 5);
    let waves: Vec<(f32, f32, f32, f32)> = (0..4)
        .map(|_| {
            let kx = range_f32(&mut rng, -1.0, 1.0) * std::f32::consts::TAU / 20.0;
            let ky = range_f32(&mut rng, -1.0, 1.0) * std::f32::consts::TAU / 20.0;
            let phase = range_f32(&mut rng, 0.0, std::f32::consts::TAU);
            let amp = range_f32(&mut rng, 5.0, 12.0);
            (kx * 0.7, ky * 0.7, phase, amp)
        })
        .collect();
    (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as f32, (i / w) as f32);
            150.0
                + waves
                    .iter()
                    .map(|&(kx, ky, ph, a)| a * (kx * x + ky * y + ph).sin())
                    .sum::<f32>()
        })
        .collect()
}

fn fixed_cells(heights: &[f32], width: usize, outlets: &Outlets) -> Vec<bool> {
    (0..heights.len())
        .map(|i| is_outlet(outlets, heights, width, i))
        .collect()
}

fn range_of(v: &[f32]) -> f32 {
    let (lo, hi) = v
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    hi - lo
}

/// The implicit split solve against many small explicit steps. With
/// r = D·dt/dx² = 0.5 and wavelengths of at least 20 cells, each wave's
/// rate in one direction is r·λ ≤ 0.5·(2π/20)² ≈ 0.05, and backward
/// Euler's error per wave is at most (r·λ)²/2 ≈ 1.2e-3 of its amplitude
/// in each direction: four waves stay well under 1% of the range. The
/// change itself must be far larger than that, or the test proves nothing.
#[test]
fn diffusion_agrees_with_the_explicit_scheme() {
    let (w, h) = (61, 47);
    let (d, cell) = (0.5, 2.0);
    let dt = 0.5 * cell * cell / d;
    for seed in 0..4 {
        for outlets in [
            Outlets::ALL_EDGES,
            Outlets {
                north: false,
                south: false,
                west: false,
                east: false,
                sea_level: None,
            },
            Outlets {
                north: false,
                west: false,
                ..Outlets::ALL_EDGES
            },
        ] {
            let start = smooth_map(w, h, seed);
            let tolerance = 0.01 * range_of(&start);
            let mut implicit = start.clone();
            let mut explicit = start.clone();
            // Several steps: the splitting error accumulates.
            let mut worst = 0f32;
            let mut moved = 0f32;
            for _ in 0..5 {
                diffuse(&mut implicit, w, d, dt, cell, &outlets);
                let fixed = fixed_cells(&explicit, w, &outlets);
                reference::diffuse_explicit(&mut explicit, w, d, dt, cell, &fixed);
                for i in 0..w * h {
                    worst = worst.max((implicit[i] - explicit[i]).abs());
                    moved = moved.max((explicit[i] - start[i]).abs());
                }
            }
            assert!(
                worst <= tolerance,
                "seed {seed}, {outlets:?}: differs by {worst} (tolerance {tolerance})"
            );
            assert!(
                moved >= 10.0 * worst.max(tolerance / 10.0),
                "seed {seed}: diffusion moved the map only {moved}"
            );
        }
    }
}

/// No draining edge and no sea: nothing leaves, so the mean stays, even
/// over one huge step.
#[test]
fn zero_flux_diffusion_conserves_the_mean() {
    let closed = Outlets {
        north: false,
        south: false,
        west: false,
        east: false,
        sea_level: None,
    };
    for (w, h, seed) in [(40, 30, 1u64), (3, 50, 2), (97, 5, 3)] {
        let mut rng = stage_rng(seed, 9);
        let mut map: Vec<f32> = (0..w * h)
            .map(|_| range_f32(&mut rng, 100.0, 200.0))
            .collect();
        let mean = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
        let before = mean(&map);
        for dt in [1.0, 100.0, 1e6] {
            diffuse(&mut map, w, 0.5, dt, 1.0, &closed);
            let after = mean(&map);
            assert!(
                ((after - before) / before).abs() <= 1e-4,
                "{w}x{h}, dt {dt}: mean {before} became {after}"
            );
        }
        // And the huge step flattened it.
        assert!(
            range_of(&map) < 1.0,
            "range {} after dt 1e6",
            range_of(&map)
        );
    }
}

/// Every edge drains: the edges are held exactly, bit for bit.
#[test]
fn draining_edges_are_held_bit_for_bit() {
    let (w, h) = (33, 21);
    let mut rng = stage_rng(4, 9);
    let start: Vec<f32> = (0..w * h)
        .map(|_| range_f32(&mut rng, -50.0, 50.0))
        .collect();
    for dt in [0.1, 10.0, 1e5] {
        let mut map = start.clone();
        diffuse(&mut map, w, 1.0, dt, 1.0, &Outlets::ALL_EDGES);
        for i in 0..w * h {
            let (x, y) = (i % w, i / w);
            if x == 0 || y == 0 || x + 1 == w || y + 1 == h {
                assert_eq!(map[i].to_bits(), start[i].to_bits(), "edge cell ({x}, {y})");
            } else {
                assert_ne!(map[i], start[i], "interior cell ({x}, {y}) unmoved");
            }
        }
    }
    // A sea: the cells at or below it are held too, wherever they are.
    let sea = Outlets {
        north: false,
        south: false,
        west: false,
        east: false,
        sea_level: Some(-10.0),
    };
    let mut map = start.clone();
    diffuse(&mut map, w, 1.0, 50.0, 1.0, &sea);
    for i in 0..w * h {
        if start[i] <= -10.0 {
            assert_eq!(map[i].to_bits(), start[i].to_bits(), "sea cell {i}");
        }
    }
}

/// One-cell stripes, the pattern D8 channels cut, and a checkerboard: one
/// big step must damp them (backward Euler by 1/(1 + 4r) per direction),
/// where a Crank–Nicolson-like half step would leave them near −1.
#[test]
fn one_cell_stripes_are_damped_in_one_big_step() {
    let (w, h) = (40, 30);
    let closed = Outlets {
        north: false,
        south: false,
        west: false,
        east: false,
        sea_level: None,
    };
    type Pattern = fn(usize, usize) -> f32;
    let patterns: [(&str, Pattern); 3] = [
        ("columns", |x, _| if x % 2 == 0 { 1.0 } else { -1.0 }),
        ("rows", |_, y| if y % 2 == 0 { 1.0 } else { -1.0 }),
        (
            "checkerboard",
            |x, y| if (x + y) % 2 == 0 { 1.0 } else { -1.0 },
        ),
    ];
    for (name, pattern) in patterns {
        for outlets in [closed, Outlets::ALL_EDGES] {
            let start: Vec<f32> = (0..w * h).map(|i| 100.0 + pattern(i % w, i / w)).collect();
            let mut map = start.clone();
            let r = 25.0; // D·dt/dx²
            diffuse(&mut map, w, 1.0, r, 1.0, &outlets);
            // Amplitude: half the largest jump between neighbours along
            // the pattern's direction, `margin` cells or more from the
            // edges. Fixed edges keep their stripes, and the column sweep
            // (after the row sweep has flattened a row) pulls the rows
            // next to a fixed edge back towards it by about 0.82 per row
            // at r = 25: a splitting effect (2-D backward Euler would
            // give about 0.17). So with fixed edges only cells 6 or more
            // rows in are judged (0.82⁶ ≈ 0.3).
            let amplitude_from = |margin: usize| {
                let mut amplitude = 0f32;
                for y in margin..h - 1 - margin {
                    for x in margin..w - 1 - margin {
                        let i = y * w + x;
                        let jump = match name {
                            "rows" => map[i] - map[i + w],
                            _ => map[i] - map[i + 1],
                        };
                        amplitude = amplitude.max(jump.abs() / 2.0);
                    }
                }
                amplitude
            };
            let margin = if outlets == closed { 0 } else { 6 };
            let amplitude = amplitude_from(margin);
            assert!(
                amplitude <= 0.5,
                "{name}, {outlets:?}: amplitude 1 became {amplitude}"
            );
            // Away from the edges, with nothing held, the damping is
            // backward Euler's 1/(1 + 4r) per direction the pattern
            // varies in. (Fixed edges still leak 0.82¹² ≈ 0.09 into the
            // centre of a 30-row map.)
            if outlets == closed {
                let centre = amplitude_from(12);
                assert!(
                    centre <= 1.5 / (1.0 + 4.0 * r as f32),
                    "{name}: centre amplitude {centre}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------
// 6: the stage.

/// No cell that is not an outlet lies strictly below all its neighbours.
fn closed_pits(map: &Heightmap, outlets: &Outlets) -> Vec<(usize, usize)> {
    let (w, h) = (map.width(), map.height());
    let data = map.data();
    (0..w * h)
        .filter(|&i| !is_outlet(outlets, data, w, i))
        .filter(|&i| neighbours(i, w, h).all(|j| data[j] > data[i]))
        .map(|i| (i % w, i / w))
        .collect()
}

fn rough_map(w: usize, h: usize, seed: u64) -> Heightmap {
    let mut rng = stage_rng(seed, 2);
    let data = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as f32, (i / w) as f32);
            60.0 + 30.0 * ((x * 0.2).sin() + (y * 0.15).cos()) + range_f32(&mut rng, 0.0, 20.0)
        })
        .collect();
    Heightmap::from_vec(w, h, data).unwrap()
}

#[test]
fn the_stage_leaves_no_closed_pits() {
    let configs = [
        quick_fluvial(),
        FluvialErosion {
            drain_north: false,
            drain_east: false,
            ..quick_fluvial()
        },
        FluvialErosion {
            drain_north: false,
            drain_south: false,
            drain_west: false,
            drain_east: false,
            sea: true,
            sea_level: 45.0,
            uplift_shape: UpliftShape::Uniform,
            ..quick_fluvial()
        },
    ];
    for (k, stage) in configs.iter().enumerate() {
        let input = rough_map(90, 70, k as u64);
        let mut map = input.clone();
        let mut ctx = StageContext::new(stage_rng(3, 0));
        ctx.cell_size = 10.0;
        stage.apply(&mut map, &mut ctx).unwrap();
        assert_ne!(
            bits(map.data()),
            bits(input.data()),
            "config {k}: unchanged"
        );
        let outlets = stage.outlets();
        let pits = closed_pits(&map, &outlets);
        assert!(pits.is_empty(), "config {k}: closed pits at {pits:?}");
        // Filled means filling again changes nothing.
        let routing = Routing::new(map.data(), map.width(), &outlets);
        let again = fill_levels(map.data(), &routing);
        assert!(
            again == map.data(),
            "config {k}: filling the output again raised {}",
            first_difference(&again, map.data(), map.width()).unwrap_or_default()
        );
    }
}

/// Through the pipeline too (coarse start from the earlier stages).
#[test]
fn the_stage_through_the_pipeline_leaves_no_closed_pits() {
    let mut recipe = fluvial_recipe(quick_fluvial());
    recipe.width = 129;
    recipe.height = 97;
    let out = orogen_core::run_once(&recipe, None, Default::default()).unwrap();
    let pits = closed_pits(&out.map, &Outlets::ALL_EDGES);
    assert!(pits.is_empty(), "closed pits at {pits:?}");
    assert!(out.map.data().iter().all(|v| v.is_finite()));
}

#[test]
fn nothing_draining_is_refused_with_a_reason() {
    let stage = FluvialErosion {
        drain_north: false,
        drain_south: false,
        drain_west: false,
        drain_east: false,
        sea: false,
        ..quick_fluvial()
    };
    let mut map = rough_map(20, 20, 1);
    let before = bits(map.data());
    let err = stage
        .apply(&mut map, &mut StageContext::new(stage_rng(1, 0)))
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("edge") && message.contains("sea"),
        "unhelpful error: {message}"
    );
    assert_eq!(
        bits(map.data()),
        before,
        "the refused stage touched the map"
    );
    // One drain is enough.
    for one in 0..5 {
        let stage = FluvialErosion {
            drain_north: one == 0,
            drain_south: one == 1,
            drain_west: one == 2,
            drain_east: one == 3,
            sea: one == 4,
            sea_level: 70.0,
            ..stage.clone()
        };
        let mut map = rough_map(20, 20, 1);
        stage
            .apply(&mut map, &mut StageContext::new(stage_rng(1, 0)))
            .unwrap();
    }
}

// ---------------------------------------------------------------------
// 7: the schedule.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn schedule_starts_coarse_and_ends_at_the_map(w in 3usize..6000, h in 3usize..6000,
                                                  coarse in 17usize..=4097) {
        let levels = schedule::levels(w, h, coarse);
        prop_assert_eq!(levels.last().copied(), Some((w, h)));
        let longer = w.max(h);
        if longer <= coarse {
            prop_assert_eq!(levels.len(), 1);
        } else {
            let (fw, fh) = levels[0];
            prop_assert_eq!(fw.max(fh), coarse, "first level {:?}", levels);
            // The longer side stays the longer (or, rounded, equal) side.
            prop_assert!(if w >= h { fw >= fh } else { fh >= fw }, "first level {:?}", levels);
            for pair in levels.windows(2) {
                let ((aw, ah), (bw, bh)) = (pair[0], pair[1]);
                prop_assert!(bw.max(bh) > aw.max(ah), "levels {:?}", levels);
                prop_assert!(bw >= aw && bh >= ah, "levels {:?}", levels);
                // Each level doubles the cells between the corners; a last
                // doubling within 1/8 of the map is dropped for the map
                // itself, so the last step grows by up to 2·8/7.
                let (a, b) = (aw.max(ah) - 1, bw.max(bh) - 1);
                let bound = if (bw, bh) == (w, h) { 2.0 * 8.0 / 7.0 } else { 2.0 };
                prop_assert!(b as f64 <= bound * a as f64 + 2.0, "levels {:?}", levels);
            }
            for &(lw, lh) in &levels {
                prop_assert!(lw >= 3 && lh >= 3 && lw <= w && lh <= h, "levels {:?}", levels);
            }
        }
    }
}

/// A cancel during the fluvial stage stops it between steps and the run
/// reports `Cancelled`, not a stage error: the flag is raised as the
/// stage starts, after the pipeline's own check before it.
#[test]
fn a_cancel_stops_the_fluvial_stage_between_steps() {
    use orogen_core::pipeline::{PipelineError, RunHooks, run_once};
    use std::sync::atomic::{AtomicBool, Ordering};
    let recipe = orogen_core::presets::load("eroded-mountains")
        .expect("preset")
        .expect("valid");
    let fluvial = recipe
        .stages
        .iter()
        .position(|e| e.stage.kind() == "fluvial-erosion")
        .expect("a fluvial stage");
    let cancel = AtomicBool::new(false);
    let mut raise = |index: usize, _count: usize| {
        if index == fluvial {
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let hooks = RunHooks {
        cancel: Some(&cancel),
        progress: Some(&mut raise),
    };
    let result = run_once(&recipe, None, hooks);
    assert!(
        matches!(result, Err(PipelineError::Cancelled)),
        "expected Cancelled, got {:?}",
        result.map(|_| ())
    );
}

/// One stream-power step on the grid `p`'s outlets make of `heights`.
fn stream_power_step(
    heights: &mut [f32],
    width: usize,
    uplift: Option<&[f32]>,
    p: &StepParams,
) -> (Routing, StepReport) {
    let mut grid = FlowGrid::new(heights, width, &p.outlets, p.held);
    let fields = StepFields {
        uplift,
        erodibility: None,
    };
    step::stream_power_step(heights, &mut grid, &fields, p)
}

/// Diffusion on the grid `outlets` make of `heights`.
fn diffuse(heights: &mut [f32], width: usize, d: f64, dt: f64, cell: f64, outlets: &Outlets) {
    let grid = FlowGrid::new(heights, width, outlets, Edges::default());
    diffusion::diffuse(heights, &grid, d, dt, cell);
}
