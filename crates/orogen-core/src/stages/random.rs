//! Random values (ALGORITHMS §1): independent uniform values per cell.
//!
//! A cell's value is keyed by its place on the world lattice
//! ([`crate::place_rng`]), so a cell that two map sizes share gets the
//! same value at both, and any window can be filled alone.

use super::combine::{COMBINE_HELP, Combine};
use super::{StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params, Span, visit_choice};
use crate::place_rng::{PlaceKey, WORLD_SPAN, cell_word, world_coordinate, world_steps_per_cell};
use crate::rng::unit_from_word;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Random values stage: every cell gets an independent uniform random value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomValues {
    /// Each cell's value is uniform in `[min, max)` (the article: -10..-0.1).
    pub values: Span,
    /// How the random layer merges with the map so far.
    pub combine: Combine,
}

impl Default for RandomValues {
    fn default() -> Self {
        // The article's `(rand()%100)*0.1 - 10`.
        Self {
            values: Span::new(-10.0, -0.1),
            combine: Combine::Replace,
        }
    }
}

impl Params for RandomValues {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.span(
            "values",
            &mut self.values,
            -100_000.0..=100_000.0,
            "Each cell gets a uniform random value in [min, max).",
        );
        visit_choice(v, "combine", &mut self.combine, COMBINE_HELP);
    }
}

impl StageOp for RandomValues {
    fn discards_input(&self) -> bool {
        self.combine == Combine::Replace
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let width = map.width();
        let (low, high) = (self.values.min, self.values.max);
        let key = PlaceKey::of_stage(&ctx.rng);
        // Cells are keyed by their place in the world, so a window gets
        // the whole map's values.
        let window = ctx.window_of(map);
        let cells = window.world_longer_side();
        let (x0, y0) = (window.window.x, window.window.y);
        let fine = cells > WORLD_SPAN as usize + 1;
        let steps = world_steps_per_cell(cells);
        // Sides of 2^k + 1 cells sit on whole world lattice steps: a row's
        // words then come from the vectorised row kernel.
        let whole_steps = (!fine && steps.fract() == 0.0).then_some(steps as u32);
        let columns: Vec<u32> = (0..width)
            .map(|x| world_coordinate(x0 + x, steps))
            .collect();
        // `move`: captured by value, so the loops below need not reload
        // the bounds after every store, and vectorise.
        let value = move |word: u32| low + (high - low) * unit_from_word(word);
        // Bands of rows share one scratch row of words, allocated per band
        // (per row, allocating and clearing it cost as much as the pass).
        const BAND_ROWS: usize = 16;
        map.data_mut()
            .par_chunks_mut(width * BAND_ROWS)
            .enumerate()
            .for_each(|(band, rows)| {
                let mut words = vec![0u32; width];
                for (i, row) in rows.chunks_mut(width).enumerate() {
                    let row_index = y0 + band * BAND_ROWS + i;
                    let wy = world_coordinate(row_index, steps);
                    match whole_steps {
                        Some(dx) => key.row_words(0, (x0 as u32 * dx, dx), wy, &mut words),
                        None if fine => {
                            for (k, word) in words.iter_mut().enumerate() {
                                *word = cell_word(key, 0, (x0 + k, row_index), cells);
                            }
                        }
                        None => {
                            for (word, &wx) in words.iter_mut().zip(&columns) {
                                *word = key.word(0, wx, wy);
                            }
                        }
                    }
                    if self.combine == Combine::Replace {
                        for (cell, &word) in row.iter_mut().zip(&words) {
                            *cell = value(word);
                        }
                    } else {
                        for (cell, &word) in row.iter_mut().zip(&words) {
                            *cell = self.combine.apply(*cell, value(word));
                        }
                    }
                }
            });
        Ok(())
    }
}
