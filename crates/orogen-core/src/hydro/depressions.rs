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

use super::drainage_order::donor_counts;
use crate::hugepages::{huge_capacity, lazily_zeroed};
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
        let level = ordered_bits(self.level);
        ((level as u128) << 64) | ((self.low_cell as u128) << 32) | self.high_cell as u128
    }
}

/// Basin id of every cell of `receivers`: 0 for cells draining to an
/// outlet, 1.. for each closed basin, numbered by its pit's index.
///
/// Why not a drainage order and each cell's root from it: labelling roots
/// first, then walking each unlabelled cell down to the first labelled
/// one (in index order that is mostly the neighbour just labelled) costs
/// one short walk per cell instead of a full order and a scattered pass.
/// Only cells that receive water start a walk: the others (about two
/// thirds of an eroding map's cells, the sources) lie on no other cell's
/// path, and each takes its receiver's id in a last pass without
/// branches (the minimum of its own unset id and its receiver's: for
/// every other cell the two are equal). A walk from every cell cost a
/// mispredicted branch per source. The walks run in parallel over bands
/// of rows: two threads may walk the same path and both write its cells,
/// but always the same id (a cell's basin is its root's), so the ids do
/// not depend on the threads.
pub fn basin_ids(
    receivers: &[u32],
    is_outlet: &(dyn Fn(usize) -> bool + Sync),
) -> (Vec<u32>, usize) {
    basin_ids_counted(receivers, &donor_counts(receivers), is_outlet)
}

