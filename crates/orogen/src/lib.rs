//! orogen, the terrain workbench: the command line ([`cli`]) and the Bevy
//! viewer ([`viewer`]), both thin layers over `orogen_core`, which holds
//! the terrain (recipes, stages, pipeline, splat, files). Dependencies
//! point one way: cli → viewer → core.

pub mod cli;
pub mod viewer;
