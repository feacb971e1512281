//! `orogen tiles`: the built-in tile images as PNG files.

use super::args::*;
use orogen_core::io::bundle::ExportBundle;
use orogen_core::io::height_files::encode_png;
use orogen_core::splat::builtin_tiles::{BUILTIN_TILES, builtin_tile};

/// Runs `orogen tiles --out DIR`.
pub fn tiles_command(args: &TilesArgs) -> Result<(), String> {
    let mut bundle = ExportBundle::default();
    for name in BUILTIN_TILES {
        let tile = builtin_tile(name).ok_or_else(|| format!("missing built-in tile {name}"))?;
        let png = encode_png(
            tile.as_raw(),
            tile.width() as usize,
            tile.height() as usize,
            image::ExtendedColorType::Rgb8,
        )
        .map_err(|e| e.to_string())?;
        bundle.add(format!("{name}.png"), png);
    }
    let written = bundle
        .write_to(&args.out)
        .map_err(crate::cli::errors::export_error)?;
    println!("wrote {} tiles to {}", written.len(), args.out.display());
    Ok(())
}
