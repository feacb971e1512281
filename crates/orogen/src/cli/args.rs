//! The arguments of `orogen`'s commands, and the parsers of their values.

use clap::{Args, Subcommand, ValueEnum};
use orogen_core::io::engine_sizes::{UNITY_SIZES, UNREAL_SIZES, named_size};
use orogen_core::params::Span;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum PresetAction {
    /// Print a preset's recipe file.
    Show { name: String },
}

#[derive(Args, Debug)]
pub struct TilesArgs {
    /// Folder to write the built-in tile images into.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ByteOrderArg {
    Le,
    Be,
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Recipe file (.ron) or shipped preset name; optional with --import
    /// (then the map is the file's, with the default tiles).
    #[arg(long, required_unless_present = "import")]
    pub recipe: Option<String>,
    /// Output folder (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Sampling of the recipe's world: N (cells along its longer side), WxH, or an engine
    /// preset such as unity-1025, unreal-2017. The landscape stays the same; more cells add detail.
    #[arg(long)]
    pub size: Option<String>,
    /// Override the recipe's seed (0 to 2^64-1).
    #[arg(long, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Byte order of heightmap.r16 [default: le].
    #[arg(long, value_enum)]
    pub byte_order: Option<ByteOrderArg>,
    /// Write heightmap rows south-first (Unity's convention for north-up data).
    #[arg(long)]
    pub flip_y: bool,
    /// Start from an existing heightmap (PNG, RAW16, float EXR or TIFF); sets the size unless --size is
    /// given. The recipe's stages then work on it; any that would replace it are switched off.
    #[arg(long)]
    pub import: Option<PathBuf>,
    /// Size of a RAW16 --import file that is not square and has no orogen heightmap.json, as WxH.
    #[arg(long, value_name = "WxH", requires = "import")]
    pub import_size: Option<String>,
    /// Byte order of a RAW16 --import file without an orogen heightmap.json [default: le].
    #[arg(long, value_enum, requires = "import")]
    pub import_byte_order: Option<ByteOrderArg>,
    /// Fixed height range mapped to 0..65535, as MIN:MAX (default: the map's own range).
    #[arg(long, value_parser = parse_span, allow_hyphen_values = true)]
    pub height_range: Option<Span>,
    /// Height files to write, comma-separated: r16, png (16-bit), exr, tif (32-bit float, true heights) [default: r16,png].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub formats: Option<String>,
    /// Export for an engine's terrain importer: unity, unreal or godot. Sets byte and row order,
    /// files, texture and tile names, checks the size and prints the import dialog's numbers.
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<String>,
    /// Print per-stage milliseconds to stderr.
    #[arg(long)]
    pub timings: bool,
    /// Also write texture.png, splat.png and splat_<i>.png at this size (N or WxH texels).
    #[arg(long)]
    pub texture: Option<String>,
    /// Refuse maps whose estimated memory exceeds this many MiB (default: half the machine's memory).
    #[arg(long)]
    pub memory_limit: Option<u64>,
    /// Also write the map as N x N tiles (1 to 64) sharing their borders: heightmap_x{i}_y{j}.r16/.png.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub tiles: Option<String>,
    /// Also write the terrain as a mesh: glb (terrain.glb) or obj (terrain.obj).
    #[arg(long, value_name = "FORMAT")]
    pub mesh: Option<String>,
    /// Most mesh vertices a side (default: full resolution); larger maps are decimated.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub mesh_size: Option<String>,
    /// Also write maps derived from the terrain, each a grey PNG of the
    /// map's size: flow, wetness, lakes, rivers, curvature, occlusion,
    /// wear, deposition (or all), comma-separated; heightmap.json says
    /// what their pixels mean.
    #[arg(long, value_name = "LIST")]
    pub maps: Option<String>,
    /// World height at or below which the derived maps count the sea
    /// (lakes.png gives its depth; water drains into it).
    #[arg(
        long,
        value_name = "HEIGHT",
        allow_hyphen_values = true,
        requires = "maps"
    )]
    pub sea_level: Option<f32>,
    /// Write only this window of the map: X,Y,WIDTH,HEIGHT in cells of the
    /// whole map (first column and row, row 0 north). Its cells equal the
    /// same crop of the whole map; `orogen plan` farms a world out as windows.
    #[arg(long, value_name = "X,Y,W,H", allow_hyphen_values = true)]
    pub window: Option<String>,
    /// The world's facts for --window (the barrier phases' results, which
    /// `orogen plan` writes as DIR/facts.json): the height ranges that
    /// Normalize, Terrace and the 16-bit files need from the whole world.
    #[arg(long, value_name = "FILE", requires = "window")]
    pub facts: Option<PathBuf>,
}

