//! Files in and out, one concern per module:
//!
//! - [`height_files`]: byte order, 16-bit quantisation, RAW16 and 16-bit
//!   PNG encoding and decoding, the 8-bit preview;
//! - [`float_files`]: 32-bit float OpenEXR and TIFF with true heights, written and read;
//! - [`import`]: reading a heightmap file of any of those kinds (above the codecs);
//! - [`engine_sizes`]: the engines and the map sizes they accept;
//! - [`height_format`]: the height file formats by name;
//! - [`tile_counts`]: how many tiles a side a map splits into;
//! - [`engines`]: engine profiles, their sizes, tile names and import numbers;
//! - [`sidecar`]: `heightmap.json`, its schema and its finder;
//! - [`atomic`] and [`bundle`]: an export's files written together, each
//!   atomically;
//! - [`owner_lock`]: the held lock that tells a running writer's files
//!   from a dead one's (export temporary files, recovery copies);
//! - [`tiled_export`]: the map cut into border-sharing tiles;
//! - [`mesh_export`]: the terrain as a glTF binary or a Wavefront OBJ;
//! - [`png_strips`]: PNG encoding on all threads;
//! - [`literal_deflate`]: the fast literal-only deflate of height PNGs;
//! - [`errors`]: why an export option, an encoder or an export failed.
//!
//! The splat texture's files live with the splat ([`crate::splat`]).

pub mod atomic;
pub mod bundle;
pub mod engine_sizes;
pub mod engines;
pub mod errors;
pub mod float_files;
pub mod height_files;
pub mod height_format;
pub mod import;
pub mod literal_deflate;
pub mod mesh_export;
pub mod owner_lock;
pub mod png_strips;
pub mod sidecar;
pub mod tile_counts;
pub mod tiled_export;

pub use errors::{EncodeError, ExportError, OptionError, UserOption};
