//! The `orogen` command line's commands, and `generate`'s choice between
//! the whole map and one window of it.

use crate::cli::{
    GenerateArgs, PresetAction, TilesArgs, ViewArgs, generate_whole, prepare_generate,
};
use crate::cli_farm::{FactsArgs, generate_window};
use crate::cli_plan::PlanArgs;
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "orogen",
    version,
    about = "Terrain workbench: heightmap algorithms, splat textures, live 3D viewer, engine exports.",
    long_about = "Terrain workbench: heightmap algorithms, splat textures, live 3D viewer, engine \
                  exports.\n\nRun without a command to open the 3D viewer."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate a heightmap (and texture) from a recipe and export it.
    Generate(Box<GenerateArgs>),
    /// List shipped presets, or print one.
    Presets {
        #[command(subcommand)]
        action: Option<PresetAction>,
    },
    /// Open the interactive 3D viewer.
    View(ViewArgs),
    /// Write the built-in tile images (sand, grass, rock, snow) as PNG files.
    Tiles(TilesArgs),
    /// Print the shell commands of a farm's next phase (one a line) for a
    /// world built as windows; nothing once all is built.
    Plan(PlanArgs),
    /// Report one window's height range before a barrier stage: a job of
    /// a farm's facts phase (`orogen plan` prints them).
    Facts(FactsArgs),
}

/// Runs `orogen generate`: the whole map, or with `--window` one window
/// of it (its memory, not the world's, counts).
pub fn generate(args: &GenerateArgs) -> Result<(), String> {
    let prepared = prepare_generate(args)?;
    match &args.window {
        Some(window) => generate_window(
            args,
            window,
            prepared.recipe,
            prepared.base_dir,
            prepared.engine,
            prepared.limit,
        ),
        None => generate_whole(args, prepared),
    }
}
