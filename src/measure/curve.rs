//! The throughput-versus-response-time curve, and the search along it.
//!
//! Throughput means little without the response time at which it was
//! reached: a closed loop raises the number of workers (1, 2, 4, …), an
//! open loop raises the offered rate, and each load point is measured
//! until its throughput's confidence interval is tight enough
//! ([`super::interval::Stopper`]). The search stops raising the load when
//! throughput stops rising or a response-time constraint is broken, then
//! bisects near the knee: between the last point that met the constraint
//! and the first that did not, or around the highest throughput. The
//! closed-loop points are fitted with the Universal Scalability Law
//! ([`super::usl`]), whose peak is a prediction for loads not measured.
//!
//! This module knows nothing of what is measured: the caller hands the
//! search a function that measures one repetition at one load.

use super::interval::{Interval, Stopper};
use super::usl;
use serde::{Deserialize, Serialize};

/// The load of one point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "loop", content = "value")]
pub enum Load {
    /// Closed loop: this many workers, back to back.
    Closed(usize),
    /// Open loop: requests per second offered.
    Open(f64),
    /// Closed loop at a fixed number of workers, each keeping this many
    /// requests in flight (scale's depth axis).
    Depth(usize),
}

impl Load {
    /// The load as a number: workers or requests per second.
    pub fn value(self) -> f64 {
        match self {
            Load::Closed(n) | Load::Depth(n) => n as f64,
            Load::Open(r) => r,
        }
    }

    /// Whether the load is a closed loop's (workers or depth), to which
    /// the Universal Scalability Law applies.
    pub fn is_closed(self) -> bool {
        !matches!(self, Load::Open(_))
    }

    /// `N=4`, `QD=8` or `200/s`.
    pub fn label(self) -> String {
        match self {
            Load::Closed(n) => format!("N={n}"),
            Load::Depth(n) => format!("QD={n}"),
            Load::Open(r) if r >= 100.0 => format!("{r:.0}/s"),
            Load::Open(r) => format!("{}/s", {
                let t = format!("{r:.3}");
                t.trim_end_matches('0').trim_end_matches('.').to_string()
            }),
        }
    }
}

/// Which response-time figure a constraint bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    Mean,
    P90,
    P99,
}

impl Stat {
    pub fn name(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::P90 => "p90",
            Stat::P99 => "p99",
        }
    }
}

/// A response-time constraint: `stat` at most `limit_s` seconds
/// (TPC-B: p90 ≤ 2 s; LADDIS: mean ≤ 50 ms).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Constraint {
    pub stat: Stat,
    pub limit_s: f64,
}

impl Constraint {
    /// Whether `p`'s response time meets it.
    pub fn met_by(&self, p: &Sample) -> bool {
        p.response(self.stat) <= self.limit_s
    }
}

/// One repetition at one load, as measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Requests (or transactions) completed per second.
    pub throughput: f64,
    /// Units of throughput completed (requests, transactions, scripts):
    /// a repetition that completed none measured nothing, and is no point
    /// of the curve.
    #[serde(default)]
    pub completed: u64,
    /// Response times of the requests, seconds (from the intended start in
    /// an open loop).
    pub mean_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    /// Share of the workers' time inside I/O calls.
    pub io_time_fraction: f64,
    /// CPU seconds per wall second.
    pub cpu_util: f64,
    /// Open loop: requests issued, and those scheduled but never issued
    /// (the load was not kept). Zero in a closed loop.
    #[serde(default)]
    pub issued: u64,
    pub missed: u64,
    /// Open loop: requests issued per second.
    pub issued_per_s: f64,
}

impl Sample {
    pub fn response(&self, stat: Stat) -> f64 {
        match stat {
            Stat::Mean => self.mean_s,
            Stat::P90 => self.p90_s,
            Stat::P99 => self.p99_s,
        }
    }
}

/// One load point: its repetitions and what they make together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub load: Load,
    /// Each repetition, in the order measured.
    pub reps: Vec<Sample>,
    /// Means over the repetitions (throughput, response times, shares).
    pub mean: Sample,
    /// The throughput's confidence interval over the repetitions (none
    /// with one repetition).
    pub throughput_ci: Option<Interval>,
    /// The constraint, if any, met by [`Point::mean`].
    pub meets: Option<bool>,
    /// Open loop: the offered rate was not kept (over 2 % of the scheduled
    /// requests never issued): the system is saturated.
    pub saturated: bool,
    /// Why the point was measured: `step` (raising the load) or `knee`
    /// (bisection near the knee).
    pub why: String,
}

