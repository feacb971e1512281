//! Which sizes an edit is shown at: a first preview small enough to
//! regenerate within a frame, then finer levels in the background up to
//! the display limit. The recipe's own size is the export size; the
//! preview samples the same world, so it shows the same landscape.

use bevy::prelude::*;
use orogen_core::Recipe;

/// A frame's compute budget at 60 Hz, in milliseconds.
pub const FRAME_MILLIS: f64 = 1000.0 / 60.0;
/// The finest level the CPU path's mesh shows; the GPU terrain raises the
/// limit to every export size once the render device is known.
pub const DISPLAY_LIMIT: u32 = 1025;
/// The smallest preview.
pub const MIN_PREVIEW: u32 = 65;

/// The preview settings: automatic (the largest size whose measured
/// regeneration fits in a frame) or a fixed side.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct PreviewSampling {
    /// Tune the preview side from measured regeneration times.
    pub auto: bool,
    /// Cells along the world's longer side of the first preview, `2^k + 1`.
    pub preview_side: u32,
    /// The finest level shown; refinement stops there.
    pub display_limit: u32,
}

impl Default for PreviewSampling {
    fn default() -> Self {
        Self {
            auto: true,
            preview_side: 257,
            display_limit: DISPLAY_LIMIT,
        }
    }
}

impl PreviewSampling {
    /// The sides an edit of `export` is shown at, coarse to fine: the
    /// preview, doubling (`2s − 1`, so every level's points are points of
    /// the next), up to the smaller of the export size and the display
    /// limit. One level when the export is no larger than the preview.
    pub fn levels(&self, export: &Recipe) -> Vec<u32> {
        let export_side = export.width.max(export.height);
        let top = export_side.min(self.display_limit.max(MIN_PREVIEW));
        let mut side = self
            .preview_side
            .clamp(MIN_PREVIEW, self.display_limit)
            .min(top);
        let mut levels = vec![side];
        while side < top {
            side = (2 * side - 1).min(top);
            levels.push(side);
        }
        levels
    }

    /// The recipe of one level: the export recipe itself at its own side,
    /// otherwise the same world resampled.
    pub fn level_recipe(export: &Recipe, side: u32) -> Recipe {
        if side == export.width.max(export.height) {
            export.clone()
        } else {
            export.resampled(side)
        }
    }

    /// Tunes the preview from the time its level took (pipeline and
    /// display together): a level over a frame halves the preview, one
    /// that would still fit after doubling (a doubling costs about four
    /// times as much) doubles it.
    pub fn learn(&mut self, side: u32, millis: f64) {
        if !self.auto || side != self.preview_side {
            return;
        }
        if millis > FRAME_MILLIS && self.preview_side > MIN_PREVIEW {
            self.preview_side = (self.preview_side - 1) / 2 + 1;
        } else if millis * 4.5 < FRAME_MILLIS && self.preview_side < self.display_limit {
            self.preview_side = (2 * self.preview_side - 1).min(self.display_limit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(side: u32) -> Recipe {
        Recipe::default().resampled(side)
    }

    #[test]
    fn levels_double_from_the_preview_to_the_display_limit() {
        let sampling = PreviewSampling::default();
        assert_eq!(sampling.levels(&recipe(4097)), vec![257, 513, 1025]);
        assert_eq!(sampling.levels(&recipe(513)), vec![257, 513]);
        assert_eq!(sampling.levels(&recipe(129)), vec![129]);
        assert_eq!(sampling.levels(&recipe(700)), vec![257, 513, 700]);
        let coarse = PreviewSampling {
            preview_side: 65,
            ..PreviewSampling::default()
        };
        assert_eq!(coarse.levels(&recipe(2049)), vec![65, 129, 257, 513, 1025]);
    }

    #[test]
    fn the_export_size_level_is_the_recipe_itself() {
        let export = recipe(513);
        assert_eq!(PreviewSampling::level_recipe(&export, 513), export);
        let preview = PreviewSampling::level_recipe(&export, 257);
        assert_eq!((preview.width, preview.height), (257, 257));
        assert_eq!(preview.extent, export.extent);
    }

    #[test]
    fn the_preview_shrinks_when_slow_and_grows_when_fast() {
        let mut sampling = PreviewSampling::default();
        sampling.learn(257, 40.0);
        assert_eq!(sampling.preview_side, 129);
        sampling.learn(129, 10.0);
        assert_eq!(sampling.preview_side, 129, "fits, but doubling would not");
        sampling.learn(129, 2.0);
        assert_eq!(sampling.preview_side, 257);
        sampling.learn(513, 100.0);
        assert_eq!(sampling.preview_side, 257, "only the preview level tunes");
        sampling.auto = false;
        sampling.learn(257, 100.0);
        assert_eq!(sampling.preview_side, 257);
    }
}
