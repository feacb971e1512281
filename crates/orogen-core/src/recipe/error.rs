//! Why a recipe cannot be read, checked or written.

use crate::params::ParamError;

/// A recipe file that cannot be used, in one line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecipeError {
    /// Not a well-formed recipe, at `line` and `column` (from 1).
    #[error("line {line}, column {column}: {reason}")]
    Syntax {
        /// The line of the first error.
        line: usize,
        /// Its column.
        column: usize,
        /// What the RON reader expected there.
        reason: ron::Error,
    },
    /// A field is out of range or inconsistent; the message names it.
    #[error("{0}")]
    Invalid(#[from] ParamError),
    /// The map would need more memory than the limit allows.
    #[error(
        "a {width}x{height} map with {stages} stages needs about {} MiB, over the limit of {} MiB",
        .need_bytes >> 20,
        .limit_bytes >> 20
    )]
    TooLarge {
        /// Cells west to east.
        width: u32,
        /// Cells north to south.
        height: u32,
        /// The recipe's stage count.
        stages: usize,
        /// The estimated peak, in bytes.
        need_bytes: u64,
        /// The limit it is over, in bytes.
        limit_bytes: u64,
    },
    /// The recipe could not be written as RON (saving it).
    #[error("cannot write recipe: {0}")]
    Save(ron::Error),
}

impl RecipeError {
    /// The one-line message, ending with `(remedy)` when the map is too
    /// large: how the front end showing it raises the limit or shrinks
    /// the map.
    pub fn with_remedy(&self, remedy: &str) -> String {
        match self {
            RecipeError::TooLarge { .. } => format!("{self} ({remedy})"),
            _ => self.to_string(),
        }
    }
}
