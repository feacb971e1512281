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
        "## Tiles\n\n\
         `tiles: (auto_bands: bool, bands_from_zero: bool, tiles: [Tile, ...])`,\n\
         lowest band first. With `auto_bands: true` the bands are re-assigned over\n\
         the map's height range whenever it changes (the article's\n\
         `AssainTilesRange`); `bands_from_zero: true` assigns them over `0..max`\n\
         instead, as article 003 does over its map clamped at 0. Each tile also has\n\
         `fallback_color: (r, g, b)`, used when its image cannot be read.\n\n",
    );
    let mut tile = TileSet::default().tiles.remove(0);
    out.push_str(&table(&mut tile));
    out
}
