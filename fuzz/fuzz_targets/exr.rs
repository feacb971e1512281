//! Heightmap import (exr): any bytes give a map or a one-line error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(map) = orogen_core::io::float_files::decode_exr(data) {
        assert_eq!(map.sample_count(), map.width * map.height);
    }
});
