//! How a generated layer is merged into the map beneath it.

use crate::params::Choice;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Combine {
    Replace,
    Add,
    Subtract,
    Multiply,
    Max,
    Min,
}

impl Combine {
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

pub const COMBINE_HELP: &str = "How this layer merges with the map so far: Replace discards it, Add/Subtract/Multiply combine cell by cell, Max/Min keep the higher/lower value.";
