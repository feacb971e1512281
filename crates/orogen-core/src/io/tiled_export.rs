//! Tiled heightmap export (`--tiles N`): the map cut into N x N tiles that
//! share their border row and column, so engines that stitch terrain tiles
//! (Unreal's World Partition, Unity's neighbouring terrains) get no seams.
//!
//! Tile `x{i}_y{j}`: `i` counts columns west to east, `j` rows north to
//! south, with and without `--flip-y`. Flip-y only reverses the row order
//! inside each file, exactly as in the whole-map files, so a tile's name
//! always says where it lies on the map; stitching flipped files back
//! means taking `j` from the last row of tiles to the first.

use crate::heightmap::Heightmap;
use crate::io::bundle::ExportBundle;
use crate::io::engines::Engine;
use crate::io::errors::{EncodeError, OptionError};
use crate::io::height_files::{ExportOptions, encode_png16, encode_r16, quantize};
pub use crate::io::tile_counts::{MAX_MAP_TILES, valid_map_tile_counts};
use crate::params::Span;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How a `width x height` map splits into `n x n` border-sharing tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapTileGrid {
    /// Tiles a side (the grid is `n x n`).
    pub n: usize,
    /// Cells a tile spans west to east, shared border column included.
    pub tile_width: usize,
    /// Cells a tile spans north to south, shared border row included.
    pub tile_height: usize,
    /// The engine whose batch importer the tile names follow (`None`:
    /// `heightmap_x<i>_y<j>`).
    pub engine: Option<Engine>,
}

impl MapTileGrid {
    /// The grid with tiles named for `engine`'s batch importer; refuses
    /// tiles the engine cannot take as terrains of their own (Unity makes
    /// one terrain per tile, so each must be a Unity size).
    pub fn for_engine(self, engine: Engine) -> Result<Self, OptionError> {
        if engine == Engine::Unity && self.n > 1 {
            engine
                .check_size(self.tile_width as u32, self.tile_height as u32)
                .map_err(|e| OptionError::TileSize {
                    n: self.n,
                    source: Box::new(e),
                })?;
        }
        Ok(Self {
            engine: Some(engine),
            ..self
        })
    }

    /// Base name of tile `(i, j)`, without extension.
    pub fn stem(&self, i: usize, j: usize) -> String {
        match self.engine {
            Some(engine) => engine.tile_stem(i, j, self.n),
            None => map_tile_stem(i, j),
        }
    }

    /// The pixel origin (north-up map coordinates) of tile `(i, j)`.
    /// Neighbours overlap by one cell, hence the `- 1`.
    pub fn origin(&self, i: usize, j: usize) -> (usize, usize) {
        (i * (self.tile_width - 1), j * (self.tile_height - 1))
    }
}

/// One tile as the sidecar lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapTileEntry {
    /// Column, west to east.
    pub i: usize,
    /// Row, north to south (also with flip-y).
    pub j: usize,
    /// Pixel origin of the tile's north-west cell in the north-up map.
    pub x: usize,
    /// Pixel row of the tile's north-west cell in the north-up map.
    pub y: usize,
    /// Cells the tile spans west to east.
    pub width: usize,
    /// Cells the tile spans north to south.
    pub height: usize,
    /// File name of the tile's RAW16 file.
    pub r16: String,
    /// File name of the tile's 16-bit PNG file.
    pub png: String,
}

/// The `tiles_grid` field of `heightmap.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapTileGridInfo {
    /// Tiles a side (the grid is `columns x rows`, both N).
    pub columns: usize,
    /// Tile rows (equal to `columns`).
    pub rows: usize,
    /// Cells a tile spans west to east, shared border column included.
    pub tile_width: usize,
    /// Cells a tile spans north to south, shared border row included.
    pub tile_height: usize,
    /// Cells neighbouring tiles share (their common border row or column).
    pub overlap: usize,
    /// Every tile, row by row from north to south, west to east within a row.
    pub tiles: Vec<MapTileEntry>,
}

/// Base name of tile `(i, j)`, without extension.
pub fn map_tile_stem(i: usize, j: usize) -> String {
    format!("heightmap_x{i}_y{j}")
}

/// Parses and checks `--tiles N` against the map size. The message names
/// the rule and the valid values so the user can fix it in one go.
pub fn parse_map_tiles(
    text: &str,
    width: usize,
    height: usize,
) -> Result<MapTileGrid, OptionError> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| OptionError::TileCount(text.to_string()))?;
    if !(1..=MAX_MAP_TILES).contains(&n) {
        return Err(OptionError::TileCountRange(n));
    }
    map_tile_grid(width, height, n)
}

/// The grid for `n` tiles a side, or why the map cannot be split so.
pub fn map_tile_grid(width: usize, height: usize, n: usize) -> Result<MapTileGrid, OptionError> {
    if !valid_map_tile_counts(width, height).contains(&n) {
        return Err(OptionError::TileGrid { n, width, height });
    }
    Ok(MapTileGrid {
        n,
        tile_width: (width - 1) / n + 1,
        tile_height: (height - 1) / n + 1,
        engine: None,
    })
}

