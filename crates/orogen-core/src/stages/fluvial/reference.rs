//! The readable definition of one stream-power step (the tests' oracle):
//! the same model as [`super::step`], computed the plain way with the
//! routing of [`crate::hydro::reference`]: every cell's new height from
//! its receiver's new height, path by path.

use super::deposition::{MAX_SWEEPS, SETTLED, SETTLED_RMS, SedimentParams, share_under};
use super::step::{StepFields, StepParams, solve_cell};
use crate::hydro::{link_length, reference};

/// One step: uplift, routing, drainage area, implicit incision, each
/// cell's erodibility scaled by `fields.erodibility` when given.
pub fn stream_power_step(heights: &mut [f32], width: usize, fields: &StepFields, p: &StepParams) {
    let uplift = fields.uplift;
    let height = heights.len() / width;
    if let Some(uplift) = uplift {
        for i in 0..heights.len() {
            if !p
                .outlets
                .is_outlet(i % width, i / width, width, height, heights[i])
            {
                heights[i] += uplift[i] * p.dt as f32;
            }
        }
    }
    let receivers = reference::receivers(heights, width, &p.outlets);
    let cells = reference::drainage_cells(&receivers);
    let old = heights.to_vec();
    let new = solve_by_paths(&receivers, width, p, &old, |c, _, base, distance| {
        if old[c] <= base {
            old[c]
        } else {
            let share = fields.erodibility.map_or(1.0, |e| e[c] as f64);
            let a_m = (cells[c] as f64).powf(p.area_exponent)
                * (p.cell_size * p.cell_size).powf(p.area_exponent)
                * share;
            let k_dt_am = p.erodibility * p.dt * a_m;
            let solved = solve_cell(
                old[c] as f64,
                base as f64,
                k_dt_am,
                distance,
                p.slope_exponent,
            );
            (solved as f32).max(base)
        }
    });
    heights.copy_from_slice(&new);
}

/// Every cell's new value, each from its receiver's: the walk from each
/// cell down its path to the first cell already solved (or its outlet),
/// then back up, calling `value(cell, receiver, base, distance)`. A
/// cell erodes towards the water level in its receiver: the highest new
/// value on the receiver's path to its outlet, and at least the base
/// level (the sea) that the outlet drains to, one link away; an outlet
/// towards the base level one cell beyond (its `own` value when there is
/// none).
fn solve_by_paths(
    receivers: &[u32],
    width: usize,
    p: &StepParams,
    own: &[f32],
    mut value: impl FnMut(usize, usize, f32, f64) -> f32,
) -> Vec<f32> {
    let mut new: Vec<Option<f32>> = vec![None; receivers.len()];
    let level = |new: &[Option<f32>], mut i: usize| {
        let mut top = new[i].expect("solved");
        while receivers[i] as usize != i {
            i = receivers[i] as usize;
            top = top.max(new[i].expect("solved"));
        }
        p.base_level.map_or(top, |base| top.max(base))
    };
    for first in 0..receivers.len() {
        let mut path = vec![first];
        let mut i = first;
        while new[i].is_none() && receivers[i] as usize != i {
            i = receivers[i] as usize;
            path.push(i);
        }
        for &c in path.iter().rev() {
            if new[c].is_some() {
                continue;
            }
            let r = receivers[c] as usize;
            let (base, distance) = if r == c {
                (p.base_level.unwrap_or(own[c]), p.cell_size)
            } else {
                let length = link_length(c as u32, r as u32, width) as f64;
                (level(&new, r), length * p.cell_size)
            };
            new[c] = Some(value(c, r, base, distance));
        }
    }
    new.into_iter()
        .map(|v| v.expect("every cell solved"))
        .collect()
}

/// Explicit hillslope diffusion in many small steps (each within the
/// explicit stability limit): the slow, obvious scheme the implicit ADI
/// solve must agree with, within its time-discretisation error.
pub fn diffuse_explicit(
    heights: &mut [f32],
    width: usize,
    d: f64,
    dt: f64,
    cell_size: f64,
    fixed: &[bool],
) {
    let height = heights.len() / width;
    let limit = cell_size * cell_size / (4.0 * d) * 0.2;
    let steps = (dt / limit).ceil().max(1.0) as usize;
    let sub = dt / steps as f64;
    let mut h: Vec<f64> = heights.iter().map(|&v| v as f64).collect();
    for _ in 0..steps {
        let prev = h.clone();
        for y in 0..height {
            for x in 0..width {
                let i = y * width + x;
                if fixed[i] {
                    continue;
                }
                let mut lap = 0.0;
                if x > 0 {
                    lap += prev[i - 1] - prev[i];
                }
                if x + 1 < width {
                    lap += prev[i + 1] - prev[i];
                }
                if y > 0 {
                    lap += prev[i - width] - prev[i];
                }
                if y + 1 < height {
                    lap += prev[i + width] - prev[i];
                }
                h[i] = prev[i] + sub * d * lap / (cell_size * cell_size);
            }
        }
    }
    for (out, v) in heights.iter_mut().zip(h) {
        *out = v as f32;
    }
}

