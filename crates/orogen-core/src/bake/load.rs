//! The flow's first half: a recipe from a preset or a file, an optional
//! imported start, and the checks that refuse it before any work is done.

use crate::io::height_files::{ByteOrder, ImportFormat};
use crate::params::ParamError;
use crate::presets;
use crate::recipe::{Recipe, RecipeError, StageEntry};
use crate::rng::stage_rng;
use crate::stages::{Import, Stage, StageContext, StageError};
use std::path::{Path, PathBuf};

/// Why a recipe could not be loaded (or started from a heightmap file).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A shipped preset that does not parse.
    #[error("preset {name}: {source}")]
    Preset {
        /// The preset's name.
        name: String,
        /// Why it does not parse.
        source: RecipeError,
    },
    /// No preset of that name, and no file that could be read.
    #[error(
        "cannot read recipe {name}: {source} (shipped presets: {})",
        preset_names()
    )]
    Read {
        /// The name or path as given.
        name: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The recipe file does not parse or validate.
    #[error("{}: {source}", .path.display())]
    Recipe {
        /// The recipe file.
        path: PathBuf,
        /// What is wrong with it.
        source: RecipeError,
    },
    /// The map side asked for is not a whole number.
    #[error("map side '{0}': expected a whole number of cells")]
    Side(String),
    /// The recipe resampled to the side asked for is out of range.
    #[error("{0}")]
    Resampled(#[source] ParamError),
    /// The heightmap file to start from could not be read.
    #[error("import: {0}")]
    Import(#[source] StageError),
}

fn preset_names() -> String {
    let names: Vec<&str> = presets::names().collect();
    names.join(", ")
}

/// When `name` is a shipped preset and also a file here, the preset wins:
/// a note says so, and how to read the file instead.
pub fn preset_shadows_file(name: &str) -> Option<String> {
    (presets::text(name).is_some() && Path::new(name).is_file()).then(|| {
        format!("'{name}' is a shipped preset; the file of that name is not read (give ./{name} to read it)")
    })
}

/// Loads a recipe from a shipped preset's name or a `.ron` file. Returns
/// it with the folder its relative paths (imports, tile images) resolve
/// against: the file's folder, or `None` for a preset.
pub fn load_recipe(name_or_path: &str) -> Result<(Recipe, Option<PathBuf>), LoadError> {
    if let Some(result) = presets::load(name_or_path) {
        return result
            .map(|r| (r, None))
            .map_err(|source| LoadError::Preset {
                name: name_or_path.to_string(),
                source,
            });
    }
    let path = Path::new(name_or_path);
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
        name: name_or_path.to_string(),
        source,
    })?;
    let recipe = Recipe::from_ron(&text).map_err(|source| LoadError::Recipe {
        path: path.to_path_buf(),
        source,
    })?;
    let base = path.parent().map(Path::to_path_buf);
    Ok((recipe, base))
}

/// [`load_recipe`], then resampled to `side` cells along the world's
/// longer side when one is given as text (a program's argument): only the
/// sampling changes, the world stays the same. A side that is not a whole
/// number, or that the recipe cannot run at, is refused in one line.
pub fn load_recipe_at(
    name_or_path: &str,
    side: Option<&str>,
) -> Result<(Recipe, Option<PathBuf>), LoadError> {
    let (mut recipe, base) = load_recipe(name_or_path)?;
    if let Some(side) = side {
        let cells: u32 = side
            .parse()
            .map_err(|_| LoadError::Side(side.to_string()))?;
        recipe = recipe.resampled(cells);
        recipe.validate().map_err(LoadError::Resampled)?;
    }
    Ok((recipe, base))
}

