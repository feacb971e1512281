//! Comparing two samplings of one world: the heights at the lattice
//! points they share, and how well they agree.

use crate::heightmap::Heightmap;

/// The heights of `coarse` and `fine` at the points both sample: every
/// `k`-th cell of `fine`, where `fine` has `k` times as many cell steps
/// per side (sizes `2^n + 1`, say). `None` if the sizes do not nest.
pub fn shared_points(coarse: &Heightmap, fine: &Heightmap) -> Option<(Vec<f32>, Vec<f32>)> {
    let steps = |m: &Heightmap| (m.width() - 1, m.height() - 1);
    let ((cw, ch), (fw, fh)) = (steps(coarse), steps(fine));
    if cw == 0 || ch == 0 || fw % cw != 0 || fh % ch != 0 || fw / cw != fh / ch {
        return None;
    }
    let k = fw / cw;
    let mut a = Vec::with_capacity(coarse.data().len());
    let mut b = Vec::with_capacity(coarse.data().len());
    for y in 0..=ch {
        for x in 0..=cw {
            a.push(coarse.get(x, y));
            b.push(fine.get(k * x, k * y));
        }
    }
    Some((a, b))
}

/// Pearson's correlation of two equally long series (1 = the same shape
/// up to scale and offset); 0 when either is constant.
pub fn pearson(a: &[f32], b: &[f32]) -> f64 {
    let n = a.len().min(b.len()) as f64;
    if n == 0.0 {
        return 0.0;
    }
    let mean = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>() / n;
    let (ma, mb) = (mean(a), mean(b));
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (&x, &y) in a.iter().zip(b) {
        let (dx, dy) = (x as f64 - ma, y as f64 - mb);
        sab += dx * dy;
        saa += dx * dx;
        sbb += dy * dy;
    }
    if saa == 0.0 || sbb == 0.0 {
        return 0.0;
    }
    sab / (saa * sbb).sqrt()
}

/// Pearson's correlation of two samplings at their shared points.
pub fn shared_correlation(coarse: &Heightmap, fine: &Heightmap) -> Option<f64> {
    shared_points(coarse, fine).map(|(a, b)| pearson(&a, &b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_points_of_nested_sizes() {
        let fine = Heightmap::from_vec(5, 5, (0..25).map(|v| v as f32).collect()).unwrap();
        let coarse = Heightmap::from_vec(
            3,
            3,
            vec![0.0, 2.0, 4.0, 10.0, 12.0, 14.0, 20.0, 22.0, 24.0],
        )
        .unwrap();
        let (a, b) = shared_points(&coarse, &fine).unwrap();
        assert_eq!(a, b);
        assert!((pearson(&a, &b) - 1.0).abs() < 1e-12);
        let negated: Vec<f32> = b.iter().map(|v| -v).collect();
        assert!((pearson(&a, &negated) + 1.0).abs() < 1e-12);
        assert!(shared_points(&Heightmap::new(4, 4), &fine).is_none());
    }
}
