//! The `orogen` command line: its commands, one file each, and the
//! words it puts in the core's errors ([`errors`]).

mod args;
pub mod errors;
pub mod facts;
mod generate;
pub mod plan;
mod presets;
mod report;
mod tiles;

pub use args::*;
pub use facts::facts_command;
pub use generate::*;
pub use plan::plan_command;
pub use presets::presets_command;
pub use tiles::tiles_command;

use clap::{Parser, Subcommand};
use facts::FactsArgs;
use plan::PlanArgs;

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
