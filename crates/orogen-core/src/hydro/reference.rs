//! The readable definition of [`super::Routing`] and its products: the
//! tests' oracle. Quadratic in places and single-threaded on purpose.
//!
//! Receivers by steepest descent (ties to the lowest index); closed basins
//! joined by a priority flood over the basin graph (Prim's algorithm from
//! the outlets, always taking the lowest pass next, which builds the same
//! unique tree as the fast kernel's Kruskal); carving as in the fast
//! kernel; drainage area by walking every cell's path to its outlet.

use super::{NEIGHBOURS, Outlets, drop_rate};
use std::collections::BTreeMap;

/// Receivers after steepest descent and depression carving.
pub fn receivers(heights: &[f32], width: usize, outlets: &Outlets) -> Vec<u32> {
    let height = heights.len() / width;
    let is_outlet = |i: usize| outlets.is_outlet(i % width, i / width, width, height, heights[i]);
    let mut receivers: Vec<u32> = (0..heights.len())
        .map(|i| {
            if is_outlet(i) {
                return i as u32;
            }
            let (x, y) = ((i % width) as isize, (i / width) as isize);
            let mut best = i;
            let mut best_rate = 0.0f32;
            for &(dx, dy) in &NEIGHBOURS {
                let (nx, ny) = (x + dx, y + dy);
                if nx < 0 || ny < 0 || nx >= width as isize || ny >= height as isize {
                    continue;
                }
                let j = ny as usize * width + nx as usize;
                let rate = drop_rate(heights[i], heights[j], dx != 0 && dy != 0);
                if rate > best_rate {
                    best_rate = rate;
                    best = j;
                }
            }
            best as u32
        })
        .collect();

    // Basins: the root each cell's path ends at; outlets' basins are one node.
    let root_of = |receivers: &[u32], mut i: usize| {
        while receivers[i] as usize != i {
            i = receivers[i] as usize;
        }
        i
    };
    let roots: Vec<usize> = (0..heights.len()).map(|i| root_of(&receivers, i)).collect();
    let node = |cell: usize| {
        if is_outlet(roots[cell]) {
            usize::MAX
        } else {
            roots[cell]
        }
    };

    // The lowest pass between each pair of basins, keyed (height, cells).
    let key = |a: usize, b: usize| {
        let (lo, hi) = (a.min(b), a.max(b));
        (ordered(heights[a].max(heights[b]) + 0.0), lo, hi)
    };
    let mut passes: BTreeMap<(usize, usize), (u64, usize, usize)> = BTreeMap::new();
    for i in 0..heights.len() {
        let (x, y) = ((i % width) as isize, (i / width) as isize);
        for &(dx, dy) in &NEIGHBOURS {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= width as isize || ny >= height as isize {
                continue;
            }
            let j = ny as usize * width + nx as usize;
            let (a, b) = (node(i), node(j));
            if a == b {
                continue;
            }
            let k = key(i, j);
            let entry = passes.entry((a.min(b), a.max(b))).or_insert(k);
            if k < *entry {
                *entry = k;
            }
        }
    }

    // Prim from the outlets: repeatedly join the basin behind the lowest pass.
    let mut joined = std::collections::BTreeSet::from([usize::MAX]);
    loop {
        let next = passes
            .iter()
            .filter(|((a, b), _)| joined.contains(a) != joined.contains(b))
            .min_by_key(|(_, k)| **k);
        let Some((&(a, b), &(_, lo, hi))) = next else {
            break;
        };
        let basin = if joined.contains(&a) { b } else { a };
        joined.insert(basin);
        let (inside, across) = if node(lo) == basin {
            (lo, hi)
        } else {
            (hi, lo)
        };
        // Reverse the path from the pass cell down to the pit.
        let mut previous = across as u32;
        let mut current = inside;
        loop {
            let next = receivers[current] as usize;
            receivers[current] = previous;
            if next == current {
                break;
            }
            previous = current as u32;
            current = next;
        }
    }
    receivers
}

/// Cells draining through each cell, by walking each cell's path.
pub fn drainage_cells(receivers: &[u32]) -> Vec<u32> {
    let mut cells = vec![0u32; receivers.len()];
    for start in 0..receivers.len() {
        let mut i = start;
        loop {
            cells[i] += 1;
            let r = receivers[i] as usize;
            if r == i {
                break;
            }
            i = r;
        }
    }
    cells
}

/// The highest height on each cell's path to its outlet.
pub fn fill_levels(heights: &[f32], receivers: &[u32]) -> Vec<f32> {
    (0..heights.len())
        .map(|start| {
            let mut i = start;
            let mut level = heights[i];
            while receivers[i] as usize != i {
                i = receivers[i] as usize;
                level = level.max(heights[i]);
            }
            level
        })
        .collect()
}

/// An f32 as a key that sorts like the number (finite heights).
fn ordered(v: f32) -> u64 {
    let bits = v.to_bits();
    let flipped = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 0x8000_0000
    };
    flipped as u64
}
