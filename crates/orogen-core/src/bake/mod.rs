//! Load → run → export: the one path that `orogen generate`, the viewer's
//! Export panel and a game's build script all go through, so they write
//! the same files and say the same things.
//!
//! - [`load_recipe`] reads a preset name or a recipe file ([`load_recipe_at`]
//!   also resamples it);
//!   [`start_from_file`] puts an imported heightmap first;
//!   [`check_runnable`] validates and checks memory before any work;
//! - the [`Pipeline`](crate::Pipeline) runs the stages;
//! - [`export_map`] builds every requested file in memory and writes them
//!   together, each atomically, and reports what it wrote.

mod export;
mod leftovers;
mod load;
mod map_files;
pub mod map_layers;
mod map_png;

pub use export::{
    ExportReport, ExportRequest, SidecarExtras, add_sidecar, clipping_warning, export_map,
    heightmap_bundle,
};
pub use load::{
    LoadError, RawLayout, check_runnable, load_recipe, load_recipe_at, preset_shadows_file,
    start_from_file,
};
pub use map_files::add_map_files;
