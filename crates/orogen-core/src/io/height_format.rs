//! The height file formats an export writes, by name. What each holds
//! and how it is encoded is in [`super::height_files`].

/// One kind of whole-map height file an export can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeightFormat {
    /// `heightmap.r16`: headerless unsigned 16-bit samples.
    R16,
    /// `heightmap.png`: 16-bit grayscale PNG, the `.r16`'s samples.
    Png,
    /// `heightmap.exr`: single-channel 32-bit float OpenEXR, true heights.
    Exr,
    /// `heightmap.tif`: grayscale 32-bit float TIFF, true heights.
    Tif,
}

impl HeightFormat {
    /// Every format, in the order an export writes them.
    pub const ALL: [HeightFormat; 4] = [
        HeightFormat::R16,
        HeightFormat::Png,
        HeightFormat::Exr,
        HeightFormat::Tif,
    ];

    /// The name `--formats` takes and the sidecar records: `r16`, `png`,
    /// `exr` or `tif`.
    pub fn name(self) -> &'static str {
        match self {
            HeightFormat::R16 => "r16",
            HeightFormat::Png => "png",
            HeightFormat::Exr => "exr",
            HeightFormat::Tif => "tif",
        }
    }
}
