//! The sediment step for n = 1 solved directly: along the drainage tree
//! the step is linear but for its clamps, so each cell's height, water
//! level and outflow are affine in its receiver's water level. One pass
//! from the sources down chooses each cell's clamp (lake or river, full
//! or not, cut to its receiver's level, passing nothing on) from its
//! receiver's level of the round before and gathers the affine maps; one
//! pass back from the outlets resolves them and checks each clamp against
//! the level found. When no clamp was chosen wrong, the heights are the
//! fixed point the Gauss–Seidel sweeps of [`super::deposition`] approach,
//! solved exactly. The first round's levels are the bedrock step's (the
//! sweeps' first); a step settles in a few rounds where the sweeps take
//! tens. The passes run over the cells laid out in drainage order (each
//! cell's constants gathered once), so each reads its cells in memory
//! order and only its receiver's entry out of it. At 1025² (the
//! `stream-power-1025` bench) the step with deposition takes 107 ms, 3.0
//! times the bedrock step (1.96 times when the routing both share was
//! slower), where the sweeps cost 13.7 times.

use super::deposition::SedimentParams;
use super::step::{StepParams, link_between, link_lengths};
use crate::hugepages;
use crate::hydro::{FlowGrid, NodeStatus, Routing};

/// Rounds of the two passes at most before the step gives up and runs
/// the sweeps from the start: a cell at a lake's edge that stands in the
/// lake only if it passes its load on has no clamp that holds (on the
/// random maps of the tests, about one step in fifty; the bench map's
/// 1025² step settles in three rounds).
pub const MAX_ROUNDS: usize = 8;

/// How a cell's step is clamped: which affine map it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Clamp {
    /// A river cell solved freely, passing on what it carries and cuts.
    Free,
    /// A river cell solved freely that gained more than it received:
    /// passes nothing on.
    FreeHoarding,
    /// A river cell held at its receiver's water level, passing on the rest.
    AtLevel,
    /// Held at its receiver's level, with nothing left to pass on.
    AtLevelHoarding,
    /// Standing water that keeps all it receives.
    LakeTrapping,
    /// Standing water filled to its level, passing on the rest.
    LakeFull,
}

/// Solves one depositing step directly (n = 1 only) from the uplifted
/// `start` (`cut[i]`: K·dt·A^m of cell `i`): each cell's new height,
/// by drainage position (`routing.order`); None when the clamps did not
/// settle in [`MAX_ROUNDS`].
pub fn solve_direct(
    routing: &Routing,
    grid: &FlowGrid,
    p: &StepParams,
    s: &SedimentParams,
    start: &[f32],
    cut: &[f64],
) -> Option<Vec<f32>> {
    let cells = Laid::out(start, cut, routing, grid, p, s);
    let n = cells.cells.len();
    // By drainage position: the sediment entering each cell from its
    // donors as Γ + Δ·(its own water level), m³ ([Γ, Δ]); its clamp; its
    // height; its water level (the last round's until the pass from the
    // outlets renews it). On huge pages: at 1025² 4 KiB pages cost more
    // in faults than the passes that first touch them.
    let mut inflow: Vec<[f64; 2]> = hugepages::lazily_zeroed(n);
    let mut clamp = hugepages::filled_with(n, Clamp::Free);
    let mut height = hugepages::lazily_zeroed_f32(n);
    let mut level = hugepages::lazily_zeroed_f32(n);
    // The bedrock step (nothing entering any cell) gives the first levels.
    cells.resolve(&mut height, &mut level, &mut clamp, &mut inflow);
    for _ in 0..MAX_ROUNDS {
        // From the sources down: each cell's clamp from its receiver's
        // last level, and its outflow as ao + bo·L, L its receiver's
        // level, added into the receiver's Γ and Δ (which the pass from
        // the outlets left at zero).
        for k in (0..n).rev() {
            let r = cells.cells[k].to;
            if r >= TO_BASE {
                // An outlet (KEPT or TO_BASE) passes nothing on.
                continue;
            }
            let r = r as usize;
            let [g0, d0] = inflow[k];
            let (found, _, _, free) = cells.clamp_at(k, level[r], g0, d0);
            clamp[k] = found;
            let (ao, bo) = cells.outflow(k, found, g0, d0, free);
            inflow[r][0] += ao;
            inflow[r][1] += bo;
        }
        // From the outlets up: each cell from its receiver's new level.
        if cells.resolve(&mut height, &mut level, &mut clamp, &mut inflow) {
            return Some(height);
        }
    }
    None
}

