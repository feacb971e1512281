//! Windows of the world: any rectangle of the whole map computed alone,
//! equal bit for bit to the same crop of the whole-map run.
//!
//! Every stage computes from world coordinates ([`StageContext::window`]
//! tells it where its map lies). A stage that reads neighbours asks for a
//! larger input window ([`StageOp::input_window`]: a blur's halo), so the
//! runner computes each stage over the window the later stages need and
//! crops between stages. Stages that rescale by the whole world's range
//! (Normalize, Terrace) are barriers: a window run takes that range from
//! the facts of a barrier phase ([`facts`]). Fluvial erosion runs its
//! fine levels on fixed world-aligned blocks, so a window needs only the
//! blocks it touches (below its block size, and droplet erosion always,
//! a window runs the stage on the whole world and keeps its crop). Stages
//! masked by anything but height cannot yet be exact on a window and
//! refuse a proper window in one line.
//!
//! The phases of a farm, for a recipe with barriers b1 < b2 < …:
//! 1. every window runs [`window_range`] up to b1 and reports its range;
//! 2. [`StageFacts::reduce`] combines the reports into the world's facts;
//! 3. with those facts, windows run up to b2 and report, and so on;
//! 4. with all facts, every window runs [`run_window`].
//!
//! Each barrier costs one extra run of the stages before it per window
//! (phase k recomputes stages 0..b_k), plus one number pair per window.
//!
//! [`StageContext::window`]: crate::stages::StageContext::window
//! [`StageOp::input_window`]: crate::stages::StageOp::input_window

pub mod facts;
pub mod farm;
/// Windows and their place in the world.
pub mod grid {
    pub use crate::world_window::{Window, WindowError, WorldWindow};
}

pub use facts::{FactsError, StageFacts, WorldFacts};
pub use grid::{Window, WindowError, WorldWindow};

use crate::executor::{Executor, PipelineError, Plan, RunHooks, StagePlace, Windowed};
use crate::heightmap::Heightmap;

use crate::recipe::Recipe;
use std::path::PathBuf;

/// Why a window run stopped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WindowRunError {
    /// The window does not describe cells of the map.
    #[error(transparent)]
    Window(#[from] WindowError),
    /// A stage failed (or cannot compute a proper window yet).
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// A barrier stage's facts are missing.
    #[error(
        "stage {index} ({kind}) needs the whole world's height range: run the barrier phase for it and pass its facts"
    )]
    MissingFacts {
        /// The stage's position in the recipe.
        index: usize,
        /// Its kind.
        kind: &'static str,
    },
    /// The facts name another kind of stage at that place: another recipe.
    #[error("the facts for stage {index} are for a {found} stage, but the recipe has {kind} there")]
    FactsMismatch {
        /// The stage's position in the recipe.
        index: usize,
        /// The recipe's kind there.
        kind: &'static str,
        /// The kind the facts name.
        found: String,
    },
    /// A stage with a mask, on a proper window.
    #[error(
        "stage {index} ({kind}) has a slope, flow or lakes mask, or masks an erosion stage by more than height, and cannot compute a window alone; generate the whole map (orogen plan --tiles 1)"
    )]
    Masked {
        /// The stage's position in the recipe.
        index: usize,
        /// Its kind.
        kind: &'static str,
    },
    /// A stage that cannot compute a proper window of this world.
    #[error(
        "stage {index} ({kind}) cannot compute a window of this world alone: {reason}; or generate the whole map"
    )]
    NotWindowable {
        /// The stage's position in the recipe.
        index: usize,
        /// Its kind.
        kind: &'static str,
        /// Why, in the stage's words.
        reason: String,
    },
    /// Not a stage of the recipe.
    #[error(
        "stage {index} is not in the recipe (it has {count} stages; {count} itself means the final heights)"
    )]
    NoSuchStage {
        /// The index asked for.
        index: usize,
        /// The recipe's stage count.
        count: usize,
    },
}

/// `window` of the world `recipe` samples (its size is the whole map),
/// checked.
pub fn world_window(recipe: &Recipe, window: Window) -> Result<WorldWindow, WindowError> {
    WorldWindow::new(recipe.width as usize, recipe.height as usize, window)
}

