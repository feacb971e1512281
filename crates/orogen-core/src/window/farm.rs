//! A farm: a world built as windows by any batch runner, phase by phase,
//! driven by what its output folder holds.
//!
//! Each look at the folder ([`Farm::next_step`]) names the jobs of the
//! next phase whose inputs are ready, and nothing once all is built; a
//! runner loops "look, run the jobs" until the list is empty. The phases,
//! for barriers b1 < b2 < … (stages that need the whole world's height
//! range) and, when 16-bit files are written, the final heights' range:
//!
//! 1. a facts job per window for the first barrier without facts, each
//!    writing `DIR/facts/stage_<b>/<window>.json`;
//! 2. once every report of that phase exists, the farm reduces them
//!    itself into `DIR/facts.json` and goes on to the next phase;
//! 3. with all facts, a generate job per window into `DIR/<window>/`.
//!
//! A job is done when its output is complete: every file takes its name
//! only by an atomic rename, and a window's `heightmap.json` is renamed
//! last and names its window. A window folder whose writer still holds
//! its owner lock ([`crate::io::owner_lock`]: the operating system drops
//! it when the writer dies, on any machine sharing the folder) is not
//! listed again; one a dead writer left half done is, and its next
//! export clears the dead writer's temporary files. No pid is compared.

use super::facts::{FactsError, StageFacts, WorldFacts};
use super::{Window, barriers};
use crate::io::OptionError;
use crate::io::atomic::{remove_stale_temp_files, write_atomic};
use crate::io::engines::Engine;
use crate::io::height_files::{HeightFormat, HeightFormats};
use crate::io::owner_lock::OwnerLock;
use crate::io::sidecar::{SidecarWindow, parse_sidecar};
use crate::io::tiled_export::map_tile_grid;
use crate::recipe::{Recipe, RecipeError};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One window of a farm: column `i`, row `j` of the split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedWindow {
    /// Column of windows, from the west.
    pub i: usize,
    /// Row of windows, from the north.
    pub j: usize,
    /// Its cells.
    pub window: Window,
    /// Its folder and report name: `tile_<i>_<j>`, or an engine's tile
    /// name.
    pub name: String,
}

impl PlannedWindow {
    /// The window's folder and report name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The `columns x rows` windows that partition a `width x height` map,
/// row by row: column i covers cells `i*width/columns ..
/// (i+1)*width/columns`, so sides differ by at most one cell and every
/// cell is in exactly one window.
pub fn split(width: usize, height: usize, columns: usize, rows: usize) -> Vec<PlannedWindow> {
    let cut = |n: usize, i: usize, k: usize| n * i / k;
    let mut out = Vec::with_capacity(columns * rows);
    for j in 0..rows {
        for i in 0..columns {
            let (x0, x1) = (cut(width, i, columns), cut(width, i + 1, columns));
            let (y0, y1) = (cut(height, j, rows), cut(height, j + 1, rows));
            out.push(PlannedWindow {
                i,
                j,
                window: Window {
                    x: x0,
                    y: y0,
                    width: x1 - x0,
                    height: y1 - y0,
                },
                name: format!("tile_{i}_{j}"),
            });
        }
    }
    out
}

/// The windows of an engine's `n x n` landscape tiles (those of a
/// whole-map export tiled for `engine`): border-sharing, named as the
/// engine's batch importer expects.
pub fn engine_tiles(
    width: usize,
    height: usize,
    n: usize,
    engine: Engine,
) -> Result<Vec<PlannedWindow>, OptionError> {
    let grid = map_tile_grid(width, height, n)?.for_engine(engine)?;
    let mut out = Vec::with_capacity(grid.n * grid.n);
    for j in 0..grid.n {
        for i in 0..grid.n {
            let (x, y) = grid.origin(i, j);
            out.push(PlannedWindow {
                i,
                j,
                window: Window {
                    x,
                    y,
                    width: grid.tile_width,
                    height: grid.tile_height,
                },
                name: grid.stem(i, j),
            });
        }
    }
    Ok(out)
}

/// The facts phases a farm runs, in order: every barrier, then the final
/// heights when 16-bit files need the world's range.
pub fn phases(recipe: &Recipe, sixteen_bit: bool) -> Vec<usize> {
    let mut phases = barriers(recipe);
    if sixteen_bit {
        phases.push(recipe.stages.len());
    }
    phases
}

/// Why a farm's folder cannot be planned from.
#[derive(Debug, thiserror::Error)]
pub enum FarmError {
    /// A folder could not be created.
    #[error("cannot create {}: {source}", .path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// A file could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// A finished engine tile's file could not be linked beside the others.
    #[error("cannot place {}: {source}", .path.display())]
    Place {
        /// The link's path.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// `facts.json` could not be read.
    #[error("cannot read facts file {}: {source}", .path.display())]
    ReadFacts {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// `facts.json` is not a facts file.
    #[error("{}: {source}", .path.display())]
    Facts {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: FactsError,
    },
    /// A window's report is not JSON of a report.
    #[error("{}: not a facts report ({source})", .path.display())]
    NotAReport {
        /// The report.
        path: PathBuf,
        /// The JSON reader's error.
        source: serde_json::Error,
    },
    /// A report for another stage, or of a range that is not finite.
    #[error(
        "{}: a report for stage {found} ({min}..{max}), expected a finite range for stage {stage}",
        .path.display()
    )]
    WrongReport {
        /// The report.
        path: PathBuf,
        /// The stage it should be for.
        stage: usize,
        /// The stage it is for.
        found: usize,
        /// Its lowest height.
        min: f32,
        /// Its highest height.
        max: f32,
    },
    /// The reports of one phase cannot be combined.
    #[error("{}: the reports disagree", .dir.display())]
    ReportsDisagree {
        /// The phase's reports folder.
        dir: PathBuf,
    },
    /// The folder was planned for another recipe, size, seed, tiling or
    /// formats, whose outputs would pass for this plan's.
    #[error(
        "{} holds a plan for another recipe, size, seed, tiling or formats (see its plan.json); choose another folder or empty it",
        .dir.display()
    )]
    OtherPlan {
        /// The folder.
        dir: PathBuf,
    },
    /// The recipe could not be written into the plan's stamp.
    #[error(transparent)]
    Recipe(#[from] RecipeError),
}

