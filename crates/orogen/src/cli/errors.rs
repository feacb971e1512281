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
        Some(rest) => format!("{}{rest}", flag(option)),
        None => message,
    }
}

/// An export option's error, naming its flag.
pub fn option_error(error: OptionError) -> String {
    flagged(error.option(), error.to_string())
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
            Some(option) => flagged(option, error.to_string()),
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
    }
}
