//! Depressions routed out through their lowest pass: the basin graph of
//! Cordonnier, Bovy & Braun (2019), resolved by carving.
//!
//! Why this and not a priority flood over every cell: after steepest
//! descent almost every cell of an eroding landscape already drains, and
//! only the few closed basins need work. The basin graph costs one O(n)
//! scan for the passes between basins plus a minimum spanning tree over a
//! graph as small as the number of pits, where a priority flood pushes
//! every cell through a heap (O(n log n)). And nothing is ε-filled: in
//! f32 an ε-fill climbs by one ulp (≈ 15 µm near 160 m) per cell across a
//! flat, visibly over a long one. Carving changes receivers only, never
//! heights.
//!
//! Each closed basin (a pit and every cell draining to it) is a node; all
//! outlets together are node 0. Neighbouring cells in different basins
//! give an edge whose weight is the pass height, the higher of the two.
//! Edges are totally ordered by (height, lower cell, higher cell), so the
//! minimum spanning tree (Kruskal) is unique. Rooted at node 0, the tree
//! gives each basin the edge it spills through; the receivers on the path
//! from the basin's pass cell down to its pit are reversed, and the pass
//! cell hands its water across the pass.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// A link between two basins across neighbouring cells `low_cell` <
/// `high_cell` (by index), at the pass height `level`.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    /// The higher of the two cells' heights.
    pub level: f32,
    /// The lower-index cell.
    pub low_cell: u32,
    /// The higher-index cell.
    pub high_cell: u32,
}

impl Pass {
    /// The pass as one integer that sorts like (level, low cell, high
    /// cell): sorting plain integers is about twice as fast as comparing
    /// the fields, and the order is the same.
    fn sort_key(&self) -> u128 {
        let bits = self.level.to_bits();
        // Finite floats ordered as unsigned integers (as `total_cmp` does).
        let level = if bits >> 31 == 1 {
            !bits
        } else {
            bits | 0x8000_0000
        };
        ((level as u128) << 64) | ((self.low_cell as u128) << 32) | self.high_cell as u128
    }

    /// The same order in 64 bits, for maps under 2³⁰ cells `width` wide:
    /// the level, the low cell in 30 bits and which of the four later
    /// neighbours the high cell is (they follow in index order, so the
    /// two bits sort like the high cell).
    fn short_key(&self, width: usize) -> u64 {
        let bits = self.level.to_bits();
        let level = if bits >> 31 == 1 {
            !bits
        } else {
            bits | 0x8000_0000
        };
        let d = (self.high_cell - self.low_cell) as usize;
        let neighbour = if d == 1 {
            0
        } else if d + 1 == width {
            1
        } else if d == width {
            2
        } else {
            3
        };
        ((level as u64) << 32) | ((self.low_cell as u64) << 2) | neighbour
    }
}

/// Basin id of every cell of `receivers`: 0 for cells draining to an
/// outlet, 1.. for each closed basin, numbered by its pit's index.
///
/// Why not a drainage order and each cell's root from it: labelling roots
/// first, then walking each unlabelled cell down to the first labelled
/// one (in index order that is mostly the neighbour just labelled) costs
/// one short walk per cell instead of a full order and a scattered pass.
/// The walks run in parallel over bands of rows: two threads may walk
/// the same path and both write its cells, but always the same id (a
/// cell's basin is its root's), so the ids do not depend on the threads.
pub fn basin_ids(
    receivers: &[u32],
    is_outlet: &(dyn Fn(usize) -> bool + Sync),
) -> (Vec<u32>, usize) {
    const UNSET: u32 = u32::MAX;
    /// Start cells a task walks from: long enough to amortise a task.
    const BAND: usize = 1 << 14;
    let mut count = 0u32;
    let basins: Vec<AtomicU32> = receivers
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            AtomicU32::new(if r as usize != i {
                UNSET
            } else if is_outlet(i) {
                0
            } else {
                count += 1;
                count
            })
        })
        .collect();
    (0..receivers.len())
        .into_par_iter()
        .step_by(BAND)
        .for_each_init(Vec::new, |path, first| {
            for start in first..(first + BAND).min(receivers.len()) {
                let mut c = start;
                let mut basin = basins[c].load(Ordering::Relaxed);
                while basin == UNSET {
                    path.push(c);
                    c = receivers[c] as usize;
                    basin = basins[c].load(Ordering::Relaxed);
                }
                for &p in path.iter() {
                    basins[p].store(basin, Ordering::Relaxed);
                }
                path.clear();
            }
        });
    let basins = basins.into_iter().map(AtomicU32::into_inner).collect();
    (basins, count as usize)
}

