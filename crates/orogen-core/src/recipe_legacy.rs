//! Loading the cell-based recipe format (`width`, `height`, `cell_size`,
//! lengths in cells) as the world it sampled.
//!
//! The world is `(w − 1)·cell_size` by `(h − 1)·cell_size` units, sampled
//! at the same `w x h`, so a converted recipe makes the same map at its
//! own size and the same landscape at every other. Lengths convert:
//! hill radii `R·cell_size` (with `h / cell_size²`, so a cap's peak
//! `h·R²` keeps its height), a blur of radius r becomes a box
//! `(2r + 1)·cell_size` wide, and erosion keeps its numbers at a
//! simulation size of the old map's longer side.

use crate::recipe::{Extent, Recipe};
use crate::stages::Stage;

/// Fills `recipe`'s world from a cell-based header and converts its
/// stages' cell lengths to world units.
pub fn convert(recipe: &mut Recipe, width: u32, height: u32, cell_size: f32) -> Result<(), String> {
    if !(cell_size.is_finite() && cell_size > 0.0) {
        return Err(format!("cell_size: {cell_size} must be a positive number"));
    }
    if width < 2 || height < 2 {
        return Err(format!(
            "width and height must be at least 2 (got {width}x{height})"
        ));
    }
    recipe.width = width;
    recipe.height = height;
    recipe.extent = Extent {
        x: (width - 1) as f32 * cell_size,
        y: (height - 1) as f32 * cell_size,
    };
    for entry in &mut recipe.stages {
        match &mut entry.stage {
            Stage::HillsAndPits(hills) => {
                for layer in &mut hills.layers {
                    layer.radius.min *= cell_size;
                    layer.radius.max *= cell_size;
                    layer.height.min /= cell_size * cell_size;
                    layer.height.max /= cell_size * cell_size;
                }
            }
            Stage::HydraulicErosion(erosion) => {
                erosion.simulation_size = width.max(height);
            }
            _ => {}
        }
    }
    Ok(())
}

/// Converts stage fields that only the cell-based format had, in a recipe
/// of either format (a blur's `radius` in cells becomes its `width`).
pub fn convert_cell_fields(recipe: &mut Recipe) -> Result<(), String> {
    let cell_size = recipe.cell_size();
    for (i, entry) in recipe.stages.iter_mut().enumerate() {
        if let Stage::Blur(blur) = &mut entry.stage {
            match (blur.legacy_radius.take(), blur.width.is_nan()) {
                (Some(radius), true) => {
                    blur.width = (2 * radius + 1) as f32 * cell_size;
                    recipe.converted_from_cells = true;
                }
                (Some(_), false) => {
                    return Err(format!(
                        "stages[{i}](blur): give width (world units) or the older radius (cells), not both"
                    ));
                }
                (None, true) => {
                    return Err(format!(
                        "stages[{i}](blur): missing field `width` (the box's width in world units)"
                    ));
                }
                (None, false) => {}
            }
        }
    }
    Ok(())
}