/// The enabled stages that need the world's height range before them,
/// in recipe order: the barrier phases a farm runs.
pub fn barriers(recipe: &Recipe) -> Vec<usize> {
    recipe
        .stages
        .iter()
        .enumerate()
        .filter(|(_, e)| e.enabled && e.stage.op().needs_world_range())
        .map(|(i, _)| i)
        .collect()
}

/// The first barrier whose facts are not in `facts` (the next phase to
/// run), or `None` when every window can run to the end.
pub fn next_barrier(recipe: &Recipe, facts: &WorldFacts) -> Option<usize> {
    barriers(recipe)
        .into_iter()
        .find(|&i| facts.get(i).is_none())
}

/// Runs the whole recipe over `window` of its world alone: the same
/// cells, bit for bit, as that crop of [`crate::run_once`]'s map, given
/// the facts of every barrier ([`barriers`]) unless the window is the
/// whole map.
pub fn run_window(
    recipe: &Recipe,
    window: Window,
    facts: &WorldFacts,
    base_dir: Option<PathBuf>,
) -> Result<Heightmap, WindowRunError> {
    let window = world_window(recipe, window)?;
    run_stages(recipe, &window, facts, base_dir, recipe.stages.len())
}

/// The kind the facts of the final heights carry (stage index
/// `stages.len()`): the export's height range, which per-window 16-bit
/// files share so that tiles stitch.
pub const FINAL_HEIGHTS: &str = "final-heights";

/// The barrier phase for stage `stage`: runs the stages before it over
/// `window` (with the facts of earlier barriers) and reports the range of
/// the window's cells. `stage` = the recipe's stage count reports the
/// final heights (kind [`FINAL_HEIGHTS`]). Reduce the reports of windows
/// that cover the map with [`StageFacts::reduce`].
pub fn window_range(
    recipe: &Recipe,
    window: Window,
    facts: &WorldFacts,
    base_dir: Option<PathBuf>,
    stage: usize,
) -> Result<StageFacts, WindowRunError> {
    let count = recipe.stages.len();
    let kind = match recipe.stages.get(stage) {
        Some(entry) => entry.stage.kind(),
        None if stage == count => FINAL_HEIGHTS,
        None => {
            return Err(WindowRunError::NoSuchStage {
                index: stage,
                count,
            });
        }
    };
    let window = world_window(recipe, window)?;
    let map = run_stages(recipe, &window, facts, base_dir, stage)?;
    let (min, max) = map.range();
    Ok(StageFacts {
        index: stage,
        kind: kind.to_string(),
        min,
        max,
    })
}

/// The whole world's final height range from the facts, when its phase
/// ran (`window_range` at the recipe's stage count).
pub fn final_range(recipe: &Recipe, facts: &WorldFacts) -> Option<(f32, f32)> {
    facts
        .get(recipe.stages.len())
        .filter(|f| f.kind == FINAL_HEIGHTS)
        .map(|f| (f.min, f.max))
}

/// Every barrier's facts for `recipe`, gathered in this process from
/// `windows` (which must cover the map): the plan a farm runs, phase by
/// phase, done in one place (tests, small worlds).
pub fn gather_facts(
    recipe: &Recipe,
    windows: &[Window],
    base_dir: Option<PathBuf>,
) -> Result<WorldFacts, WindowRunError> {
    let mut facts = WorldFacts::default();
    while let Some(stage) = next_barrier(recipe, &facts) {
        let reports = windows
            .iter()
            .map(|&w| window_range(recipe, w, &facts, base_dir.clone(), stage))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(world) = StageFacts::reduce(&reports) else {
            break;
        };
        facts = facts.with(world);
    }
    Ok(facts)
}

/// The window each of stages `..end` must compute over so that the
/// stages after it can produce `window` (entry `end` is `window` itself),
/// from the last stage back.
fn stage_inputs(recipe: &Recipe, window: &WorldWindow, end: usize) -> Vec<WorldWindow> {
    let cell_size = recipe.cell_size();
    let mut inputs = vec![*window; end + 1];
    for (k, entry) in recipe.stages[..end].iter().enumerate().rev() {
        inputs[k] = if entry.enabled {
            entry.stage.op().input_window(&inputs[k + 1], cell_size)
        } else {
            inputs[k + 1]
        };
    }
    inputs
}

