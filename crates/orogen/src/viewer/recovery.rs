//! Nothing lost in a crash: while the recipe has unsaved edits, a copy is
//! kept in the state folder (`$OROGEN_STATE_DIR`, else
//! `$XDG_STATE_HOME/orogen`, else `~/.local/state/orogen`), one file per
//! running viewer. A normal close removes it (the user saved, or chose to
//! close without saving); a crash leaves it, and the next viewer offers to
//! restore it.

use super::state::{EditedRecipe, RecipeSource};
use super::unsaved::has_unsaved_edits;
use bevy::prelude::*;
use bevy::window::ClosingWindow;
use orogen_core::Recipe;
use orogen_core::io::atomic::write_atomic;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct RecoveryPlugin;

impl Plugin for RecoveryPlugin {
    fn build(&self, app: &mut App) {
        let Some(dir) = state_dir() else {
            warn!("no state folder (HOME is unset): unsaved edits are not kept for recovery");
            return;
        };
        app.insert_resource(Recovery::new(dir, std::process::id()))
            .add_systems(Startup, offer_stale_copy)
            .add_systems(PostUpdate, forget_on_close)
            .add_systems(Last, keep_copy);
    }
}

/// The folder recovery copies go in.
pub fn state_dir() -> Option<PathBuf> {
    let from = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = from("OROGEN_STATE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = from("XDG_STATE_HOME") {
        return Some(PathBuf::from(dir).join("orogen"));
    }
    from("HOME").map(|home| PathBuf::from(home).join(".local/state/orogen"))
}

const PREFIX: &str = "unsaved-";
const EXTENSION: &str = ".ron";
const FILE_LINE: &str = "// file: ";
const BASE_LINE: &str = "// base: ";

/// A recipe kept for recovery, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct RecoveredRecipe {
    /// The recovery copy itself.
    pub copy: PathBuf,
    pub file: Option<PathBuf>,
    pub base_dir: Option<PathBuf>,
    pub recipe: Recipe,
}

#[derive(Resource, Debug)]
pub struct Recovery {
    dir: PathBuf,
    /// This viewer's copy.
    own: PathBuf,
    /// When the recipe last changed while unsaved and the copy is behind.
    pending_since: Option<Instant>,
    written: bool,
    /// Edits closer together than this are written once.
    pub debounce: Duration,
    /// A copy a crashed viewer left, offered to restore.
    pub offered: Option<RecoveredRecipe>,
}

impl Recovery {
    pub fn new(dir: PathBuf, pid: u32) -> Recovery {
        Recovery {
            own: dir.join(format!("{PREFIX}{pid}{EXTENSION}")),
            dir,
            pending_since: None,
            written: false,
            debounce: Duration::from_secs(1),
            offered: None,
        }
    }

    /// The answer to the offer: the copy goes either way (restored into
    /// the document, or discarded), then the next stale copy is offered.
    pub fn settle_offer(&mut self) {
        if let Some(offer) = self.offered.take() {
            remove_quietly(&offer.copy);
        }
        self.offered = newest_stale_copy(&self.dir, &self.own, pid_is_running);
    }
}

/// The recovery file's text: where the recipe came from, then the recipe.
pub fn encode(recipe: &Recipe, source: &RecipeSource) -> Result<String, String> {
    let mut text = String::from("// orogen: a recipe with unsaved edits, kept for recovery\n");
    for (line, path) in [(FILE_LINE, &source.file), (BASE_LINE, &source.base_dir)] {
        if let Some(path) = path {
            text.push_str(&format!("{line}{}\n", path.display()));
        }
    }
    text.push_str(&recipe.to_ron()?);
    Ok(text)
}

pub fn decode(copy: &Path, text: &str) -> Result<RecoveredRecipe, String> {
    let header = |prefix: &str| {
        text.lines()
            .take_while(|line| line.starts_with("//"))
            .find_map(|line| line.strip_prefix(prefix))
            .map(PathBuf::from)
    };
    let recipe = Recipe::from_ron(text).map_err(|e| format!("{}: {e}", copy.display()))?;
    Ok(RecoveredRecipe {
        copy: copy.to_path_buf(),
        file: header(FILE_LINE),
        base_dir: header(BASE_LINE),
        recipe,
    })
}

/// The pid in a recovery copy's name.
fn copy_pid(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix(PREFIX)?
        .strip_suffix(EXTENSION)?
        .parse()
        .ok()
}

/// The newest readable copy in `dir` that is not `own` and whose viewer is
/// not running; unreadable copies are left alone.
pub fn newest_stale_copy(
    dir: &Path,
    own: &Path,
    running: impl Fn(u32) -> bool,
) -> Option<RecoveredRecipe> {
    let mut copies: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path != own)
        .filter(|path| copy_pid(path).is_some_and(|pid| !running(pid)))
        .filter_map(|path| Some((path.metadata().ok()?.modified().ok()?, path)))
        .collect();
    copies.sort();
    copies.into_iter().rev().find_map(|(_, path)| {
        let text = std::fs::read_to_string(&path).ok()?;
        decode(&path, &text)
            .map_err(|e| warn!("recovery copy not readable: {e}"))
            .ok()
    })
}

/// Whether a process with this pid runs (Linux: its /proc entry; where
/// there is no /proc, every other copy counts as stale).
fn pid_is_running(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

fn remove_quietly(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        warn!("cannot remove {}: {e}", path.display());
    }
}

