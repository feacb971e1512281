//! The rendered splat texture and its export files.

/// The rendered texture and weights.
#[derive(Clone, Debug)]
pub struct SplatTexture {
    /// Texels west to east.
    pub width: usize,
    /// Texels north to south.
    pub height: usize,
    /// RGB8, row 0 = north.
    pub rgb: Vec<u8>,
    /// Per tile weight in 0..=255: one `width x height` plane per tile,
    /// tile 0 first.
    pub weights: Vec<u8>,
    /// Number of tiles, and so of weight planes.
    pub tiles: usize,
}

impl SplatTexture {
    /// RGBA8 with channel i = weight of tile i for the first four tiles.
    pub fn splat_rgba(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.width * self.height * 4];
        for (c, plane) in self.planes().take(4).enumerate() {
            for (px, &v) in out.chunks_exact_mut(4).zip(plane) {
                px[c] = v;
            }
        }
        out
    }

    /// Grayscale weight map of one tile.
    pub fn layer(&self, tile: usize) -> Vec<u8> {
        self.planes().nth(tile).unwrap_or_default().to_vec()
    }

    /// The weight planes, one per tile.
    pub fn planes(&self) -> impl Iterator<Item = &[u8]> {
        self.weights.chunks_exact((self.width * self.height).max(1))
    }

    /// RGBA8 of the colour texture (opaque), for GPU upload.
    pub fn rgba(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.width * self.height * 4);
        for px in self.rgb.chunks_exact(3) {
            out.extend_from_slice(&[px[0], px[1], px[2], 255]);
        }
        out
    }
}

/// Adds `texture.png`, `splat.png` and `splat_<i>.png` to an export.
pub fn add_texture_files(
    bundle: &mut crate::io::bundle::ExportBundle,
    splat: &SplatTexture,
) -> Result<(), crate::io::errors::EncodeError> {
    use crate::io::height_files::encode_png;
    use image::ExtendedColorType;
    bundle.add(
        "texture.png",
        encode_png(
            &splat.rgb,
            splat.width,
            splat.height,
            ExtendedColorType::Rgb8,
        )?,
    );
    bundle.add(
        "splat.png",
        encode_png(
            &splat.splat_rgba(),
            splat.width,
            splat.height,
            ExtendedColorType::Rgba8,
        )?,
    );
    for i in 0..splat.tiles {
        bundle.add(
            format!("splat_{i}.png"),
            encode_png(
                &splat.layer(i),
                splat.width,
                splat.height,
                ExtendedColorType::L8,
            )?,
        );
    }
    Ok(())
}
