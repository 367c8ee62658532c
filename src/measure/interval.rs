//! Confidence intervals for repeated measurements of one point, and the rule
//! that decides when a point has been measured well enough.
//!
//! A point (one concurrency, one request rate) is measured `n` times; the
//! samples x₁ … xₙ are taken as independent draws from one distribution
//! with mean μ. The interval for μ at confidence `c` is Student's:
//!
//! ```text
//!   x̄ ± t · s / √n        x̄ = Σxᵢ / n,   s² = Σ(xᵢ − x̄)² / (n − 1)
//!
//!   t = t_{(1+c)/2, n−1}: the two-sided critical value, P(|T| ≤ t) = c
//!   for T with n − 1 degrees of freedom.
//!
//!        ▁▂▅█▅▂▁         density of T; the shaded middle holds c,
//!   ───▁▂▃█████▃▂▁───    each tail (1 − c) / 2
//!        -t  0  t
//! ```
//!
//! The critical value is exact (to about 1e-12) for any confidence and any
//! degrees of freedom up to 1000: the two-sided tail of Student's t is a
//! regularised incomplete beta function (Abramowitz & Stegun 26.7.1, 26.5.27),
//!
//! ```text
//!   P(|T| > t) = I_x(ν/2, 1/2),   x = ν / (ν + t²),
//! ```
//!
//! evaluated by its continued fraction (A&S 26.5.8, Lentz's method, as in
//! Press et al., "Numerical Recipes", 3rd ed., §6.4) and inverted by
//! bisection. Above 1000 degrees of freedom it is the Cornish–Fisher
//! expansion around the normal quantile z (A&S 26.7.5; its next term is
//! below 1e-12 there), and at ν = ∞ it is z itself (Acklam's rational
//! approximation, relative error below 1.2e-9).
//!
//! A [`Stopper`] turns the interval into a stopping rule: measure at least
//! `min_samples` times, then stop as soon as the half-width is within a
//! fraction of the mean, or at `max_samples` whatever it says (Jain, "The
//! Art of Computer Systems Performance Analysis", 1991, §13.9: the number
//! of repetitions for a given accuracy).

/// A confidence interval for a mean: `mean ± half_width`, from `n` samples.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Interval {
    pub mean: f64,
    pub half_width: f64,
    pub n: usize,
}

impl Interval {
    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }

    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }

    /// The half-width as a fraction of the mean's magnitude: 0.05 means
    /// "within ±5 %". It is 0 when the half-width is 0 (all samples equal,
    /// zeros included) and infinite when only the mean is 0.
    pub fn relative_half_width(&self) -> f64 {
        if self.half_width == 0.0 {
            0.0
        } else {
            self.half_width / self.mean.abs()
        }
    }
}

/// Student's t interval for the mean of `samples` at `confidence` (0.95
/// for 95 %). None for fewer than two samples or when a sample is not
/// finite.
///
/// # Panics
///
/// When `confidence` is not strictly between 0 and 1.
pub fn mean_ci(samples: &[f64], confidence: f64) -> Option<Interval> {
    check_confidence(confidence);
    let n = samples.len();
    if n < 2 || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let nf = n as f64;
    // two passes: the deviations from the mean keep their digits when the
    // spread is small beside the mean
    let mean = samples.iter().sum::<f64>() / nf;
    let ss: f64 = samples.iter().map(|x| (x - mean).powi(2)).sum();
    let sd = (ss / (nf - 1.0)).sqrt();
    let half_width = t_critical(confidence, nf - 1.0) * sd / nf.sqrt();
    Some(Interval {
        mean,
        half_width,
        n,
    })
}

