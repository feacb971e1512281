//! The recipe: a world (its extent in world units), how densely it is
//! sampled (the map size), a seed, an ordered list of stages. Saved as RON.
//!
//! Lengths in stages are world units or fractions of the extent, so the
//! same recipe at 129² or 8193² describes the same landscape; a larger
//! size only adds detail. Recipes of the older cell-based format
//! (`width`, `height`, `cell_size`) load as the world they sampled,
//! extent `(w − 1)·cell_size`, see [`crate::recipe::legacy`].

pub mod docs;
pub mod error;
pub mod legacy;
pub mod painted_files;

pub use error::RecipeError;

use crate::params::{ParamError, ParamVisitor, Params, validate};
use crate::splat::TileSet;
use crate::stages::Stage;
use crate::stages::mask::StageMask;
use ron::extensions::Extensions;
use serde::{Deserialize, Serialize};

/// Smallest map side in cells.
pub const MIN_SIDE: u32 = 2;
/// Largest map side in cells (2^16 + 1): the world a set of windows can
/// sample (a whole map that size is refused by the memory check on most
/// machines; its windows are not).
pub const MAX_SIDE: u32 = 65_537;

/// One step of a recipe: a stage and whether it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageEntry {
    /// Whether the stage runs; a disabled one keeps its place and stream.
    pub enabled: bool,
    /// The algorithm and its parameters.
    pub stage: Stage,
    /// Where the stage acts (optional; everywhere when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<StageMask>,
}

impl StageEntry {
    /// An enabled entry for `stage`, unmasked.
    pub fn new(stage: Stage) -> Self {
        Self {
            enabled: true,
            stage,
            mask: None,
        }
    }

    /// The place of map `slot` in this entry, `None` when its stage takes
    /// no such map (the mask's place is in every entry).
    pub fn map_slot_mut(&mut self, slot: MapSlot) -> Option<&mut Option<StageMask>> {
        match (slot, &mut self.stage) {
            (MapSlot::Mask, _) => Some(&mut self.mask),
            (MapSlot::Uplift, Stage::FluvialErosion(f)) => Some(&mut f.uplift_map),
            (MapSlot::Hardness, Stage::FluvialErosion(f)) => Some(&mut f.hardness_map),
            _ => None,
        }
    }

    /// Map `slot` of this entry, if it is set.
    pub fn map(&self, slot: MapSlot) -> Option<&StageMask> {
        match (slot, &self.stage) {
            (MapSlot::Mask, _) => self.mask.as_ref(),
            (MapSlot::Uplift, Stage::FluvialErosion(f)) => f.uplift_map.as_ref(),
            (MapSlot::Hardness, Stage::FluvialErosion(f)) => f.hardness_map.as_ref(),
            _ => None,
        }
    }

    /// Every map this entry sets: its mask and its stage's input maps.
    pub fn maps(&self) -> impl Iterator<Item = (MapSlot, &StageMask)> {
        MapSlot::ALL
            .into_iter()
            .filter_map(|slot| self.map(slot).map(|m| (slot, m)))
    }

    /// Every map this entry sets, to edit.
    pub fn maps_mut(&mut self) -> impl Iterator<Item = (MapSlot, &mut StageMask)> {
        let (uplift, hardness) = match &mut self.stage {
            Stage::FluvialErosion(f) => (f.uplift_map.as_mut(), f.hardness_map.as_mut()),
            _ => (None, None),
        };
        [
            (MapSlot::Mask, self.mask.as_mut()),
            (MapSlot::Uplift, uplift),
            (MapSlot::Hardness, hardness),
        ]
        .into_iter()
        .filter_map(|(slot, map)| map.map(|m| (slot, m)))
    }
}

/// Where a grey map over the world sits in a recipe entry: the entry's
/// mask (where the stage acts), or a map its stage reads (where fluvial
/// erosion's land rises, where its rock is hard). All are
/// [`StageMask`]s: derived from the input, an image, or painted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapSlot {
    /// The entry's mask.
    Mask,
    /// Fluvial erosion's `uplift_map`.
    Uplift,
    /// Fluvial erosion's `hardness_map`.
    Hardness,
}

impl MapSlot {
    /// Every slot, in the order the recipe lists them.
    pub const ALL: [MapSlot; 3] = [MapSlot::Mask, MapSlot::Uplift, MapSlot::Hardness];

    /// The field's name in the recipe file.
    pub fn field(self) -> &'static str {
        match self {
            MapSlot::Mask => "mask",
            MapSlot::Uplift => "uplift_map",
            MapSlot::Hardness => "hardness_map",
        }
    }

    /// The word a painted map of this slot is saved under beside the
    /// recipe (`valley.uplift-3.png`).
    pub fn file_word(self) -> &'static str {
        match self {
            MapSlot::Mask => "mask",
            MapSlot::Uplift => "uplift",
            MapSlot::Hardness => "hardness",
        }
    }
}

