//! orogen, the terrain workbench: the command line ([`cli`]) and the Bevy
//! viewer ([`viewer`]), both thin layers over `orogen_core`, which holds
//! the terrain (recipes, stages, pipeline, splat, files). Dependencies
//! point one way: cli → viewer → core.

pub mod cli;
pub mod cli_commands;
pub mod cli_errors;
pub mod cli_farm;
pub mod cli_plan;
pub mod viewer;
