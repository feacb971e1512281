//! Takes a run's [`ErosionRecord`] by watching its stages.

use super::StageObserver;
use crate::heightmap::Heightmap;
use crate::maps::ErosionRecord;
use crate::recipe::StageEntry;
use rayon::prelude::*;

/// Watches a run and adds each stage that moves material to a record.
pub(crate) struct Recording<'r> {
    record: &'r mut ErosionRecord,
    /// The map before the running erosion stage, reused by every one.
    before: Vec<f32>,
}

impl<'r> Recording<'r> {
    /// Adds to `record`.
    pub fn into(record: &'r mut ErosionRecord) -> Self {
        Self {
            record,
            before: Vec::new(),
        }
    }
}

impl StageObserver for Recording<'_> {
    fn before(&mut self, _index: usize, entry: &StageEntry, map: &Heightmap) {
        if entry.stage.op().moves_material() {
            self.before.resize(map.data().len(), 0.0);
            self.before
                .par_iter_mut()
                .zip(map.data().par_iter())
                .for_each(|(b, &h)| *b = h);
        }
    }

    fn after(
        &mut self,
        _index: usize,
        entry: &StageEntry,
        map: &Heightmap,
        laid_down: Option<&[f32]>,
    ) {
        if entry.stage.op().moves_material() {
            let kind = entry.stage.kind();
            match laid_down {
                Some(laid) if laid.len() == map.data().len() => {
                    self.record
                        .add_laid_down(kind, &self.before, map.data(), laid)
                }
                _ => self.record.add(kind, &self.before, map.data()),
            }
        }
    }
}

/// Keeps what each stage that tracks its deposits said it laid down, by
/// stage index: a [`crate::pipeline::Pipeline`] run keeps them with the
/// stages' maps, so its erosion record equals the one taken as it runs.
#[derive(Default)]
pub(crate) struct LaidDownByStage(pub Vec<(usize, std::sync::Arc<[f32]>)>);

impl StageObserver for LaidDownByStage {
    fn after(
        &mut self,
        index: usize,
        _entry: &StageEntry,
        _map: &Heightmap,
        laid_down: Option<&[f32]>,
    ) {
        if let Some(laid) = laid_down {
            self.0.push((index, laid.into()));
        }
    }
}
