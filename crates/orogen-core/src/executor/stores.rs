//! The stores that keep no per-stage history: one map changed in place,
//! and the same cropped to each stage's window.

use super::StageStore;
use crate::heightmap::Heightmap;
use crate::hugepages::{lazily_zeroed_f32, zeroed_in_parallel};
use crate::recipe::StageEntry;
use crate::world_window::WorldWindow;

/// Maps from this size up start as lazily zeroed huge pages.
const LAZY_MAP_BYTES: usize = 64 << 20;

/// One map that every stage changes in place, and each stage's time.
pub(crate) struct InPlace {
    map: Option<Heightmap>,
    /// Milliseconds per stage, by index (0 for a stage switched off).
    pub millis: Vec<f64>,
}

impl InPlace {
    /// A flat `width x height` start for `stages` stages.
    ///
    /// Large maps: the kernel's zero pages on huge pages, touched first by
    /// the stages' own threads (one fault per 2 MiB, no clearing pass).
    /// Smaller maps are mostly outside whole huge pages, where a stage that
    /// reads before it writes (hills) would pay a copy-on-write fault and
    /// a TLB shootdown per 4 KiB: they are cleared by all threads first,
    /// which also starts the thread pool before any stage's clock.
    pub fn flat(width: usize, height: usize, stages: usize) -> Self {
        let cells = width * height;
        let data = if cells * std::mem::size_of::<f32>() >= LAZY_MAP_BYTES {
            lazily_zeroed_f32(cells)
        } else {
            zeroed_in_parallel(cells)
        };
        let map = Heightmap::from_vec(width, height, data)
            .unwrap_or_else(|| Heightmap::new(width, height));
        Self {
            map: Some(map),
            millis: vec![0.0; stages],
        }
    }

    /// The map the stages left.
    pub fn into_map(self) -> Heightmap {
        self.map.unwrap_or_else(|| Heightmap::new(0, 0))
    }
}

impl StageStore for InPlace {
    fn take(&mut self, _index: usize) -> Heightmap {
        self.map.take().unwrap_or_else(|| Heightmap::new(0, 0))
    }

    fn put(&mut self, index: usize, _entry: &StageEntry, map: Heightmap, millis: f64) {
        self.map = Some(map);
        self.millis[index] = millis;
    }

    fn pass(&mut self, _index: usize, _entry: &StageEntry) {}
}

/// One map that each stage computes over its own window of the world
/// (the window the later stages need), cropped between stages.
pub(crate) struct Windowed {
    map: Option<Heightmap>,
    /// Stage `i`'s input window; the last entry is the run's own window.
    inputs: Vec<WorldWindow>,
}

impl Windowed {
    /// A flat start for stage `start`, whose input window is
    /// `inputs[start]`.
    pub fn flat(inputs: Vec<WorldWindow>, start: usize) -> Self {
        let first = inputs[start].window;
        Self {
            map: Some(Heightmap::new(first.width, first.height)),
            inputs,
        }
    }

    /// The map the stages left, over the run's window.
    pub fn into_map(self) -> Heightmap {
        self.map.unwrap_or_else(|| Heightmap::new(0, 0))
    }

    fn crop_after(&mut self, index: usize, map: Heightmap) {
        self.map = Some(self.inputs[index + 1].crop_of(&self.inputs[index], &map));
    }
}

impl StageStore for Windowed {
    fn take(&mut self, _index: usize) -> Heightmap {
        self.map.take().unwrap_or_else(|| Heightmap::new(0, 0))
    }

    fn put(&mut self, index: usize, _entry: &StageEntry, map: Heightmap, _millis: f64) {
        self.crop_after(index, map);
    }

    fn pass(&mut self, index: usize, _entry: &StageEntry) {
        if let Some(map) = self.map.take() {
            self.crop_after(index, map);
        }
    }
}