#[derive(Args, Debug, Default)]
pub struct ViewArgs {
    /// Recipe file (.ron) or shipped preset name to open.
    #[arg(long)]
    pub recipe: Option<String>,
    /// Save a PNG of the window once the terrain is shown, then exit.
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Frames to render after the terrain appears, before the screenshot.
    #[arg(long, default_value_t = 3)]
    pub frames: u32,
    /// Show the map after this stage (0-based) instead of the final map.
    #[arg(long)]
    pub stage: Option<usize>,
    /// Put the camera here, in world units: X east from the map's west
    /// edge, Y height, Z south from its north edge (with --look-at).
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    pub look_from: Option<String>,
    /// Aim the camera at this point, in the same world units (with --look-from).
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    pub look_at: Option<String>,
    /// Draw the terrain with the CPU mesh (at most 1025² vertices) and
    /// splat texture instead of the GPU's displaced, per-pixel terrain.
    #[arg(long)]
    pub cpu_terrain: bool,
    /// Look straight down with an orthographic camera at one screen pixel
    /// per splat texel, unlit and without panels: the texture as the GPU
    /// paints it, to compare with `generate --texture` at the same size.
    #[arg(long, conflicts_with_all = ["look_from", "look_at", "cpu_terrain"])]
    pub top_texels: bool,
    /// Start with the flow overlay on: the drainage network (drainage
    /// area on a log scale) tinted over the terrain and the 2D preview.
    #[arg(long)]
    pub flow_overlay: bool,
    /// Start with lakes (each at its spill level) and rivers drawn as water.
    #[arg(long)]
    pub lakes_and_rivers: bool,
    /// Start with the overlay on, showing this map: flow, wetness, lakes,
    /// rivers, curvature, occlusion, wear or deposition (up to 1 m, from
    /// the erosion stages' record).
    #[arg(long, value_name = "MAP")]
    pub overlay: Option<String>,
}

impl ViewArgs {
    /// The viewer's options from these arguments; a camera placement that
    /// does not parse is refused in one line.
    pub fn options(&self) -> Result<crate::viewer::ViewOptions, String> {
        let camera = match (&self.look_from, &self.look_at) {
            (None, None) => None,
            (Some(from), Some(at)) => Some(crate::viewer::camera::CameraPlacement::new(
                parse_point("--look-from", from)?,
                parse_point("--look-at", at)?,
            )?),
            (Some(_), None) => return Err("--look-from needs --look-at too".into()),
            (None, Some(_)) => return Err("--look-at needs --look-from too".into()),
        };
        Ok(crate::viewer::ViewOptions {
            recipe: self.recipe.clone(),
            screenshot: self.screenshot.clone(),
            frames: self.frames,
            stage: self.stage,
            camera,
            cpu_terrain: self.cpu_terrain,
            top_texels: self.top_texels,
            flow_overlay: self.flow_overlay,
            lakes_and_rivers: self.lakes_and_rivers,
            overlay: self.overlay.as_deref().map(parse_overlay).transpose()?,
        })
    }
}

