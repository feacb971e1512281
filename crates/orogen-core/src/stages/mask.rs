//! Stage masks: a stage confined to part of the map. The weight of each
//! cell comes from the stage's input, either a derived map within a range
//! (height, slope, drainage area, lake depth) with a soft edge, or a grey
//! image laid over the world, from a file or painted ([`painted`]). Where the weight is 0 the stage's output is
//! thrown away and the cell keeps its input bit for bit; where it is 1
//! the cell takes the output; between, the two blend.
//!
//! At the mask's edge:
//! - a masked Normalize still maps the whole map's range (it sees the
//!   whole map), then only the masked part keeps the result; without a
//!   soft edge that is a step, with one a ramp;
//! - a masked erosion stage could leave a step where it dug a channel
//!   down to the unmasked ground: a closed hollow. Cells the mask lets
//!   change that end up below the level water spills from (a new closed
//!   depression) are filled back to that level, so the masked part still
//!   drains; unmasked cells are never touched, so a hollow whose floor is
//!   all outside the mask stays.

pub mod painted;

use crate::heightmap::Heightmap;
use crate::hydro::{Outlets, Routing, fill_levels};
use crate::maps::lakes::lake_depths;
use crate::maps::rivers::drainage_area;
use crate::params::{ParamError, Span};
use crate::splat::slope_map;
use crate::stages::{StageContext, StageError, StageOp};
use crate::world_window::WorldWindow;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a mask's weights come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum MaskSource {
    /// World height.
    Height,
    /// Slope in degrees, measured over a fixed share of the world
    /// ([`SLOPE_BASELINE_SHARE`]), so it means the same at every size.
    Slope,
    /// Steepest-descent drainage area in square world units.
    Flow,
    /// Lake depth (water filled to the spill level) in world units.
    Lakes,
    /// A grey image (PNG, 8 or 16 bit) stretched over the world's extent:
    /// black 0, white 1. A relative path is the recipe's folder's.
    Image(String),
    /// A mask painted in the viewer: a grey image over the world, saved
    /// beside the recipe and named by the hash of its pixels.
    Painted(painted::PaintedMask),
}

/// A slope mask measures the slope between points this share of the
/// world's longer side apart (at least the neighbouring cells): the same
/// ground at every size, where a cell's own slope steepens as finer
/// sampling adds detail.
pub const SLOPE_BASELINE_SHARE: f32 = 1.0 / 128.0;

/// Slope in degrees at every cell of `map`, from central differences over
/// ±k cells, k the baseline in cells (one-sided at the edges). At k = 1
/// (maps up to 192 cells a side) it is the splat's own slope map.
pub fn world_slope(map: &Heightmap, cell_size: f32) -> Vec<f32> {
    let (w, h) = (map.width(), map.height());
    let side = w.max(h).max(2);
    let k = ((side - 1) as f32 * SLOPE_BASELINE_SHARE).round().max(1.0) as usize;
    if k == 1 {
        return slope_map(map, cell_size).data().to_vec();
    }
    let data = map.data();
    let mut out = vec![0.0f32; data.len()];
    use rayon::prelude::*;
    out.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        let (y0, y1) = (y.saturating_sub(k), (y + k).min(h - 1));
        for (x, o) in row.iter_mut().enumerate() {
            let (x0, x1) = (x.saturating_sub(k), (x + k).min(w - 1));
            let dx = (data[y * w + x1] - data[y * w + x0]) / ((x1 - x0).max(1) as f32 * cell_size);
            let dz = (data[y1 * w + x] - data[y0 * w + x]) / ((y1 - y0).max(1) as f32 * cell_size);
            *o = crate::splat::atan_degrees((dx * dx + dz * dz).sqrt());
        }
    });
    out
}

/// Where a stage acts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageMask {
    /// The map the weights come from.
    pub source: MaskSource,
    /// The values where the weight is 1 (not used by an image).
    pub range: Span,
    /// The weight falls from 1 to 0 over this much beyond each end of the
    /// range, in the source's units (0: a hard edge).
    #[serde(default)]
    pub soft: f32,
    /// Act outside instead of inside.
    #[serde(default)]
    pub invert: bool,
}

