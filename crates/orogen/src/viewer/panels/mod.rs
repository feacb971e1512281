//! The egui side panel (collapsible sections, one struct per panel) and
//! the status bar. Each frame the panels edit a copy of the resources
//! (a [`Document`]); only fields that really changed are written back, so
//! change detection keeps meaning "the user edited something".

pub mod brush;
pub mod export;
pub mod map_rule_ui;
pub mod mask_ui;
pub mod params_ui;
pub mod presets;
pub mod recipe;
pub mod save_prompt;
pub mod status;
pub mod terrain_brush;
pub mod texture;
pub mod view;

use super::camera::FlyCamera;
use super::document::history::{History, HistoryAction, apply_history_action};
use super::document::recovery::Recovery;
use super::document::unsaved::SavePrompt;
use super::document::{EditedRecipe, RecipeSource};
use super::handoff::{Generated, ShownBands};
use super::regen::RegenJob;
use super::render::gpu_terrain::LodStats;
use super::sampling::PreviewSampling;
use super::settings::{DisplayPath, DisplayedStage, UiFocus, ViewSettings};
use bevy::camera::visibility::RenderLayers;
use bevy::camera::{CameraOutputMode, Viewport};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::render_resource::BlendState;
use bevy::window::PrimaryWindow;
use bevy_egui::{
    EguiContexts, EguiGlobalSettings, EguiPlugin, EguiPrimaryContextPass, PrimaryEguiContext, egui,
};
use orogen_core::Recipe;

pub struct PanelsPlugin;

impl Plugin for PanelsPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(EguiPlugin::default())
            // The UI gets its own camera so the 3D camera's viewport can
            // leave out the panels (the terrain centres in what is visible).
            .insert_resource(EguiGlobalSettings {
                auto_create_primary_context: false,
                ..default()
            })
            .init_resource::<Panels>()
            .init_resource::<UiFocus>()
            .init_resource::<terrain_brush::TerrainPointer>()
            .add_systems(Startup, spawn_ui_camera)
            .add_systems(
                EguiPrimaryContextPass,
                (terrain_brush::point_at_terrain, draw_panels).chain(),
            );
    }
}

/// The editable copy one UI frame works on.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub recipe: Recipe,
    pub stage: Option<usize>,
    pub view: ViewSettings,
    pub source: RecipeSource,
    /// Preview size and display limit (the recipe's size is the export size).
    pub sampling: PreviewSampling,
}

/// Read-only facts and one-shot requests shared by the panels.
pub struct UiContext<'a> {
    pub generated: &'a Generated,
    /// The bands the terrain is drawn with, and the texture preview.
    pub bands: &'a ShownBands,
    pub busy: bool,
    pub busy_seconds: f32,
    /// The side on screen, and the finest the running job will show.
    pub shown_side: Option<u32>,
    pub target_side: Option<u32>,
    pub can_undo: bool,
    pub can_redo: bool,
    pub history_request: Option<HistoryAction>,
    /// Who draws the terrain, and the GPU terrain's vertices this frame.
    pub display_path: &'a DisplayPath,
    pub lod: LodStats,
}

/// Red used for errors and invalid values throughout the UI.
pub const ERROR_RED: egui::Color32 = egui::Color32::from_rgb(235, 80, 70);
pub const OK_GREEN: egui::Color32 = egui::Color32::from_rgb(110, 200, 110);
/// Problems that did not stop the work (a tile image replaced by its colour).
pub const WARNING_AMBER: egui::Color32 = egui::Color32::from_rgb(235, 180, 60);

/// Every panel's own state, kept between frames.
#[derive(Resource, Default)]
pub struct Panels {
    pub recipe: recipe::RecipePanel,
    pub texture: texture::TexturePanel,
    pub view: view::ViewPanel,
    pub export: export::ExportPanel,
    pub presets: presets::PresetsPanel,
    /// The brush, shared by the Recipe panel (which map), the View panel
    /// (its settings and the 2D map) and the 3D view (the terrain).
    pub brush: brush::PaintBrush,
    /// Logical size of the left panel and the status bar, for the viewport.
    left_width: f32,
    bottom_height: f32,
}

