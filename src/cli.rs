//! The `orogen` command line.

use crate::terrain::export::{
    ByteOrder, ExportBundle, ExportOptions, add_sidecar_with_grid, heightmap_bundle, named_size,
};
use crate::terrain::heightmap::Heightmap;
use crate::terrain::import::read_heightmap_file;
use crate::terrain::mesh_export::{MeshPlan, MeshTexture, mesh_files};
use crate::terrain::params::Span;
use crate::terrain::pipeline::{Pipeline, RunHooks};
use crate::terrain::recipe::{Recipe, StageEntry, default_memory_limit};
use crate::terrain::splat::{TileImages, add_texture_files, render_splat};
use crate::terrain::stages::{Import, Stage};
use crate::terrain::tiled::{TileGrid, add_tile_files, parse_tiles};
use crate::terrain::{import::ImportFormat, presets};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "orogen",
    version,
    about = "Terrain workbench: heightmap algorithms, splat textures, live 3D viewer, engine exports.",
    long_about = "Run without a command to open the 3D viewer."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate a heightmap (and texture) from a recipe and export it.
    Generate(GenerateArgs),
    /// List shipped presets, or print one.
    Presets {
        #[command(subcommand)]
        action: Option<PresetAction>,
    },
    /// Open the interactive 3D viewer.
    View(ViewArgs),
    /// Write the built-in tile images (sand, grass, rock, snow) as PNG files.
    Tiles(TilesArgs),
}

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
    /// Recipe file (.ron) or shipped preset name.
    #[arg(long)]
    pub recipe: String,
    /// Output folder (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Map size: N, WxH, or an engine preset such as unity-1025, unreal-2017.
    #[arg(long)]
    pub size: Option<String>,
    /// Override the recipe's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Byte order of heightmap.r16.
    #[arg(long, value_enum, default_value = "le")]
    pub byte_order: ByteOrderArg,
    /// Write heightmap rows south-first (Unity's convention for north-up data).
    #[arg(long)]
    pub flip_y: bool,
    /// Start from an existing heightmap (PNG or RAW16); sets the size unless --size is given.
    #[arg(long)]
    pub import: Option<PathBuf>,
    /// Fixed height range mapped to 0..65535, as MIN:MAX (default: the map's own range).
    #[arg(long, value_parser = parse_span, allow_hyphen_values = true)]
    pub height_range: Option<Span>,
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
}

