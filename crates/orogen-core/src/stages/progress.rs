//! How far a stage has run, as one of its parameters: stepping it re-runs
//! the stage a little further or shorter, to watch an erosion develop
//! (the viewer's stage-by-stage stepper). Each stage that has such a
//! parameter declares it ([`super::StageOp::progress`]).

use std::ops::RangeInclusive;

/// The parameter that measures a stage's progress.
#[derive(Debug)]
pub enum ProgressValue<'a> {
    /// A count: iterations or droplets.
    Count(&'a mut u32),
    /// Years of erosion.
    Years(&'a mut f32),
}

/// A stage's progress parameter and how to step it.
#[derive(Debug)]
pub struct Progress<'a> {
    /// What is stepped, for the stepper's label ("thermal erosion
    /// iterations").
    pub label: &'static str,
    /// What stepping it shows, for a tooltip.
    pub help: &'static str,
    /// The parameter itself.
    pub value: ProgressValue<'a>,
    /// The stepper's range: within the parameter's own, starting where a
    /// logarithmic slider is useful.
    pub range: RangeInclusive<f64>,
    /// One click of − or + as a share of the value (0: one unit).
    pub click_share: f64,
    /// What else the stepper should say: a run that shows less than the
    /// value (a stage told to stop early).
    pub note: Option<String>,
}

impl Progress<'_> {
    /// The parameter's value.
    pub fn get(&self) -> f64 {
        match &self.value {
            ProgressValue::Count(v) => **v as f64,
            ProgressValue::Years(v) => **v as f64,
        }
    }

    /// Sets the parameter to `value` within the stepper's range (a count
    /// rounded to whole units); NaN changes nothing.
    pub fn set(&mut self, value: f64) {
        if value.is_nan() {
            return;
        }
        let v = value.clamp(*self.range.start(), *self.range.end());
        match &mut self.value {
            ProgressValue::Count(c) => **c = v.round() as u32,
            ProgressValue::Years(y) => **y = v as f32,
        }
    }

    /// How much one click of − or + moves the value: the click share of
    /// it, at least one unit (one iteration, droplet or year).
    pub fn click(&self) -> f64 {
        (self.get() * self.click_share).round().max(1.0)
    }

    /// Whether the value is a whole count.
    pub fn is_count(&self) -> bool {
        matches!(self.value, ProgressValue::Count(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_clamps_rounds_and_ignores_nan() {
        let mut count = 7u32;
        let mut p = Progress {
            label: "",
            help: "",
            value: ProgressValue::Count(&mut count),
            range: 0.0..=100.0,
            click_share: 0.0,
            note: None,
        };
        p.set(12.6);
        assert_eq!(p.get(), 13.0);
        p.set(1e9);
        assert_eq!(p.get(), 100.0);
        p.set(f64::NAN);
        assert_eq!(p.get(), 100.0);
        assert_eq!(p.click(), 1.0);
        let mut years = 50_000.0f32;
        let mut p = Progress {
            label: "",
            help: "",
            value: ProgressValue::Years(&mut years),
            range: 1_000.0..=10_000_000.0,
            click_share: 0.1,
            note: None,
        };
        assert_eq!(p.click(), 5_000.0);
        p.set(10.0);
        assert_eq!(p.get(), 1_000.0);
        assert!(!p.is_count());
    }
}