impl StageMask {
    /// Runs `op` on `map` where this mask says: the stage's output where
    /// the weight is 1, its input (bit for bit) where it is 0, blended
    /// between. The weights come from the input, which stays for the
    /// blend; a stage that moves material fills back the hollows it dug
    /// in the drainage ([`fill_new_hollows`]).
    pub fn apply(
        &self,
        op: &dyn StageOp,
        map: &mut Heightmap,
        ctx: &mut StageContext,
    ) -> Result<(), StageError> {
        // An image or painting is sampled at the map's own place in the
        // world, so a window weighs its cells as the whole map does.
        let weights = self.load(ctx.base_dir.as_deref())?.weights_at(
            map,
            ctx.cell_size,
            &ctx.window_of(map),
        )?;
        let before = map.data().to_vec();
        op.apply(map, ctx)?;
        blend(&before, map.data_mut(), &weights);
        if let Some(laid) = ctx.laid_down.as_mut() {
            for (l, w) in laid.iter_mut().zip(&weights) {
                *l *= w;
            }
        }
        if op.moves_material() {
            let width = map.width();
            fill_new_hollows(&before, map.data_mut(), &weights, width);
        }
        // The blend reads every cell: the stage's own finiteness claim
        // still holds for the blended map only when the input was finite.
        ctx.output_finite = None;
        Ok(())
    }

    /// Weight 0..1 per cell of `map` (cells `cell_size` apart; relative
    /// image paths resolve in `base_dir`).
    pub fn weights(
        &self,
        map: &Heightmap,
        cell_size: f32,
        base_dir: Option<&Path>,
    ) -> Result<Vec<f32>, StageError> {
        let place = WorldWindow::whole(map.width(), map.height());
        self.load(base_dir)?.weights_at(map, cell_size, &place)
    }

    /// The mask with its image read, when it has one (relative paths
    /// resolve in `base_dir`): read once, sampled at any cells.
    pub fn load(&self, base_dir: Option<&Path>) -> Result<LoadedMask<'_>, StageError> {
        let grey = match &self.source {
            MaskSource::Image(path) => Grey::Image(read_grey(path, base_dir)?),
            MaskSource::Painted(mask) => Grey::Painted(
                painted::resolve(mask, base_dir)
                    .map_err(|e| StageError::PaintedMask(std::sync::Arc::new(e)))?,
            ),
            _ => Grey::Derived,
        };
        Ok(LoadedMask { mask: self, grey })
    }

    /// Whether a cell's weight depends on that cell alone (its input
    /// height, or its place under an image), so that a block or window
    /// of the world computes the whole map's weights there.
    pub fn is_cellwise(&self) -> bool {
        matches!(
            self.source,
            MaskSource::Height | MaskSource::Image(_) | MaskSource::Painted(_)
        )
    }

    /// Refuses a range that is not finite and ordered, a soft edge that is
    /// negative or not finite, an image without a path and a painted mask
    /// without a well-formed hash, naming the field (`path` is where the
    /// mask sits in the recipe).
    pub fn validate(&self, path: &str) -> Result<(), ParamError> {
        let error = |field: &str, message: String| ParamError {
            path: format!("{path}.{field}"),
            message,
        };
        if let MaskSource::Image(file) = &self.source {
            if file.trim().is_empty() {
                return Err(error("source", "an Image mask needs a file path".into()));
            }
            return Ok(());
        }
        if let MaskSource::Painted(mask) = &self.source {
            if !painted::is_hash(&mask.hash) {
                return Err(error(
                    "source",
                    format!(
                        "painted mask hash {:?}: expected {} lowercase hex digits",
                        mask.hash,
                        painted::HASH_DIGITS
                    ),
                ));
            }
            return Ok(());
        }
        let (lo, hi) = (self.range.min, self.range.max);
        if !(lo.is_finite() && hi.is_finite()) || lo > hi {
            return Err(error(
                "range",
                format!("{lo}..{hi}: expected finite numbers with min ≤ max"),
            ));
        }
        if !self.soft.is_finite() || self.soft < 0.0 {
            return Err(error("soft", format!("{}: expected 0 or more", self.soft)));
        }
        Ok(())
    }

    /// The weight of a source value: 1 inside the range, a linear ramp
    /// over `soft` beyond it, 0 further out (and for NaN).
    pub fn weight(&self, value: f32) -> f32 {
        let (lo, hi) = (self.range.min, self.range.max);
        if value >= lo && value <= hi {
            return 1.0;
        }
        if self.soft.is_nan() || self.soft <= 0.0 || value.is_nan() {
            return 0.0;
        }
        let outside = if value < lo { lo - value } else { value - hi };
        (1.0 - outside / self.soft).clamp(0.0, 1.0)
    }

    fn flip(&self, w: f32) -> f32 {
        if self.invert { 1.0 - w } else { w }
    }
}

