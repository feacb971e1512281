//! Level of detail for the GPU terrain: a CDLOD quadtree (Strugar,
//! "Continuous Distance-Dependent Level of Detail", 2009).
//!
//! Why CDLOD and not geometry clipmaps: every patch is one fixed grid
//! mesh scaled per node, so the CPU's whole per-frame work is walking a
//! few hundred quadtree nodes against per-node height bounds; the
//! vertex shader morphs each vertex towards the next coarser grid as it
//! nears the end of its level's range, so neighbouring levels meet
//! without cracks and without the stitching strips clipmaps need at
//! their ring borders. The bounds also give each patch a tight box for
//! frustum culling and shadows. Clipmaps move with the camera in whole
//! ring steps and re-upload their rings; CDLOD reads one static height
//! texture, which is exactly what an edit uploads.
//!
//! Everything here is plain arithmetic over cells and world units (no
//! Bevy types), tested in milliseconds.

/// Quads a patch has along each side (its mesh is a `(P+1)²` vertex grid).
pub const PATCH_QUADS: u32 = 32;
/// A level-`l` node is drawn while the camera is within
/// `RANGE_IN_NODES · node side` of it: at 12 a triangle edge spans at
/// most about 2.4 pixels at the end of its range (45° view, 765 rows),
/// and a level's morph zone starts past the farthest edge it can share
/// with a finer level (see the crack test below).
pub const RANGE_IN_NODES: f32 = 12.0;
/// Morphing towards the coarser grid starts at this share of the range.
pub const MORPH_START: f32 = 0.8;
/// The most levels a quadtree has (a 16385² map needs 10 with 32-quad
/// patches; the shader's range table holds 16).
pub const MAX_LEVELS: usize = 16;

/// Minimum and maximum height of every quadtree node, level by level;
/// level 0 nodes are [`PATCH_QUADS`] cells a side. Built once per edit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeightBounds {
    /// Map size in cells (vertices) along x and z.
    pub width: u32,
    pub height: u32,
    /// `levels[l]` is a row-major grid of `(min, max)` per level-l node.
    pub levels: Vec<BoundsGrid>,
    /// Whether every height is finite (a recipe can overflow).
    pub all_finite: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoundsGrid {
    pub columns: u32,
    pub rows: u32,
    pub min_max: Vec<(f32, f32)>,
}

impl BoundsGrid {
    fn get(&self, x: u32, z: u32) -> Option<(f32, f32)> {
        (x < self.columns && z < self.rows).then(|| self.min_max[(z * self.columns + x) as usize])
    }
}

impl HeightBounds {
    /// Bounds of a `width × height` map given row by row. A node spans
    /// its cells and the shared edge row and column of its neighbours,
    /// the vertices its patch reaches. Non-finite heights count as 0, as
    /// the shader draws them.
    pub fn new(width: u32, height: u32, heights: &[f32]) -> HeightBounds {
        use rayon::prelude::*;
        let (w, h) = (width.max(1), height.max(1));
        let columns = (w - 1).max(1).div_ceil(PATCH_QUADS);
        let rows = (h - 1).max(1).div_ceil(PATCH_QUADS);
        let quads = PATCH_QUADS as usize;
        let leaf_rows: Vec<(Vec<(f32, f32)>, bool)> = (0..rows as usize)
            .into_par_iter()
            .map(|node_row| {
                let z0 = node_row * quads;
                let z1 = (z0 + quads).min(h as usize - 1);
                // Per map column, the lowest and highest height over the
                // node row's lines (straight loops that vectorise), then
                // per node over its columns.
                // Non-finite heights are spotted on the way (a boolean
                // reduction, which vectorises).
                let first = &heights[z0 * w as usize..(z0 + 1) * w as usize];
                let mut low: Vec<f32> = first.iter().map(|&v| drawn_height(v)).collect();
                let mut high = low.clone();
                let all_finite = |line: &[f32]| line.iter().fold(true, |ok, &v| ok & v.is_finite());
                let mut finite = all_finite(first);
                for z in z0 + 1..=z1 {
                    let line = &heights[z * w as usize..(z + 1) * w as usize];
                    for ((lo, hi), &v) in low.iter_mut().zip(high.iter_mut()).zip(line) {
                        let v = drawn_height(v);
                        *lo = lo.min(v);
                        *hi = hi.max(v);
                    }
                    finite &= all_finite(line);
                }
                let bounds = (0..columns as usize)
                    .map(|node| {
                        let x0 = node * quads;
                        let x1 = (x0 + quads).min(w as usize - 1);
                        let lo = low[x0..=x1].iter().fold(f32::INFINITY, |m, &v| m.min(v));
                        let hi = high[x0..=x1]
                            .iter()
                            .fold(f32::NEG_INFINITY, |m, &v| m.max(v));
                        (lo, hi)
                    })
                    .collect::<Vec<_>>();
                (bounds, finite)
            })
            .collect();
        let all_finite = leaf_rows.iter().all(|(_, finite)| *finite);
        let leaf: Vec<(f32, f32)> = leaf_rows.into_iter().flat_map(|(row, _)| row).collect();
        let mut levels = vec![BoundsGrid {
            columns,
            rows,
            min_max: leaf,
        }];
        while levels.len() < MAX_LEVELS {
            let below = &levels[levels.len() - 1];
            if below.columns == 1 && below.rows == 1 {
                break;
            }
            let (columns, rows) = (below.columns.div_ceil(2), below.rows.div_ceil(2));
            let mut min_max = Vec::with_capacity((columns * rows) as usize);
            for z in 0..rows {
                for x in 0..columns {
                    let children = [(0, 0), (1, 0), (0, 1), (1, 1)]
                        .map(|(dx, dz)| below.get(2 * x + dx, 2 * z + dz));
                    let joined = children
                        .iter()
                        .flatten()
                        .fold((f32::INFINITY, f32::NEG_INFINITY), |acc, &(lo, hi)| {
                            (acc.0.min(lo), acc.1.max(hi))
                        });
                    min_max.push(joined);
                }
            }
            levels.push(BoundsGrid {
                columns,
                rows,
                min_max,
            });
        }
        HeightBounds {
            width: w,
            height: h,
            levels,
            all_finite,
        }
    }

