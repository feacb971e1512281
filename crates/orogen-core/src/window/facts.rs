//! Global facts: what a window cannot see alone. Normalize and Terrace
//! rescale by the whole world's lowest and highest height before them; a
//! window run takes that range from a barrier phase instead: every window
//! reports the range of its own cells before the stage
//! ([`super::window_range`]), the reports are reduced (min of the minima,
//! max of the maxima, exact and in any order), and the next phase runs
//! with the fixed result. Saved as JSON between phases.

use serde::{Deserialize, Serialize};

/// The world's height range before one stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageFacts {
    /// The stage's position in the recipe, from 0.
    pub index: usize,
    /// The stage's kebab-case kind, to catch facts of another recipe.
    pub kind: String,
    /// Lowest height of the stage's input.
    pub min: f32,
    /// Highest height of the stage's input.
    pub max: f32,
}

impl StageFacts {
    /// Combines two reports on the same stage (different windows).
    pub fn merged(&self, other: &StageFacts) -> StageFacts {
        StageFacts {
            index: self.index,
            kind: self.kind.clone(),
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The world's facts from the reports of windows that cover it:
    /// `None` when there are none or they are about different stages.
    pub fn reduce<'a>(reports: impl IntoIterator<Item = &'a StageFacts>) -> Option<StageFacts> {
        let mut reports = reports.into_iter();
        let first = reports.next()?.clone();
        reports.try_fold(first, |acc, r| {
            (r.index == acc.index && r.kind == acc.kind).then(|| acc.merged(r))
        })
    }
}

/// The barrier facts known so far, one entry per barrier stage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldFacts {
    /// One per barrier stage reduced so far, in recipe order.
    pub stages: Vec<StageFacts>,
}

/// A facts file that could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FactsError {
    /// Not the JSON of [`WorldFacts`].
    #[error("facts file: {0}")]
    Syntax(String),
    /// Two entries for one stage.
    #[error("facts file: stage {0} appears twice")]
    Duplicate(usize),
    /// A range that is not finite or not ordered.
    #[error(
        "facts file: stage {index} has the range {min}..{max}; it must be finite with min <= max"
    )]
    BadRange {
        /// The stage.
        index: usize,
        /// Its minimum.
        min: f32,
        /// Its maximum.
        max: f32,
    },
}

impl WorldFacts {
    /// The facts of stage `index`, when known.
    pub fn get(&self, index: usize) -> Option<&StageFacts> {
        self.stages.iter().find(|s| s.index == index)
    }

    /// These facts with `facts` added (replacing any of the same stage),
    /// kept in recipe order.
    pub fn with(mut self, facts: StageFacts) -> WorldFacts {
        self.stages.retain(|s| s.index != facts.index);
        self.stages.push(facts);
        self.stages.sort_by_key(|s| s.index);
        self
    }

    /// As pretty JSON (f32 values print as their shortest exact decimal,
    /// so they read back to the same bits).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| String::from("{\"stages\":[]}"))
    }

    /// Parses and checks a facts file's text.
    pub fn from_json(text: &str) -> Result<WorldFacts, FactsError> {
        let facts: WorldFacts =
            serde_json::from_str(text).map_err(|e| FactsError::Syntax(e.to_string()))?;
        for (i, s) in facts.stages.iter().enumerate() {
            if facts.stages[..i].iter().any(|t| t.index == s.index) {
                return Err(FactsError::Duplicate(s.index));
            }
            if !(s.min.is_finite() && s.max.is_finite() && s.min <= s.max) {
                return Err(FactsError::BadRange {
                    index: s.index,
                    min: s.min,
                    max: s.max,
                });
            }
        }
        Ok(facts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_reduce_to_the_extremes_and_round_trip_exactly() {
        let r = |min: f32, max: f32| StageFacts {
            index: 3,
            kind: "normalize".into(),
            min,
            max,
        };
        let reports = [r(-1.5, 2.0), r(0.1, 7.25), r(-0.3, 1.0e-7)];
        let world = StageFacts::reduce(&reports).unwrap();
        assert_eq!((world.min, world.max), (-1.5, 7.25));
        let odd = StageFacts {
            index: 4,
            ..r(0.0, 1.0)
        };
        assert!(StageFacts::reduce([&reports[0], &odd]).is_none());
        let tricky = r(0.1 + 0.2, 1.0 / 3.0);
        let facts = WorldFacts::default().with(tricky.clone());
        let back = WorldFacts::from_json(&facts.to_json()).unwrap();
        assert_eq!(back.stages[0].min.to_bits(), tricky.min.to_bits());
        assert_eq!(back.stages[0].max.to_bits(), tricky.max.to_bits());
        assert!(matches!(
            WorldFacts::from_json(
                "{\"stages\":[{\"index\":1,\"kind\":\"x\",\"min\":2.0,\"max\":1.0}]}"
            ),
            Err(FactsError::BadRange { .. })
        ));
        assert!(matches!(
            WorldFacts::from_json("nope"),
            Err(FactsError::Syntax(_))
        ));
    }
}