/// What a farm's folder is built from: the same recipe, tiling and files
/// on every look.
#[derive(Clone, Copy, Debug)]
pub struct FarmStamp<'a> {
    /// The recipe (its size and seed included).
    pub recipe: &'a Recipe,
    /// Windows west to east and north to south.
    pub tiles: (usize, usize),
    /// The height files each window writes.
    pub formats: HeightFormats,
    /// The engine whose landscape tiles the windows are, if any.
    pub engine: Option<Engine>,
}

/// A job of a farm's phase: one window, and where its output goes.
#[derive(Clone, Debug)]
pub struct FarmJob<'w> {
    /// The window.
    pub window: &'w PlannedWindow,
    /// A facts job's report file, or a generate job's folder.
    pub out: PathBuf,
}

/// What a look at the folder found to do next.
#[derive(Debug)]
pub enum FarmStep<'w> {
    /// Run each window's barrier phase for `stage`, writing its report.
    Facts {
        /// The barrier (or the stage count: the final heights).
        stage: usize,
        /// The windows still to report (the others have).
        jobs: Vec<FarmJob<'w>>,
    },
    /// Generate each window into its folder (an empty list: all built,
    /// or being written by `running` live jobs).
    Generate {
        /// The windows still to build.
        jobs: Vec<FarmJob<'w>>,
        /// Windows whose writer is still at work: not listed.
        running: usize,
    },
}

/// A farm's folder and its windows.
pub struct Farm<'a> {
    dir: &'a Path,
    recipe: &'a Recipe,
    windows: &'a [PlannedWindow],
    sixteen_bit: bool,
    facts: WorldFacts,
}

