//! `orogen plan`: a world built as windows (K x K, or C x R) by any batch runner.
//!
//! Each call looks at the output folder and prints the shell commands of
//! the next phase whose inputs are ready, one a line, and nothing once all
//! is built; a runner loops `orogen plan … > jobs; <run jobs>` until the
//! list is empty. The phases, for barriers b1 < b2 < … (stages that need
//! the whole world's height range) and, when 16-bit files are written, the
//! final heights' range:
//!
//! 1. `orogen facts` per window for the first barrier without facts, each
//!    writing `DIR/facts/stage_<b>/tile_<i>_<j>.json`;
//! 2. once every report of that phase exists, plan reduces them itself
//!    into `DIR/facts.json` and goes on to the next phase;
//! 3. with all facts, `orogen generate --window` per window into
//!    `DIR/tile_<i>_<j>/` (column i, row j).
//!
//! A job is done when its output is complete: every file takes its name
//! only by an atomic rename, and a window's `heightmap.json` is renamed
//! last and names its window. A window folder whose writer still holds its
//! owner lock (`io::owner_lock`: the operating system drops it when the
//! writer dies, on any machine sharing the folder) is not listed again;
//! one a dead writer left half done is, and its next export clears the
//! dead writer's temporary files. No pid is compared.

use crate::cli::facts::{RecipeChoice, shell_quote, writes_16_bit};
use clap::Args;
use orogen_core::io::atomic::{remove_stale_temp_files, write_atomic};
use orogen_core::io::engines::Engine;
use orogen_core::io::height_files::{HeightFormat, HeightFormats};
use orogen_core::io::owner_lock::OwnerLock;
use orogen_core::io::sidecar::{SidecarWindow, parse_sidecar};
use orogen_core::io::tiled_export::map_tile_grid;
use orogen_core::recipe::Recipe;
use orogen_core::window::{StageFacts, Window, WorldFacts, barriers};
use std::fs;
use std::path::{Path, PathBuf};

/// The most windows a side: far more jobs than any farm needs, and a
/// bound on what one plan lists (65536 lines).
const MAX_TILES: usize = 256;

#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub recipe: RecipeChoice,
    /// Split the world into N x N windows, or C x R (C columns, R rows:
    /// `1x32` makes full-width strips), 1 to 256 a side, each its own job.
    #[arg(long, value_name = "N|CxR")]
    pub tiles: String,
    /// The farm's folder, shared by every job: facts, reports and one
    /// tile_<i>_<j>/ folder per window. Give a path valid where jobs run.
    #[arg(long)]
    pub out: PathBuf,
    /// Height files each window writes, as for generate [default: r16,png].
    #[arg(long, value_name = "LIST")]
    pub formats: Option<String>,
    /// How the jobs start orogen [default: this program's path].
    #[arg(long, value_name = "COMMAND")]
    pub program: Option<String>,
    /// Windows as an engine's landscape tiles (unity, unreal or godot):
    /// the N x N tiles of `generate --tiles N --engine E`, sharing their
    /// border cells, each written in the engine's files and then linked
    /// into DIR under the engine's tile name (`<tile>.r16`, …). Needs
    /// `--tiles N`; the engine chooses the files.
    #[arg(long, value_name = "ENGINE", conflicts_with = "formats")]
    pub engine: Option<String>,
    /// Passed on to every job: refuse windows over this many MiB.
    #[arg(long)]
    pub memory_limit: Option<u64>,
}

