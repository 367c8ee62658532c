//! Is a difference real? The statistics of `--repeat` and `iogauge compare`.
//!
//! * [`Spread`]: the mean of repeated measurements of one metric, its
//!   standard deviation, Student's t interval for the mean and the
//!   coefficient of variation (sd / mean).
//! * [`welch`]: Welch's unequal-variances t-test of two sets of repeats
//!   (Welch 1947). With sample means x̄, ȳ, variances s², and sizes n, m:
//!
//!   ```text
//!   t = (ȳ − x̄) / √(s²ₓ/n + s²ᵧ/m)
//!   ν = (s²ₓ/n + s²ᵧ/m)² / ( (s²ₓ/n)²/(n−1) + (s²ᵧ/m)²/(m−1) )   (Welch–Satterthwaite)
//!   p = P(|T_ν| ≥ |t|)                                               (two-sided)
//!   ```
//!
//! * [`bootstrap_mean_diff`]: one run against one run, from the per-interval
//!   throughput of each. Successive intervals are correlated (a cache fills,
//!   a device's write buffer drains), so single values are not resampled
//!   but blocks of `b = ⌈n^{1/3}⌉` successive intervals, wrapping round the
//!   end: the circular block bootstrap (Politis & Romano 1992; Künsch 1989
//!   for the moving-block version; `n^{1/3}` is the order of the optimal
//!   block length, Hall, Horowitz & Jing 1995). Each resample draws both
//!   series again and takes the difference of their means; the interval
//!   is the percentile interval of those differences.

use super::interval::{mean_ci, t_two_sided_p};

/// Repeated measurements of one metric, summarised.
///
/// Invariant: `n` ≥ 1; with one sample the spread and interval are absent.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Spread {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator); None for n = 1.
    pub stddev: Option<f64>,
    /// Student's t interval for the mean at the confidence asked.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// Coefficient of variation, stddev / |mean|; None for n = 1 or a zero
    /// mean.
    pub cv: Option<f64>,
}

impl Spread {
    /// The spread of `samples` at `confidence` (0.95 for 95 %). None when
    /// there is no sample or one is not finite.
    pub fn of(samples: &[f64], confidence: f64) -> Option<Spread> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let n = samples.len();
        let mean = samples.iter().sum::<f64>() / n as f64;
        let Some(ci) = mean_ci(samples, confidence) else {
            return Some(Spread {
                n,
                mean,
                stddev: None,
                ci_low: None,
                ci_high: None,
                cv: None,
            });
        };
        let sd = variance(samples).sqrt();
        Some(Spread {
            n,
            mean,
            stddev: Some(sd),
            ci_low: Some(ci.low()),
            ci_high: Some(ci.high()),
            cv: (mean != 0.0).then(|| sd / mean.abs()),
        })
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Sample variance (n − 1), two passes.
fn variance(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() as f64 - 1.0)
}