/// What the curve found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// Points in increasing load.
    pub points: Vec<Point>,
    pub constraint: Option<Constraint>,
    /// Index of the highest throughput.
    pub peak: Option<usize>,
    /// Index of the highest throughput that meets the constraint (with no
    /// constraint: the peak).
    pub best: Option<usize>,
    /// Why raising the load stopped.
    pub stopped: String,
    /// Closed loop, four concurrencies or more: the USL fitted to them.
    pub usl: Option<UslFit>,
}

/// The Universal Scalability Law fitted to a closed-loop curve: to every
/// repetition of its points; its rmse, R² and largest error are all over
/// those repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UslFit {
    pub lambda: f64,
    pub sigma: f64,
    pub kappa: f64,
    /// Predicted concurrency of the peak (none when κ = 0 or σ ≥ 1: no
    /// peak).
    pub peak_concurrency: Option<f64>,
    /// Predicted throughput at that concurrency.
    pub peak_throughput: Option<f64>,
    /// Root mean square of the residuals, in throughput units.
    pub rmse: f64,
    pub r_squared: f64,
    /// Largest |measured − fitted| / measured over the repetitions.
    pub max_rel_error: f64,
    /// The repetitions fitted, and the distinct concurrencies they cover
    /// (more than the law's 3 parameters).
    #[serde(default)]
    pub repetitions: usize,
    #[serde(default)]
    pub concurrencies: usize,
}

impl UslFit {
    /// The law with the fitted parameters.
    pub fn law(&self) -> Option<usl::Usl> {
        usl::Usl::new(self.lambda, self.sigma, self.kappa)
    }

    /// The fit and its error in one line, saying what the error is over.
    pub fn summary(&self, unit: &str) -> String {
        format!(
            "λ {:.1} {unit}, contention σ {:.4}, coherency κ {:.6}, fitted to {} repetitions at {} concurrencies; over them: max error {:.1} %, rmse {:.1} {unit}, R² {:.3}",
            self.lambda,
            self.sigma,
            self.kappa,
            self.repetitions,
            self.concurrencies,
            self.max_rel_error * 100.0,
            self.rmse,
            self.r_squared
        )
    }

    /// What the fitted law says throughput does as concurrency grows.
    pub fn shape(&self, unit: &str) -> String {
        self.law().map_or_else(
            || "no law (its parameters are out of range)".into(),
            |u| u.shape(unit),
        )
    }
}

/// What a closed loop raises: its workers, or the requests each worker
/// keeps in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    #[default]
    Workers,
    Depth,
}

impl Axis {
    /// The closed loop's load at `n` on this axis.
    pub fn load(self, n: usize) -> Load {
        match self {
            Axis::Workers => Load::Closed(n),
            Axis::Depth => Load::Depth(n),
        }
    }
}

/// How the search goes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Closed loop: the highest concurrency (workers, or depth on the
    /// depth axis) tried.
    pub max_procs: usize,
    /// Closed loop: the first concurrency tried (1; under mpirun, on the
    /// workers axis, the ranks: one worker each), doubled at each step.
    pub least: usize,
    /// Closed loop: what the load raises.
    pub axis: Axis,
    /// Open loop: the rates to step through (increasing), or empty to
    /// step from `first_rate`, doubling.
    pub rates: Vec<f64>,
    pub open: bool,
    /// Open loop with no rates given: the first rate, doubled at each step.
    pub first_rate: f64,
    pub constraint: Option<Constraint>,
    /// When a point is measured well enough; `None`: one repetition each.
    pub stopper: Option<Stopper>,
    /// Points measured in all, steps and bisection together.
    pub max_points: usize,
    /// A step raises throughput by less than this share of the last: the
    /// curve has stopped rising (judged from the third step on).
    pub flat: f64,
    /// The unit of throughput, singular, for messages: `request`,
    /// `transaction`, `script`.
    pub unit: &'static str,
}

/// Open loop: at least this share of the scheduled requests must be
/// issued (at most the rest missed) for the rate to count as kept.
pub const KEPT: f64 = 0.98;

/// Open loop: bisection stops when the gap between the last rate that
/// passed and the first that failed is under this share of the former.
pub const RATE_RESOLUTION: f64 = 0.05;

