//! What can go wrong on the way out: export options that do not fit the
//! map ([`OptionError`]), files that cannot be encoded ([`EncodeError`]),
//! and an export as a whole, writes included ([`ExportError`]). Each
//! message is one line, the one the command line and the viewer show.

use crate::io::engine_sizes::Engine;
use crate::io::height_format::HeightFormat;
use crate::io::tile_counts::{MAX_MAP_TILES, valid_map_tile_counts};
use crate::recipe::error::RecipeError;
use crate::splat::SplatError;
use image::ExtendedColorType;
use std::io;
use std::path::PathBuf;

/// An option a user sets that an error is about. Each error message
/// about an option begins with its [`name`](UserOption::name), so a
/// front end can put its own name for the control in its place (the
/// command line's flag, the viewer's label).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UserOption {
    /// The engine profile an export is for.
    Engine,
    /// The height file formats.
    Formats,
    /// The tiles a side a map is cut into.
    Tiles,
    /// The mesh format.
    Mesh,
    /// The mesh's vertices a side.
    MeshSize,
    /// The derived maps written beside the heights.
    Maps,
    /// The heightmap file a run starts from.
    Import,
}

impl UserOption {
    /// The option's name in plain words, as error messages begin.
    pub fn name(self) -> &'static str {
        match self {
            UserOption::Engine => "engine",
            UserOption::Formats => "formats",
            UserOption::Tiles => "tiles",
            UserOption::Mesh => "mesh",
            UserOption::MeshSize => "mesh size",
            UserOption::Maps => "maps",
            UserOption::Import => "import",
        }
    }
}

/// An export option (engine, formats, tiles, mesh, mesh size) that does
/// not parse, or that the map's size rules out. Refused before any work
/// is done. The message begins with the option's name
/// ([`OptionError::option`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// The engine names no engine profile.
    #[error("engine '{0}': expected unity, unreal or godot")]
    UnknownEngine(String),
    /// A map side the engine's importer does not take.
    #[error(
        "engine {}: a {width}x{height} map's {axis} {side} is not a size {} imports; nearest: {} (valid: {})",
        .engine.name(),
        .engine.title(),
        nearest_sides_text(*.below, *.above),
        sides_text(.engine.sides())
    )]
    EngineSize {
        /// The engine the export is for.
        engine: Engine,
        /// The map's width in cells.
        width: u32,
        /// The map's height in cells.
        height: u32,
        /// Which side is refused: `"width"` or `"height"`.
        axis: &'static str,
        /// That side, in cells.
        side: u32,
        /// The largest side the engine takes below it, if any.
        below: Option<u32>,
        /// The smallest side the engine takes above it, if any.
        above: Option<u32>,
    },
    /// The engine takes only square terrains.
    #[error(
        "engine {}: {} terrains are square; {width}x{height} is not",
        .engine.name(),
        .engine.title()
    )]
    EngineNotSquare {
        /// The engine the export is for.
        engine: Engine,
        /// The map's width in cells.
        width: u32,
        /// The map's height in cells.
        height: u32,
    },
    /// Each tile becomes a terrain of its own, and the engine does not
    /// take the tiles' size.
    #[error("tiles {n}: each tile is a terrain; {source}")]
    TileSize {
        /// Tiles a side.
        n: usize,
        /// Why the engine refuses a tile.
        source: Box<OptionError>,
    },
    /// The tile count is not a whole number.
    #[error(
        "tiles '{0}': expected a whole number of tiles a side, 1 to {max}",
        max = MAX_MAP_TILES
    )]
    TileCount(String),
    /// The tile count is outside 1 to [`MAX_MAP_TILES`].
    #[error("tiles {0}: expected 1 to {max} tiles a side", max = MAX_MAP_TILES)]
    TileCountRange(usize),
    /// The map does not split into `n x n` equal border-sharing tiles.
    #[error(
        "tiles {n}: a {width}x{height} map splits into N x N border-sharing tiles only when N divides both width-1 ({}) and height-1 ({}); valid N: {}",
        .width.saturating_sub(1),
        .height.saturating_sub(1),
        tile_counts_text(*.width, *.height)
    )]
    TileGrid {
        /// Tiles a side asked for.
        n: usize,
        /// The map's width in cells.
        width: usize,
        /// The map's height in cells.
        height: usize,
    },
    /// The format list has an empty item (or is empty).
    #[error(
        "formats '{text}': expected a comma-separated list of {}",
        format_names()
    )]
    EmptyFormat {
        /// The whole list as given.
        text: String,
    },
    /// The format list names a format orogen does not write.
    #[error(
        "formats '{text}': unknown format '{item}' (valid: {})",
        format_names()
    )]
    UnknownFormat {
        /// The whole list as given.
        text: String,
        /// The item not understood, trimmed.
        item: String,
    },
    /// The mesh format is none orogen writes.
    #[error("mesh '{0}': expected glb or obj")]
    UnknownMeshFormat(String),
    /// The mesh size is not a whole number of at least 2.
    #[error("mesh size '{0}': expected a whole number of vertices a side, at least 2")]
    MeshSize(String),
    /// The GLB would pass glTF's 4 GiB limit.
    #[error(
        "mesh glb: a {columns}x{rows} vertex mesh needs {} MiB, over glTF's 4 GiB limit; choose a smaller mesh size",
        .bytes >> 20
    )]
    MeshTooLarge {
        /// Vertices west to east.
        columns: usize,
        /// Vertices north to south.
        rows: usize,
        /// Bytes the vertices and indices would take.
        bytes: u64,
    },
}

