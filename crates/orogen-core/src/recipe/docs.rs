//! The recipe format reference (`docs/recipe-format.md`), generated from
//! the same parameter descriptions that validation and the viewer use.

use crate::params::{Params, reference_rows};
use crate::recipe::Recipe;
use crate::splat::TileSet;
use crate::stages::Stage;

const TABLE_HEAD: &str = "| field | allowed | default | meaning |\n|---|---|---|---|\n";

fn table(params: &mut dyn Params) -> String {
    let mut out = String::from(TABLE_HEAD);
    for row in reference_rows(params) {
        out.push_str(&row);
        out.push('\n');
    }
    out
}

/// The whole reference as Markdown.
pub fn recipe_reference_markdown() -> String {
    let mut out = String::from(
        "# Recipe format reference\n\n\
         Generated from orogen's parameter table (the same one the loader validates\n\
         against and the viewer draws); a test keeps it current.\n\n\
         A recipe is a RON file. Start it with\n\
         `#![enable(unwrap_variant_newtypes)]` and `#![enable(implicit_some)]`\n\
         (orogen enables both when reading, so they are optional). Every field\n\
         must be present except `tiles` and the optional switches\n\
         `clamp_negatives_as_generated` and `bands_from_zero`, which are off when\n\
         absent (and left out of saved recipes while off); unknown fields, wrong types,\n\
         non-finite numbers, out-of-range values and `min > max` are refused with\n\
         one line naming the field.\n\n\
         ## The world and its sampling\n\n\
         A recipe describes a world: `extent: (x: 1024.0, y: 1024.0)` is its size\n\
         in world units, and `size: (width: 513, height: 513)` only how densely it\n\
         is sampled (cells are square, `extent.x / (width − 1)` units wide). Every\n\
         length in a stage is in world units (hill radii, blur width, erosion\n\
         lengths at its `simulation_size`) or a fraction of the extent (noise\n\
         frequency, hill-feature sizes, the diamond-square lattice), and random\n\
         values are keyed by place, so the same recipe at 129² or 8193² makes the\n\
         same landscape and a larger size only adds detail.\n\n\
         Counts: a hills-and-pits layer's `count` is the number of caps over the\n\
         whole world (a density per world area; it does not change with the\n\
         sampling); hill features' `frequency` is per world too. Erosion's\n\
         `droplets` hold at its `simulation_size`: a coarser map (a preview) gets\n\
         droplets scaled by its area in cells, and lifetime and brush by length;\n\
         a finer map runs at its own cells with as many droplets per cell.\n\n\
         Older recipes with `width`, `height` and `cell_size` still load: the\n\
         world is `(width − 1)·cell_size` by `(height − 1)·cell_size`, hill radii\n\
         become `R·cell_size` (and `h / cell_size²`, so peaks keep their height),\n\
         a blur's `radius: r` (cells) becomes `width: (2r + 1)·cell_size`, and\n\
         erosion's `simulation_size` is the old map's longer side. orogen says\n\
         once that it converted them; saving writes the world format.\n\n\
         ## Recipe\n\n",
    );
    let mut recipe = Recipe::default();
    out.push_str(&table(&mut recipe.header_params()));
    out.push_str(
        "| `seed` | 0 to 2^64−1 | 1 | Seed of every stage's random stream. |\n\
         | `stages` | list of `(enabled: bool, stage: Kind(...))` | | Run in order. |\n\
         | `tiles` | see below | default tiles | Texture layers. |\n\n\
         ## Stages\n\n",
    );
    for kind in Stage::KINDS {
        let Some(mut stage) = Stage::default_of(kind) else {
            continue;
        };
        let variant = format!("{stage:?}");
        let variant = variant.split('(').next().unwrap_or_default().to_string();
        out.push_str(&format!("### `{variant}` ({kind})\n\n{}\n\n", stage.help()));
        out.push_str(&table(&mut stage));
        out.push('\n');
    }
    out.push_str(
        "### Fluvial erosion's uplift and hardness maps\n\n\
         `FluvialErosion` also takes two optional maps, written like a stage's\n\
         `mask` (`(source: ..., range: (min, max), soft, invert)`, sources\n\
         `Height`, `Slope`, `Flow`, `Lakes`, `Image(\"file.png\")` or\n\
         `Painted(...)`), each a weight 0..1 per cell that holds at every size:\n\
         `uplift_map` multiplies each cell's uplift rate by its weight (where the\n\
         land rises), and `hardness_map` gives rock of erodibility\n\
         `erodibility × hard_rock` where its weight is 1, blending to\n\
         `erodibility` where it is 0. Both are left out when absent. A world\n\
         eroded by blocks (more than `block_size` cells a side) takes only maps\n\
         by `Height`.\n\n",
    );
    out.push_str(
        "## Tiles\n\n\
         `tiles: (auto_bands: bool, bands_from_zero: bool, tiles: [Tile, ...])`,\n\
         lowest band first. With `auto_bands: true` the bands are re-assigned over\n\
         the map's height range whenever it changes (the article's\n\
         `AssainTilesRange`); `bands_from_zero: true` assigns them over `0..max`\n\
         instead, as article 003 does over its map clamped at 0. Each tile also has\n\
         `fallback_color: (r, g, b)`, used when its image cannot be read, and\n\
         optionally `map: (map: flow, range: (min: 5000.0, max: 1e12), soft: 2000.0)`:\n\
         the tile shows only where that derived map's value lies in the range,\n\
         fading to nothing over `soft` beyond each end. The maps and their units:\n\
         `flow` and `wetness` drainage area (square world units), `lakes` depth\n\
         (world units), `rivers` weight (0..1), `curvature` convexity (1/world\n\
         units, > 0 on ridges), `occlusion` sky visibility (0..1), `wear` and\n\
         `deposition` material removed or laid down by the erosion stages (world\n\
         units). At most four different maps per tile set.\n\n",
    );
    let mut tile = TileSet::default().tiles.remove(0);
    out.push_str(&table(&mut tile));
    out
}
