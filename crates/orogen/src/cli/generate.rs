//! `orogen generate`: the whole map, or one window of it ([`super::facts`]).

use super::args::*;
use super::errors::MEMORY_REMEDY;
use super::facts::generate_window;
use orogen_core::bake::{
    ExportRequest, RawLayout, check_runnable, export_map, load_recipe, preset_shadows_file,
    start_from_file,
};
use orogen_core::io::engines::{Engine, ImportSettings};
use orogen_core::io::height_files::{ByteOrder, ExportOptions};
use orogen_core::io::mesh_export::MeshPlan;
use orogen_core::io::tiled_export::parse_map_tiles;
use orogen_core::maps::{DerivedMap, MapSettings};
use orogen_core::pipeline::{RunHooks, run_once, run_once_recording};
use orogen_core::recipe::{Recipe, default_memory_limit};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Runs `orogen generate`: the core's load → run → export flow, with
/// the command line's overrides and progress.
/// What `orogen generate` settles before it runs: the recipe at its
/// size, its folder, the engine and the memory limit.
pub struct PreparedGenerate {
    pub recipe: Recipe,
    pub base_dir: Option<PathBuf>,
    pub engine: Option<Engine>,
    pub limit: u64,
}

/// Loads and sizes the recipe `args` name (seed, import, engine, size).
pub fn prepare_generate(args: &GenerateArgs) -> Result<PreparedGenerate, String> {
    let (mut recipe, base_dir) = match &args.recipe {
        Some(name) => {
            if let Some(note) = preset_shadows_file(name) {
                eprintln!("note: {note}");
            }
            load_recipe(name).map_err(crate::cli::errors::load_error)?
        }
        None => (Recipe::default(), None),
    };
    if let Some(seed) = args.seed {
        recipe.seed = seed;
    }
    if let Some(file) = &args.import {
        let raw = RawLayout {
            size: args
                .import_size
                .as_deref()
                .map(parse_import_size)
                .transpose()?,
            byte_order: args.import_byte_order.map(|order| match order {
                ByteOrderArg::Le => ByteOrder::Le,
                ByteOrderArg::Be => ByteOrder::Be,
            }),
        };
        for warning in
            start_from_file(&mut recipe, file, raw).map_err(crate::cli::errors::load_error)?
        {
            eprintln!("warning: {}", crate::cli::errors::import_warning(warning));
        }
    }
    let engine = parse_engine(args.engine.as_deref())?;
    if let Some(engine) = engine {
        check_engine_flags(args, engine)?;
    }
    if let Some(note) = recipe.conversion_note() {
        eprintln!("note: {note}");
    }
    if let Some(size) = &args.size {
        apply_size(&mut recipe, size)?;
    } else if let Some(engine) = engine
        && args.window.is_none()
    {
        // A window's world keeps its size: the engine checks the window.
        snap_to_engine(&mut recipe, engine);
    }
    let limit = args
        .memory_limit
        .map(|mib| mib << 20)
        .unwrap_or_else(default_memory_limit);
    Ok(PreparedGenerate {
        recipe,
        base_dir,
        engine,
        limit,
    })
}

/// `orogen generate` of the whole map, once prepared.
pub fn generate_whole(args: &GenerateArgs, prepared: PreparedGenerate) -> Result<(), String> {
    let PreparedGenerate {
        mut recipe,
        base_dir,
        engine,
        limit,
    } = prepared;
    check_runnable(&mut recipe, limit).map_err(|e| e.with_remedy(MEMORY_REMEDY))?;
    let mut request = export_request(args, &recipe, engine)?;
    if let Some((tw, th)) = request.texture {
        let need = recipe.estimated_peak_bytes()
            + Recipe::estimated_texture_bytes(tw, th, recipe.tiles.tiles.len());
        if need > limit {
            return Err(format!(
                "a {tw}x{th} texture on the {}x{} map needs about {} MiB, over the limit of {} MiB \
                 (raise it with --memory-limit or choose a smaller --texture)",
                recipe.width,
                recipe.height,
                need >> 20,
                limit >> 20
            ));
        }
    }

    let progress = progress_bar(recipe.stages.len() as u64);
    let mut on_stage = |i: usize, _n: usize| {
        if let Some(bar) = &progress {
            bar.set_position(i as u64);
        }
    };
    let start = Instant::now();
    // One run for the final map: stages work in place, no per-stage copies.
    let hooks = RunHooks {
        cancel: None,
        progress: Some(&mut on_stage),
    };
    // What the erosion stages changed is kept only when a map or a tile's
    // map rule needs it: it costs a copy of the map per erosion stage.
    let tiles_need_record = request.texture.is_some()
        && recipe
            .tiles
            .tiles
            .iter()
            .any(|t| t.map.is_some_and(|rule| rule.map.needs_erosion_record()));
    let output = if tiles_need_record || request.maps.iter().any(|m| m.needs_erosion_record()) {
        let (output, record) =
            run_once_recording(&recipe, base_dir.clone(), hooks).map_err(|e| e.to_string())?;
        request.erosion = Some(Arc::new(record));
        output
    } else {
        run_once(&recipe, base_dir.clone(), hooks).map_err(|e| e.to_string())?
    };
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if args.timings {
        for stage in output.stages.iter().filter(|s| s.enabled) {
            eprintln!("timing {} {:.3}", stage.kind, stage.millis);
        }
    }
    let report = export_map(
        &output.map,
        &recipe,
        base_dir.as_deref(),
        &request,
        &args.out,
    )
    .map_err(crate::cli::errors::export_error)?;
    super::report::print_warnings_and_timings(&report, args.timings, start);
    println!("{}", report.summary());
    for line in report.engine_import.iter().flat_map(ImportSettings::lines) {
        println!("{line}");
    }
    Ok(())
}

