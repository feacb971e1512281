//! The derived maps' grey PNGs: 16-bit maps as they are, 8-bit ones
//! (and the engines' 8-bit weights) through one encoder.

use crate::io::errors::EncodeError;
use crate::io::height_files::{encode_png, encode_png16};
use crate::maps::MapPixels;
use image::ExtendedColorType;

/// A map's grey PNG, `width` samples a row, rows flipped with `flip_y`.
pub(super) fn encode_map(
    pixels: &MapPixels,
    width: usize,
    flip_y: bool,
) -> Result<Vec<u8>, EncodeError> {
    match pixels {
        MapPixels::Grey16(values) => encode_png16(values, width, flip_y),
        MapPixels::Grey8(values) => encode_grey8(values.clone(), width, flip_y),
    }
}

/// An 8-bit grey PNG of `values`, `width` a row, rows flipped with
/// `flip_y` (the 16-bit encoder flips as it writes).
pub(super) fn encode_grey8(
    mut values: Vec<u8>,
    width: usize,
    flip_y: bool,
) -> Result<Vec<u8>, EncodeError> {
    if flip_y {
        flip_rows(&mut values, width);
    }
    let height = values.len() / width.max(1);
    encode_png(&values, width, height, ExtendedColorType::L8)
}

/// Reverses the order of `values`' rows of `width` samples.
pub(super) fn flip_rows(values: &mut [u8], width: usize) {
    let rows = values.len() / width.max(1);
    for y in 0..rows / 2 {
        let (top, bottom) = values.split_at_mut((rows - 1 - y) * width);
        top[y * width..(y + 1) * width].swap_with_slice(&mut bottom[..width]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_flip_in_place() {
        let mut v: Vec<u8> = (0..12).collect();
        flip_rows(&mut v, 4);
        assert_eq!(v, vec![8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]);
        let mut even: Vec<u8> = (0..8).collect();
        flip_rows(&mut even, 2);
        assert_eq!(even, vec![6, 7, 4, 5, 2, 3, 0, 1]);
    }
}