/// Measure the curve `plan` describes. `measure(load, rep)` measures one
/// repetition; `stop()` says the user asked to stop (the curve so far is
/// returned); `seen` is told of each point as it is finished.
pub fn search<E>(
    plan: &Plan,
    mut measure: impl FnMut(Load, usize) -> Result<Sample, E>,
    stop: &dyn Fn() -> bool,
    mut seen: impl FnMut(&Point),
) -> Result<Curve, E> {
    let mut s = Search {
        plan,
        points: Vec::new(),
        stopped: String::new(),
    };
    let mut take = |load: Load, why: &str, s: &mut Search| -> Result<bool, E> {
        if s.points.len() >= plan.max_points {
            s.stopped = format!("measured the most points asked for ({})", plan.max_points);
            return Ok(false);
        }
        if stop() {
            s.stopped = "interrupted".into();
            return Ok(false);
        }
        let Some(p) = s.point(load, why, &mut measure, stop)? else {
            // a higher load completes no more in the same time
            s.stopped = format!(
                "no {} completed at {} in a repetition's time: not a measurement (a longer duration lets one finish)",
                plan.unit,
                load.label()
            );
            return Ok(false);
        };
        seen(&p);
        s.points.push(p);
        Ok(!stop())
    };
    if plan.open {
        s.open(&mut take)?;
    } else {
        s.closed(&mut take)?;
    }
    if s.stopped.is_empty() && stop() {
        s.stopped = "interrupted".into();
    }
    Ok(s.finish())
}

struct Search<'a> {
    plan: &'a Plan,
    points: Vec<Point>,
    stopped: String,
}

type Take<'t, E> = dyn FnMut(Load, &str, &mut Search) -> Result<bool, E> + 't;