impl<'a> Farm<'a> {
    /// Opens (creating) `dir` for `windows` of `stamp`'s world: writes the
    /// stamp the first time, and afterwards refuses another; reads the
    /// facts reduced so far.
    pub fn open(
        dir: &'a Path,
        stamp: FarmStamp<'a>,
        windows: &'a [PlannedWindow],
    ) -> Result<Self, FarmError> {
        fs::create_dir_all(dir).map_err(|source| FarmError::CreateFolder {
            path: dir.to_path_buf(),
            source,
        })?;
        check_stamp(dir, &stamp)?;
        let facts_path = dir.join("facts.json");
        let facts = match fs::read_to_string(&facts_path) {
            Ok(text) => WorldFacts::from_json(&text).map_err(|source| FarmError::Facts {
                path: facts_path.clone(),
                source,
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => WorldFacts::default(),
            Err(source) => {
                return Err(FarmError::ReadFacts {
                    path: facts_path,
                    source,
                });
            }
        };
        Ok(Self {
            dir,
            recipe: stamp.recipe,
            windows,
            sixteen_bit: stamp.formats.writes_16_bit(),
            facts,
        })
    }

    /// The world's facts reduced so far.
    pub fn facts(&self) -> &WorldFacts {
        &self.facts
    }

    /// `DIR/facts.json`, the file jobs read the facts from.
    pub fn facts_path(&self) -> PathBuf {
        self.dir.join("facts.json")
    }

    /// Looks at the folder: reduces every facts phase whose reports are
    /// all in (writing `facts.json`), and names the jobs of the first
    /// phase that is not.
    pub fn next_step(&mut self) -> Result<FarmStep<'a>, FarmError> {
        for stage in phases(self.recipe, self.sixteen_bit) {
            if self.facts.get(stage).is_some() {
                continue;
            }
            let reports_dir = self.dir.join("facts").join(format!("stage_{stage}"));
            fs::create_dir_all(&reports_dir).map_err(|source| FarmError::CreateFolder {
                path: reports_dir.clone(),
                source,
            })?;
            // A facts job killed midway left a temporary file: clear it.
            let _ = remove_stale_temp_files(&reports_dir);
            let mut reports = Vec::new();
            let mut jobs = Vec::new();
            for window in self.windows {
                let path = reports_dir.join(format!("{}.json", window.name()));
                match read_report(&path, stage)? {
                    Some(report) => reports.push(report),
                    None => jobs.push(FarmJob { window, out: path }),
                }
            }
            if !jobs.is_empty() {
                return Ok(FarmStep::Facts { stage, jobs });
            }
            let world = StageFacts::reduce(&reports)
                .ok_or(FarmError::ReportsDisagree { dir: reports_dir })?;
            self.facts = std::mem::take(&mut self.facts).with(world);
            let path = self.facts_path();
            write_atomic(&path, self.facts.to_json().as_bytes())
                .map_err(|source| FarmError::Write { path, source })?;
        }
        let (width, height) = (self.recipe.width as usize, self.recipe.height as usize);
        let mut jobs = Vec::new();
        let mut running = 0;
        for window in self.windows {
            let tile_dir = self.dir.join(window.name());
            if is_built(&tile_dir, window, width, height) {
                continue;
            }
            if is_being_written(&tile_dir) {
                running += 1;
                continue;
            }
            jobs.push(FarmJob {
                window,
                out: tile_dir,
            });
        }
        Ok(FarmStep::Generate { jobs, running })
    }

    /// Once every engine tile is built: each tile's height files linked
    /// into DIR under its tile name (`DIR/<tile>/heightmap.r16` as
    /// `DIR/<tile>.r16`), where the engine's batch importer finds them
    /// together. A link (or, where links cannot be made, a copy) is made
    /// under a temporary name and renamed into place, so a file of that
    /// name is always whole.
    pub fn link_engine_tiles(&self) -> Result<(), FarmError> {
        for w in self.windows {
            let tile_dir = self.dir.join(w.name());
            for format in HeightFormat::ALL {
                let from = tile_dir.join(format.file_name());
                let Some(ext) = Path::new(format.file_name()).extension() else {
                    continue;
                };
                let ext = ext.to_string_lossy();
                let to = self.dir.join(format!("{}.{ext}", w.name()));
                if !from.is_file() || same_file(&from, &to) {
                    continue;
                }
                let temp = self.dir.join(format!(".{}.{ext}.link", w.name()));
                let _ = fs::remove_file(&temp);
                fs::hard_link(&from, &temp)
                    .or_else(|_| fs::copy(&from, &temp).map(|_| ()))
                    .and_then(|()| fs::rename(&temp, &to))
                    .map_err(|source| FarmError::Place { path: to, source })?;
            }
        }
        Ok(())
    }
}

/// Whether both paths name one file (a link made earlier).
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Elsewhere the link is made again (a rename over the old one).
#[cfg(not(unix))]
fn same_file(_: &Path, _: &Path) -> bool {
    false
}

/// Writes `DIR/plan.json` (what the folder is built from) the first time,
/// and afterwards refuses another recipe, size, seed, tiling or formats:
/// their outputs would pass for this plan's.
fn check_stamp(dir: &Path, stamp: &FarmStamp) -> Result<(), FarmError> {
    let path = dir.join("plan.json");
    let ron = stamp.recipe.to_ron()?;
    let names: Vec<&str> = stamp.formats.iter().map(|f| f.name()).collect();
    let (columns, rows) = stamp.tiles;
    let value = serde_json::json!({ "tiles": [columns, rows], "engine": stamp.engine.map(Engine::name), "formats": names.join(","), "recipe": ron });
    match fs::read(&path) {
        Ok(bytes) => {
            let earlier: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
            if earlier.as_ref() != Some(&value) {
                return Err(FarmError::OtherPlan {
                    dir: dir.to_path_buf(),
                });
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A JSON value of strings and numbers always prints.
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            write_atomic(&path, text.as_bytes()).map_err(|source| FarmError::Write { path, source })
        }
        Err(source) => Err(FarmError::Read { path, source }),
    }
}

/// A finished facts job's report, `None` while it is missing.
fn read_report(path: &Path, stage: usize) -> Result<Option<StageFacts>, FarmError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(FarmError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let report: StageFacts =
        serde_json::from_str(&text).map_err(|source| FarmError::NotAReport {
            path: path.to_path_buf(),
            source,
        })?;
    if report.index != stage || !(report.min.is_finite() && report.max.is_finite()) {
        return Err(FarmError::WrongReport {
            path: path.to_path_buf(),
            stage,
            found: report.index,
            min: report.min,
            max: report.max,
        });
    }
    Ok(Some(report))
}

/// Whether `tile_dir` holds this window's finished export: its sidecar,
/// renamed into place after every other file, names the window.
fn is_built(tile_dir: &Path, w: &PlannedWindow, width: usize, height: usize) -> bool {
    let want = SidecarWindow {
        x: w.window.x,
        y: w.window.y,
        width: w.window.width,
        height: w.window.height,
        world_width: width,
        world_height: height,
    };
    fs::read(tile_dir.join("heightmap.json"))
        .ok()
        .and_then(|bytes| parse_sidecar(&bytes))
        .is_some_and(|sidecar| sidecar.window == Some(want))
}

/// Whether a live writer holds an owner lock in `tile_dir` (its export is
/// under way). A free lock is a dead writer's: the window is listed again.
fn is_being_written(tile_dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(tile_dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        name.starts_with(".orogen-")
            && name.ends_with(".lock")
            && matches!(OwnerLock::try_take(&entry.path()), Ok(None))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_partition_the_map() {
        for (w, h, k, l) in [
            (513, 513, 2, 2),
            (301, 257, 3, 3),
            (7, 5, 5, 5),
            (2049, 2049, 4, 1),
            (9, 2049, 1, 7),
        ] {
            let windows = split(w, h, k, l);
            assert_eq!(windows.len(), k * l);
            let mut seen = vec![0u8; w * h];
            for p in &windows {
                let Window {
                    x,
                    y,
                    width,
                    height,
                } = p.window;
                assert!(width >= w / k && width <= w / k + 1);
                assert!(height >= h / l && height <= h / l + 1);
                for row in y..y + height {
                    for col in x..x + width {
                        seen[row * w + col] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{w}x{h} in {k}");
        }
        let windows = split(513, 513, 2, 2);
        assert_eq!(windows[1].name(), "tile_1_0");
        assert_eq!(windows[1].window.x, 256);
        assert_eq!(windows[3].window.width, 257);
    }

    #[test]
    fn a_folder_planned_for_another_recipe_is_refused() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let (recipe, _) = crate::bake::load_recipe("default").expect("the default preset");
        let windows = split(513, 513, 2, 2);
        fn stamp(recipe: &Recipe) -> FarmStamp<'_> {
            FarmStamp {
                recipe,
                tiles: (2, 2),
                formats: HeightFormats::of(&[HeightFormat::R16]),
                engine: None,
            }
        }
        let mut farm = Farm::open(dir.path(), stamp(&recipe), &windows).expect("opens");
        // The default preset normalises: its first phase is that barrier.
        match farm.next_step().expect("plans") {
            FarmStep::Facts { jobs, .. } => assert_eq!(jobs.len(), 4),
            step => panic!("{step:?}"),
        }
        let mut other = recipe.clone();
        other.seed += 1;
        let err = Farm::open(dir.path(), stamp(&other), &windows).err();
        assert!(matches!(err, Some(FarmError::OtherPlan { .. })), "{err:?}");
    }
}
