//! Maps derived from a heightmap: what the viewer draws over the terrain
//! to explain it (the drainage network in [`flow`]) and what an export
//! writes beside the heights for engines to texture and scatter by
//! ([`derived`]: flow, wetness, lakes, rivers, curvature, occlusion, and
//! wear and deposition from the [`ErosionRecord`] a run took). All
//! routing goes through [`crate::hydro`], the one copy.

pub mod curvature;
pub mod deposits;
pub mod derived;
mod erosion_record;
pub mod flow;
pub mod lakes;
pub mod occlusion;
pub mod rivers;
pub mod wetness;

pub use derived::{DerivedMap, MapListError, MapMeaning, MapPixels, MapSettings, derive_map};
pub use erosion_record::ErosionRecord;
