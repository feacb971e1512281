//! Files an earlier export left in the folder that this one did not
//! write again: they stay, and the export says which.

use std::path::Path;

/// The files an earlier export in `dir` listed in its sidecar.
pub(super) fn earlier_export_files(dir: &Path) -> Vec<String> {
    std::fs::read(dir.join("heightmap.json"))
        .ok()
        .and_then(|bytes| crate::io::sidecar::parse_sidecar(&bytes))
        .map(|sidecar| sidecar.files)
        .unwrap_or_default()
}

/// Files of an earlier export that this one did not write again: they
/// stay (orogen removes nothing it was not asked to), but they no longer
/// match the map, so say which.
pub fn left_from_earlier_export(
    dir: &Path,
    earlier: &[String],
    written: &[String],
) -> Option<String> {
    let stale: Vec<&str> = earlier
        .iter()
        .map(String::as_str)
        // Only plain names: a sidecar is outside input.
        .filter(|name| !name.contains(['/', '\\']) && !written.iter().any(|w| w == name))
        .filter(|name| dir.join(name).is_file())
        .collect();
    let (first, rest) = stale.split_at(stale.len().min(4));
    if first.is_empty() {
        return None;
    }
    let more = if rest.is_empty() {
        String::new()
    } else {
        format!(" and {} more", rest.len())
    };
    Some(format!(
        "{} keeps files of an earlier export that this one did not replace: {}{more} \
         (heightmap.json lists this export's files)",
        dir.display(),
        first.join(", ")
    ))
}
