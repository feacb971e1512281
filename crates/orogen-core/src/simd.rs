//! Same bytes on every CPU.
//!
//! The hot row kernels (the heightmap's range and statistics, the hills'
//! cap rows, the hill features' rows, the place-keyed random words of a
//! lattice row, the fBm and ridged octave rows, the splat's slope and
//! texel rows, the flow receivers of a row) are compiled twice with the [`multiversion`] crate: once
//! for plain x86-64, whose vectors are SSE2's four `f32` lanes, and once
//! with the `avx2` target feature, eight lanes wide. The first call asks
//! the CPU what it has and later calls go to the copy it chose; other
//! architectures get the plain copy only.
//!
//! Both copies give the same bytes, so a recipe makes the same heightmap,
//! splat texture and exports on any machine:
//!
//! - No FMA target feature is enabled, so neither copy can contain a
//!   fused multiply-add, and Rust never fuses `a * b + c` into one by
//!   itself: it rounds twice, the same way, in both copies.
//! - Addition, subtraction, multiplication, division, square root,
//!   comparisons and conversions are IEEE 754 operations, rounded exactly
//!   the same whether SSE2 or AVX2 computes them. A wider vector computes
//!   more cells at once, never a different value for a cell.
//! - Sums that run in lanes keep a fixed order whatever the vector width.
//!   A kernel that splits a reduction into partial sums fixes their
//!   number and the cells each takes (eight lanes, lane j taking cells j,
//!   j + 8, …) and combines them in one order; the compiler vectorises
//!   loops whose cells are independent but never reorders a float sum.
//!
//! So a contributor must not:
//!
//! - enable `fma`, in a kernel's `targets(...)` list, a
//!   `#[target_feature]` or the shipped build's `-C target-cpu`;
//! - use `f32::mul_add` / `f64::mul_add` (or an FMA intrinsic) in a
//!   kernel: it rounds once where the plain arithmetic and the reference
//!   implementations round twice, and it is a hardware instruction or a
//!   library call depending on the target;
//! - reorder a reduction by target: pick its lane count, chunking or
//!   combining order from `cfg!(target_feature)`, a CPU check or the
//!   vector width.
//!
//! Approximations written as plain arithmetic (a polynomial `atan`, a
//! reciprocal multiply) are fine: both copies compute the same
//! expression. Calls into the C library's maths (`exp`, `cos`, `powf` in
//! some hill shapes and easings) are the same call from both copies, but
//! outside this rule: a C library may pick its own code by CPU.
//!
//! Each multiversioned kernel keeps its body in an `#[inline(always)]`
//! function (`<kernel>_body`; the heightmap's two share `lane_extremes`);
//! test builds add a `<kernel>_plain` copy without target features that
//! calls the same body. The tests here run
//! every kernel both ways on random inputs and compare the results bit
//! for bit, and fail if a kernel is multiversioned without being
//! compared. The loop vectoriser runs only at `opt-level` 2 and above, so
//! `cargo test --release -p orogen-core --lib simd` is the run that puts
//! the eight-lane code against the four-lane code; at the dev profile's
//! `opt-level` 1 both copies are mostly scalar.

/// The comparisons of the kernels' AVX2 and plain copies. Each kernel's
/// module adds one associated function here, so its private types and
/// modules stay private; [`tests`] runs them all.
#[cfg(test)]
pub(crate) struct KernelChecks;

#[cfg(test)]
impl KernelChecks {
    /// The first index where `a` and `b` differ in a bit, or where the
    /// shorter one ends.
    pub(crate) fn first_difference(a: &[f32], b: &[f32]) -> Option<usize> {
        let n = a.len().min(b.len());
        (0..n)
            .find(|&i| a[i].to_bits() != b[i].to_bits())
            .or((a.len() != b.len()).then_some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::KernelChecks;

    /// A comparison: `Err` says which kernel differed and where.
    type Check = fn(u64) -> Result<(), String>;

    /// Every multiversioned kernel, by name, with the comparison that
    /// covers it.
    const CHECKS: &[(&[&str], Check)] = &[
        (
            &["chunk_range", "chunk_stats"],
            KernelChecks::chunk_range_and_stats,
        ),
        (&["apply_row"], KernelChecks::apply_row),
        (&["add_cap_row"], KernelChecks::add_cap_row),
        (&["row_words"], KernelChecks::row_words),
        (&["fbm_row", "ridged_row"], KernelChecks::octave_rows),
        (&["slope_row"], KernelChecks::slope_row),
        (&["render_row"], KernelChecks::render_row),
        (&["receiver_row"], KernelChecks::receiver_row),
    ];

    fn has_avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Each kernel, as dispatched (the AVX2 copy where the CPU has it),
    /// against its plain copy on random inputs of many sizes, bit for bit.
    #[test]
    fn avx2_kernels_match_plain_bit_for_bit() {
        if !has_avx2() {
            eprintln!(
                "note: no AVX2 on this CPU (or not x86-64): the kernels dispatch to their \
                 plain copy, so both sides of each comparison are plain"
            );
        }
        if cfg!(target_feature = "avx2") {
            eprintln!(
                "note: this build enables AVX2 for all code (a -C target-cpu?), so the \
                 plain copies use AVX2 too"
            );
        }
        let mut failures = Vec::new();
        for (_, check) in CHECKS {
            // The message names the kernel; one per comparison is enough.
            if let Some(e) = (0..4).find_map(|seed| check(seed).err()) {
                failures.push(e);
            }
        }
        assert!(
            failures.is_empty(),
            "AVX2 and plain copies differ:\n{}",
            failures.join("\n")
        );
    }

    /// The name of the function after every `multiversion` attribute
    /// under `src/`.
    fn multiversioned_kernels() -> Vec<String> {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("source directory") {
                let path = entry.expect("directory entry").path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("source file");
                    let mut lines = text.lines().map(str::trim_start);
                    while let Some(line) = lines.next() {
                        // `#[multiversion::multiversion(` or, after a `use`,
                        // `#[multiversion(`.
                        if !line.starts_with("#[multiversion") {
                            continue;
                        }
                        let Some(signature) = lines.by_ref().find(|l| l.contains("fn ")) else {
                            panic!("{}: no function after the attribute", path.display());
                        };
                        let after = &signature[signature.find("fn ").unwrap() + 3..];
                        found.push(
                            after
                                .chars()
                                .take_while(|c| c.is_alphanumeric() || *c == '_')
                                .collect(),
                        );
                    }
                }
            }
        }
        let mut found = Vec::new();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        walk(&src, &mut found);
        found.sort();
        found
    }

    /// A kernel multiversioned without a comparison in [`CHECKS`] fails
    /// here, so no AVX2 copy goes unchecked.
    #[test]
    fn every_multiversioned_kernel_is_compared() {
        let mut checked: Vec<String> = CHECKS
            .iter()
            .flat_map(|(kernels, _)| kernels.iter().map(|k| k.to_string()))
            .collect();
        checked.sort();
        assert_eq!(
            multiversioned_kernels(),
            checked,
            "every multiversioned kernel needs a `_plain` copy and an entry in CHECKS"
        );
    }
}
