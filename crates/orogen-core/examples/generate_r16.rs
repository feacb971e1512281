//! A build script's use of orogen-core: load a shipped preset (or a
//! recipe file), run it, and write the map as a 16-bit RAW heightmap.
//!
//!     cargo run --release -p orogen-core --example generate_r16 -- default terrain.r16 513
//!
//! Arguments: preset name or `.ron` file (default `default`), output file
//! (default `heightmap.r16`), cells along the world's longer side
//! (default: the recipe's).

use orogen_core::bake::load_recipe_at;
use orogen_core::io::atomic::write_atomic;
use orogen_core::io::height_files::{ByteOrder, ExportOptions, encode_r16, export_range, quantize};
use orogen_core::pipeline::{RunHooks, run_once};
use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let recipe_name = args.next().unwrap_or_else(|| "default".into());
    let out = PathBuf::from(args.next().unwrap_or_else(|| "heightmap.r16".into()));

    // Only the sampling changes: the same world, more or fewer cells.
    let (recipe, base_dir) = load_recipe_at(&recipe_name, args.next().as_deref())?;
    let output = run_once(&recipe, base_dir, RunHooks::default())?;
    let map = &output.map;
    // 0 and 65535 stand for the map's own lowest and highest heights.
    let range = export_range(map, &ExportOptions::default());
    let samples = quantize(map, range);
    write_atomic(
        &out,
        &encode_r16(&samples, map.width(), ByteOrder::Le, false),
    )?;
    println!(
        "wrote {} ({}x{}, heights {:.3}..{:.3})",
        out.display(),
        map.width(),
        map.height(),
        range.min,
        range.max
    );
    Ok(())
}