fn parse_span(text: &str) -> Result<Span, String> {
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
            crate::terrain::export::UNITY_SIZES,
            crate::terrain::export::UNREAL_SIZES
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

/// Runs `orogen tiles --out DIR`.
pub fn tiles_command(args: &TilesArgs) -> Result<(), String> {
    let mut bundle = crate::terrain::export::ExportBundle::default();
    for name in crate::terrain::tiles::BUILTIN_TILES {
        let tile = crate::terrain::tiles::builtin_tile(name)
            .ok_or_else(|| format!("missing built-in tile {name}"))?;
        let png = crate::terrain::export::encode_png(
            tile.as_raw(),
            tile.width() as usize,
            tile.height() as usize,
            image::ExtendedColorType::Rgb8,
        )?;
        bundle.add(format!("{name}.png"), png);
    }
    let written = bundle.write_to(&args.out)?;
    println!("wrote {} tiles to {}", written.len(), args.out.display());
    Ok(())
}

/// Loads a recipe from a preset name or a file. Returns it with the folder
/// its relative paths resolve against.
pub fn load_recipe(name_or_path: &str) -> Result<(Recipe, Option<PathBuf>), String> {
    if let Some(result) = presets::load(name_or_path) {
        return result
            .map(|r| (r, None))
            .map_err(|e| format!("preset {name_or_path}: {e}"));
    }
    let path = Path::new(name_or_path);
    let text = std::fs::read_to_string(path).map_err(|e| {
        let names: Vec<&str> = presets::names().collect();
        format!(
            "cannot read recipe {name_or_path}: {e} (shipped presets: {})",
            names.join(", ")
        )
    })?;
    let recipe = Recipe::from_ron(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().map(Path::to_path_buf);
    Ok((recipe, base))
}

/// Runs `orogen generate`. Returns the lines to print on success.
pub fn generate(args: &GenerateArgs) -> Result<(), String> {
    let (mut recipe, base_dir) = load_recipe(&args.recipe)?;
    if let Some(seed) = args.seed {
        recipe.seed = seed;
    }
    if let Some(file) = &args.import {
        let imported = read_heightmap_file(file, ImportFormat::Auto, None)
            .map_err(|e| format!("--import: {e}"))?;
        for warning in &imported.warnings {
            eprintln!("warning: {}: {warning}", file.display());
        }
        let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        let stage = Import {
            path: absolute.to_string_lossy().into_owned(),
            ..Import::default()
        };
        recipe
            .stages
            .insert(0, StageEntry::new(Stage::Import(stage)));
        recipe.width = imported.width as u32;
        recipe.height = imported.height as u32;
    }
    if let Some(size) = &args.size {
        let (w, h) = parse_size(size)?;
        recipe.width = w;
        recipe.height = h;
    }
    recipe.validate().map_err(|e| e.to_string())?;
    let limit = args
        .memory_limit
        .map(|mib| mib << 20)
        .unwrap_or_else(default_memory_limit);
    recipe.check_memory(limit).map_err(|e| e.to_string())?;
    let (tile_grid, mesh_plan) = check_extra_outputs(args, &recipe)?;

    let progress = progress_bar(recipe.stages.len() as u64);
    let mut on_stage = |i: usize, _n: usize| {
        if let Some(bar) = &progress {
            bar.set_position(i as u64);
        }
    };
    let start = Instant::now();
    let output = Pipeline::new()
        .with_base_dir(base_dir.clone())
        .run(
            &recipe,
            RunHooks {
                cancel: None,
                progress: Some(&mut on_stage),
            },
        )
        .map_err(|e| e.to_string())?;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if args.timings {
        for stage in output.stages.iter().filter(|s| s.enabled) {
            eprintln!("timing {} {:.3}", stage.kind, stage.millis);
        }
    }
    let opts = ExportOptions {
        byte_order: match args.byte_order {
            ByteOrderArg::Le => ByteOrder::Le,
            ByteOrderArg::Be => ByteOrder::Be,
        },
        flip_y: args.flip_y,
        height_range: args.height_range,
    };
    let map = &output.map;
    let (mut bundle, range) = heightmap_bundle(map, &recipe, &opts)?;
    let mut tiles_json = None;
    if let Some(size) = &args.texture {
        let (tw, th) = parse_texture_size(size)?;
        let texture_start = Instant::now();
        let (images, warnings) = TileImages::load(&recipe.tiles, base_dir.as_deref());
        for warning in warnings {
            eprintln!("warning: {warning}");
        }
        let splat = render_splat(map, recipe.cell_size, &recipe.tiles, &images, tw, th);
        add_texture_files(&mut bundle, &splat)?;
        if args.timings {
            eprintln!(
                "timing splat {:.3}",
                texture_start.elapsed().as_secs_f64() * 1000.0
            );
        }
        let stats = map.stats();
        let effective = recipe.tiles.effective(stats.min, stats.max);
        tiles_json = Some(serde_json::to_value(&effective.tiles).map_err(|e| e.to_string())?);
    }
    let tiles_grid = match &tile_grid {
        Some(grid) => Some(timed(args.timings, "tiles", || {
            add_tile_files(&mut bundle, map, range, &opts, grid)
        })?),
        None => None,
    };
    if let Some(plan) = &mesh_plan {
        timed(args.timings, "mesh", || {
            add_mesh(&mut bundle, map, recipe.cell_size, plan)
        })?;
    }
    add_sidecar_with_grid(
        &mut bundle,
        map,
        &recipe,
        &opts,
        range,
        tiles_json,
        tiles_grid,
    )?;
    let written = bundle.write_to(&args.out)?;
    if args.timings {
        eprintln!("timing total {:.3}", start.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "wrote {} files to {} ({}x{}, heights {:.3}..{:.3})",
        written.len(),
        args.out.display(),
        map.width(),
        map.height(),
        range.min,
        range.max
    );
    Ok(())
}

/// Checks `--tiles`, `--mesh` and `--mesh-size` against the final map
/// size before generating, so bad values cost nothing and write nothing.
fn check_extra_outputs(
    args: &GenerateArgs,
    recipe: &Recipe,
) -> Result<(Option<TileGrid>, Option<MeshPlan>), String> {
    let (w, h) = (recipe.width as usize, recipe.height as usize);
    let grid = args
        .tiles
        .as_deref()
        .map(|t| parse_tiles(t, w, h))
        .transpose()?;
    let plan = match (&args.mesh, &args.mesh_size) {
        (Some(format), size) => Some(MeshPlan::parse(format, size.as_deref(), w, h)?),
        (None, Some(_)) => return Err("--mesh-size needs --mesh glb|obj".into()),
        (None, None) => None,
    };
    Ok((grid, plan))
}

/// Adds the mesh, textured with texture.png when `--texture` made one.
fn add_mesh(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    cell_size: f32,
    plan: &MeshPlan,
) -> Result<(), String> {
    const TEXTURE: &str = "texture.png";
    // The GLB embeds the PNG; the OBJ's material refers to the file.
    let texture = bundle.get(TEXTURE).map(|png| MeshTexture {
        png,
        file_name: TEXTURE,
    });
    for (name, bytes) in mesh_files(map, cell_size, plan, texture)? {
        bundle.add(name, bytes);
    }
    Ok(())
}

/// Runs `f`, printing `timing <label> <ms>` to stderr when asked.
fn timed<T>(
    timings: bool,
    label: &str,
    f: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let start = Instant::now();
    let result = f()?;
    if timings {
        eprintln!(
            "timing {label} {:.3}",
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(result)
}

fn progress_bar(len: u64) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} stage {pos}/{len} {wide_bar} {elapsed}")
            .ok()?,
    );
    Some(bar)
}

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
