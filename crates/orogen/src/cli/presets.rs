//! `orogen presets`: the shipped presets, listed or printed.

use super::args::*;
use orogen_core::presets;

/// Runs `orogen presets [show NAME]`.
pub fn presets_command(action: &Option<PresetAction>) -> Result<(), String> {
    match action {
        None => {
            for name in presets::names() {
                println!("{name}");
            }
            Ok(())
        }
        Some(PresetAction::Show { name }) => {
            let text = presets::text(name).ok_or_else(|| {
                let names: Vec<&str> = presets::names().collect();
                format!("no preset named '{name}' (shipped: {})", names.join(", "))
            })?;
            print!("{text}");
            Ok(())
        }
    }
}