    /// The map's highest point.
    pub fn top_height(&self) -> f32 {
        self.levels
            .last()
            .and_then(|grid| grid.min_max.first())
            .map_or(0.0, |bounds| bounds.1)
    }

    /// The top level: its single node covers the whole map.
    pub fn root_level(&self) -> u32 {
        self.levels.len().saturating_sub(1) as u32
    }
}

/// A height as the shader draws it: non-finite ones at 0.
#[inline(always)]
fn drawn_height(v: f32) -> f32 {
    if v.is_finite() { v } else { 0.0 }
}

/// The world distance up to which each level is drawn, and its morph zone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodRanges {
    /// World size of one cell.
    pub cell_size: f32,
}

impl LodRanges {
    /// World side of a level-`level` node.
    pub fn node_side(&self, level: u32) -> f32 {
        (PATCH_QUADS << level) as f32 * self.cell_size
    }

    /// Level `level` is drawn within this distance of the camera; beyond
    /// it, the next coarser level.
    pub fn range(&self, level: u32) -> f32 {
        RANGE_IN_NODES * self.node_side(level)
    }

    /// Where morphing towards the coarser grid starts.
    pub fn morph_start(&self, level: u32) -> f32 {
        MORPH_START * self.range(level)
    }

    /// How far a vertex at `distance` is morphed to the coarser grid (0:
    /// not at all, 1: on it); the shader's formula.
    pub fn morph(&self, level: u32, distance: f32) -> f32 {
        let (start, end) = (self.morph_start(level), self.range(level));
        ((distance - start) / (end - start)).clamp(0.0, 1.0)
    }
}

/// One patch to draw: a square of cells, the level whose grid spacing
/// (`2^level` cells) and morph range it is drawn with, and its heights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Patch {
    pub level: u32,
    /// First cell of the patch along x and z.
    pub x0: u32,
    pub z0: u32,
    /// Cells a side: a whole node (`PATCH_QUADS << level`) or one quadrant.
    pub side: u32,
    /// Quads a side: [`PATCH_QUADS`] for a node, half that for a quadrant.
    pub quads: u32,
    pub min_height: f32,
    pub max_height: f32,
}

/// Where the map lies in the world: cell `(x, z)` sits at
/// `(x·cell − half_width, height·height_scale, z·cell − half_depth)`,
/// as in the CPU mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapPlacement {
    pub cell_size: f32,
    pub half_width: f32,
    pub half_depth: f32,
    pub height_scale: f32,
}

impl MapPlacement {
    /// The world rectangle (x, z) of a patch, clipped to the map.
    fn patch_rect(&self, patch: &Patch, bounds: &HeightBounds) -> ([f32; 2], [f32; 2]) {
        let last_x = (bounds.width - 1) as f32;
        let last_z = (bounds.height - 1) as f32;
        let x1 = ((patch.x0 + patch.side) as f32).min(last_x);
        let z1 = ((patch.z0 + patch.side) as f32).min(last_z);
        let c = self.cell_size;
        (
            [
                patch.x0 as f32 * c - self.half_width,
                patch.z0 as f32 * c - self.half_depth,
            ],
            [x1 * c - self.half_width, z1 * c - self.half_depth],
        )
    }
}