/// Samples the recipe's world at `--size`: N cells along its longer side
/// (the other side follows), WxH, or an engine size. Only the sampling
/// changes: the world and its landforms stay.
pub fn apply_size(recipe: &mut Recipe, size: &str) -> Result<(), String> {
    let (w, h) = parse_size(size)?;
    let (w, h) = if w == h && !size.contains(['x', 'X']) {
        recipe.sampling_for(w)
    } else {
        (w, h)
    };
    recipe.set_sampling(w, h);
    Ok(())
}

/// A recipe whose own size an engine does not take is exported at the
/// nearest size it does (an explicit `--size` is checked instead, and
/// refused naming the nearest ones).
fn snap_to_engine(recipe: &mut Recipe, engine: Engine) {
    let (w, h) = (engine.snap(recipe.width), engine.snap(recipe.height));
    if (w, h) != (recipe.width, recipe.height) {
        eprintln!(
            "note: --engine {}: the recipe's {}x{} map is made at {w}x{h}, the nearest size {} imports",
            engine.name(),
            recipe.width,
            recipe.height,
            engine.title()
        );
        recipe.set_sampling(w, h);
    }
}

/// The export the arguments ask for, checked against the final map size
/// before generating, so bad values cost nothing and write nothing.
pub(crate) fn export_request(
    args: &GenerateArgs,
    recipe: &Recipe,
    engine: Option<Engine>,
) -> Result<ExportRequest, String> {
    let (w, h) = (recipe.width as usize, recipe.height as usize);
    let formats = parse_formats(args.formats.as_deref())?.unwrap_or_default();
    let tiles = args
        .tiles
        .as_deref()
        .map(|t| parse_map_tiles(t, w, h))
        .transpose()
        .map_err(crate::cli::errors::option_error)?;
    let mesh = match (&args.mesh, &args.mesh_size) {
        (Some(format), size) => Some(
            MeshPlan::parse(format, size.as_deref(), w, h)
                .map_err(crate::cli::errors::option_error)?,
        ),
        (None, Some(_)) => return Err("--mesh-size needs --mesh glb|obj".into()),
        (None, None) => None,
    };
    let texture = args
        .texture
        .as_deref()
        .map(parse_texture_size)
        .transpose()?;
    let maps = args
        .maps
        .as_deref()
        .map(DerivedMap::parse_list)
        .transpose()
        .map_err(crate::cli::errors::map_list_error)?
        .unwrap_or_default();
    if let Some(sea) = args.sea_level
        && !sea.is_finite()
    {
        return Err(format!("--sea-level {sea}: expected a finite height"));
    }
    let request = ExportRequest {
        options: ExportOptions {
            byte_order: match args.byte_order {
                Some(ByteOrderArg::Be) => ByteOrder::Be,
                Some(ByteOrderArg::Le) | None => ByteOrder::Le,
            },
            flip_y: args.flip_y,
            height_range: args.height_range,
        },
        formats,
        texture,
        tiles,
        mesh,
        engine: None,
        maps,
        map_settings: MapSettings {
            sea_level: args.sea_level,
            ..MapSettings::default()
        },
        erosion: None,
        window: None,
    };
    match engine {
        Some(engine) => request
            .for_engine(engine, w, h)
            .map_err(crate::cli::errors::option_error),
        None => Ok(request),
    }
}

/// Refuses flags that an engine profile sets itself: a second opinion
/// would be silently lost.
fn check_engine_flags(args: &GenerateArgs, engine: Engine) -> Result<(), String> {
    for (given, flag) in [
        (args.byte_order.is_some(), "--byte-order"),
        (args.flip_y, "--flip-y"),
        (args.formats.is_some(), "--formats"),
    ] {
        if given {
            return Err(format!(
                "--engine {} sets byte order, row order and files itself; drop {flag}",
                engine.name()
            ));
        }
    }
    Ok(())
}

pub(crate) fn progress_bar(len: u64) -> Option<indicatif::ProgressBar> {
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

/// Runs `orogen generate`: the whole map, or with `--window` one window
/// of it (its memory, not the world's, counts).
pub fn generate_command(args: &GenerateArgs) -> Result<(), String> {
    let prepared = prepare_generate(args)?;
    match &args.window {
        Some(window) => generate_window(
            args,
            window,
            prepared.recipe,
            prepared.base_dir,
            prepared.engine,
            prepared.limit,
        ),
        None => generate_whole(args, prepared),
    }
}
