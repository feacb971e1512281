//! A tile set split by what an edit of it costs. [`TileSources`] (each
//! tile's image and fallback colour, and how many tiles there are) need
//! the images decoded again and the texture rendered again: a job.
//! [`TileRules`] (bands, slope rules, scales, names) only say where each
//! tile shows: a viewer drawing the splat on the GPU applies them with a
//! uniform write. Both halves are built by naming every field of
//! [`TileSet`] and [`Tile`], so a field added there does not compile until
//! it is sorted into one half.

use super::{MapRule, Tile, TileSet};
use crate::params::Span;

/// What a tile's pixels come from.
#[derive(Clone, Debug, PartialEq)]
pub struct TileSource {
    /// Image file, or `builtin:<name>`.
    pub image: String,
    /// Used when the image cannot be loaded.
    pub fallback_color: [u8; 3],
}

/// The tiles' sources, lowest band first: a change needs a job.
#[derive(Clone, Debug, PartialEq)]
pub struct TileSources {
    /// One per tile, lowest band first.
    pub tiles: Vec<TileSource>,
}

/// Where one tile shows, and what it is called.
#[derive(Clone, Debug, PartialEq)]
pub struct TileRule {
    /// Layer name.
    pub name: String,
    /// World height below which the tile is invisible.
    pub low: f32,
    /// World height at which the tile is fully visible.
    pub optimal: f32,
    /// World height above which the tile is invisible.
    pub high: f32,
    /// Slope range in degrees where the tile may show.
    pub slope: Option<Span>,
    /// A derived map's range where the tile may show. A new range is a
    /// uniform write; a rule naming another map needs that map computed.
    pub map: Option<MapRule>,
    /// Tile pixels per texture texel.
    pub scale: f32,
}

/// The set's rules: a change needs no job where the splat is drawn from
/// a uniform.
#[derive(Clone, Debug, PartialEq)]
pub struct TileRules {
    /// Bands re-assigned over the map's range.
    pub auto_bands: bool,
    /// Bands assigned over `0..max`.
    pub bands_from_zero: bool,
    /// One per tile, lowest band first.
    pub tiles: Vec<TileRule>,
}

impl TileSet {
    /// The set's two halves.
    pub fn split(&self) -> (TileSources, TileRules) {
        let TileSet {
            tiles,
            auto_bands,
            bands_from_zero,
        } = self;
        let mut sources = Vec::with_capacity(tiles.len());
        let mut rules = Vec::with_capacity(tiles.len());
        for tile in tiles {
            let Tile {
                name,
                image,
                low,
                optimal,
                high,
                slope,
                map,
                scale,
                fallback_color,
            } = tile;
            sources.push(TileSource {
                image: image.clone(),
                fallback_color: *fallback_color,
            });
            rules.push(TileRule {
                name: name.clone(),
                low: *low,
                optimal: *optimal,
                high: *high,
                slope: *slope,
                map: *map,
                scale: *scale,
            });
        }
        (
            TileSources { tiles: sources },
            TileRules {
                auto_bands: *auto_bands,
                bands_from_zero: *bands_from_zero,
                tiles: rules,
            },
        )
    }

    /// The half that needs a job.
    pub fn sources(&self) -> TileSources {
        self.split().0
    }

    /// The set made of two halves; `None` when they count different tiles.
    pub fn join(sources: TileSources, rules: TileRules) -> Option<TileSet> {
        if sources.tiles.len() != rules.tiles.len() {
            return None;
        }
        let tiles = sources
            .tiles
            .into_iter()
            .zip(rules.tiles)
            .map(|(source, rule)| Tile {
                name: rule.name,
                image: source.image,
                low: rule.low,
                optimal: rule.optimal,
                high: rule.high,
                slope: rule.slope,
                map: rule.map,
                scale: rule.scale,
                fallback_color: source.fallback_color,
            })
            .collect();
        Some(TileSet {
            tiles,
            auto_bands: rules.auto_bands,
            bands_from_zero: rules.bands_from_zero,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_halves_join_back_into_the_set() {
        let mut set = TileSet {
            bands_from_zero: true,
            ..TileSet::default()
        };
        set.tiles[2].slope = Some(Span::new(20.0, 60.0));
        let (sources, rules) = set.split();
        assert_eq!(TileSet::join(sources, rules), Some(set));
    }

    #[test]
    fn a_rule_edit_keeps_the_sources_and_an_image_edit_changes_them() {
        let set = TileSet::default();
        let mut banded = set.clone();
        banded.auto_bands = !banded.auto_bands;
        banded.tiles[1].optimal += 3.0;
        banded.tiles[0].scale = 0.5;
        banded.tiles[3].name = "peaks".into();
        assert_eq!(banded.sources(), set.sources());
        assert_ne!(banded.split().1, set.split().1);

        let mut repainted = set.clone();
        repainted.tiles[0].fallback_color = [1, 2, 3];
        assert_ne!(repainted.sources(), set.sources());
        let mut fewer = set.clone();
        fewer.tiles.pop();
        assert_ne!(fewer.sources(), set.sources());
    }

    #[test]
    fn halves_of_different_lengths_do_not_join() {
        let (sources, mut rules) = TileSet::default().split();
        rules.tiles.pop();
        assert_eq!(TileSet::join(sources, rules), None);
    }
}
