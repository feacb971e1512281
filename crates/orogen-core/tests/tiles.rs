//! The shipped tile images in assets/tiles are exactly the built-in
//! generator's output (regenerate with `orogen tiles --out assets/tiles`).

use orogen_core::splat::builtin_tiles::{BUILTIN_TILES, builtin_tile};

#[test]
fn shipped_tiles_match_the_generator() {
    for name in BUILTIN_TILES {
        let path = format!(
            "{}/../../assets/tiles/{name}.png",
            env!("CARGO_MANIFEST_DIR")
        );
        let shipped = image::open(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .to_rgb8();
        let generated = builtin_tile(name).unwrap();
        assert!(
            shipped == generated,
            "{name}.png differs from the generator: run `orogen tiles --out assets/tiles`"
        );
    }
}
