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

/// A cell-based recipe that cannot be converted; the message names the
/// field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LegacyError {
    /// `cell_size` is zero, negative or not finite.
    #[error("cell_size: {0} must be a positive number")]
    CellSize(f32),
    /// A side below 2 cells samples no world.
    #[error("width and height must be at least 2 (got {width}x{height})")]
    TooSmall {
        /// The recipe's width in cells.
        width: u32,
        /// The recipe's height in cells.
        height: u32,
    },
    /// A blur gives both its world-unit width and its older cell radius.
    #[error("stages[{0}](blur): give width (world units) or the older radius (cells), not both")]
    BlurWidthAndRadius(usize),
    /// A blur gives neither its width nor its older radius.
    #[error("stages[{0}](blur): missing field `width` (the box's width in world units)")]
    BlurWidthMissing(usize),
}

/// Converts the stages of a cell-based recipe (`width` x `height` cells
/// `cell_size` apart) to world units and returns the world it sampled,
/// (x, y) in world units. Works on stages and numbers only, so the recipe
/// module depends on this one and never the other way.
pub fn convert<'a>(
    stages: impl IntoIterator<Item = &'a mut Stage>,
    width: u32,
    height: u32,
    cell_size: f32,
) -> Result<(f32, f32), LegacyError> {
    if !(cell_size.is_finite() && cell_size > 0.0) {
        return Err(LegacyError::CellSize(cell_size));
    }
    if width < 2 || height < 2 {
        return Err(LegacyError::TooSmall { width, height });
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
) -> Result<bool, LegacyError> {
    let mut converted = false;
    for (i, stage) in stages.into_iter().enumerate() {
        if let Stage::Blur(blur) = stage {
            match (blur.legacy_radius.take(), blur.width.is_nan()) {
                (Some(radius), true) => {
                    blur.width = (2 * radius + 1) as f32 * cell_size;
                    converted = true;
                }
                (Some(_), false) => return Err(LegacyError::BlurWidthAndRadius(i)),
                (None, true) => return Err(LegacyError::BlurWidthMissing(i)),
                (None, false) => {}
            }
        }
    }
    Ok(converted)
}