/// The outcome of Welch's t-test of `new` against `base`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Welch {
    /// mean(new) − mean(base).
    pub diff: f64,
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Welch's t-test of `new` against `base`. None when either has fewer
/// than two samples or a sample is not finite. When both sets are
/// constant the difference is certain: p = 1 for equal means, else 0.
pub fn welch(base: &[f64], new: &[f64]) -> Option<Welch> {
    let finite = |x: &[f64]| x.len() >= 2 && x.iter().all(|v| v.is_finite());
    if !finite(base) || !finite(new) {
        return None;
    }
    let (n, m) = (base.len() as f64, new.len() as f64);
    let diff = mean(new) - mean(base);
    let (va, vb) = (variance(base) / n, variance(new) / m);
    let se2 = va + vb;
    if se2 == 0.0 {
        let (t, p) = if diff == 0.0 {
            (0.0, 1.0)
        } else {
            (diff.signum() * f64::INFINITY, 0.0)
        };
        return Some(Welch {
            diff,
            t,
            df: n + m - 2.0,
            p,
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (va * va / (n - 1.0) + vb * vb / (m - 1.0));
    Some(Welch {
        diff,
        t,
        df,
        p: t_two_sided_p(t, df),
    })
}

/// The bootstrap interval of mean(new) − mean(base).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BootDiff {
    /// mean(new) − mean(base) of the series as they are.
    pub diff: f64,
    pub low: f64,
    pub high: f64,
    /// Block lengths used for base and new.
    pub block_base: usize,
    pub block_new: usize,
    pub resamples: usize,
}

impl BootDiff {
    /// Whether the interval leaves out 0: a difference at that confidence.
    pub fn significant(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// The block length for a series of `n` intervals: ⌈n^{1/3}⌉.
pub fn block_len(n: usize) -> usize {
    ((n as f64).cbrt().ceil() as usize).clamp(1, n.max(1))
}

/// Circular block bootstrap of mean(new) − mean(base) at `confidence`,
/// `resamples` times, from `seed` (the same seed gives the same interval).
/// None when either series has fewer than two values or a value is not
/// finite.
pub fn bootstrap_mean_diff(
    base: &[f64],
    new: &[f64],
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> Option<BootDiff> {
    let ok = |x: &[f64]| x.len() >= 2 && x.iter().all(|v| v.is_finite());
    if !(ok(base) && ok(new) && resamples != 0 && confidence > 0.0 && confidence < 1.0) {
        return None;
    }
    let (ba, bb) = (block_len(base.len()), block_len(new.len()));
    let mut rng = SplitMix64(seed);
    let mut diffs: Vec<f64> = (0..resamples)
        .map(|_| resample_mean(new, bb, &mut rng) - resample_mean(base, ba, &mut rng))
        .collect();
    diffs.sort_by(f64::total_cmp);
    let q = |p: f64| {
        // the percentile by linear interpolation between order statistics
        let pos = p * (diffs.len() - 1) as f64;
        let (i, f) = (pos.floor() as usize, pos.fract());
        let next = diffs[(i + 1).min(diffs.len() - 1)];
        diffs[i] + f * (next - diffs[i])
    };
    let tail = (1.0 - confidence) / 2.0;
    Some(BootDiff {
        diff: mean(new) - mean(base),
        low: q(tail),
        high: q(1.0 - tail),
        block_base: ba,
        block_new: bb,
        resamples,
    })
}

/// The mean of one circular-block resample of `x` (as many values as `x`).
fn resample_mean(x: &[f64], block: usize, rng: &mut SplitMix64) -> f64 {
    let n = x.len();
    let mut sum = 0.0;
    let mut taken = 0;
    while taken < n {
        let start = rng.below(n as u64) as usize;
        for j in 0..block.min(n - taken) {
            sum += x[(start + j) % n];
        }
        taken += block.min(n - taken);
    }
    sum / n as f64
}

/// SplitMix64 (Steele, Lea & Flood 2014): small, fast, and the same
/// stream on every platform, which is all a bootstrap needs.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, n), n > 0 (Lemire's multiply-shift; the bias is
    /// below n / 2⁶⁴).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// By hand: base 1..5 (mean 3, s² 2.5), new 2,4,..,10 (mean 6, s² 10):
    /// se² = 2.5/5 + 10/5 = 2.5, t = 3/√2.5 = 1.897367,
    /// ν = 2.5² / (0.5²/4 + 2²/4) = 6.25 / 1.0625 = 5.882353.
    /// The p-value is the t-table's: between 0.10 (t = 2.015 at ν = 5,
    /// 1.943 at ν = 6) and 0.20 (1.476, 1.440), and by the incomplete beta
    /// 0.1075 (R: t.test(2*1:5, 1:5) gives p-value = 0.1075).
    #[test]
    fn welch_matches_hand_values() {
        let w = welch(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
        assert!(close(w.diff, 3.0, 1e-12));
        assert!(close(w.t, 1.897_366_596, 1e-8), "{}", w.t);
        assert!(close(w.df, 5.882_352_941, 1e-8), "{}", w.df);
        assert!(close(w.p, 0.1075, 5e-4), "{}", w.p);
        // symmetric: swapping the sides flips t, keeps p
        let r = welch(&[2.0, 4.0, 6.0, 8.0, 10.0], &[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!(close(r.t, -w.t, 1e-12) && close(r.p, w.p, 1e-12));
    }

    /// Equal variances and sizes: Welch's t is Student's, ν = 2n − 2.
    /// base 10,11,12 / new 13,14,15: t = 3/√(1/3+1/3) = 3.674235, ν = 4,
    /// p = 0.02131 (t-table: 3.495 at p 0.025 and 3.747 at 0.02 for ν = 4).
    #[test]
    fn welch_equal_variances_is_students_t() {
        let w = welch(&[10.0, 11.0, 12.0], &[13.0, 14.0, 15.0]).unwrap();
        assert!(close(w.df, 4.0, 1e-9));
        assert!(close(w.t, 3.674_234_614, 1e-8));
        assert!(w.p > 0.02 && w.p < 0.025, "{}", w.p);
        assert!(close(w.p, 0.021_312, 2e-5), "{}", w.p);
    }

    #[test]
    fn welch_edge_cases() {
        assert!(welch(&[1.0], &[1.0, 2.0]).is_none());
        assert!(welch(&[1.0, f64::NAN], &[1.0, 2.0]).is_none());
        let same = welch(&[5.0, 5.0], &[5.0, 5.0, 5.0]).unwrap();
        assert_eq!((same.t, same.p), (0.0, 1.0));
        let apart = welch(&[5.0, 5.0], &[6.0, 6.0]).unwrap();
        assert_eq!(apart.p, 0.0);
        assert!(apart.t.is_infinite() && apart.t > 0.0);
    }

    #[test]
    fn the_p_value_matches_the_critical_value() {
        assert!(close(t_two_sided_p(2.776_445, 4.0), 0.05, 1e-6));
        assert!(close(t_two_sided_p(12.706_205, 1.0), 0.05, 1e-6));
        assert!(close(t_two_sided_p(0.0, 7.0), 1.0, 1e-12));
        assert!(close(t_two_sided_p(1.959_964, f64::INFINITY), 0.05, 1e-4));
    }

    /// mean 10, s = 1 (9, 10, 11), t(0.95, 2) = 4.302653: the interval is
    /// 10 ± 4.302653/√3, the CV 0.1.
    #[test]
    fn spread_by_hand() {
        let s = Spread::of(&[9.0, 10.0, 11.0], 0.95).unwrap();
        assert_eq!(s.n, 3);
        assert!(close(s.mean, 10.0, 1e-12));
        assert!(close(s.stddev.unwrap(), 1.0, 1e-12));
        assert!(close(s.cv.unwrap(), 0.1, 1e-12));
        let hw = 4.302_652_73 / 3f64.sqrt();
        assert!(close(s.ci_low.unwrap(), 10.0 - hw, 1e-6));
        assert!(close(s.ci_high.unwrap(), 10.0 + hw, 1e-6));
        let one = Spread::of(&[4.0], 0.95).unwrap();
        assert_eq!((one.n, one.mean, one.stddev, one.cv), (1, 4.0, None, None));
        assert!(Spread::of(&[], 0.95).is_none());
        assert_eq!(Spread::of(&[0.0, 0.0], 0.95).unwrap().cv, None);
    }

    /// A noisy, autocorrelated synthetic series: an AR(1) process around
    /// `level` (φ = 0.5, 2 % noise), from its own seed.
    fn series(level: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = SplitMix64(seed);
        let mut e = 0.0;
        (0..n)
            .map(|_| {
                let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                e = 0.5 * e + u * 0.07 * level;
                level + e
            })
            .collect()
    }

    #[test]
    fn bootstrap_sees_a_20_percent_shift_and_not_a_zero_one() {
        let base = series(1000.0, 30, 1);
        let slower = series(800.0, 30, 2);
        let same = series(1000.0, 30, 3);
        let d = bootstrap_mean_diff(&base, &slower, 0.95, 2000, 7).unwrap();
        assert!(d.significant() && d.high < 0.0, "{d:?}");
        assert!(d.low < d.diff && d.diff < d.high);
        let z = bootstrap_mean_diff(&base, &same, 0.95, 2000, 7).unwrap();
        assert!(!z.significant(), "{z:?}");
        // the same seed, the same interval
        assert_eq!(z, bootstrap_mean_diff(&base, &same, 0.95, 2000, 7).unwrap());
        assert_eq!(d.block_base, 4); // ⌈30^{1/3}⌉
    }

    #[test]
    fn bootstrap_edge_cases() {
        assert!(bootstrap_mean_diff(&[1.0], &[1.0, 2.0], 0.95, 100, 1).is_none());
        assert!(bootstrap_mean_diff(&[1.0, 2.0], &[1.0, 2.0], 1.0, 100, 1).is_none());
        let c = bootstrap_mean_diff(&[3.0; 8], &[3.0; 8], 0.95, 100, 1).unwrap();
        assert_eq!((c.low, c.high, c.significant()), (0.0, 0.0, false));
        assert_eq!(block_len(1), 1);
        assert_eq!(block_len(8), 2);
        assert_eq!(block_len(9), 3);
    }
}
