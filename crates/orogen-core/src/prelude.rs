//! What a program that loads, runs and exports recipes uses, in one
//! `use orogen_core::prelude::*`: the recipe and the map, the run, the
//! export, and their errors.

pub use crate::bake::{
    ExportReport, ExportRequest, LoadError, check_runnable, export_map, load_recipe, load_recipe_at,
};
pub use crate::pipeline::{Pipeline, PipelineOutput, RunHooks, run_once};
pub use crate::{
    ExportError, Heightmap, OptionError, Recipe, RecipeError, Stage, StageEntry, StageError,
    UserOption,
};