/// `Cell::to` of an outlet that keeps its height.
const KEPT: u32 = u32::MAX;

/// `Cell::to` of a cell draining out of the map to the base level.
const TO_BASE: u32 = u32::MAX - 1;

/// What the passes read of one cell (20 bytes: the passes stream them).
#[derive(Clone, Copy, Debug)]
struct Cell {
    /// The drainage position of its receiver, or [`KEPT`] or [`TO_BASE`].
    to: u32,
    start: f32,
    /// The level water stood at in the receiver before the step.
    still: f32,
    /// K·dt·A^m over the link's length: how hard the river cuts.
    f: f32,
    /// The share of the entering sediment a free river lays down, per m³.
    g: f32,
}

/// A step's cells laid out in drainage order, outlets first.
struct Laid {
    cells: Vec<Cell>,
    cell_area: f64,
    /// Where water leaving the map settles (for [`TO_BASE`] cells).
    base_level: f32,
}

impl Laid {
    /// Gathers each cell's constants in drainage order, then the level
    /// water stood at in each receiver.
    fn out(
        start: &[f32],
        cut: &[f64],
        routing: &Routing,
        grid: &FlowGrid,
        p: &StepParams,
        s: &SedimentParams,
    ) -> Self {
        let (order, receivers, areas) = (
            &routing.order,
            &routing.order_receivers,
            &routing.order_cells,
        );
        let mut position: Vec<u32> = hugepages::lazily_zeroed(start.len());
        for (k, &i) in order.iter().enumerate() {
            position[i as usize] = k as u32;
        }
        let cell_area = p.cell_size * p.cell_size;
        let links = link_lengths(p);
        // Each cell's constants, on all threads (each reads its own cell
        // and its receiver's place alone, so the bytes do not depend on
        // the threads).
        let cell_of = |i: u32, [r, area]: [u32; 2]| {
            let (i, r) = (i as usize, r as usize);
            let (to, distance) = if r == i {
                match (p.base_level, grid.status[i]) {
                    (Some(_), status) if status != NodeStatus::Held => (TO_BASE, p.cell_size),
                    _ => (KEPT, 1.0),
                }
            } else {
                // As the sweeps measure it (`step::target`).
                (position[r], link_between(i, r, routing.width, links))
            };
            Cell {
                to,
                start: start[i],
                still: 0.0,
                f: (cut[i] / distance) as f32,
                g: (s.deposition / (area as f64 * cell_area)) as f32,
            }
        };
        const CHUNK: usize = 1 << 14;
        let mut cells = hugepages::filled_in_parallel(order.len(), CHUNK, |c, slots| {
            let from = c * CHUNK;
            let links = receivers[from..].iter().zip(&areas[from..]);
            for (slot, (&i, (&r, &area))) in slots.iter_mut().zip(order[from..].iter().zip(links)) {
                slot.write(cell_of(i, [r, area]));
            }
        });
        // Where water stood before the step (the highest start height on
        // the way out), from the outlets up, each from its receiver's.
        let mut still: Vec<f32> = hugepages::lazily_zeroed_f32(order.len());
        for k in 0..cells.len() {
            let cell = &mut cells[k];
            if cell.to >= TO_BASE {
                still[k] = cell.start;
            } else {
                let still_r = still[cell.to as usize];
                cell.still = still_r;
                still[k] = cell.start.max(still_r);
            }
        }
        Self {
            cells,
            cell_area,
            base_level: p.base_level.unwrap_or(0.0),
        }
    }