/// [`basin_ids`] given the [`donor_counts`] of `receivers`.
pub fn basin_ids_counted(
    receivers: &[u32],
    donors: &[u8],
    is_outlet: &(dyn Fn(usize) -> bool + Sync),
) -> (Vec<u32>, usize) {
    const UNSET: u32 = u32::MAX;
    /// Cells a task works on: long enough to amortise a task.
    const BAND: usize = 1 << 14;
    let n = receivers.len();
    assert_eq!(donors.len(), n, "one donor count per cell");
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
    if count == 0 {
        // No closed basin: every cell drains to an outlet.
        return (lazily_zeroed(n), 0);
    }
    (0..n).into_par_iter().step_by(BAND).for_each_init(
        || (Vec::new(), vec![0u32; BAND + 1]),
        |(path, starts), first| {
            let last = (first + BAND).min(n);
            // The band's cells that receive, listed without branches.
            let mut listed = 0;
            for (c, &d) in (first..last).zip(&donors[first..last]) {
                starts[listed] = c as u32;
                listed += (d != 0) as usize;
            }
            // The path is a local buffer with its length in a register: as
            // a `Vec` behind the closure's state, its length went through
            // memory at every step of every walk.
            let mut buffer: Vec<u32> = std::mem::take(path);
            for &start in &starts[..listed] {
                // Most walks end within two cells. Those take the first
                // id set of the next two cells' without a branch; writing
                // it to the start and the next cell is right whether or
                // not they had it (a cell that is no root has its
                // receiver's id), and it spares the branches on whether
                // the start has its id already and where a walk ends,
                // which no predictor learns.
                let next = receivers[start as usize] as usize;
                let after = receivers[next] as usize;
                let (id_next, id_after) = (
                    basins[next].load(Ordering::Relaxed),
                    basins[after].load(Ordering::Relaxed),
                );
                if (id_next != UNSET) | (id_after != UNSET) {
                    let id = std::hint::select_unpredictable(id_next == UNSET, id_after, id_next);
                    basins[start as usize].store(id, Ordering::Relaxed);
                    basins[next].store(id, Ordering::Relaxed);
                    continue;
                }
                let mut c = start as usize;
                let mut basin = basins[c].load(Ordering::Relaxed);
                let mut length = 0;
                while basin == UNSET {
                    if length == buffer.len() {
                        buffer.resize(2 * length + 64, 0);
                    }
                    buffer[length] = c as u32;
                    length += 1;
                    c = receivers[c] as usize;
                    basin = basins[c].load(Ordering::Relaxed);
                }
                for &p in &buffer[..length] {
                    basins[p as usize].store(basin, Ordering::Relaxed);
                }
            }
            *path = buffer;
        },
    );
    // The sources take their receivers' ids (every cell that receives
    // has its id now); the other cells keep theirs.
    basins
        .par_chunks(BAND)
        .zip(receivers.par_chunks(BAND))
        .for_each(|(ids, to)| {
            for (id, &r) in ids.iter().zip(to) {
                let own = id.load(Ordering::Relaxed);
                let theirs = basins[r as usize].load(Ordering::Relaxed);
                id.store(own.min(theirs), Ordering::Relaxed);
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

/// Rows of the bands the pass scans run in parallel.
const BAND_ROWS: usize = 64;

/// Calls `visit(i, j, neighbour, x)` for each pass of band `band` (rows
/// `band × BAND_ROWS` on): each cell `i` and each of its later neighbours
/// `j` in another basin, in index order of (i, j); `neighbour` says which
/// later neighbour `j` is (0 east, 1 south-west, 2 south, 3 south-east:
/// index order). Rows where neither the row nor the next holds a closed
/// basin's cell have no pass and are skipped.
fn for_each_pass(
    width: usize,
    basins: &[u32],
    band: usize,
    mut visit: impl FnMut(usize, usize, u64, usize),
) {
    let height = basins.len() / width;
    for y in band * BAND_ROWS..((band + 1) * BAND_ROWS).min(height) {
        if !holds_closed_basin(basins, width, y) && !holds_closed_basin(basins, width, y + 1) {
            continue;
        }
        let row = y * width;
        let below = (y + 1 < height).then_some(row + width);
        let mut x = 0;
        while x < width {
            // A run of cells whose later neighbours all share their basin
            // is passed over whole, tested without a branch per cell (the
            // compiler makes vector compares of the test): most cells of a
            // row that holds a closed basin lie inside one.
            if let Some(below) = below
                && x > 0
                && x + RUN < width
                && !differs_from_later(basins, row + x, below + x)
            {
                x += RUN;
                continue;
            }
            // The first column alone, then a run at a time.
            let end = if x > 0 { (x + RUN).min(width) } else { 1 };
            for x in x..end {
                let i = row + x;
                let a = basins[i];
                // Written out, not as a closure per neighbour: the compiler
                // stopped inlining one, a call per neighbour of every cell.
                if x + 1 < width && a != basins[i + 1] {
                    visit(i, i + 1, 0, x);
                }
                if let Some(below) = below {
                    let j = below + x;
                    if x > 0 && a != basins[j - 1] {
                        visit(i, j - 1, 1, x);
                    }
                    if a != basins[j] {
                        visit(i, j, 2, x);
                    }
                    if x + 1 < width && a != basins[j + 1] {
                        visit(i, j + 1, 3, x);
                    }
                }
            }
            x = end;
        }
    }
}

/// Cells the pass scan tests at once.
const RUN: usize = 16;

/// Whether any of the `RUN` cells from `i` on has a later neighbour (east,
/// south-west, south, south-east) in another basin; `j` is the cell below
/// `i`. None of them may lie in the first or last column.
#[inline]
fn differs_from_later(basins: &[u32], i: usize, j: usize) -> bool {
    let run = |from: usize| -> &[u32; RUN] {
        basins[from..from + RUN]
            .try_into()
            .expect("a slice of RUN cells")
    };
    let (here, east) = (run(i), run(i + 1));
    let (south_west, south, south_east) = (run(j - 1), run(j), run(j + 1));
    let mut differ = 0u32;
    for k in 0..RUN {
        let a = here[k];
        let apart = (a != east[k]) | (a != south_west[k]) | (a != south[k]) | (a != south_east[k]);
        differ |= apart as u32;
    }
    differ != 0
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
    let merged = (0..heights.len().div_ceil(width * BAND_ROWS))
        .into_par_iter()
        .map(|band| {
            let mut lowest = PairMap::default();
            for_each_pass(width, basins, band, |i, j, _, _| {
                let (a, b) = (basins[i], basins[j]);
                let pair = ((a.min(b) as u64) << 32) | a.max(b) as u64;
                // + 0.0 turns −0.0 into +0.0 (see `basin_passes`).
                let level = heights[i].max(heights[j]) + 0.0;
                keep_lower(&mut lowest, pair, key(level, i as u32, j as u32));
            });
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
    if basins.len() < 1 << 30 {
        let keys = sorted_by_level(passes_by_band(heights, width, basins));
        let step = [1, width as u32 - 1, width as u32, width as u32 + 1];
        let ordered = keys.into_iter().map(|k| {
            let low = ((k >> 2) & 0x3fff_ffff) as u32;
            (low, low + step[(k & 3) as usize])
        });
        spanning_tree_spills(basins, count, ordered)
    } else {
        spills_over_lowest_pairs(heights, width, basins, count)
    }
}

/// [`spill_passes_of`] over the lowest pass per pair of basins, keyed in
/// 128 bits: for maps of 2³⁰ cells and more, whose cells do not fit the
/// 64-bit keys.
fn spills_over_lowest_pairs(
    heights: &[f32],
    width: usize,
    basins: &[u32],
    count: usize,
) -> Vec<(u32, u32)> {
    let mut keys = lowest_passes(heights, width, basins, |level, low, high| {
        Pass {
            level,
            low_cell: low,
            high_cell: high,
        }
        .sort_key()
    });
    keys.sort_unstable();
    let ordered = keys.into_iter().map(|k| ((k >> 32) as u32, k as u32));
    spanning_tree_spills(basins, count, ordered)
}

/// The passes between neighbouring cells of different basins (not both
/// draining to outlets) that can be in the spanning tree, each as one
/// integer that sorts like (level, lower cell, higher cell) on maps under
/// 2³⁰ cells: the level's [`ordered_bits`], the lower cell in 30 bits
/// and which of its four later neighbours the higher cell is (they follow
/// in index order, so the two bits sort like the higher cell). Listed in
/// index order of (lower cell, higher cell): the order Kruskal breaks
/// ties of level in. A pass is left out only where Kruskal would skip
/// it, its two basins being joined by passes that come before it:
///
/// - a pass of the same pair listed before it is as low;
/// - a third cell next to both of its cells, at a lower index than
///   either and no higher than the pass, joins them: the passes from it
///   to each (or the basin it shares with one) are as low and sort first
///   (lower cell). That cell is the west neighbour for a pass to the
///   south or south-west, the north neighbour for a pass to the east; a
///   pass to the south-east has none. On a flat floor of one-cell pits
///   this leaves one pass in four;
/// - for a pass downhill from its lower-index cell i to the south or
///   south-east, a later neighbour of both lower than i (east of i, or
///   west of the other cell): the pass from i to it is as low and comes
///   first (same cell, earlier neighbour), and the pass from it onwards
///   is lower.
///
/// Why not only the lowest pass per pair of basins: Kruskal skips a pass
/// between basins already joined, so the higher passes of a pair change
/// nothing, and listing them costs less than finding the lowest per pair
/// in a hash map. A flat floor makes that plain: each of its cells is a
/// pit of its own, almost every pass joins a new pair (465,228 pairs
/// among 119,221 basins in the bench's 1025² map), and the hash map took
/// 24 ms of the 42 the passes and their tree cost.
///
/// Inside the map, the basins and the height rules are tested for runs of
/// 16 cells at once without branches ([`run_passes`]), and only the
/// passes left are looked at one by one: the rules' branches did not
/// predict, and the listing took 5.5 ms at 1025² and 20 ms at 2049²
/// (3.5 and 12.4 ms now, on the bench's fifth step).
pub fn passes_in_index_order(heights: &[f32], width: usize, basins: &[u32]) -> Vec<u64> {
    passes_by_band(heights, width, basins).concat()
}

/// [`passes_in_index_order`], each band of rows' passes in a list of its
/// own (the lists one after the other are the passes in index order):
/// the sort reads them where they are, without a copy into one list
/// first (1–2 ms at 2049²).
fn passes_by_band(heights: &[f32], width: usize, basins: &[u32]) -> Vec<Vec<u64>> {
    let height = heights.len() / width;
    let step = [1, width - 1, width, width + 1];
    let bands: Vec<Vec<u64>> = (0..heights.len().div_ceil(width * BAND_ROWS))
        .into_par_iter()
        .map(|band| {
            let mut lister = PassLister::new(heights, basins);
            for y in band * BAND_ROWS..((band + 1) * BAND_ROWS).min(height) {
                if !holds_closed_basin(basins, width, y)
                    && !holds_closed_basin(basins, width, y + 1)
                {
                    continue;
                }
                let row = y * width;
                let below = (y + 1 < height).then_some(row + width);
                let mut x = 0;
                while x < width {
                    if below.is_some() && x > 0 && x + RUN < width {
                        // Inside the map: every rule's cells exist, and
                        // the run's passes are found by vector compares.
                        let mut passes = run_passes(heights, basins, width, row + x, y > 0);
                        while passes != 0 {
                            let bit = passes.trailing_zeros() as usize;
                            passes &= passes - 1;
                            let i = row + x + bit / 4;
                            lister.keep(i, i + step[bit % 4], (bit % 4) as u64);
                        }
                        x += RUN;
                        continue;
                    }
                    // The first column alone, then up to a run at a time.
                    let end = if x > 0 { (x + RUN).min(width) } else { 1 };
                    for x in x..end {
                        let i = row + x;
                        for (neighbour, &offset) in step.iter().enumerate() {
                            let exists = match neighbour {
                                0 => x + 1 < width,
                                1 => below.is_some() && x > 0,
                                2 => below.is_some(),
                                _ => below.is_some() && x + 1 < width,
                            };
                            let j = i + offset;
                            if exists
                                && basins[i] != basins[j]
                                && listable(heights, width, i, j, neighbour, x)
                            {
                                lister.keep(i, j, neighbour as u64);
                            }
                        }
                    }
                    x = end;
                }
            }
            lister.keys
        })
        .collect();
    bands
}

/// Whether row `y` of a map `width` wide holds a cell of a closed basin
/// (false past the last row).
fn holds_closed_basin(basins: &[u32], width: usize, y: usize) -> bool {
    basins
        .get(y * width..(y + 1) * width)
        .is_some_and(|row| row.iter().any(|&b| b != 0))
}

/// Whether the pass from cell `i` (column `x`) to its later neighbour `j`
/// (`neighbour`: 0 east, 1 south-west, 2 south, 3 south-east) is not one
/// of those [`passes_in_index_order`] leaves out by the heights: joined
/// through a third cell, or downhill with a lower neighbour of both.
#[inline]
fn listable(heights: &[f32], width: usize, i: usize, j: usize, neighbour: usize, x: usize) -> bool {
    let (here, there) = (heights[i], heights[j]);
    let top = here.max(there);
    let third = match neighbour {
        0 => i.checked_sub(width),
        // A south-west neighbour implies a west one.
        1 => Some(i - 1),
        2 => (x > 0).then(|| i - 1),
        _ => None,
    };
    if third.is_some_and(|t| heights[t] <= top) {
        // Joined through the third cell by passes before it.
        return false;
    }
    if there < here {
        // Downhill to the south or south-east: a neighbour of both below
        // `here` joins them by a pass from i (same level, earlier
        // neighbour) and one strictly lower.
        let east_lower = x + 1 < width && heights[i + 1] < here;
        let joined = match neighbour {
            2 => east_lower || (x > 0 && heights[i + width - 1] < here),
            3 => east_lower || heights[i + width] < here,
            _ => false,
        };
        return !joined;
    }
    true
}

/// The passes of the `RUN` cells from `i` on (none in the first or last
/// column, a row below them) that [`listable`] keeps and whose cells lie
/// in different basins, as bits: bit 4k + n for cell i + k and its later
/// neighbour n. The same comparisons as [`listable`], made for the whole
/// run without a branch per cell (the compiler makes vector compares of
/// them): most cells of a row that holds a closed basin have no pass, or
/// one the rules leave out.
///
/// The rules are negated as written (`!(a <= b)`, not `a > b`): with a
/// NaN a rule does not hold and the pass stays, as in [`listable`].
#[allow(clippy::neg_cmp_op_on_partial_ord)]
#[inline]
fn run_passes(heights: &[f32], basins: &[u32], width: usize, i: usize, north: bool) -> u64 {
    let ids = |from: usize| -> &[u32; RUN] { basins[from..from + RUN].try_into().expect("a run") };
    let hs = |from: usize| -> &[f32; RUN] { heights[from..from + RUN].try_into().expect("a run") };
    let j = i + width;
    let (a, a_e, a_sw, a_s, a_se) = (ids(i), ids(i + 1), ids(j - 1), ids(j), ids(j + 1));
    let (h, h_e, h_w, h_sw, h_s, h_se) = (hs(i), hs(i + 1), hs(i - 1), hs(j - 1), hs(j), hs(j + 1));
    // Above the first row there is no north cell: its test never holds.
    let h_n = if north {
        hs(i - width)
    } else {
        &[f32::INFINITY; RUN]
    };
    let mut passes = [0u8; RUN];
    for k in 0..RUN {
        let here = h[k];
        let east_lower = h_e[k] < here;
        // `&` and `|`, not `&&` and `||`: no branches, so vector compares.
        let east = (a[k] != a_e[k]) & !(north & (h_n[k] <= here.max(h_e[k])));
        let south_west = (a[k] != a_sw[k]) & !(h_w[k] <= here.max(h_sw[k]));
        let south = (a[k] != a_s[k])
            & !(h_w[k] <= here.max(h_s[k]))
            & !((h_s[k] < here) & (east_lower | (h_sw[k] < here)));
        let south_east = (a[k] != a_se[k]) & !((h_se[k] < here) & (east_lower | (h_s[k] < here)));
        passes[k] =
            east as u8 | (south_west as u8) << 1 | (south as u8) << 2 | (south_east as u8) << 3;
    }
    passes
        .iter()
        .enumerate()
        .fold(0u64, |bits, (k, &p)| bits | (p as u64) << (4 * k))
}

/// The listing of [`passes_in_index_order`] over one band: the passes
/// kept, and the pairs of basins listed lately, by a hash of the pair,
/// with the lowest level listed for each: a pass of the same pair as low
/// or higher can never be in the tree (the one listed comes first), and
/// along a boundary between two basins most passes are such repeats
/// (691,075 passes between 39,427 pairs on an uneroded 1025² map).
struct PassLister<'a> {
    heights: &'a [f32],
    basins: &'a [u32],
    recent: [(u64, u32); 64],
    keys: Vec<u64>,
}

impl<'a> PassLister<'a> {
    fn new(heights: &'a [f32], basins: &'a [u32]) -> Self {
        PassLister {
            heights,
            basins,
            recent: [(u64::MAX, 0); 64],
            keys: Vec::new(),
        }
    }

    /// Lists the pass from `i` to its later neighbour `j` (`neighbour` of
    /// its four) unless a pass of the same pair, as low, came just before.
    #[inline]
    fn keep(&mut self, i: usize, j: usize, neighbour: u64) {
        /// Fibonacci hashing: the top six bits of pair × SPREAD pick a slot.
        const SPREAD: u64 = 0x9e37_79b9_7f4a_7c15;
        // + 0.0 turns −0.0 into +0.0 (see `basin_passes`).
        let level = ordered_bits(self.heights[i].max(self.heights[j]) + 0.0);
        let pair = ((self.basins[i] as u64) << 32) | self.basins[j] as u64;
        let slot = &mut self.recent[(pair.wrapping_mul(SPREAD) >> 58) as usize];
        if slot.0 == pair && slot.1 <= level {
            // Listed before, as low or lower, at a lower index.
            return;
        }
        *slot = (pair, level);
        self.keys
            .push(((level as u64) << 32) | ((i as u64) << 2) | neighbour);
    }
}

/// A finite float's bits as an unsigned integer that orders like the
/// float (as `total_cmp` does).
#[inline]
fn ordered_bits(level: f32) -> u32 {
    let bits = level.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// Sorts `keys` by their upper 32 bits (the level), keeping the order of
/// equal levels: listed in index order, they end up in the full key's
/// order. An LSD radix sort in three passes of 11 bits, a pass skipped
/// where every key has the same digit.
///
/// Why not `sort_unstable` on the whole key: the same order, but 2–3×
/// slower on the half million passes of a flat-floored 1025² map.
pub fn sort_by_level(keys: &mut Vec<u64>) {
    *keys = sorted_by_level(vec![std::mem::take(keys)]);
}

/// The keys of `lists`, one list after the other, sorted as
/// [`sort_by_level`] sorts them: the first pass reads the lists.
fn sorted_by_level(lists: Vec<Vec<u64>>) -> Vec<u64> {
    const BITS: u32 = 11;
    const BUCKETS: usize = 1 << BITS;
    const PASSES: usize = 3;
    let len: usize = lists.iter().map(Vec::len).sum();
    let mut counts = vec![[0usize; BUCKETS]; PASSES];
    for &k in lists.iter().flatten() {
        let level = k >> 32;
        for (pass, count) in counts.iter_mut().enumerate() {
            count[((level >> (BITS * pass as u32)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    // Taken uninitialised: each pass writes every slot before any is read
    // (zeroing it first cost as much as a pass).
    let mut scratch: Vec<u64> = huge_capacity(len);
    let mut keys: Vec<u64> = Vec::new();
    let mut lists = Some(lists);
    for (pass, count) in counts.iter().enumerate() {
        if count.contains(&len) {
            continue;
        }
        let mut next = [0usize; BUCKETS];
        let mut total = 0;
        for (slot, &c) in next.iter_mut().zip(count) {
            *slot = total;
            total += c;
        }
        let shift = 32 + BITS * pass as u32;
        scratch.clear();
        let slots = &mut scratch.spare_capacity_mut()[..len];
        let mut scatter = |k: u64| {
            let digit = ((k >> shift) as usize) & (BUCKETS - 1);
            slots[next[digit]].write(k);
            next[digit] += 1;
        };
        // The first pass made reads the lists, the others the last pass's
        // keys.
        match lists.take() {
            Some(lists) => lists.iter().flatten().for_each(|&k| scatter(k)),
            None => keys.iter().for_each(|&k| scatter(k)),
        }
        // SAFETY: the digits' slots tile 0..len (their counts sum to the
        // keys' number), so every slot was written once.
        unsafe { scratch.set_len(len) };
        if keys.capacity() < len {
            // The first pass made: the other buffer, for the next.
            keys = huge_capacity(len);
        }
        std::mem::swap(&mut keys, &mut scratch);
    }
    // Every level the same in all three digits: the lists as they are.
    lists.map_or(keys, |lists| lists.concat())
}

/// Kruskal over `ordered` (the two cells of each pass, lowest first),
/// rooted at the outlets' node 0: each basin's spill pass.
///
/// The tree is kept rooted as it grows: each piece is a tree of basins
/// pointing towards its root, and a pass that joins two pieces re-roots
/// the smaller at its end of the pass (reversing the path from there to
/// its root) and points that end across the pass. At the end the whole
/// tree is re-rooted at the outlets. Why not the tree's edges listed,
/// packed per basin and walked breadth first from the outlets: at 2049²
/// (437,000 basins) that took 12–14 ms, two scattered writes and reads
/// per edge; the paths reversed here are short, most pieces being a few
/// basins.
fn spanning_tree_spills(
    basins: &[u32],
    count: usize,
    ordered: impl Iterator<Item = (u32, u32)>,
) -> Vec<(u32, u32)> {
    const NONE: (u32, u32) = (u32::MAX, u32::MAX);
    let mut parent: Vec<u32> = (0..=count as u32).collect();
    let mut size = vec![1u32; count + 1];
    fn find(parent: &mut [u32], mut a: u32) -> u32 {
        while parent[a as usize] != a {
            let up = parent[parent[a as usize] as usize];
            parent[a as usize] = up;
            a = up;
        }
        a
    }
    // The rooted pieces: each basin's next basin towards its piece's root
    // (itself for a root) and the pass it drains through, (cell in the
    // basin, cell in the next); NONE for a root.
    let mut down: Vec<u32> = (0..=count as u32).collect();
    let mut spill = vec![NONE; count + 1];
    // Makes `basin` the root of its piece.
    fn reroot(down: &mut [u32], spill: &mut [(u32, u32)], basin: u32) {
        let (mut at, mut towards, mut through) = (basin, basin, NONE);
        loop {
            let (next, pass) = (down[at as usize], spill[at as usize]);
            down[at as usize] = towards;
            spill[at as usize] = through;
            if next == at {
                break;
            }
            (towards, through) = (at, (pass.1, pass.0));
            at = next;
        }
    }
    let mut joined = 0;
    // The passes in chunks, each pass's two basins looked up for the whole
    // chunk before the finds: sorted by level, the passes' cells lie all
    // over the map, and these lookups, independent of each other, then
    // wait on memory together instead of one after the other.
    const CHUNK: usize = 64;
    let mut chunk = [(0u32, 0u32, 0u32, 0u32); CHUNK];
    let mut ordered = ordered.fuse();
    'passes: while joined < count {
        let mut taken = 0;
        for (slot, (low_cell, high_cell)) in chunk.iter_mut().zip(ordered.by_ref()) {
            *slot = (low_cell, high_cell, 0, 0);
            taken += 1;
        }
        if taken == 0 {
            break;
        }
        for (low_cell, high_cell, a, b) in &mut chunk[..taken] {
            (*a, *b) = (basins[*low_cell as usize], basins[*high_cell as usize]);
        }
        for &(low_cell, high_cell, a, b) in &chunk[..taken] {
            if joined == count {
                break 'passes;
            }
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra == rb {
                continue;
            }
            // The smaller piece under the larger keeps the finds short,
            // and it is the one re-rooted: the paths reversed stay short.
            let (small, large, inside, across, cells) = if size[ra as usize] < size[rb as usize] {
                (ra, rb, a, b, (low_cell, high_cell))
            } else {
                (rb, ra, b, a, (high_cell, low_cell))
            };
            parent[small as usize] = large;
            size[large as usize] += size[small as usize];
            reroot(&mut down, &mut spill, inside);
            down[inside as usize] = across;
            spill[inside as usize] = cells;
            joined += 1;
        }
    }
    reroot(&mut down, &mut spill, 0);
    if joined < count {
        // Pieces the outlets never joined (a grid without a way out) keep
        // no spill, as nothing reaches them from the outlets.
        let outlets = find(&mut parent, 0);
        for basin in 1..=count as u32 {
            if find(&mut parent, basin) != outlets {
                spill[basin as usize] = NONE;
            }
        }
    }
    spill
}

/// Reroutes every closed basin of `receivers` out through its lowest
/// pass, in place: the receivers from the basin's pass cell down to its
/// pit are reversed, and the pass cell drains across the pass. `donors`
/// (the [`donor_counts`] of `receivers`) are kept up to date. Returns how
/// many closed basins there were.
pub fn route_out_of_depressions(
    heights: &[f32],
    width: usize,
    receivers: &mut [u32],
    donors: &mut [u8],
    is_outlet: &(dyn Fn(usize) -> bool + Sync),
) -> usize {
    let (basins, count) = basin_ids_counted(receivers, donors, is_outlet);
    if count == 0 {
        return 0;
    }
    let spill = spill_passes_of(heights, width, &basins, count);
    for &(inside, across) in spill.iter().skip(1) {
        // Every basin joins the tree: the grid is connected and some cell
        // is an outlet (checked by the caller's parameters).
        if inside == u32::MAX {
            continue;
        }
        carve(receivers, donors, inside, across);
    }
    count
}

/// Reverses the receivers on the path from `start` down to its root and
/// points `start` at `across`, keeping the `donors` counts up to date.
pub fn carve(receivers: &mut [u32], donors: &mut [u8], start: u32, across: u32) {
    let mut previous = across;
    let mut current = start;
    loop {
        let next = receivers[current as usize];
        receivers[current as usize] = previous;
        donors[previous as usize] += 1;
        if next == current {
            break;
        }
        donors[next as usize] -= 1;
        previous = current;
        current = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{range_f32, stage_rng};

    /// Random heights in whole `levels` steps (plateaus of flat pits
    /// side by side when there are few), every edge draining, and their
    /// steepest-descent basins and count.
    fn terraced_basins(
        rng: &mut crate::rng::StageRng,
        width: usize,
        height: usize,
        levels: f32,
    ) -> (Vec<f32>, Vec<u32>, usize) {
        use crate::hydro::{FlowGrid, Outlets, receivers::steepest_receivers};
        let heights: Vec<f32> = (0..width * height)
            .map(|_| range_f32(rng, 0.0, levels).floor())
            .collect();
        let grid = FlowGrid::new(&heights, width, &Outlets::ALL_EDGES, Default::default());
        let receivers = steepest_receivers(&heights, &grid);
        let (basins, count) = basin_ids(&receivers, &|i| grid.is_outlet(i));
        (heights, basins, count)
    }

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

    /// The spills found over every pass in 64-bit keys sorted by level
    /// are those found over the lowest pass per pair in 128-bit keys:
    /// random maps with plateaus (flat pits side by side) and rough
    /// ground, basins from steepest descent.
    #[test]
    fn spills_over_every_pass_are_those_over_the_lowest_per_pair() {
        let mut rng = stage_rng(5, 9);
        for (width, height) in [(1, 1), (2, 7), (9, 1), (13, 11), (70, 150), (257, 33)] {
            for levels in [3.0f32, 40.0, 1e6] {
                let (heights, basins, count) = terraced_basins(&mut rng, width, height, levels);
                assert_eq!(
                    spill_passes_of(&heights, width, &basins, count),
                    spills_over_lowest_pairs(&heights, width, &basins, count),
                    "{width}x{height}, {levels} levels"
                );
            }
        }
    }

    /// On a flat floor every cell is a pit of its own and every pair of
    /// neighbours a pass; a pass whose cells a third, earlier cell no
    /// higher joins is left out (about three in four), and the spills are
    /// still those over the lowest pass per pair.
    #[test]
    fn passes_joined_through_a_third_cell_are_left_out() {
        use crate::hydro::{FlowGrid, Outlets, receivers::steepest_receivers};
        let (width, height) = (40usize, 30usize);
        // A flat floor at 0 inside a rim at 5, one low notch in the rim.
        let mut heights: Vec<f32> = (0..width * height)
            .map(|i| {
                let (x, y) = (i % width, i / width);
                if x < 2 || y < 2 || x + 2 >= width || y + 2 >= height {
                    5.0
                } else {
                    0.0
                }
            })
            .collect();
        heights[width + 20] = 1.0;
        let grid = FlowGrid::new(&heights, width, &Outlets::ALL_EDGES, Default::default());
        let receivers = steepest_receivers(&heights, &grid);
        let (basins, count) = basin_ids(&receivers, &|i| grid.is_outlet(i));
        let floor = (width - 4) * (height - 4);
        assert!(count >= floor, "{count} basins for {floor} floor cells");
        let all = basin_passes(&heights, width, &basins).len();
        let listed = passes_in_index_order(&heights, width, &basins).len();
        assert!(4 * listed < 2 * all, "{listed} of {all} passes listed");
        assert_eq!(
            spill_passes_of(&heights, width, &basins, count),
            spills_over_lowest_pairs(&heights, width, &basins, count)
        );
    }

    /// The listing by runs of vector compares is the listing cell by
    /// cell: random maps with plateaus and rough ground, basins from
    /// steepest descent and in random patches.
    #[test]
    fn passes_listed_by_runs_are_those_listed_cell_by_cell() {
        let mut rng = stage_rng(6, 1);
        for (width, height) in [
            (1, 1),
            (2, 7),
            (9, 3),
            (17, 5),
            (18, 9),
            (19, 70),
            (70, 150),
        ] {
            for levels in [2.0f32, 3.0, 40.0, 1e6] {
                let (heights, steepest, _) = terraced_basins(&mut rng, width, height, levels);
                let patches: Vec<u32> = (0..width * height)
                    .map(|i| ((i % width / 2) * 3 + (i / width / 2) * 5) as u32 % 4)
                    .collect();
                for basins in [steepest, patches] {
                    let plainly: Vec<u64> = (0..height.div_ceil(BAND_ROWS))
                        .flat_map(|band| {
                            let mut lister = PassLister::new(&heights, &basins);
                            for_each_pass(width, &basins, band, |i, j, neighbour, x| {
                                if listable(&heights, width, i, j, neighbour as usize, x) {
                                    lister.keep(i, j, neighbour);
                                }
                            });
                            lister.keys
                        })
                        .collect();
                    assert_eq!(
                        passes_in_index_order(&heights, width, &basins),
                        plainly,
                        "{width}x{height}, {levels} levels"
                    );
                }
            }
        }
    }

    /// The tree rooted as it grows is the one rooted afterwards: the
    /// spills of Kruskal's edges walked breadth first from the outlets,
    /// on random maps with plateaus and rough ground, some passes left
    /// out so that some basins stay apart.
    #[test]
    fn spills_rooted_as_the_tree_grows_are_those_rooted_after() {
        let mut rng = stage_rng(4, 7);
        for (width, height) in [(1, 1), (3, 5), (13, 11), (70, 150), (257, 33)] {
            for (levels, keep_every) in [(3.0f32, 1), (40.0, 1), (1e6, 1), (3.0, 3), (1e6, 2)] {
                let (heights, basins, count) = terraced_basins(&mut rng, width, height, levels);
                let mut passes: Vec<(u128, u32, u32)> = basin_passes(&heights, width, &basins)
                    .into_iter()
                    .map(|p| (p.sort_key(), p.low_cell, p.high_cell))
                    .collect();
                passes.sort_unstable();
                let passes: Vec<(u32, u32)> = passes
                    .into_iter()
                    .enumerate()
                    .filter(|(k, _)| k % keep_every == 0)
                    .map(|(_, (_, low, high))| (low, high))
                    .collect();
                // Kruskal plainly, then breadth first from the outlets.
                let mut group: Vec<usize> = (0..=count).collect();
                let mut next_to = vec![Vec::new(); count + 1];
                for &(low, high) in &passes {
                    let (a, b) = (
                        basins[low as usize] as usize,
                        basins[high as usize] as usize,
                    );
                    let (ga, gb) = (group[a], group[b]);
                    if ga != gb {
                        group.iter_mut().filter(|g| **g == gb).for_each(|g| *g = ga);
                        next_to[a].push((b, low, high));
                        next_to[b].push((a, high, low));
                    }
                }
                let mut expected = vec![(u32::MAX, u32::MAX); count + 1];
                let mut reached = vec![false; count + 1];
                reached[0] = true;
                let mut queue = std::collections::VecDeque::from([0usize]);
                while let Some(basin) = queue.pop_front() {
                    for &(next, here, there) in &next_to[basin] {
                        if !reached[next] {
                            reached[next] = true;
                            expected[next] = (there, here);
                            queue.push_back(next);
                        }
                    }
                }
                assert_eq!(
                    spanning_tree_spills(&basins, count, passes.into_iter()),
                    expected,
                    "{width}x{height}, {levels} levels, every {keep_every}th pass"
                );
            }
        }
    }

    /// Each cell's id is its root's: 0 for an outlet, else the root's
    /// rank among the pits in index order. Steepest-descent receivers of
    /// terraced maps (flats of one-cell pits, short walks) and random
    /// forests (long walks, paths that cross the bands), against the
    /// paths followed one by one.
    #[test]
    fn basin_ids_are_those_of_each_cells_root() {
        let mut rng = stage_rng(9, 4);
        let check = |receivers: &[u32], is_outlet: &(dyn Fn(usize) -> bool + Sync)| {
            let n = receivers.len();
            let mut rank = vec![0u32; n];
            let mut pits = 0;
            for i in 0..n {
                if receivers[i] as usize == i && !is_outlet(i) {
                    pits += 1;
                    rank[i] = pits;
                }
            }
            let expected: Vec<u32> = (0..n)
                .map(|mut c| {
                    while receivers[c] as usize != c {
                        c = receivers[c] as usize;
                    }
                    rank[c]
                })
                .collect();
            let (ids, count) = basin_ids(receivers, &|i| is_outlet(i));
            assert_eq!(count, pits as usize);
            assert_eq!(ids, expected);
        };
        for (width, height, levels) in [(1, 1, 2.0), (9, 7, 3.0), (130, 300, 4.0), (257, 129, 1e4)]
        {
            let (heights, _, _) = terraced_basins(&mut rng, width, height, levels);
            let grid = crate::hydro::FlowGrid::new(
                &heights,
                width,
                &crate::hydro::Outlets::ALL_EDGES,
                Default::default(),
            );
            let receivers = crate::hydro::receivers::steepest_receivers(&heights, &grid);
            check(&receivers, &|i| grid.is_outlet(i));
        }
        for n in [1usize, 2, 1000, 70_000] {
            // Each cell drains to a lower index or is a root; every 7th
            // root is an outlet.
            let receivers: Vec<u32> = (0..n)
                .map(|i| {
                    if i == 0 || range_f32(&mut rng, 0.0, 1.0) < 0.02 {
                        i as u32
                    } else {
                        (range_f32(&mut rng, 0.0, i as f32) as usize).min(i - 1) as u32
                    }
                })
                .collect();
            check(&receivers, &|i| i % 7 == 0);
        }
    }

    /// Keys listed in index order and sorted by level alone come out in
    /// the order of the whole key.
    #[test]
    fn sorting_by_level_keeps_index_order_within_a_level() {
        let mut rng = stage_rng(3, 2);
        for (n, levels) in [
            (0usize, 1.0f32),
            (1, 1.0),
            (1000, 4.0),
            (50_000, 3000.0),
            (9000, 1e9),
        ] {
            let mut keys: Vec<u64> = (0..n as u64)
                .map(|i| {
                    let level = ordered_bits(range_f32(&mut rng, -levels, levels).floor());
                    ((level as u64) << 32) | i
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            // The same keys cut into lists of random lengths (some empty),
            // as the bands of the pass listing hand them over.
            let mut lists = Vec::new();
            let mut rest = keys.as_slice();
            while !rest.is_empty() {
                let take = (range_f32(&mut rng, 0.0, 3000.0) as usize).min(rest.len());
                lists.push(rest[..take].to_vec());
                rest = &rest[take..];
            }
            assert_eq!(sorted_by_level(lists), expected, "{n} keys in lists");
            sort_by_level(&mut keys);
            assert_eq!(keys, expected, "{n} keys, {levels} levels");
        }
    }
}