/// One step with sediment transport and deposition
/// ([`super::deposition`]), the plain way: the flux entering each cell
/// from its donors' definition (recursively, donors found by scanning
/// every cell), each cell's new height from its receiver's water level
/// walked down the path, sweeps repeated as the fast solve repeats them.
/// `sediment` follows as there.
pub fn stream_power_step_depositing(
    heights: &mut [f32],
    sediment: &mut [f32],
    width: usize,
    fields: &StepFields,
    p: &StepParams,
    s: &SedimentParams,
) {
    uplift_plainly(heights, width, fields, p);
    let plain = PlainDepositing::new(heights, width, p);
    let mut h = plain.start.clone();
    for sweep in 0..MAX_SWEEPS {
        let next = plain.sweep(&h, sweep > 0, sediment, fields, p, s);
        let moved = next
            .iter()
            .zip(&h)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        let squares: f64 = next
            .iter()
            .zip(&h)
            .map(|(a, b)| ((a - b) as f64).powi(2))
            .sum();
        let rms = (squares / h.len() as f64).sqrt();
        h = next;
        if sweep > 0 && (moved <= SETTLED || rms <= SETTLED_RMS) {
            break;
        }
    }
    for i in 0..h.len() {
        sediment[i] = (sediment[i] + (h[i] - plain.start[i])).max(0.0);
    }
    heights.copy_from_slice(&h);
}

/// How far `solved` (the result of one depositing step from `heights`,
/// with the layer `sediment` before it) is from satisfying the step's
/// equations: the largest change one plain sweep from it makes (0 for an
/// exact solution). The equations can hold for more than one `solved`
/// where a cell sits at a lake's edge: whether it stands in the lake
/// depends on how far its receiver fills, which depends on whether the
/// cell passes its load on.
pub fn depositing_residual(
    heights: &[f32],
    solved: &[f32],
    sediment: &[f32],
    width: usize,
    fields: &StepFields,
    p: &StepParams,
    s: &SedimentParams,
) -> f32 {
    let mut start = heights.to_vec();
    uplift_plainly(&mut start, width, fields, p);
    let plain = PlainDepositing::new(&start, width, p);
    plain
        .sweep(solved, true, sediment, fields, p, s)
        .iter()
        .zip(solved)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max)
}

fn uplift_plainly(heights: &mut [f32], width: usize, fields: &StepFields, p: &StepParams) {
    let height = heights.len() / width;
    if let Some(uplift) = fields.uplift {
        for i in 0..heights.len() {
            if !p
                .outlets
                .is_outlet(i % width, i / width, width, height, heights[i])
            {
                heights[i] += uplift[i] * p.dt as f32;
            }
        }
    }
}

/// A depositing step's drainage, found plainly from its uplifted start.
struct PlainDepositing {
    width: usize,
    receivers: Vec<u32>,
    cells: Vec<u32>,
    start: Vec<f32>,
    /// Each cell's donors, by scanning every cell.
    donors: Vec<Vec<usize>>,
    /// The highest start height on each cell's way out: where water stood.
    still: Vec<f32>,
}

impl PlainDepositing {
    fn new(start: &[f32], width: usize, p: &StepParams) -> Self {
        let receivers = reference::receivers(start, width, &p.outlets);
        let cells = reference::drainage_cells(&receivers);
        let donors: Vec<Vec<usize>> = (0..receivers.len())
            .map(|c| {
                (0..receivers.len())
                    .filter(|&d| d != c && receivers[d] as usize == c)
                    .collect()
            })
            .collect();
        let still = reference::fill_levels(start, &receivers);
        Self {
            width,
            receivers,
            cells,
            start: start.to_vec(),
            donors,
            still,
        }
    }

    /// Every cell's new height, with the flux entering each cell from the
    /// heights `h` (none when `with_flux` is false: the first sweep).
    fn sweep(
        &self,
        h: &[f32],
        with_flux: bool,
        sediment: &[f32],
        fields: &StepFields,
        p: &StepParams,
        s: &SedimentParams,
    ) -> Vec<f32> {
        let (start, cells, still) = (&self.start, &self.cells, &self.still);
        let cell_area = p.cell_size * p.cell_size;
        // Sediment entering `c`: what each donor passes on, never negative
        // (each cell's answer kept once found).
        fn entering(
            c: usize,
            h: &[f32],
            start: &[f32],
            cell_area: f64,
            donors: &[Vec<usize>],
            known: &mut [Option<f64>],
        ) -> f64 {
            if let Some(v) = known[c] {
                return v;
            }
            let v = donors[c]
                .iter()
                .map(|&d| {
                    (entering(d, h, start, cell_area, donors, known)
                        + (start[d] - h[d]) as f64 * cell_area)
                        .max(0.0)
                })
                .sum();
            known[c] = Some(v);
            v
        }
        let mut known = vec![None; h.len()];
        let flux: Vec<f64> = (0..h.len())
            .map(|c| {
                if with_flux {
                    entering(c, h, start, cell_area, &self.donors, &mut known)
                } else {
                    0.0
                }
            })
            .collect();
        solve_by_paths(
            &self.receivers,
            self.width,
            p,
            start,
            |c, r, base, distance| {
                let in_lake = if r == c {
                    start[c] <= base
                } else {
                    start[c] < base && start[c] < still[r]
                };
                if in_lake {
                    if r == c {
                        start[c]
                    } else {
                        (start[c] + (flux[c] / cell_area) as f32)
                            .min(base)
                            .max(start[c])
                    }
                } else {
                    let rock = fields.erodibility.map_or(1.0, |e| e[c] as f64);
                    let share = share_under(sediment[c], rock, s.sediment_share);
                    let a_m = (cells[c] as f64).powf(p.area_exponent)
                        * cell_area.powf(p.area_exponent)
                        * share;
                    let laid = if r == c {
                        0.0
                    } else {
                        s.deposition * flux[c] / (cells[c] as f64 * cell_area)
                    };
                    let solved = solve_cell(
                        start[c] as f64 + laid,
                        base as f64,
                        p.erodibility * p.dt * a_m,
                        distance,
                        p.slope_exponent,
                    );
                    (solved as f32).max(base)
                }
            },
        )
    }
}