fn spawn_ui_camera(mut commands: Commands) {
    commands.spawn((
        PrimaryEguiContext,
        Camera2d,
        Msaa::Off,
        RenderLayers::none(),
        Camera {
            order: 1,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
    ));
}

#[derive(SystemParam)]
struct EditedResources<'w> {
    recipe: ResMut<'w, EditedRecipe>,
    stage: ResMut<'w, DisplayedStage>,
    view: ResMut<'w, ViewSettings>,
    source: ResMut<'w, RecipeSource>,
    sampling: ResMut<'w, PreviewSampling>,
}

impl EditedResources<'_> {
    fn document(&self) -> Document {
        Document {
            recipe: self.recipe.0.clone(),
            stage: self.stage.0,
            view: self.view.clone(),
            source: self.source.clone(),
            sampling: self.sampling.clone(),
        }
    }

    /// Writes back only what changed.
    fn store(&mut self, doc: Document) {
        let Document {
            recipe,
            stage,
            view,
            source,
            sampling,
        } = doc;
        self.sampling.set_if_neq(sampling);
        self.source.set_if_neq(source);
        self.recipe.set_if_neq(EditedRecipe(recipe));
        self.stage.set_if_neq(DisplayedStage(stage));
        self.view.set_if_neq(view);
    }
}

/// What the panels show about the terrain: the last result, the job in
/// flight, how it is drawn, and where the pointer touches it.
#[derive(SystemParam)]
struct ShownTerrain<'w> {
    generated: Res<'w, Generated>,
    bands: Res<'w, ShownBands>,
    pointer: Res<'w, terrain_brush::TerrainPointer>,
    job: Res<'w, RegenJob>,
    display_path: Res<'w, DisplayPath>,
    lod: Res<'w, LodStats>,
}

/// The document's history and the prompts and focus around the panels.
#[derive(SystemParam)]
struct Session<'w> {
    history: ResMut<'w, History>,
    focus: ResMut<'w, UiFocus>,
    prompt: ResMut<'w, SavePrompt>,
    recovery: Option<ResMut<'w, Recovery>>,
}

/// A section of the side panel, drawn from the document and what the
/// viewer shows (as egui's demo windows are).
pub trait Panel {
    /// The section's heading.
    fn title(&self) -> &'static str;

    /// Whether the section starts open.
    fn open_by_default(&self) -> bool {
        false
    }

    /// Draws the section's contents, editing the document in `cx`.
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext);
}

/// What a panel may read and change while it draws.
pub struct PanelContext<'a, 'i> {
    /// The recipe and view being edited.
    pub doc: &'a mut Document,
    /// What the viewer shows, and the undo or redo a panel asks for.
    pub info: &'a mut UiContext<'i>,
    /// The paint brush, shared by the panels that paint.
    pub brush: &'a mut brush::PaintBrush,
    /// Set by a panel that opened another recipe: a new document.
    pub opened: bool,
}

