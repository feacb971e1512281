//! Fluvial erosion's parameter table: names, ranges and help for the
//! recipe, the viewer's sliders and validation.

use super::FluvialErosion;
use crate::params::{ParamVisitor, Params, visit_choice};

impl Params for FluvialErosion {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.float(
            "duration",
            &mut self.duration,
            0.0..=10_000_000.0,
            "Years of erosion simulated.",
        );
        v.float(
            "erodibility",
            &mut self.erodibility,
            0.0..=0.1,
            "K in E = K·A^m·S^n (yr⁻¹ m^(1−2m)): how fast running water cuts rock.",
        );
        v.float(
            "area_exponent",
            &mut self.area_exponent,
            0.0..=1.0,
            "m: how much more a river cuts as its drainage area grows.",
        );
        v.float(
            "slope_exponent",
            &mut self.slope_exponent,
            0.5..=2.0,
            "n: how much more water cuts on steeper ground; rivers settle at concavity m/n (0.35–0.6 in nature).",
        );
        v.float(
            "diffusivity",
            &mut self.diffusivity,
            0.0..=10.0,
            "Hillslope diffusivity D (m²/yr): soil creep that rounds ridges.",
        );
        v.float(
            "uplift",
            &mut self.uplift,
            0.0..=0.05,
            "Uplift rate (m/yr) that the rivers cut against.",
        );
        visit_choice(
            v,
            "uplift_shape",
            &mut self.uplift_shape,
            "Uniform uplift, or uplift scaled by the input heights so the map's mountains hold up.",
        );
        v.toggle(
            "drain_north",
            &mut self.drain_north,
            "Water leaves over the north edge (held at base level).",
        );
        v.toggle(
            "drain_south",
            &mut self.drain_south,
            "Water leaves over the south edge (held at base level).",
        );
        v.toggle(
            "drain_west",
            &mut self.drain_west,
            "Water leaves over the west edge (held at base level).",
        );
        v.toggle(
            "drain_east",
            &mut self.drain_east,
            "Water leaves over the east edge (held at base level).",
        );
        v.toggle(
            "sea",
            &mut self.sea,
            "Cells at or below the sea level are sea: outlets, never eroded.",
        );
        v.float(
            "sea_level",
            &mut self.sea_level,
            -100_000.0..=100_000.0,
            "The sea's height in world units (when the sea is on).",
        );
        v.toggle(
            "keep_lakes",
            &mut self.keep_lakes,
            "Keep closed depressions as lakes instead of filling them to their spill level at the end.",
        );
        v.float(
            "roughness",
            &mut self.roughness,
            0.0..=1000.0,
            "Random roughness (world units) added before the first step, so that smooth slopes drain into branching valleys instead of parallel lines.",
        );
        v.float(
            "breach_depth",
            &mut self.breach_depth,
            0.0..=1000.0,
            "Depressions up to this deep are cut through (a level trench across the pass) rather than kept as lakes or filled: the hollows a finer level inherits from the coarser one along valley floors.",
        );
        v.float(
            "fine_detail",
            &mut self.fine_detail,
            0.0..=1.0,
            "How much of the detail a finer sampling adds to the input is kept on top of the coarser level's erosion (0: finer levels refine the eroded valleys only).",
        );
        v.int(
            "coarse_size",
            &mut self.coarse_size,
            17..=4097,
            "Cells along the longer side of the coarse level where most steps run; finer maps refine its valleys, so every size shows the same ones.",
        );
        v.int(
            "steps",
            &mut self.steps,
            1..=5000,
            "Steps at the coarse level; each covers duration / steps years.",
        );
        v.int(
            "refine_steps",
            &mut self.refine_steps,
            0..=200,
            "Steps at the first finer level; each further doubling up to the map's size runs half as many (at least one).",
        );
        v.float(
            "refine_years",
            &mut self.refine_years,
            0.0..=1_000_000.0,
            "Years of each refine step at the coarse cell (halved with each doubling); 0: duration / steps. Short refine steps sharpen the coarse valleys without cutting new ones, so the coarse level can take a few long steps.",
        );
        v.int(
            "block_size",
            &mut self.block_size,
            0..=16384,
            "Cells a side of the fixed blocks that levels larger than one block erode on, mixed across their edges, so that any window of the map equals the same crop of the whole map; 0 erodes every level on the whole map; at least 64 otherwise.",
        );
        v.float(
            "hard_rock",
            &mut self.hard_rock,
            0.0..=1.0,
            "Erodibility of the hardest rock of the hardness map, as a share of the erodibility (0.2: five times harder).",
        );
        v.float(
            "deposition",
            &mut self.deposition,
            0.0..=1.0,
            "G: how readily rivers drop the sediment they carry (0: they only cut). Around 1, fans build where channels leave steep ground, valley floors fill with alluvium and closed basins with sediment.",
        );
        v.float(
            "gullies",
            &mut self.gullies,
            0.0..=1.0,
            "Slope of the roughness added at each finer level before its refine steps, which cut it into gullies and rills at that level's cells (0: finer levels only sharpen the coarse valleys).",
        );
        v.float(
            "talus_angle",
            &mut self.talus_angle,
            0.0..=89.0,
            "Scree: after each finer level's steps, slopes steeper than this angle of repose (degrees) shed material downhill at that level's cells (0: off).",
        );
        v.float(
            "sediment_erodibility",
            &mut self.sediment_erodibility,
            0.0..=10.0,
            "Erodibility of laid-down sediment as a share of the erodibility (loose gravel and sand erode faster than rock: above 1).",
        );
        v.optional_int(
            "stop_after_steps",
            &mut self.stop_after_steps,
            0..=5000,
            "Demo: run only this many of the coarse steps (each still duration / steps years), to watch the valleys form.",
        );
    }
}
