//! Times one export the way `orogen generate --timings` runs it (load,
//! every stage, then the default files: r16, 16-bit PNG, preview, recipe
//! and sidecar), and prints the wall time against the stages' own.
//!
//!     cargo run --release -p orogen-core --example export_timings -- default 8193 /tmp/out
//!
//! Arguments: preset name or `.ron` file, cells along the world's longer
//! side, output folder.

use orogen_core::bake::{ExportRequest, export_map, load_recipe_at};
use orogen_core::pipeline::{RunHooks, run_once};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    orogen_core::memory::keep_freed_memory();
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "default".into());
    let side = args.next().unwrap_or_else(|| "8193".into());
    let out = std::path::PathBuf::from(args.next().unwrap_or_else(|| "export-timings".into()));
    let (recipe, base_dir) = load_recipe_at(&name, Some(&side))?;
    let output = run_once(&recipe, base_dir.clone(), RunHooks::default())?;
    let stages: f64 = output
        .stages
        .iter()
        .filter(|s| s.enabled)
        .map(|s| s.millis)
        .sum();
    let report = export_map(
        &output.map,
        &recipe,
        base_dir.as_deref(),
        &ExportRequest::default(),
        &out,
    )?;
    let total = start.elapsed().as_secs_f64() * 1000.0;
    let phases: Vec<String> = report
        .timings
        .iter()
        .map(|(label, ms)| format!("{label} {ms:.0} ms"))
        .collect();
    println!(
        "{}x{}: stages {stages:.0} ms, {}, wall {total:.0} ms, ratio {:.2}",
        output.map.width(),
        output.map.height(),
        phases.join(", "),
        total / stages
    );
    Ok(())
}