/// The two-sided critical value of Student's t with `df` degrees of
/// freedom: the `t` with P(|T| ≤ t) = `confidence`, that is the
/// (1 + confidence)/2 quantile. `t_critical(0.95, 4.0)` = 2.776. `df` need
/// not be whole; `f64::INFINITY` gives the normal quantile (1.960 at 0.95).
///
/// # Panics
///
/// When `confidence` is not strictly between 0 and 1 or `df` is not
/// positive.
pub fn t_critical(confidence: f64, df: f64) -> f64 {
    check_confidence(confidence);
    assert!(df > 0.0, "degrees of freedom must be positive, not {df}");
    let p = 0.5 + confidence / 2.0;
    if df.is_infinite() {
        normal_quantile(p)
    } else if df > CORNISH_FISHER_ABOVE {
        cornish_fisher(normal_quantile(p), df)
    } else {
        t_by_bisection(1.0 - confidence, df)
    }
}

/// The two-sided tail of Student's t with `df` degrees of freedom:
/// P(|T| ≥ |t|) = I_{ν/(ν+t²)}(ν/2, 1/2), the p-value of a t statistic.
/// `t_two_sided_p(2.776, 4.0)` ≈ 0.05; an infinite `t` gives 0.
///
/// # Panics
///
/// When `df` is not positive.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    assert!(df > 0.0, "degrees of freedom must be positive, not {df}");
    if t.is_infinite() {
        return 0.0;
    }
    if df.is_infinite() {
        // the normal tail, through the same function at a large ν
        return reg_inc_beta(0.5e7, 0.5, 1e7 / (1e7 + t * t));
    }
    reg_inc_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

fn check_confidence(confidence: f64) {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence must be between 0 and 1 (0.95 for 95 %), not {confidence}"
    );
}

/// Degrees of freedom above which the expansion replaces the exact inverse.
const CORNISH_FISHER_ABOVE: f64 = 1000.0;

/// The t whose two-sided tail I_{ν/(ν+t²)}(ν/2, 1/2) is `alpha`: the tail
/// falls as t grows, so double an upper bound until it is passed, then
/// halve the bracket down to the last bits.
fn t_by_bisection(alpha: f64, df: f64) -> f64 {
    let tail = |t: f64| reg_inc_beta(df / 2.0, 0.5, df / (df + t * t));
    let (mut lo, mut hi) = (0.0, 1.0);
    while tail(hi) > alpha {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if tail(mid) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Cornish–Fisher expansion of the t quantile in powers of 1/ν around the
/// normal quantile z (A&S 26.7.5).
fn cornish_fisher(z: f64, df: f64) -> f64 {
    let z2 = z * z;
    let g1 = z * (z2 + 1.0) / 4.0;
    let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
}

/// The standard normal quantile Φ⁻¹(p), 0 < p < 1: Peter J. Acklam's
/// rational approximation (2003), relative error below 1.15e-9.
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const P_LOW: f64 = 0.024_25;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < P_LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - P_LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// The regularised incomplete beta function I_x(a, b), a, b > 0: the
/// continued fraction where it converges fast, else through the symmetry
/// I_x(a, b) = 1 − I_{1−x}(b, a).
fn reg_inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of I_x(a, b) (A&S 26.5.8) by the modified Lentz
/// method.
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-15;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    // one step of the method: the fraction's next term `aa` into d and c
    // (kept away from zero); returns the factor it changes h by
    let mut step = |aa: f64| {
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        d * c
    };
    for m in 1..10_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        // the even step
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        // the odd step
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0: Lanczos's approximation (g = 7, nine terms; relative
/// error near 1e-15), with the reflection formula below 1/2.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEF[0];
    for (i, &c) in COEF.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// Why a [`Stopper`] cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StopperError {
    #[error("the target relative half-width must be positive and finite, not {0}")]
    Target(f64),
    #[error("the confidence must be between 0 and 1 (0.95 for 95 %), not {0}")]
    Confidence(f64),
    #[error("at least 2 samples are needed for an interval, not {0}")]
    MinSamples(usize),
    #[error("the most samples ({max}) must be at least the fewest ({min})")]
    MaxBelowMin { min: usize, max: usize },
}

/// When a point has been measured well enough: at least `min_samples`
/// samples and the `confidence` interval of their mean within
/// `target_rel_half_width` of it (0.05: ±5 %), or `max_samples` samples
/// whatever the interval says.
///
/// Invariants (checked by [`Stopper::new`]): 0 < target < ∞,
/// 0 < confidence < 1, 2 ≤ min_samples ≤ max_samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stopper {
    target_rel_half_width: f64,
    confidence: f64,
    min_samples: usize,
    max_samples: usize,
}

