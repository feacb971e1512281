//! orogen: an interactive terrain workbench.
//!
//! [`terrain`] is the core (no Bevy): recipes, stages, pipeline, exports.
//! [`viewer`] is the Bevy front end; [`cli`] the command line.

pub mod cli;
pub mod terrain;
pub mod viewer;
