//! Times the blur stage once per box width, cold, as one `orogen generate`
//! run meets it: a fresh process, a 1025² diamond-square map, three passes
//! on cells of 1 unit. Prints `timing blur-<width> <ms>` lines.
//!
//!     cargo run --release -p orogen-core --example blur_timings -- 12 13
//!
//! Arguments: box widths in cells (default `12 13`: a width between cells,
//! which takes the fractional path, and the nearest whole width), then
//! optionally `--size N`. Each width blurs its own copy of the same map,
//! in the order given, so swapping the order shows what running first costs.

use orogen_core::Heightmap;
use orogen_core::rng::stage_rng;
use orogen_core::stages::{Blur, DiamondSquare, StageContext, StageOp};
use std::error::Error;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    orogen_core::memory::keep_freed_memory();
    let mut widths = Vec::new();
    let mut side = 1025usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--size" {
            let value = args.next().ok_or("--size needs a number of cells")?;
            side = value.parse()?;
        } else {
            widths.push(arg.parse::<f32>()?);
        }
    }
    if widths.is_empty() {
        widths = vec![12.0, 13.0];
    }
    // The base map is made first, as earlier stages would be, so the thread
    // pool is already running when the blur starts.
    let mut base = Heightmap::new(side, side);
    DiamondSquare::default().apply(&mut base, &mut StageContext::new(stage_rng(1, 0)))?;
    for width in widths {
        let mut map = base.clone();
        let blur = Blur {
            passes: 3,
            width,
            ..Blur::default()
        };
        let start = Instant::now();
        blur.apply(&mut map, &mut StageContext::new(stage_rng(1, 1)))?;
        let millis = start.elapsed().as_secs_f64() * 1000.0;
        println!("timing blur-{width} {millis:.3}");
        std::hint::black_box(&map);
    }
    Ok(())
}