impl OptionError {
    /// The option the error is about; the message begins with its name.
    pub fn option(&self) -> UserOption {
        match self {
            OptionError::UnknownEngine(_)
            | OptionError::EngineSize { .. }
            | OptionError::EngineNotSquare { .. } => UserOption::Engine,
            OptionError::TileSize { .. }
            | OptionError::TileCount(_)
            | OptionError::TileCountRange(_)
            | OptionError::TileGrid { .. } => UserOption::Tiles,
            OptionError::EmptyFormat { .. } | OptionError::UnknownFormat { .. } => {
                UserOption::Formats
            }
            OptionError::UnknownMeshFormat(_) | OptionError::MeshTooLarge { .. } => {
                UserOption::Mesh
            }
            OptionError::MeshSize(_) => UserOption::MeshSize,
        }
    }
}

/// "b or a", "b", "a": the valid sides nearest a refused one.
fn nearest_sides_text(below: Option<u32>, above: Option<u32>) -> String {
    match (below, above) {
        (Some(b), Some(a)) => format!("{b} or {a}"),
        (Some(b), None) => b.to_string(),
        (None, Some(a)) => a.to_string(),
        (None, None) => String::new(),
    }
}

fn sides_text(sides: &[u32]) -> String {
    let names: Vec<String> = sides.iter().map(u32::to_string).collect();
    names.join(", ")
}

fn tile_counts_text(width: usize, height: usize) -> String {
    let names: Vec<String> = valid_map_tile_counts(width, height)
        .iter()
        .map(usize::to_string)
        .collect();
    names.join(", ")
}

fn format_names() -> String {
    let names: Vec<&str> = HeightFormat::ALL.iter().map(|f| f.name()).collect();
    names.join(", ")
}