/// One window of the plan: column `i`, row `j` of the split.
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
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// `X,Y,W,H` as `--window` takes it.
    pub fn arg(&self) -> String {
        let w = self.window;
        format!("{},{},{},{}", w.x, w.y, w.width, w.height)
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

/// The facts phases a plan runs, in order: every barrier, then the final
/// heights when 16-bit files need the world's range.
pub fn phases(recipe: &Recipe, sixteen_bit: bool) -> Vec<usize> {
    let mut phases = barriers(recipe);
    if sixteen_bit {
        phases.push(recipe.stages.len());
    }
    phases
}

/// Runs `orogen plan`.
pub fn plan_command(args: &PlanArgs) -> Result<(), String> {
    let (recipe, _) = args.recipe.load()?;
    let (width, height) = (recipe.width as usize, recipe.height as usize);
    let engine = super::parse_engine(args.engine.as_deref())?;
    let (columns, rows) = parse_tiles(&args.tiles, width, height)?;
    let formats = match engine {
        // Every engine's files include RAW16.
        Some(_) => HeightFormats::of(&[HeightFormat::R16]),
        None => super::parse_formats(args.formats.as_deref())?.unwrap_or_default(),
    };
    let dir = &args.out;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    check_stamp(dir, &recipe, (columns, rows), formats, engine)?;
    let windows = match engine {
        Some(engine) => engine_tiles(width, height, columns, rows, engine)?,
        None => split(width, height, columns, rows),
    };
    let job = JobLine::new(args)?;
    let facts_path = dir.join("facts.json");
    let mut facts = if facts_path.exists() {
        crate::cli::facts::read_facts(Some(&facts_path))?
    } else {
        WorldFacts::default()
    };
    for stage in phases(&recipe, writes_16_bit(formats)) {
        if facts.get(stage).is_some() {
            continue;
        }
        let reports_dir = dir.join("facts").join(format!("stage_{stage}"));
        fs::create_dir_all(&reports_dir)
            .map_err(|e| format!("cannot create {}: {e}", reports_dir.display()))?;
        // A facts job killed midway left a temporary file: clear it.
        let _ = remove_stale_temp_files(&reports_dir);
        let mut reports = Vec::new();
        let mut missing = Vec::new();
        for w in &windows {
            let path = reports_dir.join(format!("{}.json", w.name()));
            match read_report(&path, stage)? {
                Some(report) => reports.push(report),
                None => missing.push(job.facts(w, stage, &path, &facts, &facts_path)),
            }
        }
        if !missing.is_empty() {
            eprintln!(
                "plan: facts phase for stage {stage}: {} of {} windows to run",
                missing.len(),
                windows.len()
            );
            for line in missing {
                println!("{line}");
            }
            return Ok(());
        }
        let world = StageFacts::reduce(&reports)
            .ok_or_else(|| format!("{}: the reports disagree", reports_dir.display()))?;
        facts = facts.with(world);
        write_atomic(&facts_path, facts.to_json().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", facts_path.display()))?;
    }
    let mut todo = Vec::new();
    let mut running = 0;
    for w in &windows {
        let tile_dir = dir.join(w.name());
        if is_built(&tile_dir, w, width, height) {
            continue;
        }
        if is_being_written(&tile_dir) {
            running += 1;
            continue;
        }
        todo.push(job.generate(w, &tile_dir, &facts, &facts_path));
    }
    if running > 0 {
        eprintln!("plan: {running} window(s) are being written by running jobs; not listed");
    }
    if todo.is_empty() && running == 0 && engine.is_some() {
        link_engine_tiles(dir, &windows)?;
    }
    if !todo.is_empty() {
        eprintln!(
            "plan: {} of {} windows to generate",
            todo.len(),
            windows.len()
        );
    }
    for line in todo {
        println!("{line}");
    }
    Ok(())
}

/// The windows of an engine's N x N landscape tiles (`--tiles N --engine
/// E` of a whole-map export): border-sharing, named as the engine's batch
/// importer expects.
pub fn engine_tiles(
    width: usize,
    height: usize,
    columns: usize,
    rows: usize,
    engine: Engine,
) -> Result<Vec<PlannedWindow>, String> {
    if columns != rows {
        return Err(format!(
            "--engine {} tiles a landscape N x N: give --tiles N, not {columns}x{rows}",
            engine.name()
        ));
    }
    let grid = map_tile_grid(width, height, columns)
        .and_then(|grid| grid.for_engine(engine))
        .map_err(crate::cli::errors::option_error)?;
    let mut out = Vec::with_capacity(columns * rows);
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

/// Once every engine tile is built: each tile's height files linked into
/// DIR under its tile name (`DIR/<tile>/heightmap.r16` as `DIR/<tile>.r16`),
/// where the engine's batch importer finds them together. A link (or, where
/// links cannot be made, a copy) is made under a temporary name and renamed
/// into place, so a file of that name is always whole.
fn link_engine_tiles(dir: &Path, windows: &[PlannedWindow]) -> Result<(), String> {
    for w in windows {
        let tile_dir = dir.join(w.name());
        for format in HeightFormat::ALL {
            let from = tile_dir.join(format.file_name());
            let Some(ext) = Path::new(format.file_name()).extension() else {
                continue;
            };
            let to = dir.join(format!("{}.{}", w.name(), ext.to_string_lossy()));
            if !from.is_file() || same_file(&from, &to) {
                continue;
            }
            let temp = dir.join(format!(".{}.{}.link", w.name(), ext.to_string_lossy()));
            let _ = fs::remove_file(&temp);
            fs::hard_link(&from, &temp)
                .or_else(|_| fs::copy(&from, &temp).map(|_| ()))
                .and_then(|()| fs::rename(&temp, &to))
                .map_err(|e| format!("cannot place {}: {e}", to.display()))?;
        }
    }
    Ok(())
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

/// `--tiles N` (N x N) or `CxR`, each 1 to [`MAX_TILES`] and at most the
/// map's cells that way.
fn parse_tiles(text: &str, width: usize, height: usize) -> Result<(usize, usize), String> {
    let number = |t: &str| t.trim().parse::<usize>().ok();
    let (columns, rows) = match text.split_once(['x', 'X']) {
        Some((c, r)) => (number(c), number(r)),
        None => (number(text), number(text)),
    };
    match (columns, rows) {
        (Some(c), Some(r))
            if (1..=MAX_TILES.min(width)).contains(&c)
                && (1..=MAX_TILES.min(height)).contains(&r) =>
        {
            Ok((c, r))
        }
        _ => Err(format!(
            "--tiles '{text}': expected N or CxR windows, 1 to {} columns and 1 to {} rows for the {width}x{height} map",
            MAX_TILES.min(width),
            MAX_TILES.min(height)
        )),
    }
}

/// Writes `DIR/plan.json` (what the folder is built from) the first time,
/// and afterwards refuses another recipe, size, seed, tiling or formats:
/// their outputs would pass for this plan's.
fn check_stamp(
    dir: &Path,
    recipe: &Recipe,
    (columns, rows): (usize, usize),
    formats: HeightFormats,
    engine: Option<Engine>,
) -> Result<(), String> {
    let path = dir.join("plan.json");
    let ron = recipe.to_ron().map_err(|e| e.to_string())?;
    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
    let stamp = serde_json::json!({ "tiles": [columns, rows], "engine": engine.map(Engine::name), "formats": names.join(","), "recipe": ron });
    match fs::read(&path) {
        Ok(bytes) => {
            let earlier: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
            if earlier.as_ref() != Some(&stamp) {
                return Err(format!(
                    "{} holds a plan for another recipe, size, seed, --tiles or --formats (see its plan.json); \
                     choose another --out or empty it",
                    dir.display()
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let text = serde_json::to_string_pretty(&stamp).map_err(|e| e.to_string())?;
            write_atomic(&path, text.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// A finished facts job's report, `None` while it is missing.
fn read_report(path: &Path, stage: usize) -> Result<Option<StageFacts>, String> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let report: StageFacts = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a facts report ({e})", path.display()))?;
    if report.index != stage || !(report.min.is_finite() && report.max.is_finite()) {
        return Err(format!(
            "{}: a report for stage {} ({}..{}), expected a finite range for stage {stage}",
            path.display(),
            report.index,
            report.min,
            report.max
        ));
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

/// The parts every job line shares.
struct JobLine {
    program: String,
    recipe: String,
    memory: String,
    formats: String,
}

impl JobLine {
    fn new(args: &PlanArgs) -> Result<Self, String> {
        let program = match &args.program {
            Some(program) => program.clone(),
            None => {
                let exe = std::env::current_exe().map_err(|e| {
                    format!("cannot find this program's path ({e}); give --program")
                })?;
                shell_quote(&exe.to_string_lossy())
            }
        };
        Ok(Self {
            program,
            recipe: args.recipe.to_args(),
            memory: args
                .memory_limit
                .map(|mib| format!(" --memory-limit {mib}"))
                .unwrap_or_default(),
            formats: match (&args.engine, &args.formats) {
                (Some(engine), _) => format!(" --engine {}", shell_quote(engine)),
                (None, Some(f)) => format!(" --formats {}", shell_quote(f)),
                (None, None) => String::new(),
            },
        })
    }

    /// ` --facts FILE` once there are facts.
    fn facts_arg(facts: &WorldFacts, path: &Path) -> String {
        if facts.stages.is_empty() {
            String::new()
        } else {
            format!(" --facts {}", quote_path(path))
        }
    }

    fn facts(
        &self,
        w: &PlannedWindow,
        stage: usize,
        out: &Path,
        facts: &WorldFacts,
        facts_path: &Path,
    ) -> String {
        format!(
            "{} facts {} --window {} --stage {stage}{} --out {}{}",
            self.program,
            self.recipe,
            w.arg(),
            Self::facts_arg(facts, facts_path),
            quote_path(out),
            self.memory
        )
    }

    fn generate(
        &self,
        w: &PlannedWindow,
        out: &Path,
        facts: &WorldFacts,
        facts_path: &Path,
    ) -> String {
        format!(
            "{} generate {} --window {}{} --out {}{}{}",
            self.program,
            self.recipe,
            w.arg(),
            Self::facts_arg(facts, facts_path),
            quote_path(out),
            self.formats,
            self.memory
        )
    }
}

fn quote_path(path: &Path) -> String {
    shell_quote(&path.to_string_lossy())
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
        assert_eq!(parse_tiles("3", 9, 9), Ok((3, 3)));
        assert_eq!(parse_tiles("1x32", 513, 513), Ok((1, 32)));
        for bad in ["0", "257", "4x", "x", "-1", "10x2"] {
            assert!(
                parse_tiles(bad, 9, 513)
                    .unwrap_err()
                    .contains("expected N or CxR")
            );
        }
        let windows = split(513, 513, 2, 2);
        assert_eq!(windows[1].name(), "tile_1_0");
        assert_eq!(windows[1].arg(), "256,0,257,256");
        assert_eq!(windows[3].arg(), "256,256,257,257");
    }
}