fn draw_panels(
    mut contexts: EguiContexts,
    mut panels: ResMut<Panels>,
    mut edited: EditedResources,
    shown: ShownTerrain,
    session: Session,
    window: Single<&Window, With<PrimaryWindow>>,
    mut camera: Query<&mut Camera, With<FlyCamera>>,
) -> Result {
    let ShownTerrain {
        generated,
        bands,
        pointer,
        job,
        display_path,
        lod,
    } = shown;
    let Session {
        mut history,
        mut focus,
        mut prompt,
        recovery,
    } = session;
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "orogen-root".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let mut doc = edited.document();
    let mut info = UiContext {
        generated: &generated,
        bands: &bands,
        busy: job.is_busy(),
        busy_seconds: job.elapsed().map(|d| d.as_secs_f32()).unwrap_or(0.0),
        shown_side: job.shown_side,
        target_side: job.target_side(),
        can_undo: history.can_undo(),
        can_redo: history.can_redo(),
        history_request: None,
        display_path: &display_path,
        lod: *lod,
    };
    let panels = &mut *panels;
    let mut opened = false;
    if !prompt.drawn {
        prompt.drawn = true;
    }
    if let Some(saved) =
        save_prompt::save_shortcut(&ctx, &mut prompt, &mut doc, panels.presets.typed_path())
    {
        panels.presets.show_message(saved);
    }
    let left = egui::Panel::left("orogen-panels")
        .default_size(360.0)
        .resizable(true)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    ui.add_space(4.0);
                    ui.heading("orogen");
                    let Panels {
                        recipe,
                        texture,
                        view,
                        export,
                        presets,
                        brush,
                        ..
                    } = &mut *panels;
                    let mut cx = PanelContext {
                        doc: &mut doc,
                        info: &mut info,
                        brush,
                        opened: false,
                    };
                    let sections: [&mut dyn Panel; 5] = [recipe, texture, view, export, presets];
                    for panel in sections {
                        section(ui, panel.title(), panel.open_by_default(), |ui| {
                            panel.ui(ui, &mut cx)
                        });
                    }
                    opened |= cx.opened;
                });
        })
        .response;
    let bottom = egui::Panel::bottom("orogen-status")
        .show(&mut root, |ui| status::status_bar(ui, &doc, &info))
        .response;
    save_prompt::show(&ctx, &mut prompt, &mut doc);
    let mut offering = false;
    if let Some(mut recovery) = recovery {
        opened |= save_prompt::show_recovery_offer(&ctx, &mut recovery, &mut doc);
        offering = recovery.offered.is_some();
    }
    // While a prompt is open, keys and the mouse belong to it, not to the
    // camera or the undo keys.
    let modal = prompt.kind.is_some() || offering;
    focus.set_if_neq(UiFocus {
        pointer: modal
            || left.contains_pointer()
            || bottom.contains_pointer()
            || ctx.egui_wants_pointer_input()
            || ctx.egui_is_using_pointer(),
        keyboard: modal || ctx.egui_wants_keyboard_input(),
    });
    let (left, bottom) = (left.rect.width(), bottom.rect.height());

    let request = info.history_request;
    // Painting on the terrain: the panels did not take the pointer.
    panels.brush.resize_keys(&ctx, &doc);
    panels.brush.paint_on_terrain(pointer.touch, &mut doc);
    let screen = ctx.viewport_rect();
    let view = egui::Rect::from_min_max(
        egui::pos2(screen.left() + left, screen.top()),
        egui::pos2(screen.right(), screen.bottom() - bottom),
    );
    terrain_brush::draw_ring(&ctx, &pointer.ring, panels.brush.colour(), view);
    panels.brush.end_frame(&mut doc);
    edited.store(doc);
    // A brush stroke is one undo step, press to release.
    match panels.brush.take_gesture() {
        Some(brush::Gesture::Begin) => history.bypass_change_detection().begin_gesture(),
        Some(brush::Gesture::End) => history.bypass_change_detection().end_gesture(),
        None => {}
    }
    if opened {
        history
            .bypass_change_detection()
            .start_over(edited.recipe.0.clone());
    }
    if let Some(action) = request {
        apply_history_action(
            action,
            history.bypass_change_detection(),
            &mut edited.recipe,
        );
    }
    panels.left_width = left;
    panels.bottom_height = bottom;
    fit_viewport(&window, left, bottom, &mut camera);
    Ok(())
}

fn section(ui: &mut egui::Ui, title: &str, open: bool, body: impl FnOnce(&mut egui::Ui)) {
    egui::CollapsingHeader::new(egui::RichText::new(title).strong())
        .id_salt(title)
        .default_open(open)
        .show(ui, body);
}

/// Restricts the 3D camera to the window area the panels leave free.
fn fit_viewport(
    window: &Window,
    left: f32,
    bottom: f32,
    cameras: &mut Query<&mut Camera, With<FlyCamera>>,
) {
    let scale = window.scale_factor();
    let (width, height) = (window.physical_width(), window.physical_height());
    let x = ((left * scale).round() as u32).min(width.saturating_sub(1));
    let cut = ((bottom * scale).round() as u32).min(height.saturating_sub(1));
    let size = UVec2::new(
        width.saturating_sub(x).max(1),
        height.saturating_sub(cut).max(1),
    );
    let viewport = Viewport {
        physical_position: UVec2::new(x, 0),
        physical_size: size,
        ..default()
    };
    for mut camera in cameras.iter_mut() {
        let same = camera.viewport.as_ref().is_some_and(|v| {
            v.physical_position == viewport.physical_position
                && v.physical_size == viewport.physical_size
        });
        if !same {
            camera.viewport = Some(viewport.clone());
        }
    }
}