impl Search<'_> {
    /// The point at `load`, or `None` when a repetition completed nothing
    /// (no measurement: the point is left out).
    fn point<E>(
        &self,
        load: Load,
        why: &str,
        measure: &mut impl FnMut(Load, usize) -> Result<Sample, E>,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Point>, E> {
        let mut reps: Vec<Sample> = Vec::new();
        loop {
            let rep = measure(load, reps.len())?;
            if rep.completed == 0 {
                return Ok(None);
            }
            reps.push(rep);
            if stop() {
                break;
            }
            let x: Vec<f64> = reps.iter().map(|r| r.throughput).collect();
            match &self.plan.stopper {
                None => break,
                Some(st) if st.done(&x) => break,
                Some(_) => {}
            }
        }
        Ok(Some(make_point(
            load,
            why,
            reps,
            self.plan.constraint,
            self.plan.stopper.as_ref(),
        )))
    }

    /// Whether point `p` passes: meets the constraint and kept its rate.
    fn passes(p: &Point) -> bool {
        p.meets != Some(false) && !p.saturated
    }

    /// Whether `next` rose over `prev` by more than `flat` of it.
    fn rose(&self, prev: &Point, next: &Point) -> bool {
        let (a, b) = (prev.mean.throughput, next.mean.throughput);
        b - a > a * self.plan.flat
    }

    fn closed<E>(&mut self, take: &mut Take<'_, E>) -> Result<(), E> {
        let max = self.plan.max_procs.max(1);
        let mut n = self.plan.least.clamp(1, max);
        loop {
            if !take(self.plan.axis.load(n), "step", self)? {
                return Ok(());
            }
            let last = self.points.last().expect("just taken");
            if last.meets == Some(false) {
                self.stopped = format!("the constraint was broken at {}", last.load.label());
                break;
            }
            // three steps at least: the law needs three concurrencies
            if let [_, .., prev, last] = &self.points[..]
                && !self.rose(prev, last)
            {
                self.stopped = format!(
                    "throughput stopped rising at {} ({} → {})",
                    last.load.label(),
                    fmt3(prev.mean.throughput),
                    fmt3(last.mean.throughput)
                );
                break;
            }
            if n >= max {
                self.stopped = format!(
                    "reached the highest concurrency asked for ({})",
                    self.plan.axis.load(max).label()
                );
                // still rising: no knee to look for
                return Ok(());
            }
            n = (n * 2).min(max);
        }
        self.closed_knee(take)
    }

    /// Bisect between the last concurrency that met the constraint and
    /// the first that broke it; or around the highest throughput.
    fn closed_knee<E>(&mut self, take: &mut Take<'_, E>) -> Result<(), E> {
        loop {
            let mut loads: Vec<(usize, usize)> = self
                .points
                .iter()
                .enumerate()
                .map(|(i, p)| (p.load.value() as usize, i))
                .collect();
            loads.sort_unstable();
            let broke = self.plan.constraint.is_some()
                && self.points.iter().any(|p| p.meets == Some(false));
            let next = if broke {
                // the highest N that passed below the lowest that broke
                let bad = loads
                    .iter()
                    .filter(|&&(_, i)| self.points[i].meets == Some(false))
                    .map(|&(n, _)| n)
                    .min()
                    .expect("one broke");
                let good = loads
                    .iter()
                    .filter(|&&(n, i)| n < bad && Self::passes(&self.points[i]))
                    .map(|&(n, _)| n)
                    .max();
                match good {
                    Some(g) if bad - g > 1 => Some((g + bad) / 2),
                    _ => None,
                }
            } else {
                // around the best: the midpoint of the wider gap beside it
                let best = loads
                    .iter()
                    .max_by(|a, b| {
                        let (x, y) = (&self.points[a.1].mean, &self.points[b.1].mean);
                        x.throughput.total_cmp(&y.throughput)
                    })
                    .map(|&(n, _)| n);
                best.and_then(|b| {
                    let below = loads.iter().map(|&(n, _)| n).filter(|&n| n < b).max();
                    let above = loads.iter().map(|&(n, _)| n).filter(|&n| n > b).min();
                    let gaps = [
                        below.map(|l| (b - l, (l + b) / 2)),
                        above.map(|h| (h - b, (b + h) / 2)),
                    ];
                    gaps.into_iter()
                        .flatten()
                        .filter(|&(gap, _)| gap > 1)
                        .max_by_key(|&(gap, _)| gap)
                        .map(|(_, m)| m)
                })
            };
            let Some(m) = next else { return Ok(()) };
            if !take(self.plan.axis.load(m), "knee", self)? {
                return Ok(());
            }
        }
    }

    fn open<E>(&mut self, take: &mut Take<'_, E>) -> Result<(), E> {
        let mut rate = self.plan.first_rate;
        let mut given = self.plan.rates.iter().copied();
        loop {
            let r = if self.plan.rates.is_empty() {
                rate
            } else {
                match given.next() {
                    Some(r) => r,
                    None => {
                        self.stopped = "measured every rate asked for".into();
                        break;
                    }
                }
            };
            if !take(Load::Open(r), "step", self)? {
                return Ok(());
            }
            let last = self.points.last().expect("just taken");
            if last.meets == Some(false) {
                self.stopped = format!("the constraint was broken at {}", last.load.label());
                break;
            }
            if last.saturated {
                self.stopped = format!(
                    "the rate was not kept at {} ({} issued)",
                    last.load.label(),
                    fmt3(last.mean.issued_per_s)
                );
                break;
            }
            rate *= 2.0;
        }
        // bisect between the last rate that passed and the first that failed
        loop {
            let good = self
                .points
                .iter()
                .filter(|p| Self::passes(p))
                .map(|p| p.load.value())
                .fold(f64::NAN, f64::max);
            let bad = self
                .points
                .iter()
                .filter(|p| !Self::passes(p) && p.load.value() > good)
                .map(|p| p.load.value())
                .fold(f64::NAN, f64::min);
            if good.is_nan() || bad.is_nan() || (bad - good) <= good * RATE_RESOLUTION {
                return Ok(());
            }
            if !take(Load::Open((good + bad) / 2.0), "knee", self)? {
                return Ok(());
            }
        }
    }

    fn finish(mut self) -> Curve {
        self.points
            .sort_by(|a, b| a.load.value().total_cmp(&b.load.value()));
        let argmax = |pick: &dyn Fn(&Point) -> bool| {
            self.points
                .iter()
                .enumerate()
                .filter(|(_, p)| pick(p))
                .max_by(|a, b| a.1.mean.throughput.total_cmp(&b.1.mean.throughput))
                .map(|(i, _)| i)
        };
        let peak = argmax(&|_| true);
        let best = argmax(&|p| Self::passes(p));
        let usl = if self.plan.open {
            None
        } else {
            fit_usl(&self.points)
        };
        Curve {
            points: self.points,
            constraint: self.plan.constraint,
            peak,
            best,
            stopped: self.stopped,
            usl,
        }
    }
}

