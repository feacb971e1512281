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

use crate::stages::Stage;

/// Converts the stages of a cell-based recipe (`width` x `height` cells
/// `cell_size` apart) to world units and returns the world it sampled,
/// (x, y) in world units. Works on stages and numbers only, so the recipe
/// module depends on this one and never the other way.
pub fn convert<'a>(
    stages: impl IntoIterator<Item = &'a mut Stage>,
    width: u32,
    height: u32,
    cell_size: f32,
) -> Result<(f32, f32), String> {
    if !(cell_size.is_finite() && cell_size > 0.0) {
        return Err(format!("cell_size: {cell_size} must be a positive number"));
    }
    if width < 2 || height < 2 {
        return Err(format!(
            "width and height must be at least 2 (got {width}x{height})"
        ));
    }
    for stage in stages {
        match stage {
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
    Ok((
        (width - 1) as f32 * cell_size,
        (height - 1) as f32 * cell_size,
    ))
}

/// Converts stage fields that only the cell-based format had, in a recipe
/// of either format sampled `cell_size` apart (a blur's `radius` in cells
/// becomes its `width`); returns whether any was converted.
pub fn convert_cell_fields<'a>(
    stages: impl IntoIterator<Item = &'a mut Stage>,
    cell_size: f32,
) -> Result<bool, String> {
    let mut converted = false;
    for (i, stage) in stages.into_iter().enumerate() {
        if let Stage::Blur(blur) = stage {
            match (blur.legacy_radius.take(), blur.width.is_nan()) {
                (Some(radius), true) => {
                    blur.width = (2 * radius + 1) as f32 * cell_size;
                    converted = true;
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
    Ok(converted)
}
