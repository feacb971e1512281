//! The one level loop, coarse to fine, of the whole map and of the
//! blocks: each level starts from the level below carried up (the coarse
//! level from its input plus the start's roughness) and runs its steps
//! ([`FluvialErosion::run_level`]), the first of a finer level breaching
//! the hollows interpolation leaves, the last of the map's own level
//! ending with the last breach and fill. A level runs
//! whole, or by blocks ([`super::blocked`]) from the first level that
//! spans more than one block.

use super::blocks::{LevelBlocks, Rect, blend, part, resized_part};
use super::{FluvialErosion, LevelRun, SERIAL_CELLS};
use crate::heightmap::Heightmap;
use crate::hydro::{Edges, Outlets};
use crate::stages::{StageContext, StageError};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::Ordering;

/// Where each level's input (what uplift by height and the base level
/// are measured on) comes from.
pub(super) enum LevelInputs<'a> {
    /// The whole map: the coarse level's input is the earlier stages run
    /// at its sampling, finer levels take the stage's input resampled and
    /// the map's own level the input itself; each level is measured over
    /// its own range.
    Whole {
        /// The stage's input.
        fine: &'a Heightmap,
        /// The earlier stages at the coarse level's sampling.
        coarse: Heightmap,
    },
    /// By blocks: every level but the map's own takes the coarse input
    /// resampled, and all are measured over the coarse input's range,
    /// facts every window shares; the map's own level reads the stage's
    /// input (`map`, which covers `here`).
    Blocked {
        /// The earlier stages at the coarse level's sampling.
        coarse: Heightmap,
        /// The stage's input over the window.
        map: &'a Heightmap,
        /// The cells of the map's own level that `map` covers.
        here: Rect,
    },
}

impl LevelInputs<'_> {
    /// Level `k`'s input over `rect` of its `dims` cells (`last`: the
    /// map's own level).
    /// Borrowed where it is a map already held (no copy of the map's own
    /// level at the costliest size).
    fn over(&self, k: usize, dims: (usize, usize), rect: Rect, last: bool) -> Cow<'_, Heightmap> {
        match self {
            LevelInputs::Whole { fine, coarse } => {
                if last {
                    Cow::Borrowed(*fine)
                } else if k == 0 {
                    Cow::Borrowed(coarse)
                } else {
                    Cow::Owned(fine.resized(dims.0, dims.1))
                }
            }
            LevelInputs::Blocked { coarse, map, here } => Cow::Owned(if last {
                part(map, *here, rect)
            } else if rect == Rect::whole(dims.0, dims.1) {
                coarse.resized(dims.0, dims.1)
            } else {
                let from = (coarse.width(), coarse.height());
                resized_part(coarse, Rect::whole(from.0, from.1), from, dims, rect)
            }),
        }
    }

    /// The height range a level with `input` measures uplift and the
    /// base level over.
    fn range(&self, input: &Heightmap) -> (f32, f32) {
        match self {
            LevelInputs::Whole { .. } => input.range(),
            LevelInputs::Blocked { coarse, .. } => coarse.range(),
        }
    }
}

/// The map's own level, eroded.
pub(super) struct LevelsResult {
    /// The cells it is exact on (all of them when it ran whole).
    pub rect: Rect,
    /// The eroded heights.
    pub eroded: Heightmap,
    /// The sediment laid down, when deposition is on, over `rect`.
    pub sediment: Option<Heightmap>,
}

/// A level's result over `rect` of its `dims` cells, and its input there.
struct Level {
    rect: Rect,
    dims: (usize, usize),
    eroded: Heightmap,
    input: Heightmap,
    /// The sediment laid down so far, when deposition is on.
    sediment: Option<Heightmap>,
}

impl Level {
    /// The eroded level carried up to `dims` over `target`, plus the
    /// recipe's share of the detail `input` adds to this level's input;
    /// its sediment layer carried up into `sediment` when both are there.
    fn carried_up(
        &self,
        stage: &FluvialErosion,
        dims: (usize, usize),
        target: Rect,
        input: &Heightmap,
        sediment: Option<&mut Heightmap>,
    ) -> Heightmap {
        let whole = self.rect == Rect::whole(self.dims.0, self.dims.1)
            && target == Rect::whole(dims.0, dims.1);
        // The same bits either way; `resized` runs on every thread.
        let up_of = |m: &Heightmap| {
            if whole {
                m.resized(dims.0, dims.1)
            } else {
                resized_part(m, self.rect, self.dims, dims, target)
            }
        };
        let mut up = up_of(&self.eroded);
        if let (Some(below), Some(layer)) = (&self.sediment, sediment) {
            // Bilinear: never below zero where the layer is not.
            *layer = up_of(below);
        }
        if stage.fine_detail > 0.0 {
            let coarse = up_of(&self.input);
            let share = stage.fine_detail;
            up.data_mut()
                .par_iter_mut()
                .zip(input.data().par_iter().zip(coarse.data().par_iter()))
                .for_each(|(h, (fine, coarse))| *h += share * (fine - coarse));
        }
        up
    }
}

