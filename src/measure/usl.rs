//! Gunther's Universal Scalability Law, and its fit to measured throughput.
//!
//! With N requests in flight (closed loop: N workers), the throughput is
//!
//! ```text
//!                 λ N
//!   X(N) = ───────────────────────       λ > 0  throughput of one
//!          1 + σ (N − 1) + κ N (N − 1)   σ ≥ 0  contention (queueing on a shared resource)
//!                                        κ ≥ 0  coherency (pairwise crosstalk)
//! ```
//!
//! σ = κ = 0 is linear scaling; with κ = 0 throughput tends to λ/σ as N
//! grows: rising towards it when σ < 1 (Amdahl), flat at λ when σ = 1,
//! falling towards it when σ > 1 (each worker added costs more than it
//! brings); κ > 0 with σ < 1 has a peak, where dX/dN ∝ 1 − σ − κN²
//! vanishes, and falls beyond it:
//!
//! ```text
//!   X │              peak: N* = √((1 − σ)/κ)
//!     │         ▁▄▆████▆▅▄▃
//!     │      ▄██▀          ▀▀▀▄▄▂▁     retrograde (κ)
//!     │    ▄█▀
//!     │  ▄█▀   diminishing returns (σ)
//!     │ █▀
//!     │█  linear: λN
//!     └───────────────────────────────── N
//! ```
//!
//! The fit minimises Σ (Xᵢ − X(Nᵢ))² over λ, σ, κ with σ, κ ≥ 0; no point
//! at N = 1 is needed, λ is fitted like the others. It needs more distinct
//! concurrencies than the law has parameters (four or more): three
//! parameters go through any three points, and an R² of 1 from them says
//! nothing about the law. It starts from Gunther's
//! linearisation: N/X(N) = (1 + σ(N − 1) + κN(N − 1))/λ is linear in
//! (1, N − 1, N(N − 1)) with coefficients (1/λ, σ/λ, κ/λ), so an ordinary
//! least-squares fit of Nᵢ/Xᵢ gives λ, σ and κ at once. Levenberg–Marquardt
//! (Marquardt's scaling of the damping by the diagonal of JᵀJ, which makes
//! the steps indifferent to λ being a thousand times σ) then minimises the
//! residuals of the throughput itself, projecting σ and κ back to zero
//! when a step takes them below it. The bounds make four regions: both
//! free, σ = 0, κ = 0 and both zero; each is fitted and the best is kept,
//! the simpler one when it is as good (within 1e-12 of Σ Xᵢ²), so a
//! straight line fits with σ = κ = 0 exactly and no spurious far-off peak.
//!
//! Reference: Neil J. Gunther, "Guerrilla Capacity Planning", Springer,
//! 2007, chapters 4–5 (the law and its regression); Marquardt, "An
//! algorithm for least-squares estimation of nonlinear parameters", SIAM
//! J. Appl. Math. 11(2), 1963.

/// The law's three parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Usl {
    /// Throughput of one (the slope at the origin), > 0.
    pub lambda: f64,
    /// Contention, ≥ 0.
    pub sigma: f64,
    /// Coherency, ≥ 0.
    pub kappa: f64,
}

impl Usl {
    /// The law with these parameters, when they are finite, λ > 0 and
    /// σ, κ ≥ 0.
    pub fn new(lambda: f64, sigma: f64, kappa: f64) -> Option<Usl> {
        let ok = lambda > 0.0
            && lambda.is_finite()
            && sigma >= 0.0
            && sigma.is_finite()
            && kappa >= 0.0
            && kappa.is_finite();
        ok.then_some(Usl {
            lambda,
            sigma,
            kappa,
        })
    }

    /// X(N).
    pub fn throughput(&self, n: f64) -> f64 {
        self.lambda * n / self.denominator(n)
    }

    fn denominator(&self, n: f64) -> f64 {
        1.0 + self.sigma * (n - 1.0) + self.kappa * n * (n - 1.0)
    }

    /// The concurrency of the highest throughput, N* = √((1 − σ)/κ), when
    /// κ > 0 and σ < 1. None otherwise: with κ = 0 throughput rises for
    /// ever (σ = 0) or flattens towards λ/σ; with σ ≥ 1 no concurrency
    /// beats one. N* may be below 1 (throughput falls from the start) and
    /// is seldom whole: callers round and clamp it to what they can run.
    pub fn peak_concurrency(&self) -> Option<f64> {
        (self.kappa > 0.0 && self.sigma < 1.0).then(|| ((1.0 - self.sigma) / self.kappa).sqrt())
    }

