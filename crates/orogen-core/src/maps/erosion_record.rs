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
