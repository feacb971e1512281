//! The recipe loader: any bytes give a recipe or a one-line error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(recipe) = orogen_core::Recipe::from_ron(text)
    {
        // A recipe that loads also saves and loads back the same.
        let saved = recipe.to_ron().expect("a loaded recipe saves");
        let again = orogen_core::Recipe::from_ron(&saved).expect("a saved recipe loads");
        assert_eq!(again, recipe);
    }
});