/// A mask's image, read once.
enum Grey {
    /// No image: the weights come from the input (height, slope, …).
    Derived,
    /// A grey image file's values 0..1.
    Image(Heightmap),
    /// A painted mask's image.
    Painted(std::sync::Arc<painted::PaintedImage>),
}

/// A mask with its image read: weights at any cells of the world, so a
/// block or window samples what the whole map does there.
pub struct LoadedMask<'a> {
    mask: &'a StageMask,
    grey: Grey,
}

impl LoadedMask<'_> {
    /// Weight 0..1 per cell of `map`, whose cells lie at `place` of a
    /// world whose cells are `cell_size` apart. A mask that is not
    /// cellwise ([`StageMask::is_cellwise`]) needs the whole world.
    pub fn weights_at(
        &self,
        map: &Heightmap,
        cell_size: f32,
        place: &WorldWindow,
    ) -> Result<Vec<f32>, StageError> {
        let mask = self.mask;
        let values: Vec<f32> = match (&mask.source, &self.grey) {
            (_, Grey::Image(grid)) => {
                let grey = image_weights(grid, place);
                return Ok(grey.into_iter().map(|w| mask.flip(w)).collect());
            }
            (_, Grey::Painted(image)) => {
                let grey = image.weights_at(place);
                return Ok(grey.into_iter().map(|w| mask.flip(w)).collect());
            }
            (MaskSource::Height, _) => map.data().to_vec(),
            _ if !place.is_whole() => {
                return Err(StageError::Internal(
                    "a slope, flow or lakes mask needs the whole world",
                ));
            }
            (MaskSource::Slope, _) => world_slope(map, cell_size),
            (MaskSource::Flow, _) => drainage_area(map, cell_size, None),
            _ => lake_depths(map, None),
        };
        Ok(values
            .into_iter()
            .map(|v| mask.flip(mask.weight(v)))
            .collect())
    }
}

/// The grey image file at `path` (relative to `base_dir`), its values
/// 0..1.
fn read_grey(path: &str, base_dir: Option<&Path>) -> Result<Heightmap, StageError> {
    if path.trim().is_empty() {
        return Err(StageError::NoMaskImage);
    }
    let full = match base_dir {
        Some(base) if Path::new(path).is_relative() => base.join(path),
        _ => Path::new(path).to_path_buf(),
    };
    let unreadable = |reason: String| StageError::MaskImage {
        path: full.display().to_string(),
        reason,
    };
    let image = image::open(&full)
        .map_err(|e| unreadable(e.to_string()))?
        .into_luma16();
    let (iw, ih) = (image.width() as usize, image.height() as usize);
    let grey: Vec<f32> = image
        .into_raw()
        .into_iter()
        .map(|v| f32::from(v) / 65535.0)
        .collect();
    Heightmap::from_vec(iw, ih, grey).ok_or_else(|| unreadable("empty".into()))
}

/// A grey image's values sampled (bilinear, corner to corner) at the
/// cells of `place`: the image covers the world, so the mask holds at
/// every size and on every window.
fn image_weights(grid: &Heightmap, place: &WorldWindow) -> Vec<f32> {
    let (iw, ih) = (grid.width(), grid.height());
    let w = place.window;
    let (ww, wh) = (place.world_width, place.world_height);
    let mut out = Vec::with_capacity(w.width * w.height);
    for y in w.y..w.y + w.height {
        let gy = y as f32 * (ih - 1) as f32 / (wh.max(2) - 1) as f32;
        for x in w.x..w.x + w.width {
            let gx = x as f32 * (iw - 1) as f32 / (ww.max(2) - 1) as f32;
            out.push(grid.sample_bilinear(gx, gy).clamp(0.0, 1.0));
        }
    }
    out
}