/// A file that could not be encoded: sizes the format cannot hold, or
/// an encoder's own failure (its error kept as the source).
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// A PNG side of 0 or past 2³² − 1 pixels.
    #[error("PNG size {width}x{height}: each side needs 1 to 2^32-1 pixels")]
    PngSize {
        /// Pixels west to east.
        width: usize,
        /// Pixels north to south.
        height: usize,
    },
    /// A PNG row too long to address.
    #[error("PNG rows of {0} pixels are too long")]
    PngRowTooLong(usize),
    /// Raw bytes that do not fill the PNG's pixels exactly.
    #[error("PNG data of {len} bytes does not fill {width}x{height} pixels of {pixel_bytes} bytes")]
    PngDataSize {
        /// Bytes given.
        len: usize,
        /// Pixels west to east.
        width: usize,
        /// Pixels north to south.
        height: usize,
        /// Bytes a pixel takes.
        pixel_bytes: usize,
    },
    /// A pixel layout orogen does not write as PNG.
    #[error("orogen writes no {0:?} PNG")]
    PngColor(ExtendedColorType),
    /// The deflate encoder failed.
    #[error("PNG compression failed: {0}")]
    PngCompression(&'static str),
    /// The deflate encoder did not take all of its input.
    #[error("PNG compression stopped short of its input")]
    PngCompressionIncomplete,
    /// Heights that do not make whole rows of the given width.
    #[error("{len} heights do not make rows of {width}: cannot write a float height file")]
    FloatRows {
        /// Heights given.
        len: usize,
        /// Heights a row.
        width: usize,
    },
    /// The OpenEXR encoder failed.
    #[error("OpenEXR encoding failed: {0}")]
    Exr(#[source] exr::error::Error),
    /// A map side past what a TIFF holds.
    #[error("{width}x{height} is too large for a TIFF")]
    TiffSize {
        /// Samples west to east.
        width: usize,
        /// Samples north to south.
        height: usize,
    },
    /// The TIFF encoder failed.
    #[error("TIFF encoding failed: {0}")]
    Tiff(#[source] tiff::TiffError),
    /// The glTF JSON document could not be written.
    #[error("glTF JSON: {0}")]
    GltfJson(#[source] serde_json::Error),
    /// The GLB file would pass glTF's 4 GiB limit.
    #[error(
        "mesh glb: the file would be {} MiB, over glTF's 4 GiB limit; choose a smaller mesh size",
        .bytes >> 20
    )]
    GlbTooLarge {
        /// The file's size in bytes.
        bytes: u64,
    },
    /// The sidecar's JSON could not be written.
    #[error("{0}")]
    Json(#[source] serde_json::Error),
}

impl EncodeError {
    /// The option the error is about, if any; the message then begins
    /// with its name.
    pub fn option(&self) -> Option<UserOption> {
        match self {
            EncodeError::GlbTooLarge { .. } => Some(UserOption::Mesh),
            _ => None,
        }
    }
}

/// Why an export wrote nothing (or, for [`ExportError::Write`] and
/// [`ExportError::SyncFolder`], stopped part way; see
/// [`ExportBundle::write_to`](crate::io::bundle::ExportBundle::write_to)).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The splat texture could not be painted.
    #[error(transparent)]
    Splat(#[from] SplatError),
    /// `recipe.ron` could not be written.
    #[error(transparent)]
    Recipe(#[from] RecipeError),
    /// A derived map that cannot be made from what the export was given.
    #[error(transparent)]
    Maps(#[from] crate::maps::MapListError),
    /// A painted mask the recipe names could not be copied beside it.
    #[error(transparent)]
    PaintedMask(#[from] crate::stages::mask::painted::PaintedMaskError),
    /// The output folder's path is a file.
    #[error(
        "output folder {} is a file; give a folder (it is created if missing)",
        .0.display()
    )]
    FolderIsFile(PathBuf),
    /// The output folder could not be created.
    #[error("cannot create output folder {}: {source}", .path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Files started early in one folder were asked for in another.
    #[error(
        "export files were started in {} but asked for in {}",
        .started.display(),
        .asked.display()
    )]
    OtherFolder {
        /// The folder the files were started in.
        started: PathBuf,
        /// The folder [`write_to`](crate::io::bundle::ExportBundle::write_to) was given.
        asked: PathBuf,
    },
    /// A file could not be written into the folder; the error names the
    /// file (`cannot write <path>: <reason>`), and nothing was replaced
    /// unless the failure came after the renames began.
    #[error("{source}")]
    Write {
        /// The folder written into.
        dir: PathBuf,
        /// The operating system's error, naming the file.
        source: io::Error,
    },
    /// The folder the export created could not be synced into its parent.
    #[error("cannot sync folder {}: {source}", .path.display())]
    SyncFolder {
        /// The parent folder.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message about an option begins with the option's name, so a
    /// front end can swap in its own name for the control, and names no
    /// command-line flag.
    #[test]
    fn option_messages_begin_with_the_options_name_and_name_no_flag() {
        let engine_size = OptionError::EngineSize {
            engine: Engine::Unity,
            width: 100,
            height: 100,
            axis: "width",
            side: 100,
            below: Some(65),
            above: Some(129),
        };
        let errors = [
            OptionError::UnknownEngine("cry".into()),
            engine_size.clone(),
            OptionError::EngineNotSquare {
                engine: Engine::Unreal,
                width: 9,
                height: 5,
            },
            OptionError::TileSize {
                n: 3,
                source: Box::new(engine_size),
            },
            OptionError::TileCount("x".into()),
            OptionError::TileCountRange(65),
            OptionError::TileGrid {
                n: 3,
                width: 65,
                height: 65,
            },
            OptionError::EmptyFormat {
                text: "r16,".into(),
            },
            OptionError::UnknownFormat {
                text: "jpg".into(),
                item: "jpg".into(),
            },
            OptionError::UnknownMeshFormat("stl".into()),
            OptionError::MeshSize("1".into()),
            OptionError::MeshTooLarge {
                columns: 70_000,
                rows: 70_000,
                bytes: 5 << 30,
            },
        ];
        for error in errors {
            let message = error.to_string();
            assert!(message.starts_with(error.option().name()), "{message}");
            assert!(!message.contains("--"), "{message}");
            assert_eq!(message.lines().count(), 1, "{message}");
        }
        let glb = EncodeError::GlbTooLarge { bytes: 5 << 30 };
        let message = glb.to_string();
        assert!(message.starts_with(UserOption::Mesh.name()), "{message}");
        assert_eq!(glb.option(), Some(UserOption::Mesh));
        assert!(!message.contains("--"), "{message}");
        assert_eq!(EncodeError::PngRowTooLong(9).option(), None);
    }
}
