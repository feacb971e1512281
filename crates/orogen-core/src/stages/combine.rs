//! How a generated layer is merged into the map beneath it.

use crate::params::Choice;
use serde::{Deserialize, Serialize};

/// How a stage's generated layer merges with the map so far, cell by cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Combine {
    /// The layer replaces the map.
    Replace,
    /// The layer is added to the map.
    Add,
    /// The layer is subtracted from the map.
    Subtract,
    /// The map is multiplied by the layer.
    Multiply,
    /// The higher of map and layer is kept.
    Max,
    /// The lower of map and layer is kept.
    Min,
}

impl Combine {
    /// The merged height of a cell that was `below` and receives `layer`.
    #[inline]
    pub fn apply(self, below: f32, layer: f32) -> f32 {
        match self {
            Combine::Replace => layer,
            Combine::Add => below + layer,
            Combine::Subtract => below - layer,
            Combine::Multiply => below * layer,
            Combine::Max => below.max(layer),
            Combine::Min => below.min(layer),
        }
    }

    /// Merges `layer` into `map` cell by cell.
    pub fn merge(self, map: &mut [f32], layer: &[f32]) {
        if self == Combine::Replace {
            map.copy_from_slice(layer);
            return;
        }
        for (m, &l) in map.iter_mut().zip(layer) {
            *m = self.apply(*m, l);
        }
    }
}

impl Choice for Combine {
    const ALL: &'static [Self] = &[
        Combine::Replace,
        Combine::Add,
        Combine::Subtract,
        Combine::Multiply,
        Combine::Max,
        Combine::Min,
    ];
    fn label(self) -> &'static str {
        match self {
            Combine::Replace => "Replace",
            Combine::Add => "Add",
            Combine::Subtract => "Subtract",
            Combine::Multiply => "Multiply",
            Combine::Max => "Max",
            Combine::Min => "Min",
        }
    }
}

/// The help text every stage shows for its `combine` parameter.
pub const COMBINE_HELP: &str = "How this layer merges with the map so far: Replace discards it, Add/Subtract/Multiply combine cell by cell, Max/Min keep the higher/lower value.";
