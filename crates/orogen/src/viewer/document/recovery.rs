//! Nothing lost in a crash: while the recipe has unsaved edits, a copy is
//! kept in the state folder (`$OROGEN_STATE_DIR`, else
//! `$XDG_STATE_HOME/orogen`, else `~/.local/state/orogen`), one file per
//! running viewer. A normal close removes it (the user saved, or chose to
//! close without saving); a crash leaves it, and the next viewer offers to
//! restore it.
//!
//! Each viewer holds an owner lock ([`OwnerLock`]) on a lock file beside
//! its copy for as long as it runs; the system drops the lock when the
//! process ends, however it ends. A copy whose lock can be taken, or whose
//! lock file is gone (it is made before the copy and removed after it), is
//! a crashed viewer's: no pid check, which a reused pid or another machine
//! sharing the home folder would fool.
//!
//! Painted masks not yet saved live only in memory: each copy's painted
//! masks are written beside it, in `masks/<hash>.png` (named by content,
//! so shared between copies and written once), and the copy names them by
//! absolute path. Mask files no copy names are cleared when a viewer
//! starts.

use super::unsaved::has_unsaved_edits;
use super::{EditedRecipe, RecipeSource};
use bevy::prelude::*;
use bevy::window::ClosingWindow;
use orogen_core::Recipe;
use orogen_core::io::atomic::write_atomic;
use orogen_core::io::owner_lock::{OwnerLock, remove_abandoned_pending};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct RecoveryPlugin;

impl Plugin for RecoveryPlugin {
    fn build(&self, app: &mut App) {
        let Some(dir) = state_dir() else {
            warn!("no state folder (HOME is unset): unsaved edits are not kept for recovery");
            return;
        };
        let recovery = match Recovery::start(dir, &session_name()) {
            Ok(recovery) => recovery,
            Err(e) => {
                warn!("unsaved edits are not kept for recovery: {e}");
                return;
            }
        };
        app.insert_resource(recovery)
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
const LOCK_EXTENSION: &str = ".lock";
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

/// A crashed viewer's copy on offer, its lock held meanwhile (so two
/// viewers starting together do not both offer it).
#[derive(Debug)]
pub struct Offer {
    pub recovered: RecoveredRecipe,
    lock: Lock,
}

/// An exclusive lock on a lock file, released when dropped or when the
/// process ends.
#[derive(Debug)]
struct Lock(OwnerLock);

impl Lock {
    /// This viewer's own lock, on a fresh lock file that appears already
    /// held (another viewer never sees it free).
    fn create(path: &Path) -> Result<Lock, String> {
        OwnerLock::create(path)
            .map(Lock)
            .map_err(|e| format!("cannot lock {}: {e}", path.display()))
    }

    /// Takes the lock on a copy's lock file if no one holds it. A missing
    /// lock file means the copy's viewer is gone: one is made, held, so
    /// that two viewers do not both take the copy. Not taken where the
    /// lock cannot be judged (a file system without locks).
    fn try_take(path: &Path) -> Option<Lock> {
        match OwnerLock::try_take(path) {
            Ok(lock) => lock.map(Lock),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                OwnerLock::create(path).ok().map(Lock)
            }
            Err(_) => None,
        }
    }

    /// Takes the lock on an existing lock file if no one holds it; never
    /// creates one.
    fn take_existing(path: &Path) -> Option<Lock> {
        OwnerLock::try_take(path).ok().flatten().map(Lock)
    }

    /// Removes the lock file while holding it, then lets the lock go.
    fn remove(self) {
        let path = self.0.path().to_path_buf();
        if let Err(e) = self.0.remove() {
            warn!("cannot remove {}: {e}", path.display());
        }
    }
}

/// A name no other viewer has, even with the same pid.
fn session_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{}-{nanos}", std::process::id())
}

fn lock_path_of(copy: &Path) -> PathBuf {
    copy.with_extension(&LOCK_EXTENSION[1..])
}

#[derive(Resource, Debug)]
pub struct Recovery {
    dir: PathBuf,
    /// This viewer's copy.
    own: PathBuf,
    /// Held while this viewer runs.
    own_lock: Option<Lock>,
    /// When the recipe last changed while unsaved and the copy is behind.
    pending_since: Option<Instant>,
    written: bool,
    /// Edits closer together than this are written once.
    pub debounce: Duration,
    /// A copy a crashed viewer left, offered to restore.
    pub offered: Option<Offer>,
}

