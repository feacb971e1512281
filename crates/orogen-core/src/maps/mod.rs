//! Maps derived from a heightmap for display: what the viewer draws over
//! the terrain to explain it (the drainage network in [`flow`]), never
//! part of a generation or an export.

pub mod flow;
