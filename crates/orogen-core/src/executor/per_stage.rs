//! The store that keeps every stage's map: the viewer's cache, from
//! which an edit re-runs only the stages from the first one it changed.

use super::{StageOutput, StageStore};
use crate::heightmap::Heightmap;
use crate::recipe::StageEntry;
use crate::stages::Stage;
use crate::stages::mask::MaskSource;
use std::path::Path;
use std::sync::Arc;

/// One stage's cached result and what it was computed from.
#[derive(Clone)]
pub(crate) struct Cached {
    pub entry: StageEntry,
    /// The files the stage read (an import, a mask image) as they were:
    /// a file changed on disk re-runs the stage though the recipe did not.
    pub files: Vec<FileStamp>,
    pub output: StageOutput,
}

/// A file's size and modification time, or that it could not be read
/// (`None`): cheap to take on every run, where a content hash would read
/// megabytes.
pub(crate) type FileStamp = Option<(u64, std::time::SystemTime)>;

/// The stamps of the files `entry` reads, resolved in `base_dir`.
pub(crate) fn file_stamps(entry: &StageEntry, base_dir: Option<&Path>) -> Vec<FileStamp> {
    let mut paths: Vec<&str> = Vec::new();
    if let Stage::Import(import) = &entry.stage {
        paths.push(&import.path);
    }
    for (_, map) in entry.maps() {
        if let MaskSource::Image(path) = &map.source {
            paths.push(path);
        }
    }
    paths
        .into_iter()
        .map(|path| {
            let path = Path::new(path);
            let full = match base_dir {
                Some(base) if path.is_relative() => base.join(path),
                _ => path.to_path_buf(),
            };
            let meta = std::fs::metadata(full).ok()?;
            Some((meta.len(), meta.modified().ok()?))
        })
        .collect()
}

/// Appends each stage's map to a cache, and gives the next stage a copy
/// of the last one.
pub(crate) struct PerStage<'c> {
    cache: &'c mut Vec<Cached>,
    base_dir: Option<&'c Path>,
    /// The map after the last cached stage.
    current: Arc<Heightmap>,
    /// The stamps of the files the running stage reads, taken before it
    /// reads them: a file changed while it runs is read again next time.
    files: Vec<FileStamp>,
}

impl<'c> PerStage<'c> {
    /// Continues `cache` (already cut to the stages that stay), or starts
    /// from a flat `width x height` map when it is empty.
    pub fn continuing(
        cache: &'c mut Vec<Cached>,
        base_dir: Option<&'c Path>,
        width: usize,
        height: usize,
    ) -> Self {
        let current = match cache.last() {
            Some(c) => c.output.map.clone(),
            None => Arc::new(Heightmap::new(width, height)),
        };
        Self {
            cache,
            base_dir,
            current,
            files: Vec::new(),
        }
    }

    /// The map after the last stage.
    pub fn current(&self) -> Arc<Heightmap> {
        self.current.clone()
    }

    fn push(&mut self, entry: &StageEntry, millis: f64) {
        self.cache.push(Cached {
            entry: entry.clone(),
            files: std::mem::take(&mut self.files),
            output: StageOutput {
                kind: entry.stage.kind(),
                enabled: entry.enabled,
                millis,
                reran: true,
                map: self.current.clone(),
                laid_down: None,
            },
        });
    }
}

impl StageStore for PerStage<'_> {
    fn begin(&mut self, _index: usize, entry: &StageEntry) {
        self.files = file_stamps(entry, self.base_dir);
    }

    fn take(&mut self, _index: usize) -> Heightmap {
        self.current.parallel_copy()
    }

    fn put(&mut self, _index: usize, entry: &StageEntry, map: Heightmap, millis: f64) {
        self.current = Arc::new(map);
        self.push(entry, millis);
    }

    fn pass(&mut self, _index: usize, entry: &StageEntry) {
        self.push(entry, 0.0);
    }
}
