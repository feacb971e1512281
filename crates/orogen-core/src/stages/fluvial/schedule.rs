//! The coarse-to-fine schedule: which sizes a map of a given size erodes
//! at.

/// Sizes from the coarse level up to (`width`, `height`): the coarse
/// level has `coarse_size` cells along the longer side (the same world
/// sampled more coarsely), each next level doubles the cell count minus
/// one (257 → 513 → 1025), and the last is the map's own size. A map no
/// larger than the coarse level is its only level.
pub fn levels(width: usize, height: usize, coarse_size: usize) -> Vec<(usize, usize)> {
    let longer = width.max(height);
    let coarse_size = coarse_size.max(3);
    if longer <= coarse_size {
        return vec![(width, height)];
    }
    let scale = |n: usize, s: f64| (((n - 1) as f64 * s).round() as usize).max(2) + 1;
    let mut out = Vec::new();
    let mut s = (coarse_size - 1) as f64 / (longer - 1) as f64;
    while s < 1.0 {
        out.push((scale(width, s), scale(height, s)));
        s *= 2.0;
    }
    // A last doubling that would land within a few cells of the map
    // itself is the map.
    if let Some(&(lw, lh)) = out.last()
        && lw.max(lh) * 8 > longer * 7
        && out.len() > 1
    {
        out.pop();
    }
    out.push((width, height));
    out
}

#[cfg(test)]
mod tests {
    use super::levels;

    #[test]
    fn powers_of_two_plus_one_double_exactly() {
        assert_eq!(
            levels(2049, 2049, 257),
            vec![(257, 257), (513, 513), (1025, 1025), (2049, 2049)]
        );
        assert_eq!(levels(513, 513, 257), vec![(257, 257), (513, 513)]);
        assert_eq!(levels(257, 257, 257), vec![(257, 257)]);
        assert_eq!(levels(129, 129, 257), vec![(129, 129)]);
    }

    #[test]
    fn other_sizes_keep_the_aspect_and_end_at_the_map() {
        let l = levels(1000, 500, 257);
        assert_eq!(l.first(), Some(&(257, 129)));
        assert_eq!(l.last(), Some(&(1000, 500)));
        for w in l.windows(2) {
            assert!(w[1].0 > w[0].0 && w[1].0 <= 2 * w[0].0 + 40);
        }
    }
}
