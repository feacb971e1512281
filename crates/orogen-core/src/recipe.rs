//! The recipe: size, seed and an ordered list of stages. Saved as RON.

use crate::params::{ParamError, ParamVisitor, Params, validate};
use crate::splat::TileSet;
use crate::stages::Stage;
use ron::extensions::Extensions;
use serde::{Deserialize, Serialize};

/// Smallest map side in cells.
pub const MIN_SIDE: u32 = 2;
/// Largest map side in cells (2^14 + 1).
pub const MAX_SIDE: u32 = 16_385;

/// One step of a recipe: a stage and whether it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageEntry {
    /// Whether the stage runs; a disabled one keeps its place and stream.
    pub enabled: bool,
    /// The algorithm and its parameters.
    pub stage: Stage,
}

impl StageEntry {
    /// An enabled entry for `stage`.
    pub fn new(stage: Stage) -> Self {
        Self {
            enabled: true,
            stage,
        }
    }
}

/// A map's whole description: size, seed, cell size, stages, texture tiles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Cells west to east.
    pub width: u32,
    /// Cells north to south.
    pub height: u32,
    /// Master seed; each stage's stream derives from it and the stage's index.
    pub seed: u64,
    /// World units between neighbouring cells (heights are world units too).
    pub cell_size: f32,
    /// The stages, run in order from a flat map at height 0.
    pub stages: Vec<StageEntry>,
    /// Texture layers and their height bands (absent = the default tiles).
    #[serde(default)]
    pub tiles: TileSet,
}

impl Default for Recipe {
    fn default() -> Self {
        Self {
            width: 513,
            height: 513,
            seed: 1,
            cell_size: 1.0,
            stages: Vec::new(),
            tiles: TileSet::default(),
        }
    }
}

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
}

fn ron_options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(Extensions::UNWRAP_VARIANT_NEWTYPES | Extensions::IMPLICIT_SOME)
}

/// Header fields of the recipe, visited like stage parameters.
struct Header<'a>(&'a mut Recipe);

impl Params for Header<'_> {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.int(
            "width",
            &mut self.0.width,
            MIN_SIDE..=MAX_SIDE,
            "Cells west to east.",
        );
        v.int(
            "height",
            &mut self.0.height,
            MIN_SIDE..=MAX_SIDE,
            "Cells north to south.",
        );
        v.float(
            "cell_size",
            &mut self.0.cell_size,
            0.001..=10_000.0,
            "World units between neighbouring cells.",
        );
    }
}

impl Recipe {
    /// Parses and validates RON text. Errors are one line naming the field.
    pub fn from_ron(text: &str) -> Result<Recipe, RecipeError> {
        let mut recipe: Recipe = ron_options().from_str(text).map_err(|e| {
            RecipeError::Syntax(format!(
                "line {}, column {}: {}",
                e.span.start.line, e.span.start.col, e.code
            ))
        })?;
        recipe.validate()?;
        Ok(recipe)
    }

    /// The recipe as pretty-printed RON, as saved to a recipe file.
    pub fn to_ron(&self) -> Result<String, String> {
        let pretty = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .extensions(Extensions::UNWRAP_VARIANT_NEWTYPES | Extensions::IMPLICIT_SOME);
        ron_options()
            .to_string_pretty(self, pretty)
            .map_err(|e| format!("cannot write recipe: {e}"))
    }

    /// Checks every range and relation; the error names the field.
    pub fn validate(&mut self) -> Result<(), ParamError> {
        validate(&mut Header(self), "")?;
        for (i, entry) in self.stages.iter_mut().enumerate() {
            let prefix = format!("stages[{i}]({})", entry.stage.kind());
            validate(&mut entry.stage, &prefix)?;
        }
        self.tiles.validate()
    }

    /// Clamps the header into range (for the viewer); stages clamp through
    /// [`crate::params::clamp_all`].
    pub fn header_params(&mut self) -> impl Params + '_ {
        Header(self)
    }

    /// Number of cells, `width * height`.
    pub fn cells(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Rough peak memory of generating this recipe: the per-stage outputs
    /// kept for the stage-by-stage view plus working copies.
    pub fn estimated_peak_bytes(&self) -> u64 {
        let map = self.cells() as u64 * 4;
        let enabled = self.stages.iter().filter(|s| s.enabled).count() as u64;
        map * (enabled + 4)
    }

    /// Refuses recipes whose estimated peak exceeds `limit` bytes.
    pub fn check_memory(&self, limit: u64) -> Result<(), RecipeError> {
        let need = self.estimated_peak_bytes();
        if need > limit {
            return Err(RecipeError::TooLarge(format!(
                "a {}x{} map with {} stages needs about {} MiB, over the limit of {} MiB",
                self.width,
                self.height,
                self.stages.len(),
                need >> 20,
                limit >> 20
            )));
        }
        Ok(())
    }
}

/// Default memory limit: half the machine's memory (or 4 GiB if unknown).
pub fn default_memory_limit() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024);
    total.map(|t| t / 2).unwrap_or(4 << 30)
}