/// Cells of the largest map a run of the whole recipe over `window`
/// holds: the window a stage computes over, its halo for the later
/// stages included. What a farm's memory per job scales with (a few
/// f32 copies of it), rather than the world.
pub fn peak_cells(recipe: &Recipe, window: &WorldWindow) -> usize {
    stage_inputs(recipe, window, recipe.stages.len())
        .iter()
        .map(|w| w.window.width * w.window.height)
        .max()
        .unwrap_or(0)
}

/// Runs stages `..end` over `window`: each stage over the window the
/// later ones need, cropped between stages.
fn run_stages(
    recipe: &Recipe,
    window: &WorldWindow,
    facts: &WorldFacts,
    base_dir: Option<PathBuf>,
    end: usize,
) -> Result<Heightmap, WindowRunError> {
    let stages = &recipe.stages[..end];
    let inputs = stage_inputs(recipe, window, end);
    // Stages before one that overwrites the map without reading it
    // cannot change the result: start there, from the flat map.
    let start = stages
        .iter()
        .rposition(|e| e.enabled && e.mask.is_none() && e.stage.op().discards_input())
        .unwrap_or(0);
    // Checked before any stage runs: a window that cannot be computed
    // is refused before it costs anything.
    let places = stages
        .iter()
        .enumerate()
        .map(|(index, entry)| match index < start {
            true => Ok(StagePlace::default()),
            false => stage_place(index, entry, inputs[index], facts),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let plan = Plan::placed(start, end, places);
    let mut store = Windowed::flat(inputs, start);
    Executor::new(recipe, base_dir).run(&plan, &mut store, &mut (), &mut RunHooks::default())?;
    Ok(store.into_map())
}

/// Refuses, before anything runs or is written, a recipe whose proper
/// windows (of its own size) cannot be computed exactly: a stage masked
/// by slope, flow or lakes, an erosion stage masked by more than height,
/// or fluvial erosion by blocks with a map that a block cannot compute.
pub fn check_windowable(recipe: &Recipe) -> Result<(), WindowRunError> {
    let (width, height) = (recipe.width as usize, recipe.height as usize);
    for (index, entry) in recipe.stages.iter().enumerate() {
        if entry.enabled {
            refuse_window(index, entry, width, height)?;
        }
    }
    Ok(())
}

/// Refuses a proper window of a `width × height` world for stage
/// `index` when it cannot compute one exactly.
fn refuse_window(
    index: usize,
    entry: &crate::recipe::StageEntry,
    width: usize,
    height: usize,
) -> Result<(), WindowRunError> {
    let kind = entry.stage.kind();
    let op = entry.stage.op();
    // A height mask weighs each cell by its own input height, and an
    // image or painting by the cell's place in the world, so they are as
    // exact on a window as their stage; slope, flow and lakes read
    // neighbours or the drainage, and a masked erosion fills hollows
    // along the drainage.
    let local_mask = entry
        .mask
        .as_ref()
        .is_none_or(|mask| mask.is_cellwise() && !op.moves_material());
    if !local_mask {
        return Err(WindowRunError::Masked { index, kind });
    }
    op.window_refusal(width, height)
        .map_err(|e| WindowRunError::NotWindowable {
            index,
            kind,
            reason: e.to_string(),
        })
}

/// Where stage `index` runs over its input window `here`: its barrier
/// facts, checked; refused when its mask cannot be exact on a window.
fn stage_place(
    index: usize,
    entry: &crate::recipe::StageEntry,
    here: WorldWindow,
    facts: &WorldFacts,
) -> Result<StagePlace, WindowRunError> {
    let place = StagePlace {
        window: Some(here),
        world_range: None,
    };
    if !entry.enabled {
        return Ok(place);
    }
    let kind = entry.stage.kind();
    if !here.is_whole() {
        refuse_window(index, entry, here.world_width, here.world_height)?;
    }
    if !entry.stage.op().needs_world_range() {
        return Ok(place);
    }
    let world_range = match facts.get(index) {
        Some(f) if f.kind != kind => {
            return Err(WindowRunError::FactsMismatch {
                index,
                kind,
                found: f.kind.clone(),
            });
        }
        Some(f) => Some((f.min, f.max)),
        None if here.is_whole() => None,
        None => return Err(WindowRunError::MissingFacts { index, kind }),
    };
    Ok(StagePlace {
        world_range,
        ..place
    })
}
