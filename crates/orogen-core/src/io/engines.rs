//! Engine profiles (`--engine unity|unreal|godot`): what each engine's
//! terrain importer accepts and asks for.
//!
//! A profile fixes the map sizes the importer takes, the byte and row
//! order of the height files, which files it reads, how its batch
//! importer names tiles, and the numbers its import dialog wants so that
//! the terrain is neither flat nor ten times too tall:
//!
//! - Unreal (Landscape, World Partition): 16-bit heights where sample
//!   32768 sits at the actor's Z and the Z scale (in %) spans 512 cm per
//!   100 %, so `Z scale = (max − min) m · 100 / 512` and `location Z =
//!   (min + max) / 2 · 100 cm` put every height at its world value; X/Y
//!   scale is the cell size in centimetres. Tiles `_x<i>_y<j>`, `i` east,
//!   `j` south, as World Partition's importer reads them.
//! - Unity (Terrain, Terrain Tools): RAW16 little-endian, rows south
//!   first; terrain size = the map's extent, terrain height = max − min,
//!   placed at y = min. Terrain Tools' batch import takes tiles whose
//!   names end in the X index then the Z index (`heightmap_0_1`, Z
//!   counting north from the south edge).
//! - Godot (HTerrain, Terrain3D): 32-bit float EXR with true heights
//!   where available, RAW16 otherwise, with the height range to map it.

pub use super::engine_sizes::Engine;
use super::errors::OptionError;
use crate::params::Span;
use serde::{Deserialize, Serialize};

impl Engine {
    /// Parses `unity`, `unreal` or `godot`; the error names the choices.
    pub fn parse(text: &str) -> Result<Engine, OptionError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "unity" => Ok(Engine::Unity),
            "unreal" => Ok(Engine::Unreal),
            "godot" => Ok(Engine::Godot),
            _ => Err(OptionError::UnknownEngine(text.to_string())),
        }
    }

    /// Refuses a `width x height` map the importer does not take; the
    /// message names the nearest valid sides.
    pub fn check_size(self, width: u32, height: u32) -> Result<(), OptionError> {
        let sides = self.sides();
        for (axis, side) in [("width", width), ("height", height)] {
            if !sides.contains(&side) {
                let (below, above) = nearest_sides(sides, side);
                return Err(OptionError::EngineSize {
                    engine: self,
                    width,
                    height,
                    axis,
                    side,
                    below,
                    above,
                });
            }
        }
        if width != height && self != Engine::Unreal {
            return Err(OptionError::EngineNotSquare {
                engine: self,
                width,
                height,
            });
        }
        Ok(())
    }

    /// The valid side nearest to `side` (the smaller one on a tie).
    pub fn snap(self, side: u32) -> u32 {
        if self.sides().contains(&side) {
            return side;
        }
        let (below, above) = nearest_sides(self.sides(), side);
        match (below, above) {
            (Some(b), Some(a)) if side - b <= a - side => b,
            (_, Some(a)) => a,
            (Some(b), None) => b,
            (None, None) => side,
        }
    }

    /// Whether the height files' rows run south first (Unity reads RAW
    /// rows from its terrain's z = 0 edge, the south).
    pub fn rows_south_first(self) -> bool {
        self == Engine::Unity
    }

    /// The base name of tile `(i, j)` of an `n x n` tiled export, `i`
    /// counting columns west to east and `j` rows north to south.
    pub fn tile_stem(self, i: usize, j: usize, n: usize) -> String {
        match self {
            // Terrain Tools: `<name>_<x>_<z>`, z counting from the south.
            Engine::Unity => format!("heightmap_{i}_{}", n - 1 - j),
            Engine::Unreal | Engine::Godot => format!("heightmap_x{i}_y{j}"),
        }
    }

    /// The numbers to type into the engine's import dialog for a
    /// `width x height` map of `cell_size` world units (metres) whose
    /// 16-bit samples 0 and 65535 stand for `range.min` and `range.max`.
    pub fn import_settings(
        self,
        width: usize,
        height: usize,
        cell_size: f32,
        range: Span,
    ) -> ImportSettings {
        let extent_x = (width.saturating_sub(1)) as f64 * cell_size as f64;
        let extent_z = (height.saturating_sub(1)) as f64 * cell_size as f64;
        let (min, max) = (range.min as f64, range.max as f64);
        match self {
            Engine::Unreal => ImportSettings::Unreal {
                scale_x: cell_size as f64 * 100.0,
                scale_y: cell_size as f64 * 100.0,
                scale_z: (max - min) * 100.0 / 512.0,
                location_z: (min + max) / 2.0 * 100.0,
            },
            Engine::Unity => ImportSettings::Unity {
                terrain_width: extent_x,
                terrain_length: extent_z,
                terrain_height: max - min,
                heightmap_resolution: width,
                position_y: min,
            },
            Engine::Godot => ImportSettings::Godot {
                min_height: min,
                max_height: max,
                cell_size: cell_size as f64,
            },
        }
    }
}

