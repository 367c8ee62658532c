//! Request sizes: a gamma distribution with a given mean and coefficient of
//! variation, rounded to an alignment (docs/run.md).
//!
//! Chen & Patterson draw sizes "with a coefficient of variation of 1" around
//! sizeMean. A gamma distribution with shape k = 1/cv² and scale θ = mean·cv²
//! has exactly that mean and CV and is always positive; cv = 1 is the
//! exponential distribution. Each draw is rounded to the nearest multiple of
//! the alignment and clipped to [align, max]; `cv = 0` gives the fixed size
//! `mean` rounded the same way. Rounding and clipping move the realised mean
//! a little when sizeMean is within a few alignments of the floor; the run
//! reports the realised mean beside the requested one.

use super::Prng;
use rand_distr::{Distribution, Gamma};

#[derive(Clone, Debug)]
pub struct SizeDist {
    gamma: Option<Gamma<f64>>,
    fixed: u64,
    align: u64,
    max: u64,
}

impl SizeDist {
    /// `mean` bytes with coefficient of variation `cv`, multiples of `align`
    /// within [align, max]. `mean`, `align` > 0, `cv` ≥ 0, `max` ≥ `align`.
    pub fn new(mean: u64, cv: f64, align: u64, max: u64) -> Result<Self, String> {
        if mean == 0 || align == 0 {
            return Err("the mean size and the alignment must be positive".into());
        }
        if !(cv.is_finite() && cv >= 0.0) {
            return Err(format!(
                "the coefficient of variation must be ≥ 0, not {cv}"
            ));
        }
        let max = max - max % align;
        if max < align {
            return Err(format!("no request of at least {align} B fits in {max} B"));
        }
        let gamma = if cv == 0.0 {
            None
        } else {
            let shape = 1.0 / (cv * cv);
            let scale = mean as f64 * cv * cv;
            Some(Gamma::new(shape, scale).map_err(|e| format!("bad size distribution: {e}"))?)
        };
        let mut d = SizeDist {
            gamma,
            fixed: 0,
            align,
            max,
        };
        d.fixed = d.round(mean as f64);
        Ok(d)
    }

    #[inline]
    fn round(&self, x: f64) -> u64 {
        let units = (x / self.align as f64).round() as u64;
        (units * self.align).clamp(self.align, self.max)
    }

    #[inline]
    pub fn sample(&self, rng: &mut Prng) -> u64 {
        match &self.gamma {
            Some(g) => self.round(g.sample(rng)),
            None => self.fixed,
        }
    }

    pub fn max(&self) -> u64 {
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::worker_rng;

    fn moments(d: &SizeDist, n: usize) -> (f64, f64) {
        let mut r = worker_rng(9, 0);
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut r) as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        (mean, var.sqrt() / mean)
    }

    #[test]
    fn mean_and_cv_within_two_percent() {
        for (mean, cv) in [(64u64 << 10, 1.0), (256 << 10, 0.5), (1 << 20, 2.0)] {
            let d = SizeDist::new(mean, cv, 512, 1 << 40).unwrap();
            let (m, c) = moments(&d, 100_000);
            assert!((m / mean as f64 - 1.0).abs() < 0.02, "mean {m} for {mean}");
            assert!((c / cv - 1.0).abs() < 0.02, "cv {c} for {cv}");
        }
    }

    #[test]
    fn cv_zero_is_fixed_and_aligned() {
        let d = SizeDist::new(10_000, 0.0, 4096, 1 << 30).unwrap();
        let mut r = worker_rng(1, 0);
        assert!((0..1000).all(|_| d.sample(&mut r) == 8192));
    }

    #[test]
    fn clipped_to_align_and_max() {
        let d = SizeDist::new(8192, 3.0, 512, 20_000).unwrap();
        let mut r = worker_rng(2, 0);
        for _ in 0..10_000 {
            let s = d.sample(&mut r);
            assert!(s.is_multiple_of(512) && (512..=19_968).contains(&s), "{s}");
        }
    }

    #[test]
    fn bad_parameters() {
        assert!(SizeDist::new(0, 1.0, 512, 1 << 20).is_err());
        assert!(SizeDist::new(4096, -1.0, 512, 1 << 20).is_err());
        assert!(SizeDist::new(4096, 1.0, 4096, 1000).is_err());
    }
}
