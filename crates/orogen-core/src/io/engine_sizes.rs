//! The heightmap sizes game engines accept.

/// Unity's heightmap resolutions, `2^n + 1` (cells a side).
pub const UNITY_SIZES: &[u32] = &[33, 65, 129, 257, 513, 1025, 2049, 4097];
/// Unreal's recommended landscape sizes (cells a side): whole sections of
/// whole components, so no edge is cut or padded on import.
pub const UNREAL_SIZES: &[u32] = &[127, 253, 505, 1009, 2017, 4033, 8129];

/// Resolves `unity-1025`, `unreal-2017` or a plain number to a side.
pub fn named_size(name: &str) -> Option<u32> {
    let (list, number) = if let Some(n) = name.strip_prefix("unity-") {
        (Some(UNITY_SIZES), n)
    } else if let Some(n) = name.strip_prefix("unreal-") {
        (Some(UNREAL_SIZES), n)
    } else {
        (None, name)
    };
    let side: u32 = number.parse().ok()?;
    match list {
        Some(sizes) if !sizes.contains(&side) => None,
        _ => Some(side),
    }
}