/// What to type into an engine's terrain import dialog, as the sidecar's
/// `engine_import` field and the printed summary give it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "engine", rename_all = "lowercase")]
pub enum ImportSettings {
    /// Unreal's Landscape import: scale in %, location in cm.
    Unreal {
        /// Landscape X scale (cm per cell).
        scale_x: f64,
        /// Landscape Y scale (cm per cell).
        scale_y: f64,
        /// Landscape Z scale (%): 100 % spans 512 m of height.
        scale_z: f64,
        /// Landscape location Z (cm) that puts every height at its world value.
        location_z: f64,
    },
    /// Unity's Terrain settings (metres).
    Unity {
        /// Terrain Width (x extent, m).
        terrain_width: f64,
        /// Terrain Length (z extent, m).
        terrain_length: f64,
        /// Terrain Height: the height sample 65535 stands for above the base (m).
        terrain_height: f64,
        /// Heightmap Resolution (samples a side).
        heightmap_resolution: usize,
        /// The terrain object's position y (m): the world height of sample 0.
        position_y: f64,
    },
    /// Godot's HTerrain / Terrain3D import (metres).
    Godot {
        /// Height of 16-bit sample 0 (the EXR holds true heights).
        min_height: f64,
        /// Height of 16-bit sample 65535.
        max_height: f64,
        /// Distance between neighbouring samples (m).
        cell_size: f64,
    },
}

impl ImportSettings {
    /// The settings as lines to print, `name = value`, in the dialog's terms.
    pub fn lines(&self) -> Vec<String> {
        match self {
            ImportSettings::Unreal {
                scale_x,
                scale_y,
                scale_z,
                location_z,
            } => vec![
                format!(
                    "Unreal Landscape import: Scale X = {scale_x:.4}, Scale Y = {scale_y:.4}, Scale Z = {scale_z:.4}"
                ),
                format!("Unreal Landscape location: Z = {location_z:.4} cm"),
            ],
            ImportSettings::Unity {
                terrain_width,
                terrain_length,
                terrain_height,
                heightmap_resolution,
                position_y,
            } => vec![
                format!(
                    "Unity Import Raw: Depth 16 bit, Byte Order Windows, Resolution {heightmap_resolution}, Flip Vertically off"
                ),
                format!(
                    "Unity Terrain Size: Width {terrain_width:.4}, Length {terrain_length:.4}, Height {terrain_height:.4}; position y = {position_y:.4}"
                ),
            ],
            ImportSettings::Godot {
                min_height,
                max_height,
                cell_size,
            } => vec![format!(
                "Godot import: heightmap.exr holds true heights; for heightmap.r16 use min height {min_height:.4}, max height {max_height:.4}; cell size {cell_size:.4}"
            )],
        }
    }
}

/// The largest valid side below `side` and the smallest above it.
fn nearest_sides(sides: &[u32], side: u32) -> (Option<u32>, Option<u32>) {
    let below = sides.iter().copied().filter(|&s| s < side).max();
    let above = sides.iter().copied().filter(|&s| s > side).min();
    (below, above)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_refused_naming_the_nearest_valid_ones() {
        assert!(Engine::Unity.check_size(1025, 1025).is_ok());
        let err = Engine::Unity.check_size(1000, 1000).unwrap_err();
        assert!(
            matches!(
                err,
                OptionError::EngineSize {
                    axis: "width",
                    below: Some(513),
                    above: Some(1025),
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("nearest: 513 or 1025"), "{err}");
        let err = Engine::Unreal
            .check_size(8193, 8193)
            .unwrap_err()
            .to_string();
        assert!(err.contains("nearest: 8129"), "{err}");
        assert!(Engine::Unreal.check_size(2017, 1009).is_ok());
        let err = Engine::Unity.check_size(1025, 513).unwrap_err();
        assert!(
            matches!(err, OptionError::EngineNotSquare { .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("square"), "{err}");
        assert_eq!(Engine::Unity.snap(513), 513);
        assert_eq!(Engine::Unity.snap(600), 513);
        assert_eq!(Engine::Unity.snap(800), 1025);
        assert_eq!(Engine::Unreal.snap(8193), 8129);
        assert_eq!(Engine::Godot.snap(10), 33);
        assert!(Engine::parse("Unreal").is_ok());
        assert_eq!(
            Engine::parse("cry").unwrap_err().to_string(),
            "engine 'cry': expected unity, unreal or godot"
        );
    }

    #[test]
    fn tile_names_follow_each_batch_importer() {
        // 2 x 2 tiles: j = 0 is the north row.
        assert_eq!(Engine::Unreal.tile_stem(1, 0, 2), "heightmap_x1_y0");
        // Unity's z index counts north from the south edge.
        assert_eq!(Engine::Unity.tile_stem(1, 0, 2), "heightmap_1_1");
        assert_eq!(Engine::Unity.tile_stem(0, 1, 2), "heightmap_0_0");
    }

    #[test]
    fn unreal_numbers_put_every_sample_at_its_world_height() {
        let range = Span::new(-20.0, 236.0);
        let ImportSettings::Unreal {
            scale_x,
            scale_z,
            location_z,
            ..
        } = Engine::Unreal.import_settings(1009, 1009, 2.0, range)
        else {
            panic!("an Unreal profile gives Unreal settings");
        };
        assert_eq!(scale_x, 200.0);
        // Unreal: z_cm = location_z + (sample - 32768) / 128 * scale_z.
        let world = |sample: f64| (location_z + (sample - 32768.0) / 128.0 * scale_z) / 100.0;
        assert!((world(0.0) - -20.0).abs() < 0.01, "{}", world(0.0));
        assert!((world(65535.0) - 236.0).abs() < 0.01, "{}", world(65535.0));
    }

    #[test]
    fn unity_numbers_span_the_map() {
        let settings = Engine::Unity.import_settings(513, 513, 2.0, Span::new(10.0, 160.0));
        assert_eq!(
            settings,
            ImportSettings::Unity {
                terrain_width: 1024.0,
                terrain_length: 1024.0,
                terrain_height: 150.0,
                heightmap_resolution: 513,
                position_y: 10.0,
            }
        );
        assert!(settings.lines()[1].contains("Height 150.0000"));
    }
}
