//! What one tile simulates on: its window of the map, and the droplets in
//! flight on it, several in lockstep.

/// Droplets simulated in lockstep per tile.
pub(super) const LANES: usize = 16;

/// `LANES` droplets in flight, one array per quantity. Each step of one
/// droplet is a long serial chain (loads, gradient, sqrt, division, the
/// next lookup, erosion that the following step reads back); running
/// several side by side lets their chains overlap, and the arithmetic
/// phases vectorise across droplets. Lanes are always visited in the same
/// order, so the result does not depend on timing.
pub(super) struct Flock {
    pub(super) px: [f32; LANES],
    pub(super) py: [f32; LANES],
    pub(super) dx: [f32; LANES],
    pub(super) dy: [f32; LANES],
    pub(super) speed: [f32; LANES],
    pub(super) water: [f32; LANES],
    pub(super) sediment: [f32; LANES],
    pub(super) age: [u32; LANES],
    pub(super) alive: [bool; LANES],
    /// The cell under each droplet, worked out once per move.
    pub(super) spot: [Spot; LANES],
    pub(super) eroded: [f64; LANES],
    pub(super) deposited: [f64; LANES],
}

impl Flock {
    /// Dead lanes sit at (0, 0), a valid cell, so loads for them are
    /// harmless and need no branch.
    pub(super) fn new() -> Self {
        Flock {
            px: [0.0; LANES],
            py: [0.0; LANES],
            dx: [0.0; LANES],
            dy: [0.0; LANES],
            speed: [0.0; LANES],
            water: [0.0; LANES],
            sediment: [0.0; LANES],
            age: [0; LANES],
            alive: [false; LANES],
            spot: [Spot::default(); LANES],
            eroded: [0.0; LANES],
            deposited: [0.0; LANES],
        }
    }

    pub(super) fn start(&mut self, lane: usize, px: f32, py: f32, spot: Spot) {
        self.spot[lane] = spot;
        self.px[lane] = px;
        self.py[lane] = py;
        self.dx[lane] = 0.0;
        self.dy[lane] = 0.0;
        self.speed[lane] = 1.0;
        self.water[lane] = 1.0;
        self.sediment[lane] = 0.0;
        self.age[lane] = 0;
        self.alive[lane] = true;
    }

    pub(super) fn end(&mut self, lane: usize) {
        self.alive[lane] = false;
        self.px[lane] = 0.0;
        self.py[lane] = 0.0;
        self.spot[lane] = Spot::default();
    }
}

/// A position as its top-left cell (index into the window) and the
/// fractions across that cell.
#[derive(Clone, Copy, Default)]
pub(super) struct Spot {
    pub(super) cell: usize,
    pub(super) ix: u32,
    pub(super) iy: u32,
    pub(super) u: f32,
    pub(super) v: f32,
}

/// A window of the map that one tile simulates on.
pub(super) struct Window {
    pub(super) x0: usize,
    pub(super) y0: usize,
    pub(super) w: usize,
    pub(super) h: usize,
    pub(super) data: Vec<f32>,
}

impl Window {
    /// The spot at a position inside the window (`0 <= p < w - 1`).
    #[inline]
    pub(super) fn spot(&self, px: f32, py: f32) -> Spot {
        let (ix, iy) = (px as u32, py as u32);
        Spot {
            cell: iy as usize * self.w + ix as usize,
            ix,
            iy,
            u: px - ix as f32,
            v: py - iy as f32,
        }
    }

    #[inline]
    pub(super) fn height_and_gradient(&self, at: Spot) -> (f32, f32, f32) {
        let (u, v) = (at.u, at.v);
        let cells = &self.data[at.cell..at.cell + self.w + 2];
        let (nw, ne) = (cells[0], cells[1]);
        let (sw, se) = (cells[self.w], cells[self.w + 1]);
        let gx = (ne - nw) * (1.0 - v) + (se - sw) * v;
        let gy = (sw - nw) * (1.0 - u) + (se - ne) * u;
        // The same lerps as `height`, so a level cell gives dh = 0 exactly.
        let (top, bottom) = (nw + (ne - nw) * u, sw + (se - sw) * u);
        (top + (bottom - top) * v, gx, gy)
    }

    #[inline]
    pub(super) fn height(&self, at: Spot) -> f32 {
        let cells = &self.data[at.cell..at.cell + self.w + 2];
        let top = cells[0] + (cells[1] - cells[0]) * at.u;
        let bottom = cells[self.w] + (cells[self.w + 1] - cells[self.w]) * at.u;
        top + (bottom - top) * at.v
    }

    /// Adds `amount` to the four cells around `at`, bilinearly weighted.
    #[inline]
    pub(super) fn deposit(&mut self, at: Spot, amount: f32) {
        let (u, v, w) = (at.u, at.v, self.w);
        let cells = &mut self.data[at.cell..at.cell + w + 2];
        cells[0] += amount * (1.0 - u) * (1.0 - v);
        cells[1] += amount * u * (1.0 - v);
        cells[w] += amount * (1.0 - u) * v;
        cells[w + 1] += amount * u * v;
    }
}