    /// X(N*), when there is a peak (see [`Usl::peak_concurrency`]).
    pub fn peak_throughput(&self) -> Option<f64> {
        self.peak_concurrency().map(|n| self.throughput(n))
    }

    /// What the law says throughput does as concurrency grows, in words,
    /// throughputs in `unit`: where it peaks, or where it tends to.
    pub fn shape(&self, unit: &str) -> String {
        let (l, s) = (self.lambda, self.sigma);
        match self.peak_concurrency() {
            Some(n) if n >= 1.0 => format!(
                "a peak at N = {n:.1}: {:.1} {unit}, falling beyond it",
                self.throughput(n)
            ),
            Some(n) => format!(
                "throughput falls from N = 1 on (the peak, N = {n:.2}, is below one worker)"
            ),
            None if self.kappa > 0.0 => {
                "no peak above N = 1: throughput falls from N = 1 on (σ ≥ 1)".to_string()
            }
            None if s == 0.0 => {
                format!("no peak: throughput rises linearly, {l:.1} {unit} a worker")
            }
            None if s < 1.0 => format!(
                "no peak: throughput rises towards λ/σ = {:.1} {unit}",
                l / s
            ),
            None if s == 1.0 => format!("no peak: throughput stays at λ = {l:.1} {unit}"),
            None => format!(
                "no peak: throughput falls from λ = {l:.1} {unit} at N = 1 towards λ/σ = {:.1} {unit} (σ > 1: each worker added costs more than it brings)",
                l / s
            ),
        }
    }
}

/// A fitted law and how well it fits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub usl: Usl,
    /// Root of the mean squared residual, in throughput units.
    pub rmse: f64,
    /// 1 − SSE/SST; when every throughput is the same (SST = 0), 1 if the
    /// fit goes through them (rmse within 1e-9 of it) and 0 if not.
    pub r_squared: f64,
    /// The largest |fitted − measured| / measured.
    pub max_rel_error: f64,
    /// How many points were fitted.
    pub points: usize,
    /// How many distinct concurrencies they cover.
    pub concurrencies: usize,
}

/// The law's parameters (λ, σ, κ): a fit needs more distinct
/// concurrencies than this.
pub const PARAMETERS: usize = 3;

/// Why [`fit`] refused its points.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("the scalability law needs at least 4 points (more than its 3 parameters), got {0}")]
    TooFewPoints(usize),
    #[error(
        "point {index} (concurrency {n}, throughput {x}): concurrency must be at least 1 and throughput positive, both finite"
    )]
    BadPoint { index: usize, n: f64, x: f64 },
    #[error(
        "the scalability law needs at least 4 distinct concurrencies (more than its 3 parameters), got {0}"
    )]
    TooFewConcurrencies(usize),
    #[error("the scalability law fit did not converge to finite parameters")]
    Diverged,
}