/// The world's size in world units, west to east (`x`) and north to
/// south (`y`). Heights are world units too.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extent {
    /// West to east, world units.
    pub x: f32,
    /// North to south, world units.
    pub y: f32,
}

impl Extent {
    /// The longer side: noise frequencies and the diamond-square lattice
    /// are fractions of it.
    pub fn longer(&self) -> f32 {
        self.x.max(self.y)
    }
}

/// How densely the world is sampled: cells west to east and north to south.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Size {
    /// Cells west to east.
    pub width: u32,
    /// Cells north to south.
    pub height: u32,
}

/// A map's whole description: the world, its sampling, seed, stages and
/// texture tiles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RecipeFile", into = "RecipeFile")]
pub struct Recipe {
    /// Cells west to east (the sampling, not the world).
    pub width: u32,
    /// Cells north to south.
    pub height: u32,
    /// The world the cells sample, in world units.
    pub extent: Extent,
    /// Master seed; each stage's stream derives from it and the stage's index.
    pub seed: u64,
    /// The stages, run in order from a flat map at height 0.
    pub stages: Vec<StageEntry>,
    /// Texture layers and their height bands (absent = the default tiles).
    pub tiles: TileSet,
    /// Set when the file was in the cell-based format and was converted
    /// on load (not saved; saving writes the world format).
    pub converted_from_cells: bool,
}

impl Default for Recipe {
    fn default() -> Self {
        Self {
            width: 513,
            height: 513,
            extent: Extent { x: 512.0, y: 512.0 },
            seed: 1,
            stages: Vec::new(),
            tiles: TileSet::default(),
            converted_from_cells: false,
        }
    }
}

/// The recipe as written in a file: the world format (`extent`, `size`)
/// or the older cell-based one (`width`, `height`, `cell_size`).
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extent: Option<Extent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    height: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cell_size: Option<f32>,
    seed: u64,
    stages: Vec<StageEntry>,
    #[serde(default)]
    tiles: TileSet,
}

impl From<Recipe> for RecipeFile {
    fn from(r: Recipe) -> Self {
        RecipeFile {
            extent: Some(r.extent),
            size: Some(Size {
                width: r.width,
                height: r.height,
            }),
            width: None,
            height: None,
            cell_size: None,
            seed: r.seed,
            stages: r.stages,
            tiles: r.tiles,
        }
    }
}

impl TryFrom<RecipeFile> for Recipe {
    type Error = String;

    fn try_from(f: RecipeFile) -> Result<Self, String> {
        let legacy = f.width.is_some() || f.height.is_some() || f.cell_size.is_some();
        let mut recipe = Recipe {
            width: 0,
            height: 0,
            extent: Extent { x: 0.0, y: 0.0 },
            seed: f.seed,
            stages: f.stages,
            tiles: f.tiles,
            converted_from_cells: legacy,
        };
        match (f.extent, f.size, legacy) {
            (Some(extent), Some(size), false) => {
                recipe.extent = extent;
                recipe.width = size.width;
                recipe.height = size.height;
            }
            (None, None, true) => {
                let (Some(width), Some(height)) = (f.width, f.height) else {
                    return Err("a cell-based recipe needs both width and height".into());
                };
                let cell_size = f.cell_size.unwrap_or(1.0);
                let (x, y) = crate::recipe::legacy::convert(
                    recipe.stages.iter_mut().map(|e| &mut e.stage),
                    width,
                    height,
                    cell_size,
                )
                .map_err(|e| e.to_string())?;
                recipe.width = width;
                recipe.height = height;
                recipe.extent = Extent { x, y };
            }
            (_, _, true) => {
                return Err(
                    "give either extent and size, or the older width, height and cell_size, not both"
                        .into(),
                );
            }
            (None, _, false) => return Err("missing field `extent` (the world's size in world units, e.g. extent: (x: 1024.0, y: 1024.0))".into()),
            (_, None, false) => return Err("missing field `size` (the sampling in cells, e.g. size: (width: 513, height: 513))".into()),
        }
        let cell_size = recipe.cell_size();
        if crate::recipe::legacy::convert_cell_fields(
            recipe.stages.iter_mut().map(|e| &mut e.stage),
            cell_size,
        )
        .map_err(|e| e.to_string())?
        {
            recipe.converted_from_cells = true;
        }
        Ok(recipe)
    }
}

fn ron_options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(Extensions::UNWRAP_VARIANT_NEWTYPES | Extensions::IMPLICIT_SOME)
}

/// Header fields of the recipe, visited like stage parameters.
struct Header<'a>(&'a mut Recipe);

impl Params for Header<'_> {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.float(
            "extent.x",
            &mut self.0.extent.x,
            0.001..=100_000_000.0,
            "The world's size west to east, in world units. Lengths in the stages are world units or fractions of this.",
        );
        v.float(
            "extent.y",
            &mut self.0.extent.y,
            0.001..=100_000_000.0,
            "The world's size north to south, in world units.",
        );
        v.int(
            "size.width",
            &mut self.0.width,
            MIN_SIDE..=MAX_SIDE,
            "Cells west to east: how densely the world is sampled. More cells add detail, not land.",
        );
        v.int(
            "size.height",
            &mut self.0.height,
            MIN_SIDE..=MAX_SIDE,
            "Cells north to south.",
        );
    }
}

