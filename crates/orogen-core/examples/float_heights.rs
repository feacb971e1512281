//! Writes a recipe's final map as raw little-endian f32 (north row first)
//! and prints each stage's time: the input of the drainage checks and the
//! stream-power speed comparison (`scripts/drainage-check.py`,
//! `scripts/stream-power-bench.sh`).
//!
//!     cargo run --release -p orogen-core --example float_heights -- eroded-mountains out.f32 1025
//!
//! Arguments: preset name or `.ron` file, output file, cells along the
//! world's longer side (default: the recipe's). `--without KIND` switches
//! off every stage of that kind (the map before erosion, say);
//! `--deposits FILE` also writes the thickness erosion laid down (raw f32,
//! the same layout). Prints the size and cell size on its last line.

use orogen_core::bake::load_recipe_at;
use orogen_core::pipeline::{RunHooks, run_once_recording};
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    // The allocator as the binary sets it.
    orogen_core::memory::keep_freed_memory();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut without = Vec::new();
    while let Some(at) = args.iter().position(|a| a == "--without") {
        args.remove(at);
        if at < args.len() {
            without.push(args.remove(at));
        }
    }
    let mut deposits = None;
    if let Some(at) = args.iter().position(|a| a == "--deposits") {
        args.remove(at);
        if at < args.len() {
            deposits = Some(args.remove(at));
        }
    }
    let recipe_name = args.first().cloned().unwrap_or_else(|| "default".into());
    let out = args.get(1).cloned().unwrap_or_else(|| "heights.f32".into());
    let (mut recipe, base_dir) = load_recipe_at(&recipe_name, args.get(2).map(String::as_str))?;
    for entry in &mut recipe.stages {
        if without.iter().any(|k| k == entry.stage.kind()) {
            entry.enabled = false;
        }
    }
    let start = std::time::Instant::now();
    let (output, record) = run_once_recording(&recipe, base_dir, RunHooks::default())?;
    for stage in &output.stages {
        eprintln!("{:>20} {:>9.1} ms", stage.kind, stage.millis);
    }
    eprintln!(
        "{:>20} {:>9.1} ms",
        "total",
        start.elapsed().as_secs_f64() * 1000.0
    );
    let bytes: Vec<u8> = output
        .map
        .data()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&out, bytes)?;
    if let Some(path) = deposits {
        let laid: Vec<u8> = record
            .deposited()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        std::fs::write(path, laid)?;
    }
    println!(
        "{}x{} cell {}",
        recipe.width,
        recipe.height,
        recipe.cell_size()
    );
    Ok(())
}