/// Fit the law to `points`, each (concurrency N, throughput X): more
/// distinct N than the law's [`PARAMETERS`], N ≥ 1 and X > 0, all finite.
/// Repeated N are fine (several measurements of one point); the fit's
/// rmse, R² and largest error are all over `points`. See the module doc
/// for the method.
pub fn fit(points: &[(f64, f64)]) -> Result<Fit, FitError> {
    if points.len() <= PARAMETERS {
        return Err(FitError::TooFewPoints(points.len()));
    }
    for (index, &(n, x)) in points.iter().enumerate() {
        if !(n.is_finite() && n >= 1.0 && x.is_finite() && x > 0.0) {
            return Err(FitError::BadPoint { index, n, x });
        }
    }
    let mut ns: Vec<f64> = points.iter().map(|p| p.0).collect();
    ns.sort_by(f64::total_cmp);
    ns.dedup();
    if ns.len() <= PARAMETERS {
        return Err(FitError::TooFewConcurrencies(ns.len()));
    }

    let sum_sq: f64 = points.iter().map(|p| p.1 * p.1).sum();
    let tie = 1e-12 * sum_sq;
    // the regions of the bounds, simplest first: which of σ, κ are free
    let regions = [[false, false], [true, false], [false, true], [true, true]];
    let mut fits: Vec<(Usl, f64, usize)> = Vec::new();
    for free in regions {
        let Some(start) = linearised(points, free) else {
            continue;
        };
        let (usl, sse) = levenberg_marquardt(points, start, free);
        if sse.is_finite() {
            fits.push((usl, sse, free.iter().filter(|&&f| f).count()));
        }
    }
    // the simplest fit as good as the best: more parameters must earn their keep
    let least = fits.iter().map(|f| f.1).fold(f64::INFINITY, f64::min);
    fits.sort_by(|a, b| a.2.cmp(&b.2).then(a.1.total_cmp(&b.1)));
    let best = fits.into_iter().find(|f| f.1 <= least + tie);
    let (usl, sse, _) = best.ok_or(FitError::Diverged)?;
    if !(usl.lambda.is_finite() && usl.sigma.is_finite() && usl.kappa.is_finite()) {
        return Err(FitError::Diverged);
    }

    let m = points.len() as f64;
    let mean = points.iter().map(|p| p.1).sum::<f64>() / m;
    let sst: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    let rmse = (sse / m).sqrt();
    let r_squared = if sst > 0.0 {
        1.0 - sse / sst
    } else if rmse <= 1e-9 * mean {
        1.0
    } else {
        0.0
    };
    let max_rel_error = points
        .iter()
        .map(|&(n, x)| (usl.throughput(n) - x).abs() / x)
        .fold(0.0, f64::max);
    Ok(Fit {
        usl,
        rmse,
        r_squared,
        max_rel_error,
        points: points.len(),
        concurrencies: ns.len(),
    })
}

/// Σ (Xᵢ − X(Nᵢ))².
fn sse(points: &[(f64, f64)], usl: &Usl) -> f64 {
    points
        .iter()
        .map(|&(n, x)| (x - usl.throughput(n)).powi(2))
        .sum()
}

/// The starting point: least squares of Nᵢ/Xᵢ on (1, N − 1, N(N − 1)),
/// the columns of the fixed parameters left out, σ and κ clamped to ≥ 0.
/// When the intercept (1/λ) comes out non-positive, λ starts at the
/// largest Xᵢ/Nᵢ instead (X/N ≤ λ everywhere under the bounds).
fn linearised(points: &[(f64, f64)], free: [bool; 2]) -> Option<Usl> {
    let cols = |n: f64| [1.0, n - 1.0, n * (n - 1.0)];
    let used = [true, free[0], free[1]];
    let mut scale = [0.0f64; 3];
    for &(n, _) in points {
        for (s, c) in scale.iter_mut().zip(cols(n)) {
            *s += c * c;
        }
    }
    let scale = scale.map(|s| if s > 0.0 { s.sqrt() } else { 1.0 });
    // normal equations of the columns scaled to unit length
    let mut a = [[0.0; 3]; 3];
    let mut b = [0.0; 3];
    for &(n, x) in points {
        let c = cols(n);
        let y = n / x;
        for i in 0..3 {
            b[i] += c[i] / scale[i] * y;
            for j in 0..3 {
                a[i][j] += c[i] / scale[i] * c[j] / scale[j];
            }
        }
    }
    let coef = solve_masked(a, b, used)?;
    let coef: [f64; 3] = std::array::from_fn(|i| coef[i] / scale[i]);
    let lambda = if coef[0] > 0.0 && coef[0].is_finite() {
        1.0 / coef[0]
    } else {
        points.iter().map(|&(n, x)| x / n).fold(0.0, f64::max)
    };
    let per = |c: f64| (c * lambda).max(0.0);
    Usl::new(lambda, per(coef[1]), per(coef[2]))
}