/// The LOD distance of a camera to a point or area: the horizontal
/// distance combined with the camera's height above the map's highest
/// point (0 below it). Heights inside the map are left out on purpose:
/// with them a tall node's box could put the edge it shares with a
/// coarser neighbour past that neighbour's morph start (a crack); with
/// them out, a shared edge is at most the node's diagonal beyond its
/// range, which the morph zones leave room for.
pub fn lod_distance(horizontal: f32, camera_height_above_top: f32) -> f32 {
    horizontal.hypot(camera_height_above_top.max(0.0))
}

/// Horizontal distance from `point` (x, z) to the rectangle `lo..hi`.
fn rect_distance(point: [f32; 2], lo: [f32; 2], hi: [f32; 2]) -> f32 {
    let dx = (lo[0] - point[0]).max(point[0] - hi[0]).max(0.0);
    let dz = (lo[1] - point[1]).max(point[1] - hi[1]).max(0.0);
    dx.hypot(dz)
}

/// The patches that cover the map for a camera at `camera` (world
/// position): full resolution near it, each level twice as coarse as
/// the one inside it, every cell covered exactly once. A node out of
/// its finer level's range is drawn whole; a node partly in range is
/// split, and a child out of range is drawn as the node's own quadrant
/// (its level's spacing and morph, half the quads), as in the CDLOD
/// paper, so it meets the node's coarser neighbours exactly.
pub fn select_patches(bounds: &HeightBounds, place: &MapPlacement, camera: [f32; 3]) -> Vec<Patch> {
    let mut out = Vec::new();
    if bounds.levels.is_empty() {
        return out;
    }
    let ranges = LodRanges {
        cell_size: place.cell_size,
    };
    let root = bounds.root_level();
    let top = bounds.top_height() * place.height_scale;
    let eye = Eye {
        xz: [camera[0], camera[2]],
        above_top: camera[1] - top,
    };
    let walk = Walk {
        bounds,
        place,
        ranges: &ranges,
        eye: &eye,
    };
    walk.visit(root, (0, 0), true, &mut out);
    out
}

/// The camera as LOD distances see it.
struct Eye {
    xz: [f32; 2],
    above_top: f32,
}

/// A walk down the quadtree for one eye.
struct Walk<'a> {
    bounds: &'a HeightBounds,
    place: &'a MapPlacement,
    ranges: &'a LodRanges,
    eye: &'a Eye,
}

impl Walk<'_> {
    /// The node at `level`, grid position `(x, z)`; returns whether it (or
    /// its children) were added. `always` forces the root to be drawn.
    fn visit(&self, level: u32, (x, z): (u32, u32), always: bool, out: &mut Vec<Patch>) -> bool {
        let Walk {
            bounds,
            place,
            ranges,
            eye,
        } = *self;
        let Some((min_height, max_height)) = bounds.levels[level as usize].get(x, z) else {
            return true; // off the map: nothing to draw
        };
        let side = PATCH_QUADS << level;
        let patch = Patch {
            level,
            x0: x * side,
            z0: z * side,
            side,
            quads: PATCH_QUADS,
            min_height,
            max_height,
        };
        let (lo, hi) = place.patch_rect(&patch, bounds);
        let distance = lod_distance(rect_distance(eye.xz, lo, hi), eye.above_top);
        if !always && distance > ranges.range(level) {
            return false;
        }
        if level == 0 || distance > ranges.range(level - 1) {
            out.push(patch);
            return true;
        }
        for (dx, dz) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (cx, cz) = (2 * x + dx, 2 * z + dz);
            if !self.visit(level - 1, (cx, cz), false, out) {
                let grid = &bounds.levels[level as usize - 1];
                if let Some((lo, hi)) = grid.get(cx, cz) {
                    let child_side = side / 2;
                    out.push(Patch {
                        level,
                        x0: cx * child_side,
                        z0: cz * child_side,
                        side: child_side,
                        quads: PATCH_QUADS / 2,
                        min_height: lo,
                        max_height: hi,
                    });
                }
            }
        }
        true
    }
}