    /// Cell `k`'s clamp when its receiver stands at `base`, with
    /// Γ + Δ·(its level) entering it; its height and level then, and its
    /// height as a free river ([`Self::free_height`]; zero in a lake).
    #[inline]
    fn clamp_at(&self, k: usize, base: f32, g0: f64, d0: f64) -> (Clamp, f32, f32, (f64, f64)) {
        let (cell, a) = (&self.cells[k], self.cell_area);
        let start = cell.start;
        let l = base as f64;
        if start < base && start < cell.still {
            let entering = (g0 + d0 * l).max(0.0);
            let fill = start + (entering / a) as f32;
            return if fill <= base {
                (Clamp::LakeTrapping, fill.max(start), base, (0.0, 0.0))
            } else {
                (Clamp::LakeFull, base, base, (0.0, 0.0))
            };
        }
        let (ah, bh) = self.free_height(k, g0, d0);
        let free = ah + bh * l;
        if free as f32 >= base {
            let out = g0 + d0 * free + (start as f64 - free) * a;
            let clamp = if out >= 0.0 {
                Clamp::Free
            } else {
                Clamp::FreeHoarding
            };
            (clamp, free as f32, free as f32, (ah, bh))
        } else {
            let out = g0 + d0 * l + (start as f64 - l) * a;
            let clamp = if out >= 0.0 {
                Clamp::AtLevel
            } else {
                Clamp::AtLevelHoarding
            };
            (clamp, base, base, (ah, bh))
        }
    }

    /// Cell `k`'s outflow under `clamp` as ao + bo·L (`free`: its height
    /// as a free river, ah + bh·L).
    #[inline]
    fn outflow(&self, k: usize, clamp: Clamp, g0: f64, d0: f64, free: (f64, f64)) -> (f64, f64) {
        let a = self.cell_area;
        let own = self.cells[k].start as f64 * a;
        match clamp {
            Clamp::Free => {
                let (ah, bh) = free;
                (g0 + own + (d0 - a) * ah, (d0 - a) * bh)
            }
            Clamp::AtLevel | Clamp::LakeFull => (g0 + own, d0 - a),
            _ => (0.0, 0.0),
        }
    }

    /// A free river cell's height as ah + bh·L (L its receiver's level):
    /// h·(1 + f) = start + g·(Γ + Δ·h) + f·L.
    #[inline]
    fn free_height(&self, k: usize, g0: f64, d0: f64) -> (f64, f64) {
        let Cell { f, g, start, .. } = self.cells[k];
        let (f, g) = (f as f64, g as f64);
        let inverse = 1.0 / (1.0 + f - g * d0);
        ((start as f64 + g * g0) * inverse, f * inverse)
    }

    /// From the outlets up: every cell's height and level from its
    /// receiver's new level and what enters it (`inflow`, Γ and Δ, left
    /// at zero for the next pass from the sources); returns whether every
    /// clamp was as chosen.
    fn resolve(
        &self,
        height: &mut [f32],
        level: &mut [f32],
        clamp: &mut [Clamp],
        inflow: &mut [[f64; 2]],
    ) -> bool {
        let mut settled = true;
        for k in 0..self.cells.len() {
            let cell = self.cells[k];
            let start = cell.start;
            let [g0, d0] = std::mem::take(&mut inflow[k]);
            let r = match cell.to {
                KEPT => {
                    height[k] = start;
                    level[k] = start;
                    continue;
                }
                TO_BASE => {
                    // Draining to the base level beyond the map, the cell
                    // passes nothing on (as in the sweeps).
                    let base = self.base_level;
                    if start <= base {
                        height[k] = start;
                        level[k] = base;
                    } else {
                        let f = cell.f as f64;
                        let h = (start as f64 + f * base as f64) / (1.0 + f);
                        height[k] = (h as f32).max(base);
                        level[k] = height[k];
                    }
                    continue;
                }
                r => r as usize,
            };
            let (found, h, l, _) = self.clamp_at(k, level[r], g0, d0);
            height[k] = h;
            level[k] = l;
            if found != clamp[k] {
                clamp[k] = found;
                settled = false;
            }
        }
        settled
    }
}
