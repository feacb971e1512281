//! Where a recipe's deposits lie: the share of cells carrying 0.1 m or
//! more and the mean deposit on gentle low ground against steep ground
//! (`maps::deposits`), with the stages' times.
//!
//!     cargo run --release -p orogen-core --example deposit_stats -- river-valley 513
//!
//! Arguments: preset name or `.ron` file, cells along the world's longer
//! side (default: the recipe's).

use orogen_core::bake::load_recipe_at;
use orogen_core::maps::deposits::summarise;
use orogen_core::pipeline::run_once_recording;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args
        .first()
        .cloned()
        .unwrap_or_else(|| "eroded-mountains".into());
    let (recipe, base_dir) = load_recipe_at(&name, args.get(1).map(String::as_str))?;
    let (out, record) = run_once_recording(&recipe, base_dir, Default::default())?;
    for stage in &out.stages {
        eprintln!("{:>20} {:>9.1} ms", stage.kind, stage.millis);
    }
    let laid = record.deposited();
    let s = summarise(&out.map, &laid, recipe.cell_size());
    let max = laid.iter().copied().fold(0.0f32, f32::max);
    println!(
        "{name} {}x{}: {:.2} % of cells carry >= 0.1 m (max {max:.2} m); gentle low ground {:.3} m over {} cells, steep {:.4} m over {} cells: {:.1}x",
        recipe.width,
        recipe.height,
        s.thick_share * 100.0,
        s.gentle.0,
        s.gentle.1,
        s.steep.0,
        s.steep.1,
        s.gentle_over_steep()
    );
    Ok(())
}