/// A map the viewer's overlay offers, by name.
pub(super) fn parse_overlay(text: &str) -> Result<orogen_core::maps::DerivedMap, String> {
    use crate::viewer::display_data::flow::VIEW_OVERLAYS;
    VIEW_OVERLAYS
        .into_iter()
        .find(|m| m.name() == text.trim())
        .ok_or_else(|| {
            let names: Vec<&str> = VIEW_OVERLAYS.iter().map(|m| m.name()).collect();
            format!("--overlay {text:?}: expected one of {}", names.join(", "))
        })
}

pub(super) fn parse_span(text: &str) -> Result<Span, String> {
    let (a, b) = text
        .split_once(':')
        .ok_or_else(|| format!("expected MIN:MAX, got '{text}'"))?;
    let min: f32 = a
        .trim()
        .parse()
        .map_err(|_| format!("'{a}' is not a number"))?;
    let max: f32 = b
        .trim()
        .parse()
        .map_err(|_| format!("'{b}' is not a number"))?;
    if !min.is_finite() || !max.is_finite() || min >= max {
        return Err(format!("height range {text}: need finite MIN < MAX"));
    }
    Ok(Span::new(min, max))
}

/// Parses `N`, `WxH`, `unity-1025` or `unreal-2017`.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "--size '{text}': expected N, WxH, or an engine size like unity-1025 / unreal-2017 (Unity: {:?}; Unreal: {:?})",
            UNITY_SIZES, UNREAL_SIZES
        )
    };
    if let Some((w, h)) = text.split_once(['x', 'X']) {
        let w = w.trim().parse().map_err(|_| bad())?;
        let h = h.trim().parse().map_err(|_| bad())?;
        return Ok((w, h));
    }
    let side = named_size(text.trim()).ok_or_else(bad)?;
    Ok((side, side))
}

/// Parses `--import-size WxH`.
pub(super) fn parse_import_size(text: &str) -> Result<(u32, u32), String> {
    text.split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
        .filter(|&(w, h)| w > 0 && h > 0)
        .ok_or_else(|| format!("--import-size '{text}': expected WxH, e.g. 1025x513"))
}

/// Parses a texture size: `N` or `WxH`, 1 to 16384 a side.
pub fn parse_texture_size(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--texture '{text}': expected N or WxH with sides 1 to 16384");
    let (w, h) = match text.split_once(['x', 'X']) {
        Some((w, h)) => (w.trim().parse::<usize>(), h.trim().parse::<usize>()),
        None => (text.trim().parse::<usize>(), text.trim().parse::<usize>()),
    };
    let (w, h) = (w.map_err(|_| bad())?, h.map_err(|_| bad())?);
    if !(1..=16384).contains(&w) || !(1..=16384).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

/// A point given as `X,Y,Z`: three finite numbers in world units.
pub fn parse_point(flag: &str, text: &str) -> Result<[f32; 3], String> {
    let bad = || {
        format!(
            "{flag} '{text}': expected X,Y,Z, three numbers in world units (such as 512,300,-200)"
        )
    };
    let numbers: Vec<f32> = text
        .split(',')
        .map(|part| part.trim().parse::<f32>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    match numbers[..] {
        [x, y, z] if [x, y, z].iter().all(|v| v.is_finite()) => Ok([x, y, z]),
        _ => Err(bad()),
    }
}

/// `--engine`, if given.
pub fn parse_engine(
    text: Option<&str>,
) -> Result<Option<orogen_core::io::engines::Engine>, String> {
    text.map(orogen_core::io::engines::Engine::parse)
        .transpose()
        .map_err(super::errors::option_error)
}

/// `--formats`, if given.
pub fn parse_formats(
    text: Option<&str>,
) -> Result<Option<orogen_core::io::height_files::HeightFormats>, String> {
    text.map(orogen_core::io::height_files::HeightFormats::parse)
        .transpose()
        .map_err(super::errors::option_error)
}