/// Every pair of neighbouring cells in different basins (not both
/// draining to outlets), each pair once, in index order of its first cell.
pub fn basin_passes(heights: &[f32], width: usize, basins: &[u32]) -> Vec<Pass> {
    let height = heights.len() / width;
    // Each pair once: the neighbours after a cell in index order.
    const LATER: [(isize, isize); 4] = [(1, 0), (-1, 1), (0, 1), (1, 1)];
    (0..height)
        .into_par_iter()
        .flat_map_iter(|y| {
            let mut found = Vec::new();
            // A pass needs a closed basin's cell in this row or the next:
            // most rows of an eroding map drain whole to the outlets.
            let closed = |row: usize| {
                row < height
                    && basins[row * width..(row + 1) * width]
                        .iter()
                        .any(|&b| b != 0)
            };
            if !closed(y) && !closed(y + 1) {
                return found;
            }
            for x in 0..width {
                let i = y * width + x;
                let a = basins[i];
                for &(dx, dy) in &LATER {
                    let (nx, ny) = (x as isize + dx, y as isize + dy);
                    if nx < 0 || nx >= width as isize || ny >= height as isize {
                        continue;
                    }
                    let j = ny as usize * width + nx as usize;
                    let b = basins[j];
                    if a != b {
                        found.push(Pass {
                            // + 0.0 turns −0.0 into +0.0: which zero `max`
                            // returns is unspecified, and the order of
                            // passes must not depend on it.
                            level: heights[i].max(heights[j]) + 0.0,
                            low_cell: i as u32,
                            high_cell: j as u32,
                        });
                    }
                }
            }
            found
        })
        .collect()
}

/// The key of the lowest pass between each pair of neighbouring basins
/// (not both draining to outlets), in no particular order: the same as
/// [`basin_passes`] followed by the lowest per pair, in one scan that
/// keeps only each pair's lowest. `key` takes the pass level, the
/// lower-index cell and the higher one.
///
/// Why: an uneroded map has a closed basin in almost every cell's
/// neighbourhood (691,075 passes between 12,917 basins at 1025²); listing
/// every pass and then reading its basins again cost more than the
/// spanning tree itself. Bands of rows keep their own lowest per pair,
/// merged by taking the lower: the result does not depend on the threads.
pub fn lowest_passes<K: Copy + Ord + Send>(
    heights: &[f32],
    width: usize,
    basins: &[u32],
    key: impl Fn(f32, u32, u32) -> K + Sync,
) -> Vec<K> {
    type PairMap<K> = rustc_hash::FxHashMap<u64, K>;
    fn keep_lower<K: Copy + Ord>(map: &mut PairMap<K>, pair: u64, k: K) {
        map.entry(pair)
            .and_modify(|lowest| *lowest = (*lowest).min(k))
            .or_insert(k);
    }
    const BAND_ROWS: usize = 64;
    let height = heights.len() / width;
    let closed = |row: usize| {
        row < height
            && basins[row * width..(row + 1) * width]
                .iter()
                .any(|&b| b != 0)
    };
    let merged = (0..height.div_ceil(BAND_ROWS))
        .into_par_iter()
        .map(|band| {
            let mut lowest = PairMap::default();
            for y in band * BAND_ROWS..((band + 1) * BAND_ROWS).min(height) {
                // A pass needs a closed basin's cell in this row or the next.
                if !closed(y) && !closed(y + 1) {
                    continue;
                }
                let row = y * width;
                let below = (y + 1 < height).then_some(row + width);
                for x in 0..width {
                    let i = row + x;
                    let a = basins[i];
                    let mut pass = |j: usize| {
                        let b = basins[j];
                        if a != b {
                            let pair = ((a.min(b) as u64) << 32) | a.max(b) as u64;
                            // + 0.0 turns −0.0 into +0.0 (see `basin_passes`).
                            let level = heights[i].max(heights[j]) + 0.0;
                            keep_lower(&mut lowest, pair, key(level, i as u32, j as u32));
                        }
                    };
                    // The neighbours after a cell in index order, in order.
                    if x + 1 < width {
                        pass(i + 1);
                    }
                    if let Some(below) = below {
                        if x > 0 {
                            pass(below + x - 1);
                        }
                        pass(below + x);
                        if x + 1 < width {
                            pass(below + x + 1);
                        }
                    }
                }
            }
            lowest
        })
        .reduce(PairMap::default, |a, b| {
            // The smaller map into the larger.
            let (mut a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
            for (pair, k) in b {
                keep_lower(&mut a, pair, k);
            }
            a
        });
    merged.into_values().collect()
}

/// For each basin 1..=count, the pass it spills through: (cell inside the
/// basin, cell across the pass), from the minimum spanning tree of the
/// basin graph rooted at the outlets, over the passes of `heights`
/// between the basins `basins` (of [`basin_ids`]).
pub fn spill_passes_of(
    heights: &[f32],
    width: usize,
    basins: &[u32],
    count: usize,
) -> Vec<(u32, u32)> {
    let ordered: Vec<(u32, u32)> = if basins.len() < 1 << 30 {
        let mut keys = lowest_passes(heights, width, basins, |level, low, high| {
            Pass {
                level,
                low_cell: low,
                high_cell: high,
            }
            .short_key(width)
        });
        keys.sort_unstable();
        let step = [1, width as u32 - 1, width as u32, width as u32 + 1];
        keys.into_iter()
            .map(|k| {
                let low = ((k >> 2) & 0x3fff_ffff) as u32;
                (low, low + step[(k & 3) as usize])
            })
            .collect()
    } else {
        let mut keys = lowest_passes(heights, width, basins, |level, low, high| {
            Pass {
                level,
                low_cell: low,
                high_cell: high,
            }
            .sort_key()
        });
        keys.sort_unstable();
        keys.into_iter()
            .map(|k| ((k >> 32) as u32, k as u32))
            .collect()
    };
    spanning_tree_spills(basins, count, ordered)
}

/// Kruskal over `ordered` (the two cells of each pass, lowest first),
/// rooted at the outlets' node 0: each basin's spill pass.
fn spanning_tree_spills(basins: &[u32], count: usize, ordered: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut parent: Vec<u32> = (0..=count as u32).collect();
    fn find(parent: &mut [u32], mut a: u32) -> u32 {
        while parent[a as usize] != a {
            let up = parent[parent[a as usize] as usize];
            parent[a as usize] = up;
            a = up;
        }
        a
    }
    // The tree's edges per basin, as (other basin, cell here, cell there).
    let mut adjacent: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new(); count + 1];
    let mut joined = 0;
    for (low_cell, high_cell) in ordered {
        let (a, b) = (basins[low_cell as usize], basins[high_cell as usize]);
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra == rb {
            continue;
        }
        parent[ra as usize] = rb;
        adjacent[a as usize].push((b, low_cell, high_cell));
        adjacent[b as usize].push((a, high_cell, low_cell));
        joined += 1;
        if joined == count {
            break;
        }
    }
    // Rooted at the outlets: each basin spills towards the root.
    let mut spill = vec![(u32::MAX, u32::MAX); count + 1];
    let mut seen = vec![false; count + 1];
    seen[0] = true;
    let mut queue = std::collections::VecDeque::from([0u32]);
    while let Some(basin) = queue.pop_front() {
        for &(next, here, there) in &adjacent[basin as usize] {
            if !seen[next as usize] {
                seen[next as usize] = true;
                // `there` is in `next`, `here` in `basin`.
                spill[next as usize] = (there, here);
                queue.push_back(next);
            }
        }
    }
    spill
}