fn offer_stale_copy(mut recovery: ResMut<Recovery>) {
    let own = recovery.own.clone();
    recovery.offered = newest_stale_copy(&recovery.dir, &own, pid_is_running);
}

/// Keeps this viewer's copy in step with the recipe while it is unsaved,
/// and removes it once the recipe is saved (or undone back to saved).
fn keep_copy(recipe: Res<EditedRecipe>, source: Res<RecipeSource>, mut recovery: ResMut<Recovery>) {
    let unsaved = has_unsaved_edits(&recipe.0, &source);
    if recipe.is_changed() || source.is_changed() {
        if unsaved {
            recovery.pending_since.get_or_insert_with(Instant::now);
        } else {
            recovery.pending_since = None;
            if recovery.written {
                remove_quietly(&recovery.own);
                recovery.written = false;
            }
        }
    }
    let due = recovery
        .pending_since
        .is_some_and(|since| since.elapsed() >= recovery.debounce);
    if !due {
        return;
    }
    recovery.pending_since = None;
    let written = encode(&recipe.0, &source).and_then(|text| {
        std::fs::create_dir_all(&recovery.dir)
            .and_then(|()| write_atomic(&recovery.own, text.as_bytes()))
            .map_err(|e| format!("{}: {e}", recovery.own.display()))
    });
    match written {
        Ok(()) => recovery.written = true,
        Err(e) => warn!("cannot keep the unsaved recipe for recovery: {e}"),
    }
}

/// A window closing through the close guard means the user saved or
/// chose not to: the copy goes. (The window is despawned in `Last`, so
/// this runs before it.)
fn forget_on_close(closing: Query<(), With<ClosingWindow>>, mut recovery: ResMut<Recovery>) {
    if !closing.is_empty() && (recovery.written || recovery.pending_since.is_some()) {
        remove_quietly(&recovery.own);
        recovery.written = false;
        recovery.pending_since = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(seed: u64) -> Recipe {
        let mut recipe = orogen_core::presets::load("default")
            .expect("the default preset exists")
            .expect("the default preset loads");
        recipe.seed = seed;
        recipe
    }

    #[test]
    fn a_copy_reads_back_as_the_recipe_and_its_source() {
        let source = RecipeSource {
            file: Some(PathBuf::from("/worlds/alps.ron")),
            base_dir: Some(PathBuf::from("/worlds")),
            saved: None,
        };
        let original = recipe(77);
        let text = encode(&original, &source).expect("encodes");
        let back = decode(Path::new("unsaved-1.ron"), &text).expect("decodes");
        assert_eq!(back.recipe, original);
        assert_eq!(back.file, source.file);
        assert_eq!(back.base_dir, source.base_dir);
        let bare = encode(&original, &RecipeSource::default()).expect("encodes");
        let back = decode(Path::new("unsaved-1.ron"), &bare).expect("decodes");
        assert_eq!((back.file, back.base_dir), (None, None));
        assert!(decode(Path::new("x.ron"), "(broken").is_err());
    }

    #[test]
    fn the_newest_copy_of_a_viewer_that_is_gone_is_offered() {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = |pid: u32, seed: u64| {
            let path = dir.path().join(format!("unsaved-{pid}.ron"));
            let text = encode(&recipe(seed), &RecipeSource::default()).expect("encodes");
            std::fs::write(&path, text).expect("written");
            std::thread::sleep(Duration::from_millis(20));
            path
        };
        write(10, 1);
        write(11, 2);
        let own = write(12, 3);
        write(13, 4);
        std::fs::write(dir.path().join("unsaved-14.ron"), "(broken").expect("written");
        std::fs::write(dir.path().join("notes.ron"), "()").expect("written");
        // 13 is running, 12 is this viewer, 14 is unreadable: 11 is offered.
        let offered = newest_stale_copy(dir.path(), &own, |pid| pid == 13).expect("offered");
        assert_eq!(offered.recipe.seed, 2);
        assert_eq!(offered.copy, dir.path().join("unsaved-11.ron"));
        assert!(newest_stale_copy(&dir.path().join("missing"), &own, |_| false).is_none());
    }

    /// In a headless app: an unsaved edit is copied, saving removes the
    /// copy, and a close removes it too.
    #[test]
    fn the_copy_follows_unsaved_edits_and_goes_on_save_and_close() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut recovery = Recovery::new(dir.path().join("state"), 4242);
        recovery.debounce = Duration::ZERO;
        let own = recovery.own.clone();
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .insert_resource(EditedRecipe(recipe(1)))
            .insert_resource(RecipeSource {
                saved: Some(recipe(1)),
                ..RecipeSource::default()
            })
            .insert_resource(recovery)
            .add_systems(PostUpdate, forget_on_close)
            .add_systems(Last, keep_copy);
        app.update();
        assert!(!own.exists(), "nothing unsaved yet");

        app.world_mut().resource_mut::<EditedRecipe>().0 = recipe(2);
        app.update();
        let text = std::fs::read_to_string(&own).expect("the copy is written");
        assert_eq!(decode(&own, &text).expect("decodes").recipe.seed, 2);

        app.world_mut().resource_mut::<RecipeSource>().saved = Some(recipe(2));
        app.update();
        assert!(!own.exists(), "saved: the copy goes");

        app.world_mut().resource_mut::<EditedRecipe>().0 = recipe(3);
        app.update();
        assert!(own.exists());
        app.world_mut().spawn(ClosingWindow);
        app.update();
        assert!(!own.exists(), "closed: the copy goes");
    }
}
