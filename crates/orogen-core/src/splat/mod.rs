//! Splat texture from height bands (ALGORITHMS §6, article 003's
//! `TextureMappingGenerator`), with slope rules and weight-map exports.
//!
//! Weights: each tile's visibility at the texel's height (the article's
//! `CalculateTilePresent`, end tiles saturating) times its slope factor,
//! normalised so the weights sum to 1 and the texture never darkens or
//! brightens where edited bands overlap or leave gaps.
//!
//! The readable definition, texel by texel, is `reference.rs` (with the
//! `reference` feature); the tests hold the fast renderer to it. The
//! built-in tile images are made in [`builtin_tiles`].

pub mod builtin_tiles;
mod images;
mod map_rule;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod render;
mod slope;
mod split;
mod texture;
mod weights;

pub use images::{TileImageError, TileImages, decode_tile_image, load_tile_image};
pub use map_rule::{MAX_RULE_MAPS, MapRule, RuleMaps, rule_map_kinds, rule_units, rule_values};
pub use render::{SplatError, render_splat, render_splat_with_maps, round_to_u8};
pub use slope::{atan_degrees, slope_map};
pub use split::{TileRule, TileRules, TileSource, TileSources};
pub use texture::{SplatTexture, add_texture_files};
pub use weights::{slope_factor, visibility, weights_at, weights_with_maps};

use crate::params::{ParamVisitor, Params, Span};
use serde::{Deserialize, Serialize};

/// One texture layer: an image and where it shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    /// Layer name, shown in the viewer, in warnings and in the sidecar.
    pub name: String,
    /// Image file, or `builtin:<name>` for a shipped tile.
    pub image: String,
    /// World height below which the tile is invisible (but the lowest tile).
    pub low: f32,
    /// World height at which the tile is fully visible.
    pub optimal: f32,
    /// World height above which the tile is invisible (but the highest tile).
    pub high: f32,
    /// Slope range in degrees where this tile may show (soft 5° edges).
    pub slope: Option<Span>,
    /// A derived map's range where this tile may show (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<MapRule>,
    /// Tile pixels per texture texel: 1 repeats the tile every 256 texels
    /// for a 256² tile, 0.5 stretches it twice as wide.
    pub scale: f32,
    /// Used when the image cannot be loaded.
    pub fallback_color: [u8; 3],
}

/// The splat texture's layers, each with its height band and slope rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileSet {
    /// Lowest band first.
    pub tiles: Vec<Tile>,
    /// Re-run the article's band assignment over the map's range whenever
    /// the map changes; editing a band turns this off.
    pub auto_bands: bool,
    /// Assign bands over `0..max` instead of the map's `min..max`, as
    /// article 003 does over its map clamped at 0 (optional; off when absent).
    #[serde(default, skip_serializing_if = "crate::params::is_false")]
    pub bands_from_zero: bool,
}

fn builtin(name: &str, color: [u8; 3], slope: Option<Span>) -> Tile {
    Tile {
        name: name.to_string(),
        image: format!("builtin:{name}"),
        low: 0.0,
        optimal: 0.0,
        high: 0.0,
        slope,
        map: None,
        scale: 1.0,
        fallback_color: color,
    }
}

impl Default for TileSet {
    fn default() -> Self {
        let mut set = TileSet {
            tiles: vec![
                builtin("sand", [200, 180, 128], None),
                builtin("grass", [78, 112, 42], Some(Span::new(0.0, 38.0))),
                builtin("rock", [120, 114, 106], None),
                builtin("snow", [236, 240, 246], Some(Span::new(0.0, 42.0))),
            ],
            auto_bands: true,
            bands_from_zero: false,
        };
        set.auto_assign(0.0, 100.0);
        set
    }
}

impl TileSet {
    /// The article's `AssainTilesRange` over `min..max` (the article uses
    /// 0..max after clamping negatives; orogen uses the map's real range):
    /// `unit = range/(k+1)`, tile i (1-based, lowest band first) gets
    /// optimal `min + i·unit` and `low/high = optimal ∓ unit`.
    pub fn auto_assign(&mut self, min: f32, max: f32) {
        let k = self.tiles.len();
        let unit = (max - min) / (k + 1) as f32;
        for (i, tile) in self.tiles.iter_mut().enumerate() {
            let optimal = min + (i + 1) as f32 * unit;
            tile.optimal = optimal;
            tile.low = optimal - unit;
            tile.high = optimal + unit;
        }
    }

    /// The bands to render with: auto-assigned over the
    /// [band range](Self::band_range) of a map spanning `min..max` when
    /// `auto_bands` is on, as edited otherwise.
    pub fn effective(&self, min: f32, max: f32) -> TileSet {
        let mut set = self.clone();
        if set.auto_bands {
            let (low, high) = self.band_range(min, max);
            set.auto_assign(low, high);
        }
        set
    }

    /// The heights auto-assigned bands spread over for a map spanning
    /// `min..max`: the map's own range, or `0..max` with `bands_from_zero`
    /// (when `max` is above 0; a map below sea level keeps its range).
    pub fn band_range(&self, min: f32, max: f32) -> (f32, f32) {
        if self.bands_from_zero && max > 0.0 {
            (0.0, max)
        } else {
            (min, max)
        }
    }

    /// One-line error for inconsistent tiles.
    pub fn validate(&mut self) -> Result<(), crate::params::ParamError> {
        if self.tiles.is_empty() || self.tiles.len() > 16 {
            return Err(crate::params::ParamError {
                path: "tiles".into(),
                message: format!("{} tiles; allowed 1 to 16", self.tiles.len()),
            });
        }
        let maps = rule_map_kinds(self.tiles.iter().map(|t| &t.map));
        if maps.len() > MAX_RULE_MAPS {
            return Err(crate::params::ParamError {
                path: "tiles".into(),
                message: format!(
                    "the tiles' map rules read {} different maps; at most {MAX_RULE_MAPS}",
                    maps.len()
                ),
            });
        }
        for (i, tile) in self.tiles.iter_mut().enumerate() {
            crate::params::validate(tile, &format!("tiles[{i}]"))?;
            if let Some(rule) = &tile.map {
                rule.validate(&format!("tiles[{i}].map"))?;
            }
            if !(tile.low <= tile.optimal && tile.optimal <= tile.high) {
                return Err(crate::params::ParamError {
                    path: format!("tiles[{i}]"),
                    message: format!(
                        "band must satisfy low ≤ optimal ≤ high (got {} / {} / {})",
                        tile.low, tile.optimal, tile.high
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Params for Tile {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.text(
            "name",
            &mut self.name,
            "Name of the layer (used for splat_<i>.png documentation).",
        );
        v.text(
            "image",
            &mut self.image,
            "PNG/JPEG/TGA/BMP file, or builtin:sand / grass / rock / snow.",
        );
        let range = -1_000_000.0..=1_000_000.0;
        v.float(
            "low",
            &mut self.low,
            range.clone(),
            "Below this height the tile is invisible (except the lowest tile).",
        );
        v.float(
            "optimal",
            &mut self.optimal,
            range.clone(),
            "At this height the tile is fully visible.",
        );
        v.float(
            "high",
            &mut self.high,
            range,
            "Above this height the tile is invisible (except the highest tile).",
        );
        v.optional_span(
            "slope",
            &mut self.slope,
            0.0..=90.0,
            "Slope range in degrees where the tile may show (soft 5° edges); empty = any slope.",
        );
        v.float(
            "scale",
            &mut self.scale,
            0.01..=64.0,
            "Tile pixels per texture texel: smaller values stretch the tile.",
        );
    }
}