/// A point from its repetitions.
pub fn make_point(
    load: Load,
    why: &str,
    reps: Vec<Sample>,
    constraint: Option<Constraint>,
    stopper: Option<&Stopper>,
) -> Point {
    let n = reps.len().max(1) as f64;
    let avg = |f: &dyn Fn(&Sample) -> f64| reps.iter().map(f).sum::<f64>() / n;
    let mean = Sample {
        throughput: avg(&|r| r.throughput),
        completed: reps.iter().map(|r| r.completed).sum(),
        mean_s: avg(&|r| r.mean_s),
        p90_s: avg(&|r| r.p90_s),
        p99_s: avg(&|r| r.p99_s),
        io_time_fraction: avg(&|r| r.io_time_fraction),
        cpu_util: avg(&|r| r.cpu_util),
        issued: reps.iter().map(|r| r.issued).sum(),
        missed: reps.iter().map(|r| r.missed).sum(),
        issued_per_s: avg(&|r| r.issued_per_s),
    };
    let x: Vec<f64> = reps.iter().map(|r| r.throughput).collect();
    let throughput_ci = stopper.and_then(|s| s.interval(&x));
    let saturated = match load {
        Load::Open(_) => {
            // against the schedule drawn, not the nominal rate: a short
            // Poisson schedule may offer well under its rate by chance
            let scheduled = (mean.issued + mean.missed).max(1) as f64;
            mean.missed as f64 > (1.0 - KEPT) * scheduled
        }
        Load::Closed(_) | Load::Depth(_) => false,
    };
    Point {
        load,
        meets: constraint.map(|c| c.met_by(&mean)),
        mean,
        reps,
        throughput_ci,
        saturated,
        why: why.into(),
    }
}

/// The law fitted to every repetition of the closed-loop points (more
/// distinct concurrencies than the law's parameters), or `None`.
pub fn fit_usl(points: &[Point]) -> Option<UslFit> {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.load.is_closed())
        .flat_map(|p| p.reps.iter().map(move |r| (p.load.value(), r.throughput)))
        .collect();
    let f = usl::fit(&xy).ok()?;
    Some(UslFit {
        lambda: f.usl.lambda,
        sigma: f.usl.sigma,
        kappa: f.usl.kappa,
        peak_concurrency: f.usl.peak_concurrency(),
        peak_throughput: f.usl.peak_throughput(),
        rmse: f.rmse,
        r_squared: f.r_squared,
        // over the same repetitions as the rmse and R²
        max_rel_error: f.max_rel_error,
        repetitions: f.points,
        concurrencies: f.concurrencies,
    })
}

