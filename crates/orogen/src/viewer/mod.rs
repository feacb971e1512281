//! The Bevy viewer: a thin layer over the terrain core, one plugin per
//! concern, reading one way. A frame runs the [`schedule::ViewerSystems`]
//! in order: Edit → Regenerate → Upload → MoveCamera → Draw.
//!
//! From the bottom up: [`settings`] and [`document`] hold what the user
//! asked for (the recipe, its history and saving; the view); [`display_data`]
//! holds pure functions that turn a map into display data; [`regen`] runs
//! jobs off the main thread with them and writes [`handoff`], the only
//! resources it shares with the rest; [`camera`] frames and flies;
//! [`render`] draws what was handed over; [`panels`] and [`screenshot`]
//! sit on top. Imports point down only.

pub mod camera;
pub mod display_data;
pub mod document;
pub mod handoff;
pub mod panels;
pub mod picking;
pub mod regen;
pub mod render;
pub mod sampling;
pub mod schedule;
pub mod screenshot;
pub mod settings;

use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::window::WindowResolution;
use document::{EditedRecipe, RecipeSource};
use orogen_core::bake::load_recipe;
use orogen_core::{Recipe, presets};
use screenshot::{ExitReport, ScreenshotPlugin, TERRAIN_TIMEOUT};
use settings::DisplayedStage;
use std::path::PathBuf;
use std::time::Duration;

/// What `orogen view` was asked to open and show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewOptions {
    /// Recipe file or shipped preset name (`None`: the default preset).
    pub recipe: Option<String>,
    /// Save a PNG of the window once the terrain is shown, then exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to render after the terrain appears, before the screenshot.
    pub frames: u32,
    /// Show the map after this stage instead of the final map.
    pub stage: Option<usize>,
    /// Where the camera starts, instead of framing the whole terrain.
    pub camera: Option<camera::CameraPlacement>,
    /// Draw the terrain on the CPU (mesh and splat texture).
    pub cpu_terrain: bool,
    /// Straight down, orthographic, one pixel per splat texel, unlit, no panels.
    pub top_texels: bool,
    /// Start with the flow overlay on.
    pub flow_overlay: bool,
    /// Start with lakes and rivers drawn as water.
    pub lakes_and_rivers: bool,
    /// Start with the overlay on, showing this map.
    pub overlay: Option<orogen_core::maps::DerivedMap>,
}

/// Everything the interactive viewer adds on top of Bevy's default plugins.
pub struct ViewerPlugin {
    /// The egui panels (left out for `--top-texels`).
    pub panels: bool,
}

impl Plugin for ViewerPlugin {
    fn build(&self, app: &mut App) {
        schedule::order_viewer_systems(app);
        app.add_plugins((
            document::history::HistoryPlugin,
            document::unsaved::UnsavedPlugin,
            regen::RegenerationPlugin,
            camera::FlyCameraPlugin,
            render::TerrainRenderPlugin,
        ));
        if self.panels {
            app.add_plugins(panels::PanelsPlugin);
        }
    }
}

/// The recipe to open: `--recipe` (preset name or file) or `default`.
fn initial_recipe(args: &ViewOptions) -> Result<(Recipe, RecipeSource), String> {
    match &args.recipe {
        Some(name) => {
            if let Some(note) = orogen_core::bake::preset_shadows_file(name) {
                eprintln!("note: {note}");
            }
            let (recipe, base_dir) = load_recipe(name).map_err(|e| e.to_string())?;
            if let Some(note) = recipe.conversion_note() {
                eprintln!("note: {name}: {note}");
            }
            let file = RecipeSource::file_of(name);
            let saved = Some(recipe.clone());
            Ok((
                recipe,
                RecipeSource {
                    file,
                    base_dir,
                    saved,
                },
            ))
        }
        None => {
            let recipe = presets::load("default")
                .ok_or("the default preset is missing")?
                .map_err(|e| format!("default preset: {e}"))?;
            let source = RecipeSource {
                saved: Some(recipe.clone()),
                ..RecipeSource::default()
            };
            Ok((recipe, source))
        }
    }
}

/// Winit's X11 backend needs a display; say so instead of panicking.
fn check_display() -> Result<(), String> {
    if std::env::var_os("DISPLAY").is_none() {
        return Err(
            "no X11 display (DISPLAY is unset); run inside a desktop session or under \
             xvfb-run -a -s \"-screen 0 1280x800x24\""
                .into(),
        );
    }
    Ok(())
}

