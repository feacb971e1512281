//! Heightmap import (png16): any bytes give a map or a one-line error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(map) = orogen_core::io::height_files::decode_png(data) {
        assert_eq!(map.sample_count(), map.width * map.height);
    }
});