/// Reroutes every closed basin of `receivers` out through its lowest
/// pass, in place: the receivers from the basin's pass cell down to its
/// pit are reversed, and the pass cell drains across the pass.
pub fn route_out_of_depressions(
    heights: &[f32],
    width: usize,
    receivers: &mut [u32],
    is_outlet: &(dyn Fn(usize) -> bool + Sync),
) {
    let (basins, count) = basin_ids(receivers, is_outlet);
    let spill = spill_passes_of(heights, width, &basins, count);
    for &(inside, across) in spill.iter().skip(1) {
        // Every basin joins the tree: the grid is connected and some cell
        // is an outlet (checked by the caller's parameters).
        if inside == u32::MAX {
            continue;
        }
        carve(receivers, inside, across);
    }
}

/// Reverses the receivers on the path from `start` down to its root and
/// points `start` at `across`.
pub fn carve(receivers: &mut [u32], start: u32, across: u32) {
    let mut previous = across;
    let mut current = start;
    loop {
        let next = receivers[current as usize];
        receivers[current as usize] = previous;
        if next == current {
            break;
        }
        previous = current;
        current = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{range_f32, stage_rng};

    /// The fused scan keeps, for each pair of basins, the lowest of the
    /// passes the plain listing finds between them: random heights,
    /// random basin labels in patches, on a few shapes of map.
    #[test]
    fn lowest_passes_are_the_lowest_of_all_passes_per_pair() {
        let mut rng = stage_rng(11, 3);
        for (width, height) in [(1, 1), (7, 1), (1, 9), (13, 11), (70, 150)] {
            let n = width * height;
            let heights: Vec<f32> = (0..n).map(|_| range_f32(&mut rng, -1.0, 1.0)).collect();
            // Basins in 3x3 patches, a third of them the outlets' 0.
            let basins: Vec<u32> = (0..n)
                .map(|i| {
                    let (x, y) = (i % width / 3, i / width / 3);
                    let id = (x * 7 + y * 13) % 9;
                    if id % 3 == 0 { 0 } else { id as u32 }
                })
                .collect();
            let key = |level: f32, low: u32, high: u32| {
                Pass {
                    level,
                    low_cell: low,
                    high_cell: high,
                }
                .sort_key()
            };
            let mut expected = std::collections::BTreeMap::new();
            for pass in basin_passes(&heights, width, &basins) {
                let (a, b) = (
                    basins[pass.low_cell as usize],
                    basins[pass.high_cell as usize],
                );
                let k = pass.sort_key();
                let lowest = expected.entry((a.min(b), a.max(b))).or_insert(k);
                *lowest = (*lowest).min(k);
            }
            let mut expected: Vec<u128> = expected.into_values().collect();
            expected.sort_unstable();
            let mut found = lowest_passes(&heights, width, &basins, key);
            found.sort_unstable();
            assert_eq!(found, expected, "{width}x{height}");
        }
    }
}