/// Vertices the patches draw (a `(quads+1)²` grid each).
pub fn vertex_count(patches: &[Patch]) -> u64 {
    patches.iter().map(|p| u64::from(p.quads + 1).pow(2)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rolling_map(width: u32, height: u32, amplitude: f32) -> Vec<f32> {
        (0..height)
            .flat_map(|z| {
                (0..width)
                    .map(move |x| amplitude * ((x as f32 * 0.013).sin() + (z as f32 * 0.021).cos()))
            })
            .collect()
    }

    fn placement(width: u32, height: u32, cell: f32, scale: f32) -> MapPlacement {
        MapPlacement {
            cell_size: cell,
            half_width: (width - 1) as f32 * cell * 0.5,
            half_depth: (height - 1) as f32 * cell * 0.5,
            height_scale: scale,
        }
    }

    /// Cells covered by the patches, counted per cell (quads, not vertices).
    fn coverage(patches: &[Patch], width: u32, height: u32) -> Vec<u8> {
        let (qw, qh) = ((width - 1).max(1), (height - 1).max(1));
        let mut counts = vec![0u8; (qw * qh) as usize];
        for p in patches {
            for z in p.z0..(p.z0 + p.side).min(qh) {
                for x in p.x0..(p.x0 + p.side).min(qw) {
                    counts[(z * qw + x) as usize] += 1;
                }
            }
        }
        counts
    }

    #[test]
    fn bounds_match_a_naive_scan_of_each_node() {
        let (w, h) = (300, 170);
        let heights = rolling_map(w, h, 40.0);
        let bounds = HeightBounds::new(w, h, &heights);
        for (level, grid) in bounds.levels.iter().enumerate() {
            let side = PATCH_QUADS << level;
            for z in 0..grid.rows {
                for x in 0..grid.columns {
                    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
                    for cz in z * side..=((z + 1) * side).min(h - 1) {
                        for cx in x * side..=((x + 1) * side).min(w - 1) {
                            let v = heights[(cz * w + cx) as usize];
                            lo = lo.min(v);
                            hi = hi.max(v);
                        }
                    }
                    assert_eq!(grid.get(x, z), Some((lo, hi)), "level {level} node {x},{z}");
                }
            }
        }
        let top = &bounds.levels[bounds.root_level() as usize];
        assert_eq!((top.columns, top.rows), (1, 1));
        assert!(bounds.all_finite);
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut broken = heights.clone();
            broken[(97 * w + 250) as usize] = bad;
            let bounds = HeightBounds::new(w, h, &broken);
            assert!(!bounds.all_finite, "{bad}");
            // The node keeps its finite heights and gains the 0 drawn there.
            let (nx, nz) = (250 / PATCH_QUADS, 97 / PATCH_QUADS);
            let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
            for z in nz * PATCH_QUADS..=(nz + 1) * PATCH_QUADS {
                for x in nx * PATCH_QUADS..=(nx + 1) * PATCH_QUADS {
                    let v = drawn_height(broken[(z * w + x) as usize]);
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
            assert_eq!(bounds.levels[0].get(nx, nz), Some((lo, hi)), "{bad}");
        }
    }

    #[test]
    fn the_camera_sees_full_resolution_nearby_and_coarse_far_away() {
        let (w, h) = (4097, 4097);
        let heights = rolling_map(w, h, 30.0);
        let bounds = HeightBounds::new(w, h, &heights);
        let place = placement(w, h, 1.0, 1.0);
        let camera = [-1800.0, 40.0, -1800.0];
        let patches = select_patches(&bounds, &place, camera);
        let near = patches
            .iter()
            .find(|p| {
                let (lo, hi) = place.patch_rect(p, &bounds);
                rect_distance([camera[0], camera[2]], lo, hi) == 0.0
            })
            .expect("a patch under the camera");
        assert_eq!(near.level, 0, "full resolution under the camera");
        assert!(patches.iter().any(|p| p.level >= 4), "coarse far away");
        assert!(coverage(&patches, w, h).iter().all(|&c| c == 1));
    }

    /// Vertices of the patches a camera at `eye` looking along `look`
    /// (x, z) could see: a patch counts when its centre lies within the
    /// horizontal field of view widened by the patch's own angular size
    /// (more than the real frustum keeps).
    fn drawn_vertices(
        patches: &[Patch],
        place: &MapPlacement,
        eye: [f32; 3],
        look: [f32; 2],
        half_fov: f32,
    ) -> u64 {
        let seen: Vec<Patch> = patches
            .iter()
            .filter(|p| {
                let c = place.cell_size;
                let half = p.side as f32 * c * 0.5;
                let centre = [
                    p.x0 as f32 * c - place.half_width + half,
                    p.z0 as f32 * c - place.half_depth + half,
                ];
                let to = [centre[0] - eye[0], centre[1] - eye[2]];
                let distance = to[0].hypot(to[1]);
                let reach = half * std::f32::consts::SQRT_2;
                if distance <= reach {
                    return true;
                }
                let cos = (to[0] * look[0] + to[1] * look[1]) / distance;
                cos.clamp(-1.0, 1.0).acos() <= half_fov + (reach / distance).asin()
            })
            .copied()
            .collect();
        vertex_count(&seen)
    }

    #[test]
    fn vertex_count_stays_bounded_for_every_map_size_and_view() {
        // The 3D view is 920×765 pixels with a 45° vertical field of
        // view: 53° across; 60° leaves a margin.
        let half_fov = 30f32.to_radians();
        for side in [65u32, 1025, 8193, 16385] {
            // Flat maps are the worst case: every patch is as near as it gets.
            let heights = vec![0.0; (side * side) as usize];
            let bounds = HeightBounds::new(side, side, &heights);
            let place = placement(side, side, 1.0, 1.0);
            let half = place.half_width;
            let mut worst = 0;
            for camera in [
                [0.0, 1.0, 0.0],
                [-half, 1.0, -half],
                [half * 0.3, 5.0, -half * 0.7],
                [0.0, half * 2.0, 0.0],
            ] {
                let patches = select_patches(&bounds, &place, camera);
                assert!(coverage(&patches, side, side).iter().all(|&c| c == 1));
                for look in [[1.0, 0.0], [0.0, 1.0], [-0.6, 0.8], [0.8, -0.6]] {
                    worst = worst.max(drawn_vertices(&patches, &place, camera, look, half_fov));
                }
            }
            eprintln!("{side}²: at most {worst} vertices in view");
            assert!(worst <= 2_000_000, "{side}²: {worst} vertices");
        }
    }

    /// Neighbouring patches differ by at most one level, and where they
    /// differ the finer one is fully morphed along the shared edge: the
    /// condition for a crack-free mesh.
    #[test]
    fn neighbours_differ_by_one_level_and_the_finer_side_is_fully_morphed() {
        let (w, h) = (2049, 2049);
        let heights = rolling_map(w, h, 60.0);
        let bounds = HeightBounds::new(w, h, &heights);
        for scale in [1.0, 4.0] {
            let place = placement(w, h, 2.0, scale);
            let ranges = LodRanges { cell_size: 2.0 };
            let camera = [300.0, 200.0 * scale, -500.0];
            let patches = select_patches(&bounds, &place, camera);
            let qw = w - 1;
            let mut level_of = vec![u32::MAX; (qw * qw) as usize];
            for p in &patches {
                for z in p.z0..p.z0 + p.side {
                    for x in p.x0..p.x0 + p.side {
                        level_of[(z * qw + x) as usize] = p.level;
                    }
                }
            }
            let top = bounds.top_height() * scale;
            for z in 0..qw {
                for x in 0..qw - 1 {
                    let (a, b) = (
                        level_of[(z * qw + x) as usize],
                        level_of[(z * qw + x + 1) as usize],
                    );
                    assert!(a.abs_diff(b) <= 1, "levels {a} and {b} meet at {x},{z}");
                    if a != b {
                        // The shared edge x+1: its vertex on the finer side.
                        let fine = a.min(b);
                        let vx = x + 1;
                        let p = [
                            vx as f32 * 2.0 - place.half_width,
                            z as f32 * 2.0 - place.half_depth,
                        ];
                        let d = lod_distance(
                            (p[0] - camera[0]).hypot(p[1] - camera[2]),
                            camera[1] - top,
                        );
                        assert_eq!(
                            ranges.morph(fine, d),
                            1.0,
                            "edge at {vx},{z}, level {fine}, distance {d}"
                        );
                        assert_eq!(
                            ranges.morph(fine + 1, d),
                            0.0,
                            "coarse side morphs at {vx},{z}"
                        );
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any map size, cell size and camera: each cell drawn exactly once.
        #[test]
        fn patches_cover_every_cell_once(
            width in 2u32..700, height in 2u32..700, cell in 0.1f32..20.0,
            cx in -1.0f32..1.0, cz in -1.0f32..1.0, cy in 0.0f32..3.0,
        ) {
            let heights = rolling_map(width, height, 25.0);
            let bounds = HeightBounds::new(width, height, &heights);
            let place = placement(width, height, cell, 1.0);
            let camera = [cx * place.half_width * 1.5, cy * 100.0, cz * place.half_depth * 1.5];
            let patches = select_patches(&bounds, &place, camera);
            prop_assert!(coverage(&patches, width, height).iter().all(|&c| c == 1));
        }
    }
}
