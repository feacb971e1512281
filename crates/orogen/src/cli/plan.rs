//! `orogen plan`: a world built as windows (K x K, or C x R) by any batch runner.
//!
//! Each call looks at the output folder ([`orogen_core::window::farm`]
//! holds the phases and what counts as done) and prints the shell
//! commands of the next phase whose inputs are ready, one a line, and
//! nothing once all is built; a runner loops `orogen plan … > jobs; <run
//! jobs>` until the list is empty. Facts jobs are `orogen facts`, window
//! jobs `orogen generate --window`.

use crate::cli::facts::{RecipeChoice, shell_quote};
use clap::Args;
use orogen_core::io::height_files::{HeightFormat, HeightFormats};
use orogen_core::window::WorldFacts;
use orogen_core::window::farm::{
    Farm, FarmError, FarmStamp, FarmStep, PlannedWindow, engine_tiles, split,
};
use std::path::Path;
use std::path::PathBuf;

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

/// `X,Y,W,H` as `--window` takes it.
fn window_arg(w: &PlannedWindow) -> String {
    let w = w.window;
    format!("{},{},{},{}", w.x, w.y, w.width, w.height)
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
    let windows = match engine {
        Some(engine) if columns != rows => {
            return Err(format!(
                "--engine {} tiles a landscape N x N: give --tiles N, not {columns}x{rows}",
                engine.name()
            ));
        }
        Some(engine) => engine_tiles(width, height, columns, engine)
            .map_err(crate::cli::errors::option_error)?,
        None => split(width, height, columns, rows),
    };
    if windows.len() > 1 {
        // Refused before the plan's folder is made: every job would fail.
        orogen_core::window::check_windowable(&recipe).map_err(|e| e.to_string())?;
    }
    let stamp = FarmStamp {
        recipe: &recipe,
        tiles: (columns, rows),
        formats,
        engine,
    };
    let mut farm = Farm::open(&args.out, stamp, &windows).map_err(farm_error)?;
    let job = JobLine::new(args)?;
    let facts_path = farm.facts_path();
    match farm.next_step().map_err(farm_error)? {
        FarmStep::Facts { stage, jobs } => {
            eprintln!(
                "plan: facts phase for stage {stage}: {} of {} windows to run",
                jobs.len(),
                windows.len()
            );
            for j in jobs {
                println!(
                    "{}",
                    job.facts(j.window, stage, &j.out, farm.facts(), &facts_path)
                );
            }
        }
        FarmStep::Generate { jobs, running } => {
            if running > 0 {
                eprintln!(
                    "plan: {running} window(s) are being written by running jobs; not listed"
                );
            }
            if jobs.is_empty() && running == 0 && engine.is_some() {
                farm.link_engine_tiles().map_err(farm_error)?;
            }
            if !jobs.is_empty() {
                eprintln!(
                    "plan: {} of {} windows to generate",
                    jobs.len(),
                    windows.len()
                );
            }
            for j in jobs {
                println!(
                    "{}",
                    job.generate(j.window, &j.out, farm.facts(), &facts_path)
                );
            }
        }
    }
    Ok(())
}

/// A farm's error in the command line's words.
fn farm_error(error: FarmError) -> String {
    match error {
        FarmError::OtherPlan { dir } => format!(
            "{} holds a plan for another recipe, size, seed, --tiles or --formats (see its plan.json); \
             choose another --out or empty it",
            dir.display()
        ),
        other => other.to_string(),
    }
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
            window_arg(w),
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
            window_arg(w),
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
    fn tiles_parse_and_windows_name_their_cells() {
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
        assert_eq!(window_arg(&windows[1]), "256,0,257,256");
        assert_eq!(window_arg(&windows[3]), "256,256,257,257");
    }
}