impl Recovery {
    /// Creates the state folder and takes this viewer's lock.
    pub fn start(dir: PathBuf, session: &str) -> Result<Recovery, String> {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let own = dir.join(format!("{PREFIX}{session}{EXTENSION}"));
        let own_lock = Lock::create(&lock_path_of(&own))?;
        Ok(Recovery {
            own,
            own_lock: Some(own_lock),
            dir,
            pending_since: None,
            written: false,
            debounce: Duration::from_secs(1),
            offered: None,
        })
    }

    /// The answer to the offer. Restored: the copy becomes this viewer's
    /// own (kept until the edits are saved, so a crash right now loses
    /// nothing), and further copies wait for a later viewer. Discarded: it
    /// goes, and the next one is offered.
    pub fn settle_offer(&mut self, restored: bool) {
        let Some(offer) = self.offered.take() else {
            return;
        };
        if restored {
            if std::fs::rename(&offer.recovered.copy, &self.own).is_ok() {
                self.written = true;
            }
        } else {
            remove_quietly(&offer.recovered.copy);
        }
        offer.lock.remove();
        if !restored {
            self.offered = newest_stale_copy(&self.dir, &self.own);
        }
    }

    /// The normal end: the copy and the lock file go.
    fn forget(&mut self) {
        remove_quietly(&self.own);
        self.written = false;
        self.pending_since = None;
        if let Some(lock) = self.own_lock.take() {
            lock.remove();
        }
    }
}

/// The recovery file's text: where the recipe came from, then the recipe.
/// Paths are written absolute: the next viewer may start elsewhere.
pub fn encode(recipe: &Recipe, source: &RecipeSource) -> Result<String, String> {
    let mut text = String::from("// orogen: a recipe with unsaved edits, kept for recovery\n");
    for (line, path) in [(FILE_LINE, &source.file), (BASE_LINE, &source.base_dir)] {
        if let Some(path) = path {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            text.push_str(&format!("{line}{}\n", path.display()));
        }
    }
    text.push_str(&recipe.to_ron().map_err(|e| e.to_string())?);
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

/// The newest readable copy in `dir` other than `own` whose viewer is
/// gone (its lock can be taken; the lock is then held by the offer).
/// Lock files left without a copy are cleared on the way.
pub fn newest_stale_copy(dir: &Path, own: &Path) -> Option<Offer> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .collect();
    let name_of = |path: &Path| {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    for lock in entries.iter().filter(|p| {
        let name = name_of(p);
        name.starts_with(PREFIX) && name.ends_with(LOCK_EXTENSION)
    }) {
        if !lock.with_extension(&EXTENSION[1..]).exists()
            && let Some(taken) = Lock::take_existing(lock)
        {
            taken.remove();
        }
    }
    // Lock files a viewer died making, before they got their names.
    let _ = remove_abandoned_pending(dir);
    let mut copies: Vec<(std::time::SystemTime, &PathBuf)> = entries
        .iter()
        .filter(|path| path.as_path() != own)
        .filter(|path| {
            let name = name_of(path);
            name.starts_with(PREFIX) && name.ends_with(EXTENSION)
        })
        .filter_map(|path| Some((path.metadata().ok()?.modified().ok()?, path)))
        .collect();
    copies.sort();
    copies.into_iter().rev().find_map(|(_, path)| {
        let lock = Lock::try_take(&lock_path_of(path))?;
        let text = std::fs::read_to_string(path).ok()?;
        match decode(path, &text) {
            Ok(recovered) => Some(Offer { recovered, lock }),
            Err(e) => {
                warn!("recovery copy not readable: {e}");
                None
            }
        }
    })
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
    prune_masks(&recovery.dir);
    recovery.offered = newest_stale_copy(&recovery.dir, &own);
}

/// Keeps this viewer's copy in step with the recipe while it is unsaved,
/// and removes it once the recipe is saved (or undone back to saved).
fn keep_copy(recipe: Res<EditedRecipe>, source: Res<RecipeSource>, mut recovery: ResMut<Recovery>) {
    if recovery.own_lock.is_none() {
        return; // closing
    }
    // Compared only after a change: this runs every frame.
    if recipe.is_changed() || source.is_changed() {
        if has_unsaved_edits(&recipe.0, &source) {
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
    let with_masks = copy_painted_masks(&recipe.0, source.base_dir.as_deref(), &recovery.dir);
    let written = encode(&with_masks, &source).and_then(|text| {
        std::fs::create_dir_all(&recovery.dir)
            .and_then(|()| write_atomic(&recovery.own, text.as_bytes()))
            .map_err(|e| format!("{}: {e}", recovery.own.display()))
    });
    match written {
        Ok(()) => recovery.written = true,
        Err(e) => warn!("cannot keep the unsaved recipe for recovery: {e}"),
    }
}

/// The folder painted masks of the copies in `dir` are kept in.
fn masks_dir(dir: &Path) -> PathBuf {
    dir.join("masks")
}

/// `recipe` with each painted mask written to `masks/<hash>.png` under
/// `dir` (once: the name is the content) and named there by absolute
/// path, so the copy restores its masks wherever the next viewer starts.
/// A mask that cannot be found or written keeps its name, with a warning.
pub fn copy_painted_masks(recipe: &Recipe, base_dir: Option<&Path>, dir: &Path) -> Recipe {
    use orogen_core::stages::mask::MaskSource;
    use orogen_core::stages::mask::painted::resolve;
    let mut copy = recipe.clone();
    let folder = masks_dir(dir);
    for painted in copy
        .stages
        .iter_mut()
        .flat_map(|entry| entry.maps_mut())
        .filter_map(|(_, map)| match &mut map.source {
            MaskSource::Painted(painted) => Some(painted),
            _ => None,
        })
    {
        let path = folder.join(format!("{}.png", painted.hash));
        let path = std::path::absolute(&path).unwrap_or(path);
        let stored = path.exists()
            || resolve(painted, base_dir)
                .map_err(|e| e.to_string())
                .and_then(|image| {
                    std::fs::create_dir_all(&folder)
                        .and_then(|()| write_atomic(&path, &image.to_png()))
                        .map_err(|e| format!("{}: {e}", path.display()))
                })
                .inspect_err(|e| warn!("painted mask not kept for recovery: {e}"))
                .is_ok();
        if stored {
            painted.file = path.to_string_lossy().into_owned();
        }
    }
    copy
}

/// Removes the mask files under `dir` that no copy there names.
pub fn prune_masks(dir: &Path) {
    let Ok(masks) = std::fs::read_dir(masks_dir(dir)) else {
        return;
    };
    let copies: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(EXTENSION))
        })
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .collect();
    for mask in masks.flatten().map(|entry| entry.path()) {
        let Some(stem) = mask.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        if !copies.iter().any(|text| text.contains(&stem)) {
            remove_quietly(&mask);
        }
    }
}

