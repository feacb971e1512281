//! Shipped recipes, compiled into the binary so it runs from anywhere.

use crate::recipe::{Recipe, RecipeError};

/// (name, RON text), `default` first.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "default",
        include_str!("../../../assets/presets/default.ron"),
    ),
    (
        "article-000-hills-and-pits",
        include_str!("../../../assets/presets/article-000-hills-and-pits.ron"),
    ),
    (
        "three-terrain-hill",
        include_str!("../../../assets/presets/three-terrain-hill.ron"),
    ),
    (
        "three-terrain-hill-island",
        include_str!("../../../assets/presets/three-terrain-hill-island.ron"),
    ),
    (
        "article-003-diamond-square",
        include_str!("../../../assets/presets/article-003-diamond-square.ron"),
    ),
    (
        "eroded-mountains",
        include_str!("../../../assets/presets/eroded-mountains.ron"),
    ),
    (
        "river-valley",
        include_str!("../../../assets/presets/river-valley.ron"),
    ),
    (
        "lake-valley",
        include_str!("../../../assets/presets/lake-valley.ron"),
    ),
    (
        "alluvial-fans",
        include_str!("../../../assets/presets/alluvial-fans.ron"),
    ),
];

/// Names of the shipped presets, `default` first.
pub fn names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|(n, _)| *n)
}

/// The RON text of preset `name`, if there is one.
pub fn text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Preset `name` parsed and validated, or `None` when no preset has that name.
pub fn load(name: &str) -> Option<Result<Recipe, RecipeError>> {
    text(name).map(Recipe::from_ron)
}
