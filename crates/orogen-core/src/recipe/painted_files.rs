//! A recipe's painted maps as files beside it: what a save or an export
//! writes, and the recipe that names those files.

use crate::io::atomic::write_atomic;
use crate::recipe::Recipe;
use crate::stages::mask::MaskSource;
use crate::stages::mask::painted::{PaintedMaskError, resolve};
use std::path::{Path, PathBuf};

/// The file name of stage `index`'s painted map beside the recipe file
/// `recipe_path`, `word` naming its slot (the recipe's
/// `MapSlot::file_word`): `<recipe stem>.mask-<index>.png` for its mask,
/// `<recipe stem>.uplift-<index>.png` for its uplift map, and so on.
pub fn file_beside(recipe_path: &Path, index: usize, word: &str) -> String {
    let stem = recipe_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "recipe".into());
    format!("{stem}.{word}-{index}.png")
}

/// A file's name and bytes.
pub type NamedFile = (String, Vec<u8>);

/// The PNG of every painted mask of `recipe`, named as it goes beside
/// `recipe_path` (`(file name, bytes)`), and the recipe naming those files:
/// what a save or an export writes. Images come from memory, else from
/// their files in `base_dir`; a mask that cannot be found or fails its
/// hash is an error.
pub fn copies_beside(
    recipe: &Recipe,
    recipe_path: &Path,
    base_dir: Option<&Path>,
) -> Result<(Recipe, Vec<NamedFile>), PaintedMaskError> {
    let mut saved = recipe.clone();
    let mut files = Vec::new();
    for (index, entry) in saved.stages.iter_mut().enumerate() {
        for (slot, map) in entry.maps_mut() {
            let MaskSource::Painted(painted) = &mut map.source else {
                continue;
            };
            let image = resolve(painted, base_dir)?;
            let name = file_beside(recipe_path, index, slot.file_word());
            files.push((name.clone(), image.to_png()));
            painted.file = name;
        }
    }
    Ok((saved, files))
}

/// Writes every painted mask of `recipe` beside `recipe_path` (each
/// atomically), and returns the recipe with their file names set, ready to
/// be written there itself. Images come from memory, else from their files
/// in `base_dir`; a mask that cannot be found or fails its hash stops the
/// save before anything is written.
pub fn save_beside(
    recipe: &Recipe,
    recipe_path: &Path,
    base_dir: Option<&Path>,
) -> Result<Recipe, PaintedMaskError> {
    let dir = recipe_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (saved, named) = copies_beside(recipe, recipe_path, base_dir)?;
    let files: Vec<(PathBuf, Vec<u8>)> = named
        .into_iter()
        .map(|(name, bytes)| (dir.join(name), bytes))
        .collect();
    for (path, bytes) in &files {
        write_atomic(path, bytes).map_err(|source| PaintedMaskError::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(saved)
}