/// Makes `recipe` start from the heightmap in `file` (PNG, RAW16, float
/// OpenEXR or TIFF; float files give their true heights): an
/// import stage goes first and the map takes the file's size. The file is
/// read once here, so a bad file is refused before anything runs. Stages
/// that would overwrite the imported map (a Replace layer) are switched
/// off. Returns the reader's warnings (8-bit precision, say), each naming
/// the file, and one per stage switched off, beginning with the option's
/// name ([`UserOption::Import`](crate::UserOption)). `raw` describes a RAW16
/// file that has no orogen sidecar.
pub fn start_from_file(
    recipe: &mut Recipe,
    file: &Path,
    raw: RawLayout,
) -> Result<Vec<String>, LoadError> {
    // The stage re-reads the file when it runs; an absolute path keeps the
    // recipe valid wherever its copy (recipe.ron, the sidecar) is read.
    let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let stage = Import {
        path: absolute.to_string_lossy().into_owned(),
        format: match raw.byte_order {
            Some(ByteOrder::Le) => ImportFormat::Raw16Le,
            Some(ByteOrder::Be) => ImportFormat::Raw16Be,
            None => ImportFormat::Auto,
        },
        raw_width: raw.size.map(|(w, _)| w),
        raw_height: raw.size.map(|(_, h)| h),
        ..Import::default()
    };
    // Read as the stage will read it (a sidecar's byte order, RAW size).
    let (imported, reader_warnings) = stage
        .load(&StageContext::new(stage_rng(0, 0)))
        .map_err(LoadError::Import)?;
    let mut warnings: Vec<String> = reader_warnings
        .iter()
        .map(|w| format!("{}: {w}", file.display()))
        .collect();
    // A stage that overwrites the map would throw the file away: it is
    // switched off (and stays in the recipe, visibly off). Numbered as in
    // the recipe written with the export, the import first.
    for (index, entry) in recipe.stages.iter_mut().enumerate() {
        if entry.enabled && entry.stage.op().discards_input() {
            entry.enabled = false;
            warnings.push(format!(
                "import: stage {} ({}) would replace the imported map; it is switched off",
                index + 1,
                entry.stage.kind()
            ));
        }
    }
    recipe
        .stages
        .insert(0, StageEntry::new(Stage::Import(stage)));
    // The file's cells become the world's samples at the recipe's cell size.
    let cell = recipe.cell_size();
    recipe.set_sampling(imported.width() as u32, imported.height() as u32);
    recipe.extent = crate::recipe::Extent {
        x: (recipe.width.max(2) - 1) as f32 * cell,
        y: (recipe.height.max(2) - 1) as f32 * cell,
    };
    Ok(warnings)
}

/// What a RAW16 file cannot say of itself: its size (when not square)
/// and byte order. `None`: a square file, or the sidecar's; little-endian.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawLayout {
    /// Width and height in samples.
    pub size: Option<(u32, u32)>,
    /// The samples' byte order.
    pub byte_order: Option<ByteOrder>,
}

/// Validates `recipe` and checks its estimated memory against
/// `memory_limit` bytes. A front end shows a map too large with its own
/// remedy ([`RecipeError::with_remedy`]).
pub fn check_runnable(recipe: &mut Recipe, memory_limit: u64) -> Result<(), RecipeError> {
    recipe.validate()?;
    recipe.check_memory(memory_limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_load_without_a_base_folder() {
        let (recipe, base) = load_recipe("default").expect("the default preset loads");
        assert!(base.is_none());
        assert!(!recipe.stages.is_empty());
    }

    #[test]
    fn a_missing_file_names_the_presets() {
        let err = load_recipe("/nonexistent/orogen/recipe.ron").unwrap_err();
        assert!(
            matches!(&err, LoadError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
            "{err:?}"
        );
        let err = err.to_string();
        assert!(
            err.starts_with("cannot read recipe /nonexistent/orogen/recipe.ron: "),
            "{err}"
        );
        assert!(err.contains("eroded-mountains"), "{err}");
    }

    #[test]
    fn too_large_names_the_front_ends_remedy_only() {
        let (mut recipe, _) = load_recipe("default").expect("the default preset loads");
        let err = check_runnable(&mut recipe, 1 << 20).unwrap_err();
        assert!(
            matches!(err, RecipeError::TooLarge { width: 513, height: 513, limit_bytes, .. } if limit_bytes == 1 << 20),
            "{err:?}"
        );
        let message = err.with_remedy("choose a smaller size");
        assert!(
            message.ends_with("MiB (choose a smaller size)"),
            "{message}"
        );
        assert!(!message.contains("--"), "{message}");
    }
}
