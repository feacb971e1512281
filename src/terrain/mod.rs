//! The terrain core: pure functions over plain data, no Bevy.

pub mod atomic;
pub mod export;
pub mod heightmap;
pub mod hugepages;
pub mod import;
pub mod memory;
pub mod mesh;
pub mod mesh_export;
pub mod params;
pub mod pipeline;
pub mod presets;
pub mod recipe;
pub mod reference;
pub mod rng;
pub mod splat;
pub mod stages;
pub mod tiled;
pub mod tiles;

pub use heightmap::Heightmap;
pub use pipeline::{Pipeline, PipelineOutput, generate};
pub use recipe::{Recipe, StageEntry};
pub use stages::Stage;