/// Levenberg–Marquardt on the throughput residuals from `start`, with σ
/// (κ) held at zero unless `free[0]` (`free[1]`) and projected to ≥ 0.
/// Returns the best parameters met and their SSE.
fn levenberg_marquardt(points: &[(f64, f64)], start: Usl, free: [bool; 2]) -> (Usl, f64) {
    let used = [true, free[0], free[1]];
    let mut p = start;
    if !free[0] {
        p.sigma = 0.0;
    }
    if !free[1] {
        p.kappa = 0.0;
    }
    let mut cost = sse(points, &p);
    let mut mu = 1e-3;
    for _ in 0..500 {
        // JᵀJ and Jᵀr at p, r = X − X(N)
        let mut a = [[0.0; 3]; 3];
        let mut g = [0.0; 3];
        for &(n, x) in points {
            let d = p.denominator(n);
            let f = p.lambda * n / d;
            let j = [n / d, -f * (n - 1.0) / d, -f * n * (n - 1.0) / d];
            let r = x - f;
            for i in 0..3 {
                g[i] += j[i] * r;
                for k in 0..3 {
                    a[i][k] += j[i] * j[k];
                }
            }
        }
        let mut improved = false;
        while mu < 1e20 {
            let mut damped = a;
            for (i, row) in damped.iter_mut().enumerate() {
                row[i] += mu * a[i][i].max(1e-300);
            }
            let Some(step) = solve_masked(damped, g, used) else {
                mu *= 10.0;
                continue;
            };
            let next = Usl {
                lambda: if p.lambda + step[0] > 0.0 {
                    p.lambda + step[0]
                } else {
                    p.lambda / 2.0
                },
                sigma: (p.sigma + step[1]).max(0.0),
                kappa: (p.kappa + step[2]).max(0.0),
            };
            let c = sse(points, &next);
            if c.is_finite() && c < cost {
                let gain = cost - c;
                p = next;
                cost = c;
                mu = (mu / 3.0).max(1e-12);
                improved = gain > 1e-15 * cost;
                break;
            }
            mu *= 4.0;
        }
        if !improved {
            break;
        }
    }
    (p, cost)
}

