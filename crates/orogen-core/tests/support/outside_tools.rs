//! Tests that need a program from outside orogen (GDAL, Python packages,
//! Xvfb) run under a harness of their own (libtest-mimic), so that a
//! missing tool marks the tests that need it ignored, `[skipped: <tool>
//! missing]`, and the summary counts them as ignored, not passed. In CI
//! (`CI` set) nothing is skipped: `scripts/test.sh` installs every tool,
//! and a test whose tool is missing fails.
//!
//! Shared by `orogen-core`'s and `orogen`'s tests (included by path).
#![allow(dead_code)]

use libtest_mimic::{Arguments, Failed, Trial};
use std::process::{Command, ExitCode};

/// Something a test needs from outside orogen.
#[derive(Clone, Copy)]
pub enum Tool {
    /// A program on the PATH, and where it comes from.
    Program(&'static str, &'static str),
    /// A Python 3 module, and the PyPI package that holds it.
    PythonModule(&'static str, &'static str),
}

impl Tool {
    /// Whether this machine has it.
    fn present(self) -> bool {
        match self {
            Tool::Program(name, _) => Command::new("sh")
                .args(["-c", &format!("command -v {name}")])
                .output()
                .is_ok_and(|o| o.status.success()),
            Tool::PythonModule(module, _) => Command::new("python3")
                .args(["-c", &format!("import {module}")])
                .output()
                .is_ok_and(|o| o.status.success()),
        }
    }

    /// Its name as the skip note gives it.
    fn describe(self) -> String {
        match self {
            Tool::Program(name, from) => format!("{name} ({from})"),
            Tool::PythonModule(module, package) => {
                format!("python3 module {module} (PyPI package {package})")
            }
        }
    }
}

/// The tools a set of tests needs, probed once.
pub struct Needs {
    missing: Option<String>,
}

impl Needs {
    /// Probes `tools`; the first missing one is the reason to skip.
    pub fn probe(tools: &[Tool]) -> Needs {
        Needs {
            missing: tools.iter().find(|t| !t.present()).map(|t| t.describe()),
        }
    }

    /// Nothing from outside.
    pub fn none() -> Needs {
        Needs { missing: None }
    }

    /// `body` as the test `name`: ignored as skipped when a tool is
    /// missing outside CI, failed when one is missing in CI.
    pub fn test(&self, name: &str, body: fn()) -> Trial {
        match (&self.missing, in_ci()) {
            (None, _) => Trial::test(name, move || {
                body();
                Ok(())
            }),
            (Some(tool), true) => {
                let message =
                    format!("{tool} is missing in CI: scripts/test.sh should have installed it");
                Trial::test(name, move || Err(Failed::from(message)))
            }
            (Some(tool), false) => Trial::test(name, move || {
                body();
                Ok(())
            })
            .with_ignored_flag(true)
            .with_kind(format!("skipped: {tool} missing")),
        }
    }
}

/// What the viewer needs to run under Xvfb with software Vulkan (the
/// Vulkan driver itself is found, or not, by the viewer).
pub fn xvfb() -> Needs {
    Needs::probe(&[Tool::Program("xvfb-run", "Debian package xvfb")])
}

/// What the drainage judges need: fastscapelib, and numpy and OpenEXR to
/// read orogen's float heights, with `also`.
pub fn fastscapelib(also: &[Tool]) -> Needs {
    let mut tools = vec![
        Tool::Program("python3", "Debian package python3"),
        Tool::PythonModule("fastscapelib", "fastscapelib"),
        Tool::PythonModule("OpenEXR", "OpenEXR"),
        Tool::PythonModule("numpy", "numpy"),
    ];
    tools.extend_from_slice(also);
    Needs::probe(&tools)
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// Runs `trials` as `cargo test` runs a test file (the same filters and
/// flags).
pub fn run(trials: Vec<Trial>) -> ExitCode {
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}
