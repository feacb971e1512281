//! One description of every stage parameter, walked by visitors.
//!
//! Each stage lists its parameters once, with range and help text, through
//! [`Params::visit`]. Validation, clamping, the viewer's panels and the
//! recipe reference are all visitors over that single list, so a range is
//! never written twice.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::RangeInclusive;

/// An inclusive `min..=max` pair edited as one parameter (a radius range,
/// a height range).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// Low end, inclusive.
    pub min: f32,
    /// High end, inclusive.
    pub max: f32,
}

impl Span {
    /// The span `min..=max`, usable in `const` contexts.
    pub const fn new(min: f32, max: f32) -> Self {
        Self { min, max }
    }
}

/// A closed set of named options (an enum shown as a combo box).
pub trait Choice: Copy + PartialEq + 'static {
    /// Every option, in the order the combo box lists them.
    const ALL: &'static [Self];
    /// The option's name as shown in the viewer and the recipe reference.
    fn label(self) -> &'static str;
    /// A one-line explanation of the option for tooltips; empty by default.
    fn help(self) -> &'static str {
        ""
    }
}

/// Something that can look at (and possibly edit) each parameter.
///
/// Every method has a default: leaves are ignored and a group visits its
/// members with this same visitor, so a visitor implements only the kinds
/// of parameter it cares about.
pub trait ParamVisitor: AsParamVisitor {
    /// A number in `range`.
    fn float(&mut self, _name: &str, _value: &mut f32, _range: RangeInclusive<f32>, _help: &str) {}
    /// A whole number in `range`.
    fn int(&mut self, _name: &str, _value: &mut u32, _range: RangeInclusive<u32>, _help: &str) {}
    /// A `min..max` pair, both in `range`.
    fn span(&mut self, _name: &str, _value: &mut Span, _range: RangeInclusive<f32>, _help: &str) {}
    /// An on/off switch.
    fn toggle(&mut self, _name: &str, _value: &mut bool, _help: &str) {}
    /// `index` selects one of `labels`.
    fn choice(&mut self, _name: &str, _index: &mut usize, _labels: &[&'static str], _help: &str) {}
    /// Free text (a file path, say).
    fn text(&mut self, _name: &str, _value: &mut String, _help: &str) {}
    /// An optional override: `None` means "derived automatically".
    fn optional_span(
        &mut self,
        _name: &str,
        _value: &mut Option<Span>,
        _range: RangeInclusive<f32>,
        _help: &str,
    ) {
    }
    /// An optional whole number: `None` means "derived automatically".
    fn optional_int(
        &mut self,
        _name: &str,
        _value: &mut Option<u32>,
        _range: RangeInclusive<u32>,
        _help: &str,
    ) {
    }
    /// A nested group of parameters (one hill layer, say).
    fn group(&mut self, _name: &str, body: &mut dyn FnMut(&mut dyn ParamVisitor)) {
        body(self.as_param_visitor());
    }
}

/// Lets [`ParamVisitor::group`]'s default hand the visitor itself to the
/// group's body; implemented for every visitor.
pub trait AsParamVisitor {
    /// This visitor as a trait object.
    fn as_param_visitor(&mut self) -> &mut dyn ParamVisitor;
}

impl<T: ParamVisitor> AsParamVisitor for T {
    fn as_param_visitor(&mut self) -> &mut dyn ParamVisitor {
        self
    }
}

/// Whether `value` is false: optional switches are left out of a saved
/// recipe while off, so files without them read the same.
pub fn is_false(value: &bool) -> bool {
    !*value
}

/// Visits an enum field as a choice.
pub fn visit_choice<C: Choice>(v: &mut dyn ParamVisitor, name: &str, value: &mut C, help: &str) {
    let labels: Vec<&'static str> = C::ALL.iter().map(|c| c.label()).collect();
    let mut index = C::ALL.iter().position(|c| c == value).unwrap_or(0);
    v.choice(name, &mut index, &labels, help);
    if let Some(&chosen) = C::ALL.get(index) {
        *value = chosen;
    }
}

/// A type whose parameters can be visited.
pub trait Params {
    /// Hands each parameter, with its name, range and help text, to `v`.
    fn visit(&mut self, v: &mut dyn ParamVisitor);
}

/// A parameter outside its allowed values.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// Where the parameter sits, dot-joined (`stages[2](blur).radius`, say).
    pub path: String,
    /// What is wrong with the value and which values are allowed.
    pub message: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ParamError {}

/// Checks every parameter; stops at the first error.
pub fn validate(params: &mut dyn Params, prefix: &str) -> Result<(), ParamError> {
    let mut checker = Validator {
        path: vec![prefix.to_string()],
        error: None,
    };
    params.visit(&mut checker);
    match checker.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Clamps every parameter into its range (and orders spans); returns whether
/// anything changed. Non-finite values become the range's low end.
pub fn clamp_all(params: &mut dyn Params) -> bool {
    let mut clamper = Clamper { changed: false };
    params.visit(&mut clamper);
    clamper.changed
}

fn fmt_range_f(range: &RangeInclusive<f32>) -> String {
    format!("{} to {}", range.start(), range.end())
}

struct Validator {
    path: Vec<String>,
    error: Option<ParamError>,
}

impl Validator {
    fn fail(&mut self, name: &str, message: String) {
        if self.error.is_none() {
            let mut path: Vec<&str> = self.path.iter().map(String::as_str).collect();
            path.retain(|p| !p.is_empty());
            path.push(name);
            self.error = Some(ParamError {
                path: path.join("."),
                message,
            });
        }
    }

    fn check_f(&mut self, name: &str, value: f32, range: &RangeInclusive<f32>) {
        if !value.is_finite() {
            self.fail(
                name,
                format!(
                    "{value} is not a finite number (allowed {})",
                    fmt_range_f(range)
                ),
            );
        } else if !range.contains(&value) {
            self.fail(
                name,
                format!("{value} is out of range (allowed {})", fmt_range_f(range)),
            );
        }
    }

    fn check_i(&mut self, name: &str, value: u32, range: &RangeInclusive<u32>) {
        if !range.contains(&value) {
            self.fail(
                name,
                format!(
                    "{value} is out of range (allowed {} to {})",
                    range.start(),
                    range.end()
                ),
            );
        }
    }
}

impl ParamVisitor for Validator {
    fn float(&mut self, name: &str, value: &mut f32, range: RangeInclusive<f32>, _: &str) {
        self.check_f(name, *value, &range);
    }
    fn int(&mut self, name: &str, value: &mut u32, range: RangeInclusive<u32>, _: &str) {
        self.check_i(name, *value, &range);
    }
    fn span(&mut self, name: &str, value: &mut Span, range: RangeInclusive<f32>, _: &str) {
        self.check_f(&format!("{name}.min"), value.min, &range);
        self.check_f(&format!("{name}.max"), value.max, &range);
        if value.min > value.max {
            self.fail(
                name,
                format!("min {} is greater than max {}", value.min, value.max),
            );
        }
    }
    fn optional_span(
        &mut self,
        name: &str,
        value: &mut Option<Span>,
        range: RangeInclusive<f32>,
        help: &str,
    ) {
        if let Some(v) = value {
            self.span(name, v, range, help);
        }
    }
    fn optional_int(
        &mut self,
        name: &str,
        value: &mut Option<u32>,
        range: RangeInclusive<u32>,
        _: &str,
    ) {
        if let Some(v) = value {
            self.check_i(name, *v, &range);
        }
    }
    fn group(&mut self, name: &str, body: &mut dyn FnMut(&mut dyn ParamVisitor)) {
        self.path.push(name.to_string());
        body(self);
        self.path.pop();
    }
}

struct Clamper {
    changed: bool,
}

fn clamp_f(value: &mut f32, range: &RangeInclusive<f32>) -> bool {
    let clamped = if value.is_finite() {
        value.clamp(*range.start(), *range.end())
    } else {
        *range.start()
    };
    let changed = clamped != *value;
    *value = clamped;
    changed
}

fn clamp_i(value: &mut u32, range: &RangeInclusive<u32>) -> bool {
    let clamped = (*value).clamp(*range.start(), *range.end());
    let changed = clamped != *value;
    *value = clamped;
    changed
}

impl ParamVisitor for Clamper {
    fn float(&mut self, _: &str, value: &mut f32, range: RangeInclusive<f32>, _: &str) {
        self.changed |= clamp_f(value, &range);
    }
    fn int(&mut self, _: &str, value: &mut u32, range: RangeInclusive<u32>, _: &str) {
        self.changed |= clamp_i(value, &range);
    }
    fn span(&mut self, _: &str, value: &mut Span, range: RangeInclusive<f32>, _: &str) {
        self.changed |= clamp_f(&mut value.min, &range);
        self.changed |= clamp_f(&mut value.max, &range);
        if value.min > value.max {
            std::mem::swap(&mut value.min, &mut value.max);
            self.changed = true;
        }
    }
    fn optional_span(
        &mut self,
        name: &str,
        value: &mut Option<Span>,
        range: RangeInclusive<f32>,
        help: &str,
    ) {
        if let Some(v) = value {
            self.span(name, v, range, help);
        }
    }
    fn optional_int(
        &mut self,
        _: &str,
        value: &mut Option<u32>,
        range: RangeInclusive<u32>,
        _: &str,
    ) {
        if let Some(v) = value {
            self.changed |= clamp_i(v, &range);
        }
    }
}

/// Renders the parameter list as Markdown table rows (for the recipe
/// reference in the docs).
pub fn reference_rows(params: &mut dyn Params) -> Vec<String> {
    struct Lister {
        prefix: Vec<String>,
        rows: Vec<String>,
    }
    impl Lister {
        fn push(&mut self, name: &str, allowed: String, current: String, help: &str) {
            let mut path = self.prefix.clone();
            path.push(name.to_string());
            self.rows.push(format!(
                "| `{}` | {} | {} | {} |",
                path.join("."),
                allowed,
                current,
                help
            ));
        }
    }
    impl ParamVisitor for Lister {
        fn float(&mut self, name: &str, value: &mut f32, range: RangeInclusive<f32>, help: &str) {
            self.push(name, fmt_range_f(&range), value.to_string(), help);
        }
        fn int(&mut self, name: &str, value: &mut u32, range: RangeInclusive<u32>, help: &str) {
            self.push(
                name,
                format!("{} to {}", range.start(), range.end()),
                value.to_string(),
                help,
            );
        }
        fn span(&mut self, name: &str, value: &mut Span, range: RangeInclusive<f32>, help: &str) {
            self.push(
                name,
                format!("(min: _, max: _), each {}, min ≤ max", fmt_range_f(&range)),
                format!("(min: {}, max: {})", value.min, value.max),
                help,
            );
        }
        fn toggle(&mut self, name: &str, value: &mut bool, help: &str) {
            self.push(name, "true / false".into(), value.to_string(), help);
        }
        fn choice(&mut self, name: &str, index: &mut usize, labels: &[&'static str], help: &str) {
            let current = labels.get(*index).copied().unwrap_or_default();
            self.push(name, labels.join(", "), current.to_string(), help);
        }
        fn text(&mut self, name: &str, value: &mut String, help: &str) {
            self.push(name, "text".into(), format!("\"{value}\""), help);
        }
        fn optional_span(
            &mut self,
            name: &str,
            value: &mut Option<Span>,
            range: RangeInclusive<f32>,
            help: &str,
        ) {
            let current = match value {
                Some(s) => format!("Some((min: {}, max: {}))", s.min, s.max),
                None => "None (derived)".to_string(),
            };
            self.push(
                name,
                format!(
                    "None or Some((min: _, max: _)), each {}",
                    fmt_range_f(&range)
                ),
                current,
                help,
            );
        }
        fn optional_int(
            &mut self,
            name: &str,
            value: &mut Option<u32>,
            range: RangeInclusive<u32>,
            help: &str,
        ) {
            self.push(
                name,
                format!("None or Some({} to {})", range.start(), range.end()),
                format!("{value:?}"),
                help,
            );
        }
        fn group(&mut self, name: &str, body: &mut dyn FnMut(&mut dyn ParamVisitor)) {
            self.prefix.push(name.to_string());
            body(self);
            self.prefix.pop();
        }
    }
    let mut lister = Lister {
        prefix: Vec::new(),
        rows: Vec::new(),
    };
    params.visit(&mut lister);
    lister.rows
}
