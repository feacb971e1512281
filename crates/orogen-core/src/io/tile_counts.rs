//! How many border-sharing tiles a side a map can be split into.

/// Most tiles a side `--tiles` accepts.
pub const MAX_MAP_TILES: usize = 64;

/// Tile counts that split a `width x height` map evenly: N must divide
/// both `width - 1` and `height - 1` so every tile has the same size and
/// borders fall on whole cells.
pub fn valid_map_tile_counts(width: usize, height: usize) -> Vec<usize> {
    (1..=MAX_MAP_TILES)
        .filter(|&n| {
            width > n
                && height > n
                && (width - 1).is_multiple_of(n)
                && (height - 1).is_multiple_of(n)
        })
        .collect()
}
