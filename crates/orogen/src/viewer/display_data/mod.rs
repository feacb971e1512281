//! Pure functions that turn a generated map into what the screen shows,
//! run inside the regeneration job (never on the main thread) and by
//! benches: the GPU path's height texture and LOD bounds ([`gpu`],
//! [`lod`]), the CPU path's mesh and texture ([`cpu`]), the panels'
//! previews ([`preview`]), the flow overlay's network ([`flow`]) and the
//! lakes and rivers drawn as water ([`water`]). No
//! ECS: nothing here reads or writes a resource.

pub mod cpu;
pub mod flow;
pub mod gpu;
pub mod lod;
pub mod preview;
pub mod water;
