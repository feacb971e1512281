//! Core errors in the command line's words: the core names an option in
//! plain words (`engine 'cry': …`), and here the flag that sets it takes
//! that name's place (`--engine 'cry': …`).

use orogen_core::bake::LoadError;
use orogen_core::io::height_files::ImportError;
use orogen_core::maps::MapListError;
use orogen_core::stages::StageError;
use orogen_core::{ExportError, OptionError, UserOption};

/// The flag that sets `option`.
pub fn flag(option: UserOption) -> &'static str {
    match option {
        UserOption::Engine => "--engine",
        UserOption::Formats => "--formats",
        UserOption::Tiles => "--tiles",
        UserOption::Mesh => "--mesh",
        UserOption::MeshSize => "--mesh-size",
        UserOption::Maps => "--maps",
        UserOption::Import => "--import",
    }
}

/// `message`, which begins with `option`'s name, with the flag in its
/// place.
fn flagged(option: UserOption, message: String) -> String {
    match message.strip_prefix(option.name()) {
        Some(rest) if rest.is_empty() || rest.starts_with([' ', ':']) => {
            format!("{}{rest}", flag(option))
        }
        _ => message,
    }
}

/// The core's remedy for a mesh too large for glTF, and the command
/// line's.
const SMALLER_MESH: (&str, &str) = ("choose a smaller mesh size", "pass a smaller --mesh-size");

/// `message` with the mesh remedy in the command line's words.
fn mesh_remedy(message: String) -> String {
    match message.strip_suffix(SMALLER_MESH.0) {
        Some(head) => format!("{head}{}", SMALLER_MESH.1),
        None => message,
    }
}

/// An export option's error, naming its flag (and, for a tile the
/// engine refuses, the engine's flag in the engine's error too).
pub fn option_error(error: OptionError) -> String {
    let message = mesh_remedy(flagged(error.option(), error.to_string()));
    match error {
        OptionError::TileSize { source, .. } => {
            let inner = source.to_string();
            match message.strip_suffix(&inner) {
                Some(head) => format!("{head}{}", option_error(*source)),
                None => message,
            }
        }
        _ => message,
    }
}

/// A warning of `--import`: one about the run's stages begins with the
/// option's name.
pub fn import_warning(warning: String) -> String {
    flagged(UserOption::Import, warning)
}

/// A `--maps` list's error.
pub fn map_list_error(error: MapListError) -> String {
    flagged(UserOption::Maps, error.to_string())
}

/// An export's error, naming the flag where it is about one.
pub fn export_error(error: ExportError) -> String {
    match error {
        ExportError::Maps(error) => map_list_error(error),
        ExportError::Encode(error) => match error.option() {
            Some(option) => mesh_remedy(flagged(option, error.to_string())),
            None => error.to_string(),
        },
        other => other.to_string(),
    }
}

/// A recipe's or an imported file's loading error; a RAW16 file without
/// its size is told how to give it here.
pub fn load_error(error: LoadError) -> String {
    match error {
        LoadError::Import(StageError::Import(ImportError::RawNotSquare { samples })) => format!(
            "--import: RAW16 file of {samples} samples is not square; give its size (--import-size WxH, or raw_width and raw_height in the recipe)"
        ),
        LoadError::Import(_) => flagged(UserOption::Import, error.to_string()),
        other => other.to_string(),
    }
}

/// How the command line raises the memory limit a map is over.
pub(crate) const MEMORY_REMEDY: &str = "raise it with --memory-limit";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_take_the_place_of_the_options_name() {
        assert_eq!(
            option_error(OptionError::MeshSize("1".into())),
            "--mesh-size '1': expected a whole number of vertices a side, at least 2"
        );
        assert_eq!(
            option_error(OptionError::UnknownEngine("cry".into())),
            "--engine 'cry': expected unity, unreal or godot"
        );
        assert!(
            map_list_error(MapListError::Unknown("moss".into())).starts_with("--maps: unknown map")
        );
        let engine = OptionError::EngineNotSquare {
            engine: orogen_core::io::engines::Engine::Unreal,
            width: 9,
            height: 5,
        };
        let tiles = option_error(OptionError::TileSize {
            n: 2,
            source: Box::new(engine),
        });
        assert!(
            tiles.starts_with("--tiles 2: each tile is a terrain; --engine unreal: "),
            "{tiles}"
        );
        let mesh = option_error(OptionError::MeshTooLarge {
            columns: 70_000,
            rows: 70_000,
            bytes: 5 << 30,
        });
        assert!(
            mesh.starts_with("--mesh glb: ") && mesh.ends_with("; pass a smaller --mesh-size"),
            "{mesh}"
        );
        // A reader's warning names its file, which may begin with the
        // option's name: only the name as a word is a flag.
        assert_eq!(
            import_warning("imports/x.png: 8-bit".into()),
            "imports/x.png: 8-bit"
        );
        assert_eq!(
            import_warning("import: stage 1 (noise) would replace it".into()),
            "--import: stage 1 (noise) would replace it"
        );
    }
}
