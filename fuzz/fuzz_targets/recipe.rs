//! The recipe loader: any bytes give a recipe or a one-line error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(recipe) = orogen_core::Recipe::from_ron(text)
    {
        // A recipe that loads also saves and loads back the same world.
        // Saving writes the world format, so an older recipe comes back
        // without the mark that says it was converted from cells.
        let saved = recipe.to_ron().expect("a loaded recipe saves");
        let again = orogen_core::Recipe::from_ron(&saved).expect("a saved recipe loads");
        let loaded = orogen_core::Recipe {
            converted_from_cells: false,
            ..recipe
        };
        assert_eq!(again, loaded);
    }
});
