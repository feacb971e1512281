//! The command line's windows of a world: `generate --window` writes one
//! window, `facts` reports one window's height range for a barrier phase.
//! `orogen plan` ([`crate::cli::plan`]) prints these as a farm's jobs.

use crate::cli::{GenerateArgs, apply_size, export_request};
use clap::Args;
use orogen_core::bake::{export_map, load_recipe};
use orogen_core::io::atomic::write_atomic;
use orogen_core::io::engines::{Engine, ImportSettings};

use orogen_core::params::Span;
use orogen_core::recipe::{Recipe, default_memory_limit};
use orogen_core::window::{
    FINAL_HEIGHTS, WorldFacts, WorldWindow, final_range, next_barrier, peak_cells, run_window,
    window_range,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The recipe a farm's commands share: the same world in every job.
#[derive(Args, Debug, Clone)]
pub struct RecipeChoice {
    /// Recipe file (.ron) or shipped preset name. Every job reads it, so
    /// give a path that is valid where the jobs run.
    #[arg(long)]
    pub recipe: String,
    /// Sampling of the recipe's world: N (cells along its longer side),
    /// WxH, or an engine size such as unreal-2017.
    #[arg(long)]
    pub size: Option<String>,
    /// Override the recipe's seed (0 to 2^64-1).
    #[arg(long, allow_hyphen_values = true)]
    pub seed: Option<u64>,
}

impl RecipeChoice {
    /// The recipe with its size and seed applied, validated, and the
    /// folder its relative files resolve against.
    pub fn load(&self) -> Result<(Recipe, Option<PathBuf>), String> {
        let (mut recipe, base_dir) =
            load_recipe(&self.recipe).map_err(crate::cli::errors::load_error)?;
        if let Some(seed) = self.seed {
            recipe.seed = seed;
        }
        if let Some(size) = &self.size {
            apply_size(&mut recipe, size)?;
        }
        recipe.validate().map_err(|e| e.to_string())?;
        Ok((recipe, base_dir))
    }

    /// The same choice as command-line arguments, shell-quoted.
    pub fn to_args(&self) -> String {
        let mut line = format!("--recipe {}", shell_quote(&self.recipe));
        if let Some(size) = &self.size {
            line += &format!(" --size {}", shell_quote(size));
        }
        if let Some(seed) = self.seed {
            line += &format!(" --seed {seed}");
        }
        line
    }
}

/// `text` as one word for a POSIX shell: as it is when it holds only
/// characters no shell treats specially, else in single quotes.
pub fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=,+-@%".contains(&b));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[derive(Args, Debug)]
pub struct FactsArgs {
    #[command(flatten)]
    pub recipe: RecipeChoice,
    /// The window: X,Y,WIDTH,HEIGHT in cells of the whole map.
    #[arg(long, value_name = "X,Y,W,H", allow_hyphen_values = true)]
    pub window: String,
    /// The barrier stage (0-based) whose input range to report; the
    /// recipe's stage count reports the final heights (the 16-bit files' range).
    #[arg(long)]
    pub stage: usize,
    /// Facts of the earlier barriers (DIR/facts.json of `orogen plan`).
    #[arg(long, value_name = "FILE")]
    pub facts: Option<PathBuf>,
    /// The report to write (JSON), atomically.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Refuse windows whose estimated memory exceeds this many MiB (default: half the machine's memory).
    #[arg(long)]
    pub memory_limit: Option<u64>,
}

/// Reads a facts file; none given is no facts.
pub fn read_facts(path: Option<&Path>) -> Result<WorldFacts, String> {
    let Some(path) = path else {
        return Ok(WorldFacts::default());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read facts file {}: {e}", path.display()))?;
    WorldFacts::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Refuses a window whose run would need more than `limit` bytes: the
/// largest map it computes (the window and the halo its stages read), a
/// few f32 copies of it, and the window's encoded files.
pub fn check_window_memory(
    recipe: &Recipe,
    window: &WorldWindow,
    limit: u64,
) -> Result<(), String> {
    let cells = window.window.width as u64 * window.window.height as u64;
    let need = peak_cells(recipe, window) as u64 * 4 * 3 + cells * 8;
    if need > limit {
        return Err(format!(
            "the {}x{} window needs about {} MiB, over the limit of {} MiB \
             (use smaller windows, e.g. more --tiles, or raise --memory-limit)",
            window.window.width,
            window.window.height,
            need >> 20,
            limit >> 20
        ));
    }
    Ok(())
}

/// The memory limit in bytes from `--memory-limit` MiB.
fn limit_of(mib: Option<u64>) -> u64 {
    mib.map(|mib| mib << 20)
        .unwrap_or_else(default_memory_limit)
}

/// Runs `orogen facts`: one window's report for one barrier phase.
pub fn facts_command(args: &FactsArgs) -> Result<(), String> {
    let (recipe, base_dir) = args.recipe.load()?;
    let window = WorldWindow::parse(&args.window, recipe.width as usize, recipe.height as usize)
        .map_err(|e| e.to_string())?;
    let facts = read_facts(args.facts.as_deref())?;
    check_window_memory(&recipe, &window, limit_of(args.memory_limit))?;
    let report = window_range(&recipe, window.window, &facts, base_dir, args.stage)
        .map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomic(&args.out, json.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    println!(
        "stage {} ({}) over window {}: heights {}..{} -> {}",
        report.index,
        report.kind,
        args.window.trim(),
        report.min,
        report.max,
        args.out.display()
    );
    Ok(())
}

/// Runs `orogen generate --window`: the recipe over one window, exported
/// like a whole map, its sidecar saying where the window lies. Everything
/// is checked before any work, so a bad window writes nothing.
pub fn generate_window(
    args: &GenerateArgs,
    text: &str,
    mut recipe: Recipe,
    base_dir: Option<PathBuf>,
    engine: Option<Engine>,
    limit: u64,
) -> Result<(), String> {
    for (given, flag) in [
        (args.tiles.is_some(), "--tiles"),
        (args.texture.is_some(), "--texture"),
        (args.mesh.is_some(), "--mesh"),
        (args.maps.is_some(), "--maps"),
    ] {
        if given {
            return Err(format!(
                "--window writes height files only; drop {flag}, which needs the whole map"
            ));
        }
    }
    recipe.validate().map_err(|e| e.to_string())?;
    let window = WorldWindow::parse(text, recipe.width as usize, recipe.height as usize)
        .map_err(|e| e.to_string())?;
    let facts = read_facts(args.facts.as_deref())?;
    check_window_memory(&recipe, &window, limit)?;
    let mut request = export_request(args, &recipe, None)?;
    if let Some(engine) = engine {
        // An engine tile: the engine's files, byte and row order for the
        // window's size (one terrain of a tiled landscape), heights only.
        let (w, h) = (window.window.width, window.window.height);
        request = request
            .for_engine(engine, w, h)
            .map_err(crate::cli::errors::option_error)?;
        request.texture = None;
    }
    if !window.is_whole() {
        if let Some(index) = next_barrier(&recipe, &facts) {
            let kind = recipe.stages[index].stage.kind();
            return Err(format!(
                "stage {index} ({kind}) needs the whole world's height range, which a window cannot see: \
                 run `orogen plan` for the world (it runs the facts phases) and pass its DIR/facts.json with --facts"
            ));
        }
        if request.formats.writes_16_bit()
            && args.height_range.is_none()
            && final_range(&recipe, &facts).is_none()
        {
            return Err(format!(
                "the window's 16-bit files need the whole world's final height range ({FINAL_HEIGHTS} in the facts), \
                 so that windows stitch: run `orogen plan` and pass its DIR/facts.json with --facts, \
                 give --height-range MIN:MAX, or write float files only (--formats exr or tif)"
            ));
        }
    }
    if args.height_range.is_none()
        && let Some((min, max)) = final_range(&recipe, &facts)
    {
        request.options.height_range = Some(Span::new(min, max));
    }
    request.window = Some(window);
    let start = Instant::now();
    let map =
        run_window(&recipe, window.window, &facts, base_dir.clone()).map_err(|e| e.to_string())?;
    let report = export_map(&map, &recipe, base_dir.as_deref(), &request, &args.out)
        .map_err(crate::cli::errors::export_error)?;
    super::report::print_warnings_and_timings(&report, args.timings, start);
    let w = window.window;
    println!(
        "{} (window {},{} of the {}x{} world)",
        report.summary(),
        w.x,
        w.y,
        window.world_width,
        window.world_height
    );
    for line in report.engine_import.iter().flat_map(ImportSettings::lines) {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_quote_only_when_needed() {
        assert_eq!(shell_quote("/a/b-1_2.ron"), "/a/b-1_2.ron");
        assert_eq!(shell_quote("0,0,4,4"), "0,0,4,4");
        assert_eq!(shell_quote("my dir"), "'my dir'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        assert_eq!(shell_quote(""), "''");
    }
}