/// Copies tile `(i, j)` out of the quantised, north-up `values`.
fn tile_values(values: &[u16], width: usize, grid: &MapTileGrid, i: usize, j: usize) -> Vec<u16> {
    let (x0, y0) = grid.origin(i, j);
    let mut out = Vec::with_capacity(grid.tile_width * grid.tile_height);
    for y in y0..y0 + grid.tile_height {
        let start = y * width + x0;
        out.extend_from_slice(&values[start..start + grid.tile_width]);
    }
    out
}

/// Encodes one tile as `.r16` and `.png` with the whole map's options.
fn encode_tile(
    tile: &[u16],
    grid: &MapTileGrid,
    opts: &ExportOptions,
) -> Result<(Vec<u8>, Vec<u8>), EncodeError> {
    let r16 = encode_r16(tile, grid.tile_width, opts.byte_order, opts.flip_y);
    let png = encode_png16(tile, grid.tile_width, opts.flip_y)?;
    Ok((r16, png))
}

/// Adds every tile's `.r16` and `.png` to `bundle`, quantised over the
/// same `range` as the whole map (a per-tile range would break the shared
/// borders), and returns the sidecar's description of them.
pub fn add_map_tile_files(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    range: Span,
    opts: &ExportOptions,
    grid: &MapTileGrid,
) -> Result<MapTileGridInfo, EncodeError> {
    let values = quantize(map, range);
    let coords: Vec<(usize, usize)> = (0..grid.n)
        .flat_map(|j| (0..grid.n).map(move |i| (i, j)))
        .collect();
    // PNG encoding dominates; tiles are independent, and collecting keeps
    // the order (and so the bundle) deterministic.
    let encoded: Vec<(Vec<u8>, Vec<u8>)> = coords
        .par_iter()
        .map(|&(i, j)| encode_tile(&tile_values(&values, map.width(), grid, i, j), grid, opts))
        .collect::<Result<_, _>>()?;
    let mut tiles = Vec::with_capacity(coords.len());
    for (&(i, j), (r16, png)) in coords.iter().zip(encoded) {
        let entry = tile_entry(grid, i, j);
        bundle.add(entry.r16.clone(), r16);
        bundle.add(entry.png.clone(), png);
        tiles.push(entry);
    }
    Ok(MapTileGridInfo {
        columns: grid.n,
        rows: grid.n,
        tile_width: grid.tile_width,
        tile_height: grid.tile_height,
        overlap: 1,
        tiles,
    })
}

fn tile_entry(grid: &MapTileGrid, i: usize, j: usize) -> MapTileEntry {
    let (x, y) = grid.origin(i, j);
    let stem = grid.stem(i, j);
    MapTileEntry {
        i,
        j,
        x,
        y,
        width: grid.tile_width,
        height: grid.tile_height,
        r16: format!("{stem}.r16"),
        png: format!("{stem}.png"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_sizes_follow_the_shared_border_rule() {
        let g = map_tile_grid(1025, 513, 4).unwrap();
        assert_eq!((g.tile_width, g.tile_height), (257, 129));
        assert_eq!(g.origin(3, 3), (768, 384));
        assert_eq!(valid_map_tile_counts(65, 33), vec![1, 2, 4, 8, 16, 32]);
        let err = map_tile_grid(65, 33, 3).unwrap_err();
        assert_eq!(
            err,
            OptionError::TileGrid {
                n: 3,
                width: 65,
                height: 33
            }
        );
        assert!(
            err.to_string().contains("valid N: 1, 2, 4, 8, 16, 32"),
            "{err}"
        );
    }

    #[test]
    fn bad_counts_are_refused() {
        assert_eq!(
            parse_map_tiles("0", 65, 65),
            Err(OptionError::TileCountRange(0))
        );
        assert_eq!(
            parse_map_tiles("65", 65, 65).unwrap_err().to_string(),
            "tiles 65: expected 1 to 64 tiles a side"
        );
        assert_eq!(
            parse_map_tiles("x", 65, 65).unwrap_err().to_string(),
            "tiles 'x': expected a whole number of tiles a side, 1 to 64"
        );
        assert_eq!(parse_map_tiles(" 2 ", 65, 65).unwrap().n, 2);
    }

    #[test]
    fn engine_grids_name_tiles_for_their_importer_and_check_tile_sizes() {
        let grid = map_tile_grid(1025, 1025, 2).unwrap();
        let unity = grid.for_engine(Engine::Unity).unwrap();
        // North-west tile: x 0, and z 1 counting from the south edge.
        assert_eq!(tile_entry(&unity, 0, 0).r16, "heightmap_0_1.r16");
        let unreal = grid.for_engine(Engine::Unreal).unwrap();
        assert_eq!(tile_entry(&unreal, 1, 0).png, "heightmap_x1_y0.png");
        // 1025 in 4 x 4 gives 257-cell tiles: Unity sizes; in 8: 129.
        assert!(
            map_tile_grid(1025, 1025, 8)
                .unwrap()
                .for_engine(Engine::Unity)
                .is_ok()
        );
        // 961 in 3 x 3 gives 321-cell tiles: not a Unity size.
        let err = map_tile_grid(961, 961, 3)
            .unwrap()
            .for_engine(Engine::Unity)
            .unwrap_err();
        assert!(
            matches!(&err, OptionError::TileSize { n: 3, source }
                if matches!(**source, OptionError::EngineSize { side: 321, .. })),
            "{err:?}"
        );
        assert!(err.to_string().contains("each tile is a terrain"), "{err}");
    }
}
