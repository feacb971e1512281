//! Times each phase of the stream-power steps that
//! `scripts/stream-power-bench.sh` runs (each step erodes the map the
//! next one starts from), as medians over the steps: where a step's time
//! goes (receivers, basin labels, the lowest passes and their spanning
//! tree, carving, the drainage order, the implicit solve).
//!
//!     routing_phases MAP.f32 WIDTHxHEIGHT CELL [RUNS]
//!
//! Run with `RAYON_NUM_THREADS=1` to see one thread's share.

use orogen_core::hydro::depressions::{basin_ids_counted, carve, lowest_passes, spill_passes_of};
use orogen_core::hydro::drainage_order::{donor_counts, drainage_order_counted};
use orogen_core::hydro::receivers::steepest_receivers;
use orogen_core::hydro::{Edges, FlowGrid, Outlets, Routing};
use orogen_core::stages::fluvial::step::{StepParams, incise};
use std::error::Error;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    // On a thread of the pool, as `stream_power_step` runs its steps: with
    // one thread, that thread does all the work.
    rayon::ThreadPoolBuilder::new()
        .build()?
        .install(|| phases().map_err(|e| e.to_string()))?;
    Ok(())
}

fn phases() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        return Err("usage: routing_phases MAP.f32 WIDTHxHEIGHT CELL [RUNS]".into());
    }
    let (w, h) = args[1].split_once('x').ok_or("size must be WIDTHxHEIGHT")?;
    let (width, height): (usize, usize) = (w.parse()?, h.parse()?);
    let bytes = std::fs::read(&args[0])?;
    if bytes.len() != width * height * 4 {
        return Err(format!("{} is not {width}x{height} f32", args[0]).into());
    }
    let mut map: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let cell: f64 = args[2].parse()?;
    let runs: usize = args.get(3).map(|r| r.parse()).transpose()?.unwrap_or(9);
    orogen_core::memory::keep_freed_memory();
    let p = StepParams {
        cell_size: cell,
        erodibility: 1e-4,
        area_exponent: 0.5,
        slope_exponent: 1.0,
        dt: 5000.0,
        outlets: Outlets::ALL_EDGES,
        held: Edges::default(),
        base_level: None,
    };
    let grid = FlowGrid::new(&map, width, &p.outlets, p.held);
    let is_outlet = |i: usize| grid.is_outlet(i);
    let names = [
        "receivers",
        "basin ids",
        "passes + tree",
        "carve",
        "drainage order",
        "incise",
        "whole step",
    ];
    let mut times = vec![Vec::new(); names.len()];
    let mut facts = Vec::new();
    for _ in 0..runs {
        let mut clock = Instant::now();
        let mut lap = |k: usize, times: &mut Vec<Vec<f64>>| {
            times[k].push(clock.elapsed().as_secs_f64() * 1000.0);
            clock = Instant::now();
        };
        let mut receivers = steepest_receivers(&map, &grid);
        lap(0, &mut times);
        let mut donors = donor_counts(&receivers);
        let (basins, count) = basin_ids_counted(&receivers, &donors, &is_outlet);
        lap(1, &mut times);
        let spill = spill_passes_of(&map, width, &basins, count);
        lap(2, &mut times);
        for &(inside, across) in spill.iter().skip(1) {
            if inside != u32::MAX {
                carve(&mut receivers, &mut donors, inside, across);
            }
        }
        lap(3, &mut times);
        let walk = drainage_order_counted(&receivers, donors);
        lap(4, &mut times);
        let routing = Routing {
            width,
            receivers,
            order: walk.order,
            cells: walk.cells,
            order_receivers: walk.order_receivers,
            order_cells: walk.order_cells,
            pits_resolved: count,
        };
        let start = Instant::now();
        incise(&mut map, &routing, &grid, None, &p);
        times[5].push(start.elapsed().as_secs_f64() * 1000.0);
        let step = (0..6)
            .map(|k| times[k].last().copied().unwrap_or(0.0))
            .sum();
        times[6].push(step);
        // Counted outside the step's time: how many basin pairs it joined.
        let pairs = lowest_passes(&map, width, &basins, |_, _, _| 0u8).len();
        facts.push((count, pairs));
    }
    let (basins, passes): (Vec<usize>, Vec<usize>) = facts.into_iter().unzip();
    println!("{width}x{height}: basins per step {basins:?}, basin pairs {passes:?}");
    for (name, mut t) in names.iter().zip(times) {
        t.sort_by(f64::total_cmp);
        println!("{name:>15}: {:8.2} ms (median of {runs})", t[t.len() / 2]);
    }
    Ok(())
}