impl Recipe {
    /// Parses and validates RON text. Errors are one line naming the field.
    pub fn from_ron(text: &str) -> Result<Recipe, RecipeError> {
        let mut recipe: Recipe = ron_options()
            .from_str(text)
            .map_err(|e| RecipeError::Syntax {
                line: e.span.start.line,
                column: e.span.start.col,
                reason: e.code,
            })?;
        recipe.validate()?;
        Ok(recipe)
    }

    /// The recipe as pretty-printed RON, as saved to a recipe file.
    pub fn to_ron(&self) -> Result<String, RecipeError> {
        let pretty = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .extensions(Extensions::UNWRAP_VARIANT_NEWTYPES | Extensions::IMPLICIT_SOME);
        ron_options()
            .to_string_pretty(self, pretty)
            .map_err(RecipeError::Save)
    }

    /// Checks every range and relation; the error names the field.
    pub fn validate(&mut self) -> Result<(), ParamError> {
        validate(&mut Header(self), "")?;
        self.check_square_cells()?;
        for (i, entry) in self.stages.iter_mut().enumerate() {
            let prefix = format!("stages[{i}]({})", entry.stage.kind());
            validate(&mut entry.stage, &prefix)?;
            for (slot, map) in entry.maps() {
                map.validate(&format!("{prefix}.{}", slot.field()))?;
            }
        }
        self.tiles.validate()
    }

    /// Cells are square: the size must sample both sides of the extent at
    /// the same spacing, within half a cell.
    fn check_square_cells(&self) -> Result<(), ParamError> {
        let cell = self.cell_size();
        let rows = self.extent.y / cell;
        if (rows - (self.height - 1) as f32).abs() > 0.5 {
            let (w, h) = self.sampling_for(self.width.max(self.height));
            return Err(ParamError {
                path: "size".into(),
                message: format!(
                    "{}x{} does not sample the {}x{} extent with square cells; try {w}x{h}",
                    self.width, self.height, self.extent.x, self.extent.y
                ),
            });
        }
        Ok(())
    }

    /// Clamps the header into range (for the viewer); stages clamp through
    /// [`crate::params::clamp_all`].
    pub fn header_params(&mut self) -> impl Params + '_ {
        Header(self)
    }

    /// World units between neighbouring cells: the extent over the
    /// sampling.
    pub fn cell_size(&self) -> f32 {
        self.extent.x / (self.width.max(2) - 1) as f32
    }

    /// The size (width, height) that samples this world with `side` cells
    /// along its longer side and square cells.
    /// `side` itself is kept as given (validation refuses it if out of
    /// range); the other side is at least [`MIN_SIDE`].
    pub fn sampling_for(&self, side: u32) -> (u32, u32) {
        let other = |long: f32, short: f32| {
            (((side.max(1) - 1) as f32 * short / long).round() as u32 + 1).clamp(MIN_SIDE, MAX_SIDE)
        };
        if self.extent.x >= self.extent.y {
            (side, other(self.extent.x, self.extent.y))
        } else {
            (other(self.extent.y, self.extent.x), side)
        }
    }

    /// Samples the same world with `width x height` cells (validation
    /// then checks that the cells are square).
    pub fn set_sampling(&mut self, width: u32, height: u32) {
        self.width = width;
        self.height = height;
    }

    /// One line for a recipe that was read in the cell-based format.
    pub fn conversion_note(&self) -> Option<String> {
        self.converted_from_cells.then(|| {
            format!(
                "read a cell-based recipe (width, height, cell_size) as a world of {} x {} units sampled at {}x{}; lengths are now world units, and saving writes the world format (extent, size)",
                self.extent.x, self.extent.y, self.width, self.height
            )
        })
    }

    /// The same world sampled with `side` cells along its longer side.
    pub fn resampled(&self, side: u32) -> Recipe {
        let (width, height) = self.sampling_for(side);
        Recipe {
            width,
            height,
            ..self.clone()
        }
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

    /// Rough peak memory of a `width × height` splat texture export with
    /// `tiles` tiles on top of the map: the colour texture, the RGBA weight
    /// map, one weight map per tile and working rows (about 16 bytes a
    /// texel with 4 tiles, measured at 2048² and 4096²).
    pub fn estimated_texture_bytes(width: usize, height: usize, tiles: usize) -> u64 {
        (width * height) as u64 * (12 + tiles as u64)
    }

    /// Refuses recipes whose estimated peak exceeds `limit` bytes.
    pub fn check_memory(&self, limit: u64) -> Result<(), RecipeError> {
        let need = self.estimated_peak_bytes();
        if need > limit {
            return Err(RecipeError::TooLarge {
                width: self.width,
                height: self.height,
                stages: self.stages.len(),
                need_bytes: need,
                limit_bytes: limit,
            });
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