/// Bevy panics (with a backtrace) when no graphics adapter exists, e.g.
/// without a Vulkan driver; ask the driver loader first and say so in one
/// line. Uses the backends Bevy would (`WGPU_BACKEND` or all).
fn check_adapter() -> Result<(), String> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let adapters = bevy::tasks::block_on(instance.enumerate_adapters(backends));
    if adapters.is_empty() {
        return Err(match std::env::var("WGPU_BACKEND") {
            Ok(chosen) => format!(
                "no graphics adapter found for WGPU_BACKEND={chosen:?} (orogen draws with \
                 Vulkan, Metal or DX12); unset it or name one of those"
            ),
            Err(_) => NO_ADAPTER.into(),
        });
    }
    Ok(())
}

const NO_ADAPTER: &str = "no graphics adapter found (Vulkan): install your GPU's driver, or Mesa's \
     software Vulkan (package mesa-vulkan-drivers); `orogen generate` needs neither";

/// Runs `orogen view`.
pub fn run(args: &ViewOptions) -> Result<(), String> {
    let (recipe, source) = initial_recipe(args)?;
    if let Some(stage) = args.stage
        && stage >= recipe.stages.len()
    {
        return Err(format!(
            "--stage {stage}: the recipe has {} stages (0 to {})",
            recipe.stages.len(),
            recipe.stages.len().saturating_sub(1)
        ));
    }
    check_display()?;
    if args.screenshot.is_some() {
        // Started first: a stuck driver must not hang a CI job, even in
        // the adapter check.
        start_watchdog(TERRAIN_TIMEOUT + Duration::from_secs(90));
    }
    check_adapter()?;
    let report = ExitReport::default();

    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "orogen".into(),
                    resolution: WindowResolution::new(1280, 800),
                    ..default()
                }),
                // Closing with unsaved edits asks first (unsaved.rs).
                close_when_requested: false,
                ..default()
            })
            .set(RenderPlugin {
                // A screenshot must show the terrain, not a frame where
                // its shaders are still compiling in the background.
                synchronous_pipeline_compilation: args.screenshot.is_some(),
                ..default()
            }),
    )
    .insert_resource(EditedRecipe(recipe))
    .insert_resource(source)
    .insert_resource(DisplayedStage(args.stage))
    .insert_resource(camera::StartView(args.camera))
    .insert_resource(camera::TopTexels(args.top_texels))
    .add_plugins(ViewerPlugin {
        panels: !args.top_texels,
    });
    if args.cpu_terrain {
        app.insert_resource(settings::DisplayPath::Cpu("--cpu-terrain".into()));
    }
    if args.flow_overlay || args.lakes_and_rivers || args.overlay.is_some() {
        let defaults = settings::ViewSettings::default();
        app.insert_resource(settings::ViewSettings {
            flow_overlay: args.flow_overlay || args.overlay.is_some(),
            overlay: args.overlay.unwrap_or(defaults.overlay),
            lakes_and_rivers: args.lakes_and_rivers,
            ..defaults
        });
    }
    if args.top_texels {
        app.insert_resource(render::gpu_terrain::GpuDrawOptions(
            render::gpu_terrain::material::DrawOptions {
                unlit: true,
                triplanar: true,
            },
        ));
    }
    // A screenshot run edits nothing and must not offer an old session's
    // edits; a view without panels cannot edit either.
    if args.screenshot.is_none() && !args.top_texels {
        app.add_plugins(document::recovery::RecoveryPlugin);
    }
    if let Some(path) = &args.screenshot {
        app.add_plugins(ScreenshotPlugin {
            path: path.clone(),
            frames: args.frames,
            report: report.clone(),
        });
    }

    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| app.run()));
    match outcome {
        Ok(AppExit::Success) => Ok(()),
        Ok(AppExit::Error(code)) => Err(report
            .message()
            .unwrap_or_else(|| format!("the viewer stopped with exit code {code}"))),
        Err(payload) => Err(format!(
            "the viewer crashed: {}",
            regen::job::panic_text(payload.as_ref())
        )),
    }
}

/// Screenshot mode must never hang a CI job: if the app has neither
/// finished nor failed by `limit` (a window that never draws, a stuck
/// driver), exit the process with an error.
fn start_watchdog(limit: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "error: screenshot mode did not finish within {} s; giving up",
            limit.as_secs()
        );
        std::process::exit(3);
    });
}