/// Keeps `before` where the weight is 0 (bit for bit), `after` where it
/// is 1, and blends between; writes into `after`.
pub fn blend(before: &[f32], after: &mut [f32], weights: &[f32]) {
    for ((a, &b), &w) in after.iter_mut().zip(before).zip(weights) {
        if w <= 0.0 {
            *a = b;
        } else if w < 1.0 {
            *a = b + (*a - b) * w;
        }
    }
}

/// After a masked erosion stage: cells it may change (weight above 0)
/// that lie below the level their water spills from, in a depression the
/// input did not have there, are filled back to that level.
pub fn fill_new_hollows(before: &[f32], after: &mut [f32], weights: &[f32], width: usize) {
    let routing = Routing::new(after, width, &Outlets::ALL_EDGES);
    let levels = fill_levels(after, &routing);
    let routing_before = Routing::new(before, width, &Outlets::ALL_EDGES);
    let levels_before = fill_levels(before, &routing_before);
    for i in 0..after.len() {
        let new_hollow = levels[i] > after[i] && levels_before[i] <= before[i];
        if weights[i] > 0.0 && new_hollow {
            after[i] = levels[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(range: (f32, f32), soft: f32) -> StageMask {
        StageMask {
            source: MaskSource::Height,
            range: Span::new(range.0, range.1),
            soft,
            invert: false,
        }
    }

    #[test]
    fn weights_ramp_over_the_soft_edge_and_invert() {
        let m = mask((10.0, 20.0), 4.0);
        assert_eq!(m.weight(15.0), 1.0);
        assert_eq!(m.weight(10.0), 1.0);
        assert_eq!(m.weight(8.0), 0.5);
        assert_eq!(m.weight(23.0), 0.25);
        assert_eq!(m.weight(30.0), 0.0);
        assert_eq!(m.weight(f32::NAN), 0.0);
        assert_eq!(mask((10.0, 20.0), 0.0).weight(9.99), 0.0);
        let inverted = StageMask { invert: true, ..m };
        let map = Heightmap::from_vec(3, 1, vec![15.0, 8.0, 40.0]).unwrap();
        assert_eq!(
            inverted.weights(&map, 1.0, None).unwrap(),
            vec![0.0, 0.5, 1.0]
        );
    }

    #[test]
    fn blending_keeps_unmasked_cells_bit_for_bit() {
        let before = vec![1.0, f32::from_bits(0x3f80_0001), -0.0, 4.0];
        let mut after = vec![9.0, 9.0, 9.0, 8.0];
        blend(&before, &mut after, &[0.0, 0.0, 0.0, 0.5]);
        assert_eq!(after[0].to_bits(), before[0].to_bits());
        assert_eq!(after[1].to_bits(), before[1].to_bits());
        assert_eq!(after[2].to_bits(), before[2].to_bits());
        assert_eq!(after[3], 6.0);
    }

    #[test]
    fn a_hollow_dug_at_the_mask_edge_is_filled_but_unmasked_cells_stay() {
        // Three rows, walls all round but the west end of the middle row:
        // water runs west along it. Erosion dug its third cell below the
        // second, which the mask kept: a new closed hollow.
        let wall = 100.0;
        let b = vec![
            wall, wall, wall, wall, wall, //
            11.0, 12.0, 13.0, 14.0, wall, //
            wall, wall, wall, wall, wall,
        ];
        let mut a = b.clone();
        a[5 + 2] = 10.5;
        let w3: Vec<f32> = (0..15).map(|i| if i % 5 < 2 { 0.0 } else { 1.0 }).collect();
        fill_new_hollows(&b, &mut a, &w3, 5);
        assert_eq!(
            a[5 + 2],
            12.0,
            "filled to the spill level of its western neighbour"
        );
        assert_eq!(a[5 + 1], 12.0, "the unmasked neighbour is untouched");
        assert_eq!(a[5], 11.0);
    }
}
