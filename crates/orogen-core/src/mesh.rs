//! Mesh data for display and export: positions, normals, uvs, indices.
//!
//! Plain buffers (no Bevy): the viewer uploads them, the exporters write
//! them. Maps larger than `max_side` vertices a side are decimated by
//! sampling every k-th cell (the last row and column always kept).

use crate::heightmap::Heightmap;
use crate::hugepages::huge_capacity;
use rayon::prelude::*;

/// The terrain as triangle-list buffers, one vertex per kept cell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// x east, y up, z south; the map is centred on the origin.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, one per position.
    pub normals: Vec<[f32; 3]>,
    /// (0,0) = north-west corner, (1,1) = south-east.
    pub uvs: Vec<[f32; 2]>,
    /// Index triples into `positions`, counter-clockwise seen from above.
    pub indices: Vec<u32>,
    /// Vertices a side actually used.
    pub columns: usize,
    /// Vertex rows actually used (north to south).
    pub rows: usize,
}

impl MeshData {
    /// Whether the mesh has fewer vertices a side than `map` has cells.
    pub fn is_decimated(&self, map: &Heightmap) -> bool {
        self.columns < map.width() || self.rows < map.height()
    }
}

/// Indices of the cells kept along one axis of `len` cells.
pub fn decimated_axis(len: usize, max_side: usize) -> Vec<usize> {
    let max_side = max_side.max(2);
    if len <= max_side {
        return (0..len).collect();
    }
    let step = (len - 1).div_ceil(max_side - 1);
    let mut v: Vec<usize> = (0..len).step_by(step).collect();
    if v.last() != Some(&(len - 1)) {
        v.push(len - 1);
    }
    v
}

/// Builds the mesh. `height_scale` exaggerates heights.
pub fn build_mesh(map: &Heightmap, cell_size: f32, height_scale: f32, max_side: usize) -> MeshData {
    let mut mesh = MeshData::default();
    build_mesh_into(&mut mesh, map, cell_size, height_scale, max_side);
    mesh
}

/// Rebuilds `mesh` in place, reusing its buffers (and its indices when the
/// grid size is unchanged): regenerating at the same size allocates
/// nothing. Rows are filled in parallel.
pub fn build_mesh_into(
    mesh: &mut MeshData,
    map: &Heightmap,
    cell_size: f32,
    height_scale: f32,
    max_side: usize,
) {
    let xs = decimated_axis(map.width(), max_side);
    let ys = decimated_axis(map.height(), max_side);
    let (cols, rows) = (xs.len(), ys.len());
    let half_w = (map.width() - 1) as f32 * cell_size * 0.5;
    let half_h = (map.height() - 1) as f32 * cell_size * 0.5;
    let inv_w = 1.0 / (map.width() - 1).max(1) as f32;
    let inv_h = 1.0 / (map.height() - 1).max(1) as f32;
    let same_grid = mesh.columns == cols && mesh.rows == rows && !mesh.indices.is_empty();
    // The fill below writes every value, so the buffers are refilled from
    // empty: a rebuild at the same size keeps their memory, a larger one
    // gets fresh memory on huge pages, first touched by the parallel fill
    // (no serial zeroing, no page faults taken on one thread).
    let n = cols * rows;
    refill_from_empty(&mut mesh.positions, n);
    refill_from_empty(&mut mesh.normals, n);
    refill_from_empty(&mut mesh.uvs, n);
    mesh.columns = cols;
    mesh.rows = rows;
    if !same_grid {
        mesh.indices = grid_indices(cols, rows);
    }
    let MeshData {
        positions,
        normals,
        uvs,
        ..
    } = mesh;
    positions.spare_capacity_mut()[..n]
        .par_chunks_mut(cols)
        .zip(normals.spare_capacity_mut()[..n].par_chunks_mut(cols))
        .zip(uvs.spare_capacity_mut()[..n].par_chunks_mut(cols))
        .enumerate()
        .for_each(|(j, ((pos_row, normal_row), uv_row))| {
            debug_assert_eq!(pos_row.len(), xs.len());
            let y = ys[j];
            let (yu, yd) = (ys[j.saturating_sub(1)], ys[(j + 1).min(rows - 1)]);
            let dz_scale = height_scale / ((yd - yu).max(1) as f32 * cell_size);
            let (row, row_up, row_down) = (map.row(y), map.row(yu), map.row(yd));
            for (i, &x) in xs.iter().enumerate() {
                let h = row[x] * height_scale;
                pos_row[i].write([
                    x as f32 * cell_size - half_w,
                    h,
                    y as f32 * cell_size - half_h,
                ]);
                uv_row[i].write([x as f32 * inv_w, y as f32 * inv_h]);
                // Central differences over the kept neighbours.
                let (xl, xr) = (xs[i.saturating_sub(1)], xs[(i + 1).min(cols - 1)]);
                let dx = (row[xr] - row[xl]) * height_scale / ((xr - xl).max(1) as f32 * cell_size);
                let dz = (row_down[x] - row_up[x]) * dz_scale;
                let inv_len = 1.0 / (dx * dx + 1.0 + dz * dz).sqrt();
                normal_row[i].write([-dx * inv_len, inv_len, -dz * inv_len]);
            }
        });
    // SAFETY: the fill wrote all n values of each buffer: n = cols·rows,
    // so there are `rows` chunks of `cols`, and each chunk's loop writes
    // index i for every i < cols (`xs.len() == cols`).
    unsafe {
        positions.set_len(n);
        normals.set_len(n);
        uvs.set_len(n);
    }
}

