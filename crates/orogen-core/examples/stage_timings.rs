//! Runs a recipe once, in place, as `orogen generate` does, and prints each
//! stage's milliseconds as `timing <stage> <ms>` lines: the stage figures
//! of `orogen generate --timings` without building the viewer.
//!
//!     cargo run --release -p orogen-core --example stage_timings -- scripts/peer/orogen-1025.ron
//!
//! Arguments: preset name or `.ron` file, then optionally the cells along
//! the world's longer side.
//!
//! When the last enabled stage is hydraulic erosion simulated at the map's
//! own size, it runs after the others with its usual random stream and
//! also prints `steps hydraulic-erosion <n>`: the droplet steps it
//! simulated, for a speed per step.

use orogen_core::bake::load_recipe_at;
use orogen_core::pipeline::{RunHooks, run_once};
use orogen_core::rng::stage_rng;
use orogen_core::stages::Stage;
use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    // The allocator as the binary sets it.
    orogen_core::memory::keep_freed_memory();
    let mut args = std::env::args().skip(1);
    let recipe_name = args.next().unwrap_or_else(|| "default".into());
    let (mut recipe, base_dir) = load_recipe_at(&recipe_name, args.next().as_deref())?;
    let side = recipe.width.max(recipe.height) as usize;
    let last = recipe.stages.iter().rposition(|s| s.enabled);
    let counted_erosion = last.and_then(|i| match &recipe.stages[i].stage {
        Stage::HydraulicErosion(e) if e.simulation_size as usize >= side => Some((i, e.clone())),
        _ => None,
    });
    if let Some((i, _)) = &counted_erosion {
        recipe.stages[*i].enabled = false;
    }
    let start = Instant::now();
    let mut output = run_once(&recipe, base_dir, RunHooks::default())?;
    for stage in output.stages.iter().filter(|s| s.enabled) {
        println!("timing {} {:.3}", stage.kind, stage.millis);
    }
    if let Some((i, erosion)) = counted_erosion {
        let stage_start = Instant::now();
        let budget = erosion
            .scaled_to(side)
            .erode(Arc::make_mut(&mut output.map), &stage_rng(recipe.seed, i));
        let millis = stage_start.elapsed().as_secs_f64() * 1000.0;
        println!("timing hydraulic-erosion {millis:.3}");
        println!("steps hydraulic-erosion {}", budget.steps);
    }
    let total = start.elapsed().as_secs_f64() * 1000.0;
    println!("timing total {total:.3}");
    Ok(())
}
