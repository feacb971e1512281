//! `--screenshot FILE --frames N`: wait for the terrain to be uploaded at
//! its finest level, render N more frames, save a PNG of the whole window
//! (terrain and panels) and exit. Fails with a message instead of hanging
//! when no terrain appears in time.

use super::camera::TerrainBounds;
use super::handoff::{Generated, PendingUpload};
use super::regen::RegenJob;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The message an unsuccessful run leaves for `viewer::run` to return.
#[derive(Resource, Clone, Default)]
pub struct ExitReport(pub Arc<Mutex<Option<String>>>);

impl ExitReport {
    pub fn fail(&self, message: String) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(message);
    }

    pub fn message(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Longest wait for the first terrain (software rendering is slow).
pub const TERRAIN_TIMEOUT: Duration = Duration::from_secs(240);
/// Longest wait for the capture once requested.
const CAPTURE_TIMEOUT: Duration = Duration::from_secs(60);

pub struct ScreenshotPlugin {
    pub path: PathBuf,
    pub frames: u32,
    pub report: ExitReport,
}

#[derive(Resource)]
struct ScreenshotJob {
    path: PathBuf,
    frames: u32,
    phase: Phase,
    started: Instant,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    WaitingForTerrain,
    Rendering { frames_left: u32 },
    Capturing { since: Instant },
}

impl Plugin for ScreenshotPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.report.clone())
            .insert_resource(ScreenshotJob {
                path: self.path.clone(),
                frames: self.frames,
                phase: Phase::WaitingForTerrain,
                started: Instant::now(),
            })
            .add_systems(Last, advance_screenshot);
    }
}

/// Where the terrain is on its way to the screen: generated, uploaded
/// and shown.
#[derive(SystemParam)]
struct TerrainProgress<'w> {
    bounds: Option<Res<'w, TerrainBounds>>,
    upload: Res<'w, PendingUpload>,
    regen: Res<'w, RegenJob>,
    generated: Res<'w, Generated>,
}

impl TerrainProgress<'_> {
    /// Whether the finest level is uploaded and shown (not the first
    /// preview).
    fn finest_shown(&self) -> bool {
        self.bounds.as_ref().is_some_and(|b| b.ready)
            && self.upload.mesh.is_none()
            && self.upload.heights.is_none()
            && !self.regen.is_busy()
    }
}

fn advance_screenshot(
    mut commands: Commands,
    mut job: ResMut<ScreenshotJob>,
    terrain: TerrainProgress,
    report: Res<ExitReport>,
    mut exit: MessageWriter<AppExit>,
) {
    let generated = &terrain.generated;
    match job.phase {
        Phase::WaitingForTerrain => {
            if terrain.finest_shown() {
                job.phase = Phase::Rendering {
                    frames_left: job.frames,
                };
            } else if let Some(error) = generated
                .error
                .as_ref()
                .filter(|_| !generated.has_terrain())
            {
                report.fail(format!("no terrain to capture: {error}"));
                exit.write(AppExit::error());
            } else if job.started.elapsed() > TERRAIN_TIMEOUT {
                report.fail(format!(
                    "no terrain was shown within {} s; is rendering working?",
                    TERRAIN_TIMEOUT.as_secs()
                ));
                exit.write(AppExit::error());
            }
        }
        Phase::Rendering { frames_left: 0 } => {
            let path = job.path.clone();
            let failure = report.clone();
            commands.spawn(Screenshot::primary_window()).observe(
                move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                    match save_png(&captured.image, &path) {
                        Ok(()) => {
                            info!("screenshot saved to {}", path.display());
                            exit.write(AppExit::Success);
                        }
                        Err(message) => {
                            failure.fail(message);
                            exit.write(AppExit::error());
                        }
                    }
                },
            );
            job.phase = Phase::Capturing {
                since: Instant::now(),
            };
        }
        Phase::Rendering { frames_left } => {
            job.phase = Phase::Rendering {
                frames_left: frames_left - 1,
            };
        }
        Phase::Capturing { since } => {
            if since.elapsed() > CAPTURE_TIMEOUT {
                report.fail(format!(
                    "the screenshot was not captured within {} s",
                    CAPTURE_TIMEOUT.as_secs()
                ));
                exit.write(AppExit::error());
            }
        }
    }
}

/// Saves the window capture as an RGB PNG (alpha dropped: it carries no
/// meaning for a window).
fn save_png(image: &Image, path: &PathBuf) -> Result<(), String> {
    let dynamic = image
        .clone()
        .try_into_dynamic()
        .map_err(|e| format!("cannot convert the window capture: {e}"))?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    dynamic
        .to_rgb8()
        .save(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
