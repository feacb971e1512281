//! Why a recipe cannot be read, checked or written.

use crate::params::ParamError;

/// A recipe file that cannot be used, in one line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecipeError {
    /// Not a well-formed recipe; the message gives the line and column.
    #[error("{0}")]
    Syntax(String),
    /// A field is out of range or inconsistent; the message names it.
    #[error("{0}")]
    Invalid(#[from] ParamError),
    /// The map would need more memory than the limit allows.
    #[error("{0}")]
    TooLarge(String),
    /// The recipe could not be written as RON (saving it).
    #[error("cannot write recipe: {0}")]
    Save(String),
}
