//! What `generate` prints on stderr after an export: its warnings and,
//! with `--timings`, each step's time and the total since `start`.

use orogen_core::bake::ExportReport;
use std::time::Instant;

/// Prints `report`'s warnings, and its timings when `timings` is set.
pub fn print_warnings_and_timings(report: &ExportReport, timings: bool, start: Instant) {
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    if timings {
        for (label, millis) in &report.timings {
            eprintln!("timing {label} {millis:.3}");
        }
        eprintln!("timing total {:.3}", start.elapsed().as_secs_f64() * 1000.0);
    }
}
