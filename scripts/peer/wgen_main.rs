// The peer side of scripts/peer-bench.sh: wgen's generators (copied into a
// throwaway folder, never into orogen) run in the order of
// scripts/peer/orogen-1025.ron on a 1025² map, each timed, with the
// droplet steps its water erosion simulated.
mod generators;

use generators::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub enum ThreadMessage {
    GeneratorStepProgress(f32),
    ExporterStepProgress(f32),
}

pub static STEPS: AtomicU64 = AtomicU64::new(0);

fn main() {
    let size = (1025usize, 1025usize);
    let seed = 1u64;
    // Progress goes to a channel nobody reads; a step of 1.0 sends almost
    // nothing, so the peer pays the least for it.
    let (tx, _rx) = std::sync::mpsc::channel::<ThreadMessage>();
    let step = 1.0;
    let mut hmap = vec![0.0f32; size.0 * size.1];
    let mut time = |label: &str, f: &mut dyn FnMut(&mut Vec<f32>)| {
        let start = Instant::now();
        f(&mut hmap);
        println!("timing {label} {:.3}", start.elapsed().as_secs_f64() * 1000.0);
    };
    time("hills", &mut |h| {
        gen_hills(seed, size, h, &HillsConf::default(), false, tx.clone(), step)
    });
    time("normalize", &mut |h| gen_normalize(h, &NormalizeConf::default()));
    time("diamond-square", &mut |h| {
        gen_mid_point(seed, size, h, &MidPointConf::default(), false, tx.clone(), step)
    });
    time("fbm", &mut |h| {
        gen_fbm(seed, size, h, &FbmConf::default(), false, tx.clone(), step)
    });
    time("normalize-2", &mut |h| gen_normalize(h, &NormalizeConf::default()));
    time("thermal", &mut |h| {
        gen_mudslide(size, h, &MudSlideConf::default(), false, tx.clone(), step)
    });
    time("hydraulic", &mut |h| {
        gen_water_erosion(seed, size, h, &WaterErosionConf::default(), false, tx.clone(), step)
    });
    println!("steps hydraulic {}", STEPS.load(Ordering::Relaxed));
}
