//! The splat texture as defined (ALGORITHMS §6), texel by texel: the
//! texel centre's bilinear height, slope and rule-map values, each tile's
//! weight there, and
//! the tiles' wrapped pixels mixed by those weights. The readable version
//! of [`render_splat`](super::render_splat)'s table-driven rows, and the
//! oracle its tests compare against (within one level of rounding).

use super::{RuleMaps, TileImages, TileSet, rule_map_kinds, slope_map, weights_with_maps};
use crate::heightmap::Heightmap;

/// The texture's colours at `width x height` texels, as unrounded floats
/// (RGB, row by row). Texel centres map onto the map corner to corner.
pub fn splat_rgb(
    map: &Heightmap,
    cell_size: f32,
    tiles: &TileSet,
    images: &TileImages,
    width: usize,
    height: usize,
) -> Vec<f32> {
    let stats = map.stats();
    let set = tiles.effective(stats.min, stats.max);
    let slopes = slope_map(map, cell_size);
    // Each rule map as a grid of the map's size, sampled like the heights.
    let kinds = rule_map_kinds(set.tiles.iter().map(|t| &t.map));
    let rule_maps = RuleMaps::compute(&kinds, map, cell_size, None);
    let grids: Vec<Heightmap> = rule_maps
        .values
        .iter()
        .filter_map(|v| Heightmap::from_vec(map.width(), map.height(), v.clone()))
        .collect();
    let mut weights = vec![0.0; set.tiles.len()];
    let mut values = vec![0.0; set.tiles.len()];
    let mut rgb = Vec::with_capacity(width * height * 3);
    for ty in 0..height {
        for tx in 0..width {
            let hx = (tx as f32 + 0.5) * (map.width() - 1) as f32 / width as f32;
            let hy = (ty as f32 + 0.5) * (map.height() - 1) as f32 / height as f32;
            for (value, tile) in values.iter_mut().zip(&set.tiles) {
                *value = tile
                    .map
                    .and_then(|rule| rule_maps.slot(rule.map))
                    .map_or(0.0, |slot| grids[slot].sample_bilinear(hx, hy));
            }
            weights_with_maps(
                &set.tiles,
                map.sample_bilinear(hx, hy),
                slopes.sample_bilinear(hx, hy),
                &values,
                &mut weights,
            );
            let mut texel = [0.0f32; 3];
            for (i, tile) in set.tiles.iter().enumerate() {
                let image = &images.images[i];
                let pixel = image.get_pixel(
                    ((tx as f32 * tile.scale) as u32) % image.width(),
                    ((ty as f32 * tile.scale) as u32) % image.height(),
                );
                for (c, value) in texel.iter_mut().enumerate() {
                    *value += weights[i] * pixel[c] as f32;
                }
            }
            rgb.extend_from_slice(&texel);
        }
    }
    rgb
}
