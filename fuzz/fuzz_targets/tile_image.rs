//! Tile images (PNG, JPEG, TGA, BMP) for the splat texture.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(image) = orogen_core::splat::decode_tile_image(data) {
        assert!(image.width() > 0 && image.height() > 0);
    }
});
