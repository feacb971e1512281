//! The sidecar reader the import stage uses beside a height file.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = orogen_core::io::sidecar::parse_sidecar(data);
});
