//! The 16-bit PNG's deflate, measured on the strips orogen compresses:
//! the hand-written literal-only encoder (`io::literal_deflate`) against
//! zlib-rs's `Strategy::HuffmanOnly` with a `FullFlush` per strip, the
//! nearest thing a library offers (Huffman codes, no match search). Both
//! run one strip after another on one thread over the `default` preset's
//! map at 8193², filtered exactly as the export filters it (the strips
//! are read back out of orogen's own PNG). Prints each side's output size.

use criterion::{Criterion, criterion_group};
use orogen_core::io::height_files::{ExportOptions, export_range, quantize};
use orogen_core::io::literal_deflate::deflate_literals;
use orogen_core::io::png_strips::{PngPixels, encode_png_strips};
use orogen_core::pipeline::{RunHooks, run_once};
use orogen_core::presets;
use std::hint::black_box;
use zlib_rs::{Deflate, DeflateConfig, DeflateFlush, InflateConfig, Strategy};

/// The same strip size as the PNG encoder (2 MiB of filtered rows).
const STRIP_BYTES: usize = 2 << 20;

/// The filtered rows of the PNG orogen writes for `side`², cut into the
/// encoder's strips.
fn filtered_strips(side: u32) -> Vec<Vec<u8>> {
    let recipe = presets::load("default").unwrap().unwrap().resampled(side);
    let map = run_once(&recipe, None, RunHooks::default()).unwrap().map;
    let samples = quantize(&map, export_range(&map, &ExportOptions::default()));
    let raw: Vec<u8> = samples.iter().flat_map(|s| s.to_be_bytes()).collect();
    let (w, h) = (map.width(), map.height());
    let png = encode_png_strips(&raw, w, h, PngPixels::Gray16).unwrap();
    // The zlib stream is the IDAT chunks' data joined.
    let mut stream = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if &png[at + 4..at + 8] == b"IDAT" {
            stream.extend_from_slice(&png[at + 8..at + 8 + len]);
        }
        at += 12 + len;
    }
    let row_len = w * 2 + 1;
    let mut filtered = vec![0u8; row_len * h];
    let (out, status) = zlib_rs::decompress_slice(&mut filtered, &stream, InflateConfig::default());
    assert_eq!(out.len(), row_len * h, "inflate: {status:?}");
    let rows_per_strip = (STRIP_BYTES / row_len).max(1);
    filtered
        .chunks(rows_per_strip * row_len)
        .map(<[u8]>::to_vec)
        .collect()
}

fn huffman_only(strip: &[u8], last: bool, out: &mut Vec<u8>) -> usize {
    let config = DeflateConfig {
        level: 1,
        window_bits: -15,
        strategy: Strategy::HuffmanOnly,
        ..DeflateConfig::default()
    };
    let mut deflate = Deflate::new_with_config(config);
    let bound = zlib_rs::compress_bound(strip.len()) + 64;
    if out.len() < bound {
        out.resize(bound, 0);
    }
    let flush = if last {
        DeflateFlush::Finish
    } else {
        DeflateFlush::FullFlush
    };
    deflate.compress(strip, out, flush).unwrap();
    assert_eq!(deflate.total_in() as usize, strip.len());
    deflate.total_out() as usize
}

fn deflate_8193(c: &mut Criterion) {
    let strips = filtered_strips(8193);
    let last = strips.len() - 1;
    let mut out = Vec::new();
    let literal_bytes: usize = strips
        .iter()
        .enumerate()
        .map(|(i, s)| {
            out.clear();
            deflate_literals(s, i == last, &mut out);
            out.len()
        })
        .sum();
    let huffman_bytes: usize = strips
        .iter()
        .enumerate()
        .map(|(i, s)| huffman_only(s, i == last, &mut out))
        .sum();
    let input: usize = strips.iter().map(Vec::len).sum();
    eprintln!(
        "8193² strips: {input} bytes in; literal_deflate {literal_bytes} bytes out, zlib-rs HuffmanOnly {huffman_bytes} bytes out"
    );
    let mut group = c.benchmark_group("png-deflate-8193");
    group.sample_size(10);
    group.bench_function("literal_deflate", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            for (i, s) in strips.iter().enumerate() {
                out.clear();
                deflate_literals(s, i == last, &mut out);
                black_box(out.len());
            }
        })
    });
    group.bench_function("zlib-rs-huffman-only-full-flush", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            for (i, s) in strips.iter().enumerate() {
                black_box(huffman_only(s, i == last, &mut out));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, deflate_8193);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