impl FluvialErosion {
    /// Erodes through `levels` (coarse to the map's own), the last
    /// `plan.len()` of them by `plan`'s blocks, the rest whole; returns the
    /// map's own level.
    pub(super) fn run_levels(
        &self,
        ctx: &StageContext,
        levels: &[(usize, usize)],
        plan: &[LevelBlocks],
        inputs: &LevelInputs,
        extent: f32,
    ) -> Result<LevelsResult, StageError> {
        let n = levels.len() - 1;
        let first = levels.len() - plan.len();
        let coarse_cell = extent / (levels[0].0.max(2) - 1) as f32;
        let cancel = ctx.cancel;
        let maps = self.load_maps(ctx.base_dir.as_deref())?;
        let mut below: Option<Level> = None;
        for (k, &dims) in levels.iter().enumerate() {
            let last = k == n;
            let cell = extent / (dims.0 - 1) as f32;
            let run = |m: &mut Heightmap,
                       sediment: Option<&mut Heightmap>,
                       input: &Heightmap,
                       rect: Rect,
                       outlets: Outlets,
                       held: Edges| {
                let level = LevelRun {
                    // The coarse level starts from its input, finer ones
                    // from the level below carried up (the map's own
                    // level's closing step breaches anyway).
                    breach_first: k > 0,
                    finish: last,
                    deposit: k == 0,
                    talus: k > 0,
                    input,
                    range: inputs.range(input),
                    cell_size: cell,
                    steps: self.level_steps(k),
                    // Finer levels refine the valleys to their sampling:
                    // their steps shorten with the cell, as the time to
                    // cross a cell does.
                    dt_scale: self.level_dt_scale(k, cell / coarse_cell),
                    outlets,
                    held,
                    maps: &maps,
                    place: rect.in_level(dims),
                };
                match self.run_level(m, sediment, &level, &mut |_| {
                    !cancel.is_some_and(|c| c.load(Ordering::Relaxed))
                }) {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(StageError::Cancelled),
                    Err(e) => Err(e),
                }
            };
            if k < first {
                let whole = Rect::whole(dims.0, dims.1);
                let input = inputs.over(k, dims, whole, last);
                let mut sediment = self
                    .sediment_params()
                    .map(|_| Heightmap::new(dims.0, dims.1));
                let mut level_map = match &below {
                    None => input.clone().into_owned(),
                    Some(b) => b.carried_up(self, dims, whole, &input, sediment.as_mut()),
                };
                if k == 0 {
                    self.add_roughness(&mut level_map, ctx, k);
                }
                self.seed_gullies(&mut level_map, ctx, k, cell, whole);
                single_thread_when_small(dims, || {
                    run(
                        &mut level_map,
                        sediment.as_mut(),
                        &input,
                        whole,
                        self.outlets(),
                        Edges::default(),
                    )
                })?;
                if last {
                    return Ok(LevelsResult {
                        rect: whole,
                        eroded: level_map,
                        sediment,
                    });
                }
                below = Some(Level {
                    rect: whole,
                    dims,
                    eroded: level_map,
                    input: input.into_owned(),
                    sediment,
                });
                continue;
            }
            let blocks = &plan[k - first];
            let Some(b) = below.as_ref() else {
                return Err(StageError::Internal("no coarse level below the blocks"));
            };
            let block = self.block_size as usize;
            let (ax, ay) = blocks.axes(block);
            let list: Vec<(usize, usize)> = blocks
                .rows
                .clone()
                .flat_map(|by| blocks.cols.clone().map(move |bx| (bx, by)))
                .collect();
            let eroded = list
                .par_iter()
                .map(|&(bx, by)| {
                    let comp = Rect {
                        x: ax.computed(bx),
                        y: ay.computed(by),
                    };
                    let input = inputs.over(k, dims, comp, last);
                    // The sediment layer rides along, carried up and cut
                    // into as on the whole map (rivers lay it down at the
                    // coarse level only, which runs whole).
                    let mut layer = b
                        .sediment
                        .as_ref()
                        .map(|_| Heightmap::new(comp.x.len(), comp.y.len()));
                    let mut m = b.carried_up(self, dims, comp, &input, layer.as_mut());
                    self.seed_gullies(&mut m, ctx, k, cell, comp);
                    let (outlets, held) = self.block_edges(comp, dims);
                    run(&mut m, layer.as_mut(), &input, comp, outlets, held)?;
                    Ok(((comp, m), layer.map(|l| (comp, l))))
                })
                .collect::<Result<Vec<_>, StageError>>()?;
            let (eroded, layers): (Vec<_>, Vec<_>) = eroded.into_iter().unzip();
            let exact = blocks.exact(block);
            let blended = blend(&ax, &ay, blocks, &eroded, exact);
            // The layers mixed by the same weights as the heights.
            let layers: Option<Vec<(Rect, Heightmap)>> = layers.into_iter().collect();
            let sediment = layers.map(|l| blend(&ax, &ay, blocks, &l, exact));
            let input = inputs.over(k, dims, exact, last).into_owned();
            below = Some(Level {
                rect: exact,
                dims,
                eroded: blended,
                input,
                sediment,
            });
        }
        below
            .map(|top| LevelsResult {
                rect: top.rect,
                eroded: top.eroded,
                sediment: top.sediment,
            })
            .ok_or(StageError::Internal("no levels to erode"))
    }
}

/// Runs `f` on one thread for a small level (its steps cost less than
/// waking the others); the bytes do not depend on it.
fn single_thread_when_small<T: Send>(dims: (usize, usize), f: impl FnOnce() -> T + Send) -> T {
    match (dims.0 * dims.1 < SERIAL_CELLS)
        .then(|| rayon::ThreadPoolBuilder::new().num_threads(1).build().ok())
        .flatten()
    {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