/// Empties `buffer` with room for `len` values, reusing its memory when
/// it has room and taking fresh huge-page memory otherwise.
fn refill_from_empty<T>(buffer: &mut Vec<T>, len: usize) {
    if buffer.capacity() >= len {
        buffer.clear();
    } else {
        *buffer = huge_capacity(len);
    }
}

/// Triangle indices of a `cols x rows` vertex grid, counter-clockwise seen
/// from above (+y). Depends only on the size, so callers may cache it.
pub fn grid_indices(cols: usize, rows: usize) -> Vec<u32> {
    if cols < 2 || rows < 2 {
        return Vec::new();
    }
    let len = (cols - 1) * (rows - 1) * 6;
    let mut indices: Vec<u32> = huge_capacity(len);
    indices.spare_capacity_mut()[..len]
        .par_chunks_mut((cols - 1) * 6)
        .enumerate()
        .for_each(|(j, out)| {
            for (i, quad) in out.chunks_exact_mut(6).enumerate() {
                let a = (j * cols + i) as u32;
                let b = a + 1;
                let c = a + cols as u32;
                let d = c + 1;
                for (slot, index) in quad.iter_mut().zip([a, c, b, b, c, d]) {
                    slot.write(index);
                }
            }
        });
    // SAFETY: `len` is (rows − 1) chunks of (cols − 1) quads of 6, and
    // every quad writes all 6 of its slots.
    unsafe { indices.set_len(len) };
    indices
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_map_has_up_normals_and_right_counts() {
        let map = Heightmap::filled(5, 4, 3.0);
        let mesh = build_mesh(&map, 2.0, 1.0, 1025);
        assert_eq!(mesh.positions.len(), 20);
        assert_eq!(mesh.indices.len(), 4 * 3 * 6);
        assert!(mesh.normals.iter().all(|n| (n[1] - 1.0).abs() < 1e-6));
        assert_eq!(mesh.positions[0], [-4.0, 3.0, -3.0]);
        assert_eq!(mesh.positions[19], [4.0, 3.0, 3.0]);
    }

    #[test]
    fn triangles_face_up() {
        let map = Heightmap::new(3, 3);
        let m = build_mesh(&map, 1.0, 1.0, 100);
        for t in m.indices.chunks(3) {
            let p: Vec<[f32; 3]> = t.iter().map(|&i| m.positions[i as usize]).collect();
            let u = [p[1][0] - p[0][0], p[1][2] - p[0][2]];
            let v = [p[2][0] - p[0][0], p[2][2] - p[0][2]];
            // y of (p1-p0) x (p2-p0) = uz*vx - ux*vz must be positive.
            assert!(u[1] * v[0] - u[0] * v[1] > 0.0);
        }
    }

    #[test]
    fn rebuilding_in_place_equals_a_fresh_build() {
        let mut map = Heightmap::new(9, 7);
        map.set(3, 3, 5.0);
        let mut mesh = build_mesh(&Heightmap::new(4, 4), 1.0, 1.0, 100);
        build_mesh_into(&mut mesh, &map, 2.0, 1.5, 100);
        assert_eq!(mesh, build_mesh(&map, 2.0, 1.5, 100));
        map.set(3, 3, -5.0);
        build_mesh_into(&mut mesh, &map, 2.0, 1.5, 100);
        assert_eq!(mesh, build_mesh(&map, 2.0, 1.5, 100));
    }

    #[test]
    fn decimation_keeps_ends() {
        let axis = decimated_axis(4097, 1025);
        assert_eq!(axis.len(), 1025);
        assert_eq!(*axis.last().unwrap(), 4096);
        let axis = decimated_axis(1000, 400);
        assert!(axis.len() <= 400);
        assert_eq!(*axis.last().unwrap(), 999);
    }
}
