//! Bad recipes are refused with one line naming the field.

use orogen_core::Recipe;
use orogen_core::presets;

fn default_text() -> String {
    presets::text("default").unwrap().to_string()
}

fn error_of(text: &str) -> String {
    let e = Recipe::from_ron(text).unwrap_err().to_string();
    assert!(!e.contains('\n'), "error must be one line: {e}");
    e
}

#[test]
fn every_shipped_preset_parses_validates_and_round_trips() {
    for name in presets::names() {
        let recipe = presets::load(name)
            .unwrap()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = recipe.to_ron().unwrap();
        assert_eq!(Recipe::from_ron(&text).unwrap(), recipe, "{name}");
    }
}

#[test]
fn typo_in_a_field_name() {
    let text = default_text().replace("roughness:", "roughnes:");
    let e = error_of(&text);
    assert!(e.contains("roughnes"), "{e}");
    assert!(e.contains("line"), "{e}");
}

#[test]
fn missing_field() {
    let text = default_text().replace("seed: 42,", "");
    let e = error_of(&text);
    assert!(e.contains("seed"), "{e}");
}

#[test]
fn wrong_type() {
    let text = default_text().replace("passes: 1", "passes: \"one\"");
    let e = error_of(&text);
    assert!(e.contains("line"), "{e}");
}

#[test]
fn out_of_range_names_field_and_range() {
    let text = default_text().replace("roughness: 0.8", "roughness: 7.5");
    let e = error_of(&text);
    assert!(e.contains("stages[0](diamond-square).roughness"), "{e}");
    assert!(e.contains("0 to 3"), "{e}");
}

#[test]
fn non_finite_values() {
    for bad in ["NaN", "inf", "-inf", "1e39"] {
        let text = default_text().replace("roughness: 0.8", &format!("roughness: {bad}"));
        let e = Recipe::from_ron(&text).unwrap_err().to_string();
        assert!(e.contains("roughness") || e.contains("line"), "{bad}: {e}");
    }
}

#[test]
fn min_greater_than_max() {
    let text = default_text().replace(
        "range: (min: 0.0, max: 150.0)",
        "range: (min: 200.0, max: 150.0)",
    );
    let e = error_of(&text);
    assert!(e.contains("stages[3](normalize).range"), "{e}");
    assert!(e.contains("greater than max"), "{e}");
}

#[test]
fn sizes_zero_and_one_are_refused() {
    for side in ["0", "1"] {
        let text = default_text().replace("width: 513", &format!("width: {side}"));
        let e = error_of(&text);
        assert!(e.contains("width") && e.contains("2 to 65537"), "{e}");
    }
}

#[test]
fn memory_estimate_refuses_huge_maps() {
    let mut r = presets::load("default").unwrap().unwrap();
    r.width = 16385;
    r.height = 16385;
    let e = r.check_memory(1 << 30).unwrap_err().to_string();
    assert!(e.contains("MiB") && e.contains("16385x16385"), "{e}");
    r.width = 513;
    r.height = 513;
    assert!(r.check_memory(1 << 30).is_ok());
}

#[test]
fn unknown_stage_kind() {
    let text = default_text().replace("Blur(", "Blurr(");
    let e = error_of(&text);
    assert!(e.contains("Blurr"), "{e}");
}

/// A map side given as text resamples the recipe, or is refused in one
/// line naming it.
#[test]
fn a_side_given_as_text_resamples_or_is_refused() {
    use orogen_core::bake::load_recipe_at;
    let (recipe, _) = load_recipe_at("default", Some("257")).unwrap();
    assert_eq!((recipe.width, recipe.height), (257, 257));
    let (as_shipped, _) = load_recipe_at("default", None).unwrap();
    assert_eq!(as_shipped.width, 513);
    for bad in ["abc", "-5", "12.5"] {
        let err = load_recipe_at("default", Some(bad)).unwrap_err();
        assert!(
            matches!(&err, orogen_core::LoadError::Side(side) if side == bad),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("map side '{bad}': expected a whole number of cells")
        );
    }
    assert!(matches!(
        load_recipe_at("default", Some("0")),
        Err(orogen_core::LoadError::Resampled(_))
    ));
}
