//! How far fluvial erosion by blocks lies from one globally coupled run:
//! the RMS and largest height difference (metres) of `eroded-mountains`
//! run with the given block sizes against block size 0 (every level on
//! the whole map), at the given sizes.
//!
//!     cargo run --release -p orogen-core --example fluvial_blocks_rms -- 513,1025,2049 1024,512

use orogen_core::Heightmap;
use orogen_core::presets;
use orogen_core::recipe::Recipe;
use orogen_core::run_once;
use orogen_core::stages::Stage;
use std::time::Instant;

fn numbers(arg: Option<String>, default: &[u32]) -> Vec<u32> {
    arg.map(|a| a.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn run(side: u32, block: u32) -> (Heightmap, f64) {
    let mut recipe: Recipe = match presets::load("eroded-mountains") {
        Some(Ok(r)) => r.resampled(side),
        _ => {
            eprintln!("eroded-mountains preset missing");
            std::process::exit(1);
        }
    };
    for entry in &mut recipe.stages {
        if let Stage::FluvialErosion(f) = &mut entry.stage {
            f.block_size = block;
        }
    }
    let start = Instant::now();
    match run_once(&recipe, None, Default::default()) {
        Ok(out) => (
            std::sync::Arc::unwrap_or_clone(out.map),
            start.elapsed().as_secs_f64(),
        ),
        Err(e) => {
            eprintln!("{side}² block {block}: {e}");
            std::process::exit(1);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let sizes = numbers(args.next(), &[513, 1025, 2049]);
    let blocks = numbers(args.next(), &[1024]);
    for side in sizes {
        let (coupled, t0) = run(side, 0);
        println!("{side}²: coupled run {t0:.1} s");
        for &block in &blocks {
            let (blocked, t) = run(side, block);
            let (mut sum, mut max) = (0f64, 0f32);
            for (a, b) in blocked.data().iter().zip(coupled.data()) {
                let d = (a - b).abs();
                sum += (d as f64).powi(2);
                max = max.max(d);
            }
            let rms = (sum / coupled.data().len() as f64).sqrt();
            println!("{side}²: blocks of {block}: RMS {rms:.4} m, largest {max:.3} m ({t:.1} s)");
        }
    }
}
