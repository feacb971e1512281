//! Times one stream-power step, the same work as fastscapelib's
//! `FlowGraph.update_routes` + `accumulate` + `SPLEroder.erode`: routing
//! with depressions carved out, drainage area and the implicit solve.
//! Edges drain and are held fixed; no uplift, no diffusion. Used by
//! `scripts/stream-power-bench.sh` for the side-by-side comparison.
//!
//!     stream_power_step MAP.f32 WIDTHxHEIGHT CELL K M N DT STEPS
//!
//! Prints `orogen step_ms median M min X steps N` on the current thread
//! pool (`RAYON_NUM_THREADS=1` for one thread).

use orogen_core::hydro::{Edges, FlowGrid, Outlets, Routing};
use orogen_core::stages::fluvial::step::{StepParams, incise};
use std::error::Error;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 8 {
        return Err("usage: stream_power_step MAP.f32 WIDTHxHEIGHT CELL K M N DT STEPS".into());
    }
    let (w, h) = args[1].split_once('x').ok_or("size must be WIDTHxHEIGHT")?;
    let (width, height): (usize, usize) = (w.parse()?, h.parse()?);
    let bytes = std::fs::read(&args[0])?;
    if bytes.len() != width * height * 4 {
        return Err(format!(
            "{} holds {} bytes, not {width}x{height} f32",
            args[0],
            bytes.len()
        )
        .into());
    }
    let mut map: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let num = |i: usize| args[i].parse::<f64>();
    let p = StepParams {
        cell_size: num(2)?,
        erodibility: num(3)?,
        area_exponent: num(4)?,
        slope_exponent: num(5)?,
        dt: num(6)?,
        outlets: Outlets::ALL_EDGES,
        held: Edges::default(),
        base_level: None,
    };
    let steps: usize = args[7].parse()?;
    // The allocator as the binary sets it.
    orogen_core::memory::keep_freed_memory();
    let grid = FlowGrid::new(&map, width, &p.outlets, p.held);
    let mut times = Vec::with_capacity(steps);
    let run = |map: &mut Vec<f32>, times: &mut Vec<f64>| {
        for _ in 0..steps {
            let start = Instant::now();
            let routing = Routing::on_grid(map, &grid);
            incise(map, &routing, &grid, None, &p);
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    };
    // The steps run on a thread of the pool, as the pool's own work: with
    // one thread (`RAYON_NUM_THREADS=1`) that thread does all of it, as
    // fastscapelib's one thread does. Called from the main thread, each
    // parallel part of a step was handed to the pool's one worker and back
    // (a wake-up each way, and the map's data moved between the cores'
    // caches), which made the one-thread figure vary more and no faster.
    rayon::ThreadPoolBuilder::new()
        .build()?
        .install(|| run(&mut map, &mut times));
    times.sort_by(f64::total_cmp);
    println!(
        "orogen step_ms median {:.2} min {:.2} steps {steps}",
        times[times.len() / 2],
        times[0]
    );
    Ok(())
}
