//! RAW16 import: square by default, or a size taken from the first bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use orogen_core::io::height_files::{ByteOrder, decode_raw16};

fuzz_target!(|data: &[u8]| {
    let _ = decode_raw16(data, ByteOrder::Le, None);
    if data.len() >= 4 {
        let w = u16::from_le_bytes([data[0], data[1]]) as usize;
        let h = u16::from_le_bytes([data[2], data[3]]) as usize;
        if let Ok(map) = decode_raw16(&data[4..], ByteOrder::Be, Some((w, h))) {
            assert_eq!(map.values.len(), w * h);
        }
    }
});
