//! The game engines an export can be made for, and the heightmap sizes
//! they accept. Their import profiles are in [`super::engines`].

use serde::{Deserialize, Serialize};

/// Unity's heightmap resolutions, `2^n + 1` (cells a side).
pub const UNITY_SIZES: &[u32] = &[33, 65, 129, 257, 513, 1025, 2049, 4097];
/// Unreal's recommended landscape sizes (cells a side): whole sections of
/// whole components, so no edge is cut or padded on import.
pub const UNREAL_SIZES: &[u32] = &[127, 253, 505, 1009, 2017, 4033, 8129];

/// Resolves `unity-1025`, `unreal-2017` or a plain number to a side.
pub fn named_size(name: &str) -> Option<u32> {
    let (list, number) = if let Some(n) = name.strip_prefix("unity-") {
        (Some(UNITY_SIZES), n)
    } else if let Some(n) = name.strip_prefix("unreal-") {
        (Some(UNREAL_SIZES), n)
    } else {
        (None, name)
    };
    let side: u32 = number.parse().ok()?;
    match list {
        Some(sizes) if !sizes.contains(&side) => None,
        _ => Some(side),
    }
}

/// A game engine whose terrain importer an export is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Unity's Terrain (and the Terrain Tools package).
    Unity,
    /// Unreal Engine's Landscape (and World Partition).
    Unreal,
    /// Godot with the HTerrain or Terrain3D plugin.
    Godot,
}

impl Engine {
    /// Every profile, in the order the help lists them.
    pub const ALL: &'static [Engine] = &[Engine::Unity, Engine::Unreal, Engine::Godot];

    /// The profile's name, as `--engine` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Unity => "unity",
            Engine::Unreal => "unreal",
            Engine::Godot => "godot",
        }
    }

    /// The map sides the engine's importer takes, smallest first.
    pub fn sides(self) -> &'static [u32] {
        match self {
            // HTerrain takes Unity's 2^n + 1 sides; Terrain3D resamples any.
            Engine::Unity | Engine::Godot => UNITY_SIZES,
            Engine::Unreal => UNREAL_SIZES,
        }
    }

    /// The engine's own name, for messages.
    pub fn title(self) -> &'static str {
        match self {
            Engine::Unity => "Unity",
            Engine::Unreal => "Unreal",
            Engine::Godot => "Godot",
        }
    }
}