impl Stopper {
    pub fn new(
        target_rel_half_width: f64,
        confidence: f64,
        min_samples: usize,
        max_samples: usize,
    ) -> Result<Stopper, StopperError> {
        if !(target_rel_half_width > 0.0 && target_rel_half_width.is_finite()) {
            return Err(StopperError::Target(target_rel_half_width));
        }
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(StopperError::Confidence(confidence));
        }
        if min_samples < 2 {
            return Err(StopperError::MinSamples(min_samples));
        }
        if max_samples < min_samples {
            return Err(StopperError::MaxBelowMin {
                min: min_samples,
                max: max_samples,
            });
        }
        Ok(Stopper {
            target_rel_half_width,
            confidence,
            min_samples,
            max_samples,
        })
    }

    pub fn target_rel_half_width(&self) -> f64 {
        self.target_rel_half_width
    }

    pub fn confidence(&self) -> f64 {
        self.confidence
    }

    pub fn min_samples(&self) -> usize {
        self.min_samples
    }

    pub fn max_samples(&self) -> usize {
        self.max_samples
    }

    /// The interval of `samples` at this stopper's confidence (None for
    /// fewer than two or a sample that is not finite).
    pub fn interval(&self, samples: &[f64]) -> Option<Interval> {
        mean_ci(samples, self.confidence)
    }

    /// Whether to stop measuring: `max_samples` reached, or `min_samples`
    /// reached and the relative half-width at most the target. Samples
    /// that are not finite never make a tight interval, so they run to the
    /// maximum.
    pub fn done(&self, samples: &[f64]) -> bool {
        let n = samples.len();
        if n >= self.max_samples {
            return true;
        }
        n >= self.min_samples
            && self
                .interval(samples)
                .is_some_and(|ci| ci.relative_half_width() <= self.target_rel_half_width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) -> bool {
        (got - want).abs() <= tol
    }

    #[test]
    fn t_matches_the_tables_to_three_decimals() {
        // (two-sided confidence, df, the (1+c)/2 quantile from the tables)
        let table = [
            (0.95, 1.0, 12.706),
            (0.95, 2.0, 4.303),
            (0.95, 4.0, 2.776),
            (0.95, 9.0, 2.262),
            (0.95, 30.0, 2.042),
            (0.95, 60.0, 2.000),
            (0.95, 120.0, 1.980),
            (0.90, 1.0, 6.314),
            (0.90, 10.0, 1.812),
            (0.90, 30.0, 1.697),
            (0.99, 1.0, 63.657),
            (0.99, 5.0, 4.032),
            (0.99, 20.0, 2.845),
            (0.99, 120.0, 2.617),
        ];
        for (c, df, want) in table {
            let got = t_critical(c, df);
            assert!(close(got, want, 5e-4), "t({c}, {df}) = {got}, want {want}");
        }
    }

    #[test]
    fn t_at_infinity_is_the_normal_quantile() {
        assert!(close(t_critical(0.95, f64::INFINITY), 1.959_964, 1e-6));
        assert!(close(t_critical(0.90, f64::INFINITY), 1.644_854, 1e-6));
        assert!(close(t_critical(0.99, f64::INFINITY), 2.575_829, 1e-6));
        // and the finite values come down to it
        let big = t_critical(0.95, 1e7);
        assert!(big > 1.959_964 && close(big, 1.959_964, 1e-6));
    }

    #[test]
    fn t_is_continuous_where_the_method_changes() {
        // the exact inverse and the expansion agree where one hands over
        for c in [0.5, 0.9, 0.95, 0.99, 0.999] {
            for df in [200.0, 1000.0] {
                let exact = t_by_bisection(1.0 - c, df);
                let series = cornish_fisher(normal_quantile(0.5 + c / 2.0), df);
                assert!(
                    close(exact, series, 1e-8),
                    "c {c} df {df}: {exact} vs {series}"
                );
            }
        }
    }

    #[test]
    fn t_falls_with_df_and_rises_with_confidence() {
        let mut last = f64::INFINITY;
        for df in (1..=200).map(f64::from) {
            let t = t_critical(0.95, df);
            assert!(t < last, "df {df}");
            last = t;
        }
        assert!(last > t_critical(0.95, 2000.0));
        assert!(t_critical(0.90, 7.0) < t_critical(0.95, 7.0));
        assert!(t_critical(0.95, 7.0) < t_critical(0.99, 7.0));
        // fractional df sit between their neighbours
        let t = t_critical(0.95, 2.5);
        assert!(t < t_critical(0.95, 2.0) && t > t_critical(0.95, 3.0));
    }

    #[test]
    fn incomplete_beta_known_values() {
        // I_x(1, 1) = x; I_x(a, 1) = x^a; I_{1/2}(a, a) = 1/2
        assert!(close(reg_inc_beta(1.0, 1.0, 0.3), 0.3, 1e-14));
        assert!(close(reg_inc_beta(3.0, 1.0, 0.6), 0.216, 1e-14));
        assert!(close(reg_inc_beta(4.5, 4.5, 0.5), 0.5, 1e-14));
        assert!(close(ln_gamma(5.0), 24f64.ln(), 1e-13));
        assert!(close(
            ln_gamma(0.5),
            std::f64::consts::PI.sqrt().ln(),
            1e-13
        ));
    }

    #[test]
    fn interval_of_known_samples() {
        // mean 5, s² = 2.5, n = 5: half-width = 2.776 · √(2.5/5)
        let ci = mean_ci(&[3.0, 4.0, 5.0, 6.0, 7.0], 0.95).unwrap();
        assert_eq!(ci.n, 5);
        assert_eq!(ci.mean, 5.0);
        assert!(close(ci.half_width, 2.776_445 * 0.5f64.sqrt(), 1e-5));
        assert!(close(ci.relative_half_width(), ci.half_width / 5.0, 1e-15));
        assert!(ci.low() < 5.0 && ci.high() > 5.0);
        // a higher confidence widens it
        assert!(
            mean_ci(&[3.0, 4.0, 5.0, 6.0, 7.0], 0.99)
                .unwrap()
                .half_width
                > ci.half_width
        );
    }

    #[test]
    fn interval_edge_cases() {
        assert_eq!(mean_ci(&[], 0.95), None);
        assert_eq!(mean_ci(&[1.0], 0.95), None);
        assert_eq!(mean_ci(&[1.0, f64::NAN], 0.95), None);
        assert_eq!(mean_ci(&[1.0, f64::INFINITY], 0.95), None);
        // equal samples: no spread at all
        let ci = mean_ci(&[7.0; 4], 0.95).unwrap();
        assert_eq!(
            (ci.mean, ci.half_width, ci.relative_half_width()),
            (7.0, 0.0, 0.0)
        );
        let ci = mean_ci(&[0.0; 3], 0.95).unwrap();
        assert_eq!(ci.relative_half_width(), 0.0);
        // a zero mean with spread is infinitely loose
        let ci = mean_ci(&[-1.0, 1.0], 0.95).unwrap();
        assert_eq!(ci.relative_half_width(), f64::INFINITY);
        // negative means use their magnitude
        let ci = mean_ci(&[-9.0, -11.0], 0.95).unwrap();
        assert!(close(ci.relative_half_width(), ci.half_width / 10.0, 1e-15));
        // a small spread on a large mean keeps its digits
        let ci = mean_ci(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0], 0.95).unwrap();
        assert!(close(ci.half_width, 4.302_653 / 3f64.sqrt(), 1e-5));
    }

    #[test]
    #[should_panic(expected = "confidence")]
    fn interval_refuses_a_confidence_of_one() {
        mean_ci(&[1.0, 2.0], 1.0);
    }

    #[test]
    fn stopper_refuses_what_cannot_work() {
        assert_eq!(
            Stopper::new(0.0, 0.95, 3, 10),
            Err(StopperError::Target(0.0))
        );
        assert!(Stopper::new(f64::NAN, 0.95, 3, 10).is_err());
        assert!(Stopper::new(f64::INFINITY, 0.95, 3, 10).is_err());
        assert_eq!(
            Stopper::new(0.05, 95.0, 3, 10),
            Err(StopperError::Confidence(95.0))
        );
        assert!(Stopper::new(0.05, 0.0, 3, 10).is_err());
        assert_eq!(
            Stopper::new(0.05, 0.95, 1, 10),
            Err(StopperError::MinSamples(1))
        );
        assert_eq!(
            Stopper::new(0.05, 0.95, 5, 4),
            Err(StopperError::MaxBelowMin { min: 5, max: 4 })
        );
        let s = Stopper::new(0.05, 0.95, 3, 3).unwrap();
        assert_eq!(
            (
                s.target_rel_half_width(),
                s.confidence(),
                s.min_samples(),
                s.max_samples()
            ),
            (0.05, 0.95, 3, 3)
        );
    }

    #[test]
    fn stopper_waits_for_the_minimum() {
        let s = Stopper::new(0.05, 0.95, 3, 10).unwrap();
        // two identical samples are as tight as can be, but too few
        assert!(!s.done(&[]));
        assert!(!s.done(&[100.0]));
        assert!(!s.done(&[100.0, 100.0]));
        assert!(s.done(&[100.0, 100.0, 100.0]));
    }

    #[test]
    fn stopper_stops_when_tight() {
        let s = Stopper::new(0.05, 0.95, 3, 100).unwrap();
        // ±1 % around 100: t(0.95, 2) · 1 / √3 = 2.48 %
        assert!(s.done(&[99.0, 100.0, 101.0]));
        // ±10 %: 24.8 %, keep going
        assert!(!s.done(&[90.0, 100.0, 110.0]));
        // the same spread, more samples: the interval narrows below 5 %
        let mut v = Vec::new();
        while !s.done(&v) {
            v.push([90.0, 100.0, 110.0][v.len() % 3]);
        }
        let ci = s.interval(&v).unwrap();
        assert!(ci.relative_half_width() <= 0.05);
        assert!(s.interval(&v[..v.len() - 1]).unwrap().relative_half_width() > 0.05);
        assert!(v.len() > 3 && v.len() < 100, "{}", v.len());
    }

    #[test]
    fn stopper_gives_up_at_the_maximum() {
        let s = Stopper::new(0.01, 0.99, 2, 5).unwrap();
        let wild = [1.0, 100.0, 3.0, 50.0, 7.0, 80.0];
        for k in 0..5 {
            assert!(!s.done(&wild[..k]), "{k}");
        }
        assert!(s.done(&wild[..5]));
        assert!(s.done(&wild));
        // samples that never make an interval run to the maximum
        let nan = [f64::NAN; 5];
        assert!(!s.done(&nan[..4]));
        assert!(s.done(&nan));
    }

    #[test]
    fn stopper_target_is_inclusive() {
        // relative half-width exactly at the target stops
        let ci = mean_ci(&[99.0, 101.0], 0.95).unwrap();
        let s = Stopper::new(ci.relative_half_width(), 0.95, 2, 10).unwrap();
        assert!(s.done(&[99.0, 101.0]));
    }
}