/// Solve a·x = b over the unknowns marked `used` (the others are 0), by
/// Gaussian elimination with partial pivoting. None when singular.
fn solve_masked(mut a: [[f64; 3]; 3], mut b: [f64; 3], used: [bool; 3]) -> Option<[f64; 3]> {
    for i in 0..3 {
        if !used[i] {
            a[i] = [0.0; 3];
            a[i][i] = 1.0;
            b[i] = 0.0;
            for row in a.iter_mut() {
                row[i] = 0.0;
            }
            a[i][i] = 1.0;
        }
    }
    if !a.iter().flatten().chain(&b).all(|v| v.is_finite()) {
        return None;
    }
    let norm = a.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    for col in 0..3 {
        let piv = (col..3).max_by(|&r, &s| a[r][col].abs().total_cmp(&a[s][col].abs()))?;
        if a[piv][col].abs() <= 1e-14 * norm {
            return None;
        }
        a.swap(col, piv);
        b.swap(col, piv);
        let pivot = a[col];
        for r in col + 1..3 {
            let f = a[r][col] / pivot[col];
            for (v, p) in a[r][col..].iter_mut().zip(&pivot[col..]) {
                *v -= f * p;
            }
            b[r] -= f * b[col];
        }
    }
    let mut x = [0.0; 3];
    for i in (0..3).rev() {
        let s: f64 = (i + 1..3).map(|k| a[i][k] * x[k]).sum();
        x[i] = (b[i] - s) / a[i][i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: [f64; 7] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];

    fn curve(usl: Usl, ns: &[f64]) -> Vec<(f64, f64)> {
        ns.iter().map(|&n| (n, usl.throughput(n))).collect()
    }

    fn rel(got: f64, want: f64) -> f64 {
        (got - want).abs() / want.abs()
    }

    fn synthetic() -> Usl {
        Usl::new(1000.0, 0.05, 0.002).unwrap()
    }

    #[test]
    fn the_law_itself() {
        let u = synthetic();
        assert_eq!(u.throughput(1.0), 1000.0);
        // 1000·2 / (1 + 0.05 + 0.004)
        assert!(rel(u.throughput(2.0), 2000.0 / 1.054) < 1e-15);
        let peak = u.peak_concurrency().unwrap();
        assert!(rel(peak, (0.95f64 / 0.002).sqrt()) < 1e-15);
        // it is the maximum
        let top = u.peak_throughput().unwrap();
        for dn in [-1.0, -0.1, 0.1, 1.0] {
            assert!(u.throughput(peak + dn) < top);
        }
        assert_eq!(Usl::new(0.0, 0.1, 0.1), None);
        assert_eq!(Usl::new(1.0, -0.1, 0.1), None);
        assert_eq!(Usl::new(1.0, 0.1, f64::NAN), None);
        assert_eq!(Usl::new(f64::INFINITY, 0.1, 0.1), None);
    }

    #[test]
    fn no_peak_without_coherency_or_with_full_contention() {
        let linear = Usl::new(10.0, 0.0, 0.0).unwrap();
        assert_eq!(linear.peak_concurrency(), None);
        assert_eq!(linear.peak_throughput(), None);
        let amdahl = Usl::new(10.0, 0.1, 0.0).unwrap();
        assert_eq!(amdahl.peak_concurrency(), None);
        assert!(amdahl.throughput(1e9) < 100.0 && amdahl.throughput(1e9) > 99.9);
        assert_eq!(Usl::new(10.0, 1.0, 0.01).unwrap().peak_concurrency(), None);
        // a peak below one is still reported
        let steep = Usl::new(10.0, 0.5, 2.0).unwrap();
        assert_eq!(steep.peak_concurrency(), Some(0.5));
    }

    /// Issue 33: with σ > 1 throughput falls towards λ/σ; it rises only
    /// when σ < 1.
    #[test]
    fn the_shape_says_which_way_throughput_goes() {
        let shape = |s: f64, k: f64| Usl::new(100.0, s, k).unwrap().shape("tx/s");
        assert_eq!(
            shape(0.25, 0.0),
            "no peak: throughput rises towards λ/σ = 400.0 tx/s"
        );
        let falls = shape(1.1139, 0.0);
        assert!(
            falls.starts_with(
                "no peak: throughput falls from λ = 100.0 tx/s at N = 1 towards λ/σ = 89.8 tx/s"
            ),
            "{falls}"
        );
        assert!(shape(1.0, 0.0).contains("stays at λ = 100.0"));
        assert!(shape(0.0, 0.0).contains("rises linearly"));
        assert!(shape(1.5, 0.01).contains("falls from N = 1 on"));
        assert!(shape(0.5, 2.0).contains("falls from N = 1 on"));
        assert!(shape(0.05, 0.002).starts_with("a peak at N = 21.8"));
    }

    #[test]
    fn recovers_an_exact_curve() {
        let want = synthetic();
        let f = fit(&curve(want, &NS)).unwrap();
        assert!(rel(f.usl.lambda, want.lambda) < 0.05, "{f:?}");
        assert!(rel(f.usl.sigma, want.sigma) < 0.05, "{f:?}");
        assert!(rel(f.usl.kappa, want.kappa) < 0.05, "{f:?}");
        // in fact to the last digits
        assert!(rel(f.usl.kappa, want.kappa) < 1e-6, "{f:?}");
        assert!(f.r_squared > 0.999_999 && f.max_rel_error < 1e-6, "{f:?}");
        assert_eq!(f.points, 7);
        let peak = f.usl.peak_concurrency().unwrap();
        assert!(rel(peak, (0.95f64 / 0.002).sqrt()) < 0.01, "{peak}");
    }

    #[test]
    fn needs_no_point_at_one() {
        let want = synthetic();
        let f = fit(&curve(want, &[3.0, 5.0, 10.0, 20.0, 40.0, 80.0])).unwrap();
        assert!(rel(f.usl.lambda, want.lambda) < 1e-4, "{f:?}");
        assert!(rel(f.usl.sigma, want.sigma) < 1e-4, "{f:?}");
        assert!(rel(f.usl.kappa, want.kappa) < 1e-4, "{f:?}");
    }

    #[test]
    fn recovers_a_noisy_curve_roughly() {
        let want = synthetic();
        // ±2 %, deterministic, no pattern the law can follow
        let noise = [0.02, -0.015, 0.01, -0.02, 0.005, 0.018, -0.01];
        let pts: Vec<_> = curve(want, &NS)
            .into_iter()
            .zip(noise)
            .map(|((n, x), e)| (n, x * (1.0 + e)))
            .collect();
        let f = fit(&pts).unwrap();
        assert!(rel(f.usl.lambda, want.lambda) < 0.05, "{f:?}");
        assert!(rel(f.usl.sigma, want.sigma) < 0.25, "{f:?}");
        assert!(rel(f.usl.kappa, want.kappa) < 0.05, "{f:?}");
        assert!(f.max_rel_error < 0.05 && f.r_squared > 0.99, "{f:?}");
        let peak = f.usl.peak_concurrency().unwrap();
        assert!(rel(peak, (0.95f64 / 0.002).sqrt()) < 0.05, "{peak}");
        // and it is a least-squares minimum: every small feasible move
        // of a parameter costs
        let at = sse(&pts, &f.usl);
        for k in 0..3 {
            for step in [-1e-4, 1e-4] {
                let mut q = [f.usl.lambda, f.usl.sigma, f.usl.kappa];
                q[k] *= 1.0 + step;
                let moved = Usl::new(q[0], q[1], q[2]).unwrap();
                assert!(sse(&pts, &moved) > at, "parameter {k} by {step}");
            }
        }
        // repeated measurements of each point fit too
        let mut twice = pts.clone();
        twice.extend(curve(want, &NS));
        let g = fit(&twice).unwrap();
        assert!(rel(g.usl.kappa, want.kappa) < 0.1, "{g:?}");
    }

    #[test]
    fn a_straight_line_has_no_peak() {
        let pts: Vec<_> = NS.iter().map(|&n| (n, 250.0 * n)).collect();
        let f = fit(&pts).unwrap();
        assert!(rel(f.usl.lambda, 250.0) < 1e-9, "{f:?}");
        assert_eq!((f.usl.sigma, f.usl.kappa), (0.0, 0.0), "{f:?}");
        assert_eq!(f.usl.peak_concurrency(), None);
        assert!(f.rmse < 1e-6 && f.r_squared > 0.999_999);
    }

    #[test]
    fn pure_contention_has_no_peak() {
        let want = Usl::new(500.0, 0.1, 0.0).unwrap();
        let f = fit(&curve(want, &NS)).unwrap();
        assert!(rel(f.usl.sigma, 0.1) < 1e-6, "{f:?}");
        assert_eq!(f.usl.kappa, 0.0, "{f:?}");
        assert_eq!(f.usl.peak_concurrency(), None);
    }

    #[test]
    fn a_falling_curve_still_fits() {
        let pts = [
            (1.0, 1000.0),
            (2.0, 900.0),
            (4.0, 700.0),
            (8.0, 500.0),
            (16.0, 300.0),
        ];
        let f = fit(&pts).unwrap();
        let u = f.usl;
        assert!(u.lambda.is_finite() && u.sigma.is_finite() && u.kappa.is_finite());
        assert!(u.kappa > 0.0 || u.sigma >= 1.0, "{f:?}");
        assert!(f.rmse.is_finite() && f.max_rel_error < 0.5, "{f:?}");
        // the fitted curve falls over the measured range too
        assert!(u.throughput(16.0) < u.throughput(2.0));
    }

    #[test]
    fn a_flat_curve_fits() {
        let pts: Vec<_> = NS.iter().map(|&n| (n, 100.0)).collect();
        let f = fit(&pts).unwrap();
        assert!(f.max_rel_error < 1e-6, "{f:?}");
        assert_eq!(f.r_squared, 1.0, "{f:?}");
    }

    #[test]
    fn bad_inputs_are_refused() {
        assert_eq!(fit(&[]), Err(FitError::TooFewPoints(0)));
        assert_eq!(
            fit(&[(1.0, 1.0), (2.0, 2.0)]),
            Err(FitError::TooFewPoints(2))
        );
        let bad = |n: f64, x: f64| fit(&[(1.0, 1.0), (2.0, 2.0), (n, x), (5.0, 5.0)]);
        for (n, x) in [
            (3.0, 0.0),
            (3.0, -1.0),
            (3.0, f64::NAN),
            (3.0, f64::INFINITY),
            (0.0, 3.0),
            (0.5, 3.0),
            (-3.0, 3.0),
            (f64::NAN, 3.0),
            (f64::INFINITY, 3.0),
        ] {
            assert!(
                matches!(bad(n, x), Err(FitError::BadPoint { index: 2, .. })),
                "({n}, {x})"
            );
        }
        let two_ns = [(1.0, 1.0), (2.0, 2.0), (2.0, 2.1), (1.0, 0.9)];
        assert_eq!(fit(&two_ns), Err(FitError::TooFewConcurrencies(2)));
        // issue 33: three parameters through three concurrencies fit any
        // three points (R² 1.000): no fit, however many repetitions
        assert_eq!(
            fit(&[(1.0, 1.0), (2.0, 1.9), (4.0, 2.5)]),
            Err(FitError::TooFewPoints(3))
        );
        let three_ns = [(1.0, 1.0), (2.0, 1.9), (4.0, 2.5), (4.0, 2.6), (2.0, 2.0)];
        assert_eq!(fit(&three_ns), Err(FitError::TooFewConcurrencies(3)));
        // the messages are one line each
        for e in [fit(&[]), bad(0.0, 1.0), fit(&two_ns)] {
            assert!(!e.unwrap_err().to_string().contains('\n'));
        }
    }
}
