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
}

impl Load {
    /// The load as a number: workers or requests per second.
    pub fn value(self) -> f64 {
        match self {
            Load::Closed(n) => n as f64,
            Load::Open(r) => r,
        }
    }

    /// `N=4` or `200/s`.
    pub fn label(self) -> String {
        match self {
            Load::Closed(n) => format!("N={n}"),
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
    /// Response times of the requests, seconds (from the intended start in
    /// an open loop).
    pub mean_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    /// Share of the workers' time inside I/O calls.
    pub io_time_fraction: f64,
    /// CPU seconds per wall second.
    pub cpu_util: f64,
    /// Open loop: requests scheduled but never issued (the load was not
    /// kept). Zero in a closed loop.
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
    /// Open loop: the offered rate was not kept (requests missed, or fewer
    /// than 98 % of the offered ones issued): the system is saturated.
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
    /// Closed loop, three points or more: the USL fitted to them.
    pub usl: Option<UslFit>,
}

/// The Universal Scalability Law fitted to a closed-loop curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UslFit {
    pub lambda: f64,
    pub sigma: f64,
    pub kappa: f64,
    /// Predicted concurrency of the peak (none when κ = 0: no peak).
    pub peak_concurrency: Option<f64>,
    /// Predicted throughput at that concurrency.
    pub peak_throughput: Option<f64>,
    /// Root mean square of the residuals, in throughput units.
    pub rmse: f64,
    pub r_squared: f64,
    /// Largest |measured − fitted| / measured over the points.
    pub max_rel_error: f64,
}

impl UslFit {
    /// The law with the fitted parameters.
    pub fn law(&self) -> Option<usl::Usl> {
        usl::Usl::new(self.lambda, self.sigma, self.kappa)
    }
}

/// How the search goes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Closed loop: the highest concurrency tried. Open loop: the rates
    /// to step through (in increasing order), or empty to step from
    /// `first_rate` doubling.
    pub max_procs: usize,
    pub rates: Vec<f64>,
    pub open: bool,
    /// Open loop with no rates given: the first rate, doubled at each step.
    pub first_rate: f64,
    pub constraint: Option<Constraint>,
    /// When a point is measured well enough.
    pub stopper: Stopper,
    /// Points measured in all, steps and bisection together.
    pub max_points: usize,
    /// A step raises throughput by less than this share (and less than its
    /// confidence interval): the curve has stopped rising.
    pub flat: f64,
}
