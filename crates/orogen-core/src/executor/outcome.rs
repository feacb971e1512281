//! What a run of stages reports: each stage's result, why it stopped,
//! and the hooks that cancel it or show its progress.

use crate::heightmap::Heightmap;
use crate::stages::StageError;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One stage's result.
#[derive(Clone, Debug)]
pub struct StageOutput {
    /// The stage's kebab-case kind (`blur`, `hydraulic-erosion`, ...).
    pub kind: &'static str,
    /// Whether the stage ran; a disabled stage passes its input map through.
    pub enabled: bool,
    /// Milliseconds this stage took when it last ran.
    pub millis: f64,
    /// Whether this run computed it (false = reused from the cache).
    pub reran: bool,
    /// The map after this stage (its input map when the stage is disabled).
    pub map: Arc<Heightmap>,
    /// What the stage said it laid down (world units per cell), when it
    /// tracks that (fluvial erosion with deposition on).
    pub laid_down: Option<Arc<[f32]>>,
}

/// Why a run stopped before producing a map.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PipelineError {
    /// A stage could not run, or its heights overflowed to infinity or NaN.
    #[error("stage {index} ({kind}): {error}")]
    Stage {
        /// The stage's position in the recipe, from 0.
        index: usize,
        /// The stage's kebab-case kind.
        kind: &'static str,
        /// What went wrong.
        error: StageError,
    },
    /// The run's cancel flag was set; the stages finished so far stay cached.
    #[error("cancelled")]
    Cancelled,
}

/// Hooks for a run: cancellation and progress.
#[derive(Default)]
pub struct RunHooks<'a> {
    /// Set to true to stop the run before its next stage.
    pub cancel: Option<&'a AtomicBool>,
    /// Called before each stage with (index, count).
    pub progress: Option<&'a mut dyn FnMut(usize, usize)>,
}

impl RunHooks<'_> {
    /// Before stage `index` of `count`: stops a cancelled run, reports progress.
    pub(crate) fn before_stage(&mut self, index: usize, count: usize) -> Result<(), PipelineError> {
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(PipelineError::Cancelled);
        }
        if let Some(progress) = self.progress.as_mut() {
            progress(index, count);
        }
        Ok(())
    }
}
