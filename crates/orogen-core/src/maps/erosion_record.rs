//! What a run's erosion stages changed, cell by cell: the source of the
//! `wear` and `deposition` maps, taken as the run goes.

use rayon::prelude::*;

/// What a run's erosion stages changed, cell by cell: the sum over them
/// of each one's output minus its input, taken as it ran, so stages after
/// it (a Normalize rescaling the map) do not change it. World units;
/// negative where material was worn away, positive where it was laid down.
#[derive(Clone, PartialEq)]
pub struct ErosionRecord {
    width: usize,
    height: usize,
    change: Vec<f32>,
    /// What stages that track their deposits laid down (empty when none
    /// did), and the part of `change` those stages made.
    laid: Vec<f32>,
    tracked_change: Vec<f32>,
    stages: Vec<&'static str>,
}

impl ErosionRecord {
    /// A record of no change yet for a `width x height` map.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            // Allocated at the first erosion stage: a run without one
            // pays for its zeros only when they are asked for.
            change: Vec::new(),
            laid: Vec::new(),
            tracked_change: Vec::new(),
            stages: Vec::new(),
        }
    }

    /// Adds one erosion stage (`kind`) that turned `before` into `after`.
    /// Each cell is its own sum, in stage order: the same bytes on any
    /// thread count.
    pub fn add(&mut self, kind: &'static str, before: &[f32], after: &[f32]) {
        let cells = self.width * self.height;
        self.change.resize(cells, 0.0);
        self.change
            .par_iter_mut()
            .zip(before.par_iter().zip(after.par_iter()))
            .for_each(|(c, (&b, &a))| *c += a - b);
        self.stages.push(kind);
    }

    /// Adds one erosion stage (`kind`) that turned `before` into `after`
    /// and says it laid down `laid` (world units per cell): its
    /// deposition is that, not where `after` rose above `before`.
    pub fn add_laid_down(
        &mut self,
        kind: &'static str,
        before: &[f32],
        after: &[f32],
        laid: &[f32],
    ) {
        self.add(kind, before, after);
        let cells = self.width * self.height;
        self.laid.resize(cells, 0.0);
        self.tracked_change.resize(cells, 0.0);
        self.laid
            .par_iter_mut()
            .zip(self.tracked_change.par_iter_mut())
            .zip(laid.par_iter().zip(before.par_iter().zip(after.par_iter())))
            .for_each(|((l, t), (&d, (&b, &a)))| {
                *l += d;
                *t += a - b;
            });
    }

    /// The material laid down in each cell, world units: what the stages
    /// that track it laid down, plus where the others raised the map.
    pub fn deposited(&self) -> Vec<f32> {
        if self.laid.len() != self.change.len() {
            return self.change.par_iter().map(|&c| c.max(0.0)).collect();
        }
        self.change
            .par_iter()
            .zip(self.tracked_change.par_iter().zip(self.laid.par_iter()))
            .map(|(&c, (&t, &l))| (c - t).max(0.0) + l)
            .collect()
    }

    /// The material worn away from each cell, world units.
    pub fn worn(&self) -> Vec<f32> {
        self.change.par_iter().map(|&c| (-c).max(0.0)).collect()
    }

    /// The record with every cell present (zeros when no stage eroded).
    pub(crate) fn finished(mut self) -> Self {
        self.change.resize(self.width * self.height, 0.0);
        self
    }

    /// Cells west to east.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Cells north to south.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The change of each cell in world units, row-major (empty until a
    /// stage was added, when not from [`run_once_recording`](crate::pipeline::run_once_recording)).
    pub fn change(&self) -> &[f32] {
        &self.change
    }

    /// The kinds of the erosion stages that ran, in recipe order; empty
    /// when the recipe has none (enabled).
    pub fn stages(&self) -> &[&'static str] {
        &self.stages
    }
}

impl std::fmt::Debug for ErosionRecord {
    // A summary: the cells would fill a terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ErosionRecord")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("stages", &self.stages)
            .finish_non_exhaustive()
    }
}
