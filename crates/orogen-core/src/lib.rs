//! orogen's terrain core: heightmap algorithms, splat textures, recipes and
//! exports as plain functions over plain data. No Bevy, egui, winit or clap:
//! a game can generate terrain at run time with it, a build script can bake
//! maps with it, and the `orogen` workbench (command line and 3D viewer) is
//! a thin layer over it.
//!
//! Load a recipe, run it, write the files:
//!
//! ```no_run
//! use orogen_core::prelude::*;
//! let (recipe, base_dir) = load_recipe("default")?; // a preset name or a .ron file
//! let output = run_once(&recipe, base_dir.clone(), Default::default())?;
//! let report = export_map(&output.map, &recipe, base_dir.as_deref(), &ExportRequest::default(), "out".as_ref())?;
//! println!("{}", report.summary());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where things are:
//!
//! - [`recipe`], [`params`], [`presets`]: what a terrain is made of, the
//!   parameter table every stage describes itself with, the shipped recipes;
//! - [`prelude`]: the names a program that loads, runs and exports
//!   recipes needs, in one `use`;
//! - [`stages`]: one module per algorithm; each fast kernel has its readable
//!   definition beside it in a `reference` module, the tests' oracle
//!   (compiled with the `reference` feature);
//! - [`pipeline`]: runs the stages: `run_once` in place for a final map, or
//!   [`Pipeline`] with the incremental cache the viewer re-runs edits with;
//! - [`splat`]: the texture painted from tile images by height bands and slope;
//! - [`mesh`]: triangle mesh data for display and export;
//! - [`maps`]: maps derived for display (the drainage network overlay);
//! - [`io`]: height files, the sidecar, atomic bundles, tiled and mesh export;
//! - [`bake`]: load → run → export to files, shared by the command line and the viewer;
//! - the vectorised kernels give the same bytes on every CPU: each has a
//!   plain copy it is checked against bit for bit (`simd.rs`).
//!
//! Every fallible function returns a typed error a caller can match
//! ([`LoadError`], [`RecipeError`], [`PipelineError`] and [`StageError`],
//! [`OptionError`], [`EncodeError`], [`ExportError`], [`TileImageError`],
//! ...), re-exported here; each displays as the one line a user reads.

#![warn(missing_docs)]

// What a program using orogen reaches for.
pub mod bake;
pub mod hydro;
pub mod io;
pub mod maps;
pub mod memory;
pub mod mesh;
pub mod params;
pub mod pipeline;
pub mod place_rng;
pub mod prelude;
pub mod presets;
pub mod recipe;
pub mod rng;
pub mod sampling;
pub mod splat;
pub mod stages;
pub mod window;

// The plumbing: its public names are re-exported below or by the
// modules above.
mod executor;
mod heightmap;
mod hugepages;
mod simd;
mod world_window;

pub use bake::LoadError;
pub use heightmap::{HeightStats, Heightmap};
pub use io::height_files::ImportError;
pub use io::{EncodeError, ExportError, OptionError, UserOption};
pub use params::ParamError;
pub use pipeline::{Pipeline, PipelineError, PipelineOutput, generate, run_once};
pub use recipe::legacy::LegacyError;
pub use recipe::{MapSlot, Recipe, RecipeError, StageEntry};
pub use splat::{SplatError, TileImageError};
pub use stages::{Stage, StageError};
pub use world_window::{Window, WindowError, WorldWindow};