/// A figure to three significant digits, for messages.
fn fmt3(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed system obeying the USL, with Little's law for its
    /// response time (R = N / X) and p90 = 2 × mean.
    fn usl_system(sigma: f64, kappa: f64) -> impl FnMut(Load, usize) -> Result<Sample, ()> {
        let law = usl::Usl::new(1000.0, sigma, kappa).unwrap();
        move |load, _| {
            let n = load.value();
            let x = law.throughput(n);
            Ok(Sample {
                throughput: x,
                completed: 1,
                mean_s: n / x,
                p90_s: 2.0 * n / x,
                p99_s: 4.0 * n / x,
                io_time_fraction: 0.9,
                ..Default::default()
            })
        }
    }

    fn plan(max_procs: usize, constraint: Option<Constraint>) -> Plan {
        Plan {
            max_procs,
            least: 1,
            axis: Axis::Workers,
            rates: Vec::new(),
            open: false,
            first_rate: 0.0,
            constraint,
            stopper: None,
            max_points: 30,
            flat: 0.02,
            unit: "request",
        }
    }

    fn loads(c: &Curve) -> Vec<f64> {
        c.points.iter().map(|p| p.load.value()).collect()
    }

    #[test]
    fn a_closed_curve_climbs_to_its_peak_and_the_fit_recovers_the_law() {
        // peak at N* = sqrt((1 - 0.05) / 0.002) = 21.8
        let c = search(&plan(256, None), usl_system(0.05, 0.002), &|| false, |_| {}).unwrap();
        assert!(c.stopped.contains("stopped rising"), "{}", c.stopped);
        // doubling went past the peak: 1, 2, 4, 8, 16, 32, then bisection
        assert!(
            loads(&c).starts_with(&[1.0, 2.0, 4.0, 8.0]),
            "{:?}",
            loads(&c)
        );
        let best = &c.points[c.best.unwrap()];
        assert_eq!(c.best, c.peak);
        // integer concurrency nearest the peak of X(N) (21 or 22)
        let n = best.load.value();
        assert!((21.0..=22.0).contains(&n), "best at {n}: {:?}", loads(&c));
        let fit = c.usl.expect("a fit");
        assert!((fit.sigma / 0.05 - 1.0).abs() < 0.05, "{fit:?}");
        assert!((fit.kappa / 0.002 - 1.0).abs() < 0.05, "{fit:?}");
        assert!((fit.peak_concurrency.unwrap() / 21.79 - 1.0).abs() < 0.01);
        assert!(fit.max_rel_error < 1e-6);
    }

    #[test]
    fn a_closed_curve_stops_at_the_constraint_and_its_best_meets_it() {
        // p90 = 2 N / X(N) = 2 (1 + 0.05 (N - 1)) ms ≤ 10 ms up to N = 81
        let limit = Constraint {
            stat: Stat::P90,
            limit_s: 0.010,
        };
        let c = search(
            &plan(256, Some(limit)),
            usl_system(0.05, 0.0),
            &|| false,
            |_| {},
        )
        .unwrap();
        assert!(c.stopped.contains("constraint was broken"), "{}", c.stopped);
        let best = &c.points[c.best.unwrap()];
        assert_eq!(best.meets, Some(true));
        assert!(best.mean.p90_s <= 0.010);
        assert_eq!(best.load, Load::Closed(81));
        // bisection went to the edge: N + 1 breaks it
        let n = best.load.value() as usize;
        let next = c
            .points
            .iter()
            .find(|p| p.load == Load::Closed(n + 1))
            .expect("the next concurrency was measured");
        assert_eq!(next.meets, Some(false));
        // no step beyond the first that broke it (128); bisection between
        // 64 and 128 took log2(64) = 6 points
        assert_eq!(c.points.last().unwrap().load, Load::Closed(128));
        assert_eq!(c.points.iter().filter(|p| p.why == "knee").count(), 6);
    }

    #[test]
    fn a_closed_curve_stops_at_max_procs() {
        let c = search(&plan(4, None), usl_system(0.0, 0.0), &|| false, |_| {}).unwrap();
        assert_eq!(loads(&c), [1.0, 2.0, 4.0]);
        assert!(c.stopped.contains("N=4"), "{}", c.stopped);
        // three concurrencies: the law's three parameters would go through
        // them whatever they were (issue 33: "R² 1.000 from 3 points")
        assert_eq!(c.usl, None);
        let c = search(&plan(8, None), usl_system(0.0, 0.0), &|| false, |_| {}).unwrap();
        assert_eq!(loads(&c), [1.0, 2.0, 4.0, 8.0]);
        let fit = c.usl.unwrap();
        assert_eq!((fit.sigma, fit.kappa), (0.0, 0.0));
        assert_eq!(fit.peak_concurrency, None);
        assert_eq!((fit.repetitions, fit.concurrencies), (4, 4));
    }

    #[test]
    fn a_depth_curve_raises_the_depth_and_is_fitted_like_workers() {
        let mut p = plan(8, None);
        p.axis = Axis::Depth;
        let c = search(&p, usl_system(0.0, 0.0), &|| false, |_| {}).unwrap();
        let loads: Vec<Load> = c.points.iter().map(|p| p.load).collect();
        assert_eq!(loads, [1, 2, 4, 8].map(Load::Depth));
        assert_eq!(
            c.stopped,
            "reached the highest concurrency asked for (QD=8)"
        );
        assert_eq!(c.usl.unwrap().concurrencies, 4);
        let json = serde_json::to_value(Load::Depth(8)).unwrap();
        assert_eq!(json, serde_json::json!({"loop": "depth", "value": 8}));
    }

    /// An open single server of capacity `mu`: M/M/1 response times
    /// below it, and only `mu` issued above it.
    fn server(mu: f64) -> impl FnMut(Load, usize) -> Result<Sample, ()> {
        move |load, _| {
            let rate = load.value();
            let (x, r, missed) = if rate < mu {
                (rate, 1.0 / (mu - rate), 0)
            } else {
                (mu, 10.0, (rate - mu) as u64 + 1)
            };
            Ok(Sample {
                throughput: x,
                completed: 1,
                mean_s: r,
                p90_s: r * 2.3,
                p99_s: r * 4.6,
                issued_per_s: x,
                missed,
                ..Default::default()
            })
        }
    }

    #[test]
    fn an_open_curve_doubles_until_saturated_then_bisects() {
        let mut p = plan(1, None);
        p.open = true;
        p.first_rate = 100.0;
        let c = search(&p, server(1000.0), &|| false, |_| {}).unwrap();
        assert!(c.stopped.contains("not kept"), "{}", c.stopped);
        assert!(loads(&c).starts_with(&[100.0, 200.0, 400.0, 800.0]));
        let best = &c.points[c.best.unwrap()];
        assert!(!best.saturated);
        // within the bisection's resolution of the capacity
        let r = best.load.value();
        assert!(
            r < 1000.0 && r > 1000.0 * (1.0 - 2.0 * RATE_RESOLUTION),
            "{r}"
        );
        assert!(c.points.iter().any(|p| p.saturated));
        assert!(c.usl.is_none());
    }

    #[test]
    fn an_open_curve_under_a_mean_constraint_stops_at_it() {
        // LADDIS's 50 ms mean: met below 980/s
        let mut p = plan(
            1,
            Some(Constraint {
                stat: Stat::Mean,
                limit_s: 0.050,
            }),
        );
        p.open = true;
        p.rates = vec![250.0, 500.0, 750.0, 990.0, 1200.0];
        let c = search(&p, server(1000.0), &|| false, |_| {}).unwrap();
        assert!(c.stopped.contains("constraint"), "{}", c.stopped);
        // 1200 never measured: the curve stopped at 990
        assert!(!loads(&c).contains(&1200.0), "{:?}", loads(&c));
        let best = &c.points[c.best.unwrap()];
        assert!(best.mean.mean_s <= 0.050);
        assert!(best.load.value() > 750.0, "{:?}", loads(&c));
    }

    #[test]
    fn each_point_is_measured_until_its_interval_is_tight() {
        // throughput alternating ±10 %, then settling: the stopper waits
        let mut p = plan(1, None);
        p.stopper = Some(Stopper::new(0.02, 0.95, 3, 12).unwrap());
        let mut calls = 0;
        let c = search(
            &p,
            |_, rep| {
                calls += 1;
                let x = if rep < 4 {
                    100.0 + if rep % 2 == 0 { 10.0 } else { -10.0 }
                } else {
                    100.0
                };
                Ok::<_, ()>(Sample {
                    throughput: x,
                    completed: 1,
                    mean_s: 0.01,
                    ..Default::default()
                })
            },
            &|| false,
            |_| {},
        )
        .unwrap();
        let pt = &c.points[0];
        assert!(
            pt.reps.len() > 3 && pt.reps.len() <= 12,
            "{}",
            pt.reps.len()
        );
        let ci = pt.throughput_ci.unwrap();
        assert!(ci.relative_half_width() <= 0.02 || pt.reps.len() == 12);
        assert!(calls >= pt.reps.len());
    }

    #[test]
    fn a_stop_returns_the_curve_so_far() {
        let n = std::cell::Cell::new(0);
        let c = search(
            &plan(64, None),
            |l, r| {
                n.set(n.get() + 1);
                usl_system(0.0, 0.0)(l, r)
            },
            &|| n.get() >= 2,
            |_| {},
        )
        .unwrap();
        assert_eq!(c.points.len(), 2);
        assert_eq!(c.stopped, "interrupted");
    }

    /// Issue 33: a point at which nothing completed is no measurement: it
    /// is left out, and the search says why it stopped there (not "stopped
    /// rising ... → 0").
    #[test]
    fn a_point_that_completed_nothing_is_left_out() {
        let mut p = plan(8, None);
        p.unit = "script";
        let c = search(
            &p,
            |load, rep| {
                let mut s = usl_system(0.0, 0.0)(load, rep)?;
                if load.value() >= 4.0 {
                    s = Sample::default();
                }
                Ok::<_, ()>(s)
            },
            &|| false,
            |_| {},
        )
        .unwrap();
        assert_eq!(loads(&c), [1.0, 2.0]);
        assert!(
            c.stopped.starts_with("no script completed at N=4"),
            "{}",
            c.stopped
        );
        assert_eq!(c.peak, Some(1));
        // nothing at all: no point, and the reason
        let c = search(&p, |_, _| Ok::<_, ()>(Sample::default()), &|| false, |_| {}).unwrap();
        assert!(c.points.is_empty() && c.peak.is_none());
        assert!(c.stopped.contains("at N=1"), "{}", c.stopped);
    }
}