/// A window closing through the close guard means the user saved or
/// chose not to: the copy goes. (The window is despawned in `Last`, so
/// this runs before it.)
fn forget_on_close(closing: Query<(), With<ClosingWindow>>, mut recovery: ResMut<Recovery>) {
    if !closing.is_empty() && recovery.own_lock.is_some() {
        recovery.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::document::unsaved::tests::recipe;

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

    fn write_copy(dir: &Path, name: &str, seed: u64) -> PathBuf {
        let path = dir.join(format!("unsaved-{name}.ron"));
        let text = encode(&recipe(seed), &RecipeSource::default()).expect("encodes");
        std::fs::write(&path, text).expect("written");
        std::thread::sleep(Duration::from_millis(20));
        path
    }

    /// A painted mask that lives only in memory is kept beside the copy,
    /// named by its hash, and the restored copy finds it on disk; masks
    /// no copy names are cleared.
    #[test]
    fn unsaved_painted_masks_are_kept_with_the_copy() {
        use orogen_core::params::Span;
        use orogen_core::stages::mask::painted::{
            Brush, PaintedImage, PaintedMask, read_checked, remember,
        };
        use orogen_core::stages::mask::{MaskSource, StageMask};
        let dir = tempfile::tempdir().expect("temp dir");
        let mut image = PaintedImage::blank(32, 32);
        let brush = Brush {
            radius: 8.0,
            hardness: 0.5,
            strength: 1.0,
            erase: false,
        };
        image.dab([16.0, 16.0], [32.0, 32.0], &brush);
        let hash = remember(image);
        let mut edited = recipe(5);
        edited.stages[0].mask = Some(StageMask {
            source: MaskSource::Painted(PaintedMask {
                file: String::new(),
                hash: hash.clone(),
            }),
            range: Span::new(0.0, 1.0),
            soft: 0.0,
            invert: false,
        });
        let copy = copy_painted_masks(&edited, None, dir.path());
        let Some(MaskSource::Painted(kept)) = copy.stages[0].mask.as_ref().map(|m| &m.source)
        else {
            panic!("the mask is still painted");
        };
        let path = PathBuf::from(&kept.file);
        assert!(path.is_absolute() && path.starts_with(dir.path().join("masks")));
        assert_eq!(read_checked(&path, &hash).expect("on disk").hash(), hash);
        // Through the copy's text and back, as a restore reads it.
        let own = dir.path().join("unsaved-a.ron");
        std::fs::write(
            &own,
            encode(&copy, &RecipeSource::default()).expect("encodes"),
        )
        .expect("written");
        let restored =
            decode(&own, &std::fs::read_to_string(&own).expect("reads")).expect("decodes");
        assert_eq!(restored.recipe.stages[0].mask, copy.stages[0].mask);
        // Named by a copy: kept. The copy gone: cleared.
        let stray = dir.path().join("masks").join("0123.png");
        std::fs::write(&stray, b"old").expect("written");
        prune_masks(dir.path());
        assert!(path.exists() && !stray.exists());
        std::fs::remove_file(&own).expect("removed");
        prune_masks(dir.path());
        assert!(!path.exists());
    }

    #[test]
    fn the_newest_copy_of_a_viewer_that_is_gone_is_offered() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        write_copy(d, "10", 1);
        write_copy(d, "11", 2);
        let own = write_copy(d, "12", 3);
        let running = write_copy(d, "13", 4);
        // A running viewer holds its lock.
        let _held = Lock::try_take(&lock_path_of(&running)).expect("lock");
        std::fs::write(d.join("unsaved-14.ron"), "(broken").expect("written");
        std::fs::write(d.join("notes.ron"), "()").expect("written");
        std::fs::write(d.join("unsaved-99.lock"), "").expect("written");
        // 13 runs, 12 is this viewer, 14 is unreadable: 11 is offered.
        let offer = newest_stale_copy(d, &own).expect("offered");
        assert_eq!(offer.recovered.recipe.seed, 2);
        assert_eq!(offer.recovered.copy, d.join("unsaved-11.ron"));
        assert!(
            !d.join("unsaved-99.lock").exists(),
            "a lock without copy goes"
        );
        // While offered, its lock is held: another viewer skips it.
        let second = newest_stale_copy(d, &own).expect("offered");
        assert_eq!(second.recovered.recipe.seed, 1);
        assert!(newest_stale_copy(&d.join("missing"), &own).is_none());
    }

    #[test]
    fn a_restored_copy_becomes_this_viewers_own_and_others_wait() {
        let dir = tempfile::tempdir().expect("temp dir");
        let state = dir.path().join("state");
        let mut recovery = Recovery::start(state.clone(), "now").expect("starts");
        write_copy(&state, "old-1", 1);
        write_copy(&state, "old-2", 2);
        recovery.offered = newest_stale_copy(&state, &recovery.own.clone());
        assert_eq!(
            recovery.offered.as_ref().map(|o| o.recovered.recipe.seed),
            Some(2)
        );
        recovery.settle_offer(true);
        let own = std::fs::read_to_string(&recovery.own).expect("renamed to own");
        assert_eq!(decode(&recovery.own, &own).expect("decodes").recipe.seed, 2);
        assert!(recovery.offered.is_none(), "one restore per start");
        assert!(state.join("unsaved-old-1.ron").exists(), "kept for later");

        // Discarding offers the next.
        let mut later = Recovery::start(state.clone(), "later").expect("starts");
        later.offered = newest_stale_copy(&state, &later.own.clone());
        let before = later.offered.as_ref().map(|o| o.recovered.copy.clone());
        later.settle_offer(false);
        assert!(!before.expect("offered").exists(), "discarded");
    }

    /// In a headless app: an unsaved edit is copied, saving removes the
    /// copy, and a close removes it too.
    #[test]
    fn the_copy_follows_unsaved_edits_and_goes_on_save_and_close() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut recovery = Recovery::start(dir.path().join("state"), "4242").expect("starts");
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
