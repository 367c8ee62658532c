//! Steady state: whether the per-second IOPS or throughput of a run has
//! settled, with fio's criteria (its `ss`, `ss_dur`, `ss_ramp` options).
//!
//! A sample is one second's rate. Once the ramp is over and a window of
//! `window_s` samples is full, each new sample re-evaluates the window:
//!
//! ```text
//!   range  (iops:L, bw:L)              max |x_i - mean| <= L
//!   slope  (iops_slope:L, bw_slope:L)  |least-squares slope| <= L   (per second)
//! ```
//!
//! `L` is absolute, or a percentage of the window's mean (`50%`). Unlike
//! fio, a detector that holds on after steady state was reached also says
//! when the run left it: the window's mean moved by more than the limit
//! from the level it settled at (an SLC cache filling up, a device
//! throttling), and when it settled again.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What is sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Operations per second.
    Iops,
    /// Bytes per second.
    Bw,
}

/// How the window is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    /// Every sample within the limit of the window's mean.
    Range,
    /// The least-squares slope of the window within the limit.
    Slope,
}

/// The limit: absolute (ops/s or bytes/s; per second for a slope), or a
/// percentage of the window's mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Percent(f64),
    Absolute(f64),
}

/// `--steady-state`: metric, criterion and limit, as fio's `ss=`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    pub metric: Metric,
    pub criterion: Criterion,
    pub limit: Limit,
}

impl Spec {
    /// Parse fio's syntax: `iops:L`, `iops_slope:L`, `bw:L`, `bw_slope:L`,
    /// where L is a percentage (`10%`) or an absolute number (for `bw`, a
    /// size per second: `50M` is 50 MiB/s).
    pub fn parse(s: &str) -> Result<Spec, String> {
        let shown = crate::error::shown(s);
        let Some((what, limit)) = s.trim().split_once(':') else {
            return Err(format!(
                "'{shown}' is not a steady-state criterion: use iops:L, iops_slope:L, bw:L or bw_slope:L (L a limit such as 10% or 500)"
            ));
        };
        let (metric, criterion) = match what.trim() {
            "iops" => (Metric::Iops, Criterion::Range),
            "iops_slope" => (Metric::Iops, Criterion::Slope),
            "bw" => (Metric::Bw, Criterion::Range),
            "bw_slope" => (Metric::Bw, Criterion::Slope),
            other => {
                return Err(format!(
                    "'{}' is not a steady-state metric: use iops, iops_slope, bw or bw_slope",
                    crate::error::shown(other)
                ));
            }
        };
        let l = limit.trim();
        let limit = if let Some(p) = l.strip_suffix('%') {
            match p.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Limit::Percent(v),
                _ => {
                    return Err(format!(
                        "'{shown}': the limit '{}' is not a percentage above 0",
                        crate::error::shown(l)
                    ));
                }
            }
        } else {
            let v = match metric {
                Metric::Iops => l.parse::<f64>().ok(),
                Metric::Bw => l
                    .parse::<f64>()
                    .ok()
                    .or_else(|| crate::units::parse_size(l).ok().map(|b| b as f64)),
            };
            match v {
                Some(v) if v.is_finite() && v > 0.0 => Limit::Absolute(v),
                _ => {
                    return Err(format!(
                        "'{shown}': the limit '{}' is not a number above 0 or a percentage",
                        crate::error::shown(l)
                    ));
                }
            }
        };
        Ok(Spec {
            metric,
            criterion,
            limit,
        })
    }

    /// The limit in the metric's units for a window whose mean is `mean`.
    pub fn limit_at(&self, mean: f64) -> f64 {
        match self.limit {
            Limit::Percent(p) => p / 100.0 * mean.abs(),
            Limit::Absolute(v) => v,
        }
    }

    /// The criterion's value for a window whose statistic (largest
    /// deviation or slope) is `stat` and mean `mean`, in the limit's
    /// units: a percentage of the mean, or absolute.
    fn criterion_of(&self, stat: f64, mean: f64) -> f64 {
        match self.limit {
            Limit::Percent(_) if mean == 0.0 => {
                if stat == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            }
            Limit::Percent(_) => 100.0 * stat.abs() / mean.abs(),
            Limit::Absolute(_) => stat.abs(),
        }
    }

    fn limit_value(&self) -> f64 {
        match self.limit {
            Limit::Percent(v) | Limit::Absolute(v) => v,
        }
    }
}

impl std::fmt::Display for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = match self.metric {
            Metric::Iops => "iops",
            Metric::Bw => "bw",
        };
        let c = match self.criterion {
            Criterion::Range => "",
            Criterion::Slope => "_slope",
        };
        match self.limit {
            Limit::Percent(v) => write!(f, "{m}{c}:{v}%"),
            Limit::Absolute(v) => write!(f, "{m}{c}:{v}"),
        }
    }
}

/// The whole setting: criterion, window, ramp, and whether to keep running.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub spec: Spec,
    /// Samples (seconds) in the rolling window; at least 2.
    pub window_s: u32,
    /// Samples (seconds) at the start of the measured phase not looked at.
    pub ramp_s: u32,
    /// Keep running after steady state is reached, and say when it is left.
    pub hold: bool,
}

/// A change of state, at the end of second `t_s` of the measured phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The window met the criterion.
    Reached {
        /// Seconds into the measured phase.
        t_s: u32,
        /// The window's mean (ops/s or bytes/s): the steady level.
        mean: f64,
        /// The criterion's value (largest deviation or |slope|), in the
        /// limit's units: percent of the mean, or absolute.
        criterion: f64,
    },
    /// After steady state, the window's mean moved more than the limit
    /// from the steady level.
    Left {
        /// Seconds into the measured phase.
        t_s: u32,
        /// The steady level it left (ops/s or bytes/s).
        level: f64,
        /// The window's mean when it left.
        mean: f64,
    },
}

/// Judges per-second samples as they come.
#[derive(Clone, Debug)]
pub struct Detector {
    set: Settings,
    window: VecDeque<f64>,
    /// Samples taken, ramp included.
    seen: u32,
    /// The steady level, while steady.
    level: Option<f64>,
    events: Vec<Event>,
    /// The criterion of the last full window (limit's units).
    last_criterion: Option<f64>,
}

impl Detector {
    pub fn new(set: Settings) -> Detector {
        Detector {
            window: VecDeque::with_capacity(set.window_s as usize + 1),
            set,
            seen: 0,
            level: None,
            events: Vec::new(),
            last_criterion: None,
        }
    }

    /// Take the sample of the next second: true when the run should stop
    /// now (steady state reached, not holding on).
    pub fn push(&mut self, x: f64) -> bool {
        self.seen += 1;
        if self.seen <= self.set.ramp_s {
            return false;
        }
        self.window.push_back(x);
        if self.window.len() > self.set.window_s as usize {
            self.window.pop_front();
        }
        if self.window.len() < self.set.window_s as usize {
            return false;
        }
        let mean = mean(&self.window);
        let spec = self.set.spec;
        let stat = match spec.criterion {
            Criterion::Range => self
                .window
                .iter()
                .map(|v| (v - mean).abs())
                .fold(0.0, f64::max),
            Criterion::Slope => slope(&self.window),
        };
        let criterion = spec.criterion_of(stat, mean);
        self.last_criterion = Some(criterion);
        match self.level {
            None if criterion <= spec.limit_value() => {
                self.events.push(Event::Reached {
                    t_s: self.seen,
                    mean,
                    criterion,
                });
                self.level = Some(mean);
                !self.set.hold
            }
            None => false,
            Some(level) => {
                if (mean - level).abs() > spec.limit_at(level) {
                    self.events.push(Event::Left {
                        t_s: self.seen,
                        level,
                        mean,
                    });
                    self.level = None;
                }
                false
            }
        }
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Seconds sampled.
    pub fn seen(&self) -> u32 {
        self.seen
    }

    pub fn last_criterion(&self) -> Option<f64> {
        self.last_criterion
    }

    /// Whether the last word is steady.
    pub fn steady(&self) -> bool {
        self.level.is_some()
    }
}

fn mean(w: &VecDeque<f64>) -> f64 {
    w.iter().sum::<f64>() / w.len() as f64
}

/// The least-squares slope of `w` against 0, 1, 2, … (per sample).
pub fn slope(w: &VecDeque<f64>) -> f64 {
    let n = w.len() as f64;
    if w.len() < 2 {
        return 0.0;
    }
    let mx = (n - 1.0) / 2.0;
    let my = mean(w);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in w.iter().enumerate() {
        let dx = i as f64 - mx;
        sxy += dx * (y - my);
        sxx += dx * dx;
    }
    sxy / sxx
}

/// A phase's steady-state verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseVerdict {
    /// The timed phase, counted from 1 in the order the benchmark ran them.
    pub phase: usize,
    /// Whether steady state was reached at all (fio's `attained`).
    pub attained: bool,
    /// Whether the phase was steady when it ended.
    pub steady_at_end: bool,
    /// Whether reaching it stopped the phase (without `--steady-state-hold`).
    pub stopped_run: bool,
    /// Seconds sampled (ramp included).
    pub seconds: u32,
    /// The criterion of the last full window, in the limit's units
    /// (absent when the window never filled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_criterion: Option<f64>,
    /// Each change, in order: reached, left, reached again.
    pub events: Vec<Event>,
}

/// The `steady_state` section of a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SteadyState {
    /// The criterion as given: iops:L, iops_slope:L, bw:L or bw_slope:L.
    pub spec: String,
    /// `iops` (ops/s) or `bw` (bytes/s): the unit of every level and mean.
    pub metric: Metric,
    pub criterion: Criterion,
    /// The limit: a percentage of the window's mean when `limit_percent`,
    /// else in the metric's unit (per second for a slope).
    pub limit: f64,
    /// Whether `limit` (and each criterion) is a percentage of the mean.
    pub limit_percent: bool,
    /// The rolling window, in one-second samples.
    pub window_s: u32,
    /// Seconds at the start of each phase not looked at.
    pub ramp_s: u32,
    /// Whether the run kept going after steady state (`--steady-state-hold`).
    pub hold: bool,
    pub phases: Vec<PhaseVerdict>,
}

impl SteadyState {
    /// The lines after the classic report, one per phase.
    pub fn describe(&self) -> String {
        let level = |v: f64| match self.metric {
            Metric::Iops => format!("{v:.0} ops/s"),
            Metric::Bw => format!("{}/s", crate::units::fmt_bytes(v as u64)),
        };
        let crit = |v: f64| {
            if self.limit_percent {
                format!("{v:.2}% (limit {}%)", self.limit)
            } else {
                format!("{v:.2} (limit {})", self.limit)
            }
        };
        let head = format!(
            "Steady state ({}, window {} s{}):",
            self.spec,
            self.window_s,
            if self.ramp_s > 0 {
                format!(", ramp {} s", self.ramp_s)
            } else {
                String::new()
            }
        );
        let mut out = String::new();
        if self.phases.is_empty() {
            out.push_str(&format!("{head} no timed phase was sampled\n"));
        }
        for p in &self.phases {
            let label = if self.phases.len() > 1 {
                format!("{head} phase {}:", p.phase)
            } else {
                head.clone()
            };
            let mut parts = Vec::new();
            for e in &p.events {
                parts.push(match e {
                    Event::Reached {
                        t_s,
                        mean,
                        criterion,
                    } => format!(
                        "reached at {t_s} s, mean {}, criterion {}",
                        level(*mean),
                        crit(*criterion)
                    ),
                    Event::Left {
                        t_s,
                        level: l,
                        mean,
                    } => format!(
                        "left at {t_s} s: mean {} from steady {}",
                        level(*mean),
                        level(*l)
                    ),
                });
            }
            if !p.attained {
                parts.push(match p.last_criterion {
                    Some(c) => format!(
                        "NOT reached in {} s; last window's criterion {}",
                        p.seconds,
                        crit(c)
                    ),
                    None => format!(
                        "NOT reached: the phase lasted {} s, short of the ramp and a full window",
                        p.seconds
                    ),
                });
            } else if p.stopped_run {
                parts.push("the run stopped there".into());
            } else if p.steady_at_end {
                parts.push("steady at the end".into());
            } else {
                parts.push("NOT steady at the end".into());
            }
            out.push_str(&format!("{label} {}\n", parts.join("; ")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(spec: &str, window_s: u32, ramp_s: u32, hold: bool) -> Settings {
        Settings {
            spec: Spec::parse(spec).unwrap(),
            window_s,
            ramp_s,
            hold,
        }
    }

    fn run(d: &mut Detector, xs: &[f64]) -> Option<u32> {
        for &x in xs {
            if d.push(x) {
                return Some(d.seen());
            }
        }
        None
    }

    #[test]
    fn specs_parse_as_fio_writes_them() {
        let s = Spec::parse("iops:10%").unwrap();
        assert_eq!(
            (s.metric, s.criterion, s.limit),
            (Metric::Iops, Criterion::Range, Limit::Percent(10.0))
        );
        let s = Spec::parse("bw_slope:0.5%").unwrap();
        assert_eq!(
            (s.metric, s.criterion, s.limit),
            (Metric::Bw, Criterion::Slope, Limit::Percent(0.5))
        );
        assert_eq!(
            Spec::parse("iops_slope:30").unwrap().limit,
            Limit::Absolute(30.0)
        );
        assert_eq!(
            Spec::parse("bw:1M").unwrap().limit,
            Limit::Absolute(1048576.0)
        );
        assert_eq!(
            Spec::parse("bw_slope:2%").unwrap().to_string(),
            "bw_slope:2%"
        );
        for bad in [
            "iops", "lat:5%", "iops:", "iops:-3%", "iops:0", "iops:x%", "iops:1M",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad}");
        }
        assert!(
            Spec::parse("lat:5%")
                .unwrap_err()
                .contains("not a steady-state metric")
        );
    }

    #[test]
    fn the_slope_is_least_squares() {
        let w: VecDeque<f64> = [1.0, 3.0, 5.0, 7.0].into_iter().collect();
        assert!((slope(&w) - 2.0).abs() < 1e-12);
        let w: VecDeque<f64> = [2.0, 4.0, 3.0, 5.0].into_iter().collect();
        // x̄ = 1.5, ȳ = 3.5: Σdx·dy = 4, Σdx² = 5
        assert!((slope(&w) - 0.8).abs() < 1e-12);
    }

    /// 1000 ops/s rising by 100 a second (1000 .. 1900 in seconds 1 to
    /// 10), then flat at 2000. A 5-second window within 10% of its mean:
    /// at second 11 it holds 1600 .. 2000 (mean 1800, deviation 200 >
    /// 180); at second 12, 1700 .. 2000, 2000 (mean 1880, deviation 180 <=
    /// 188): reached there, before the window holds only flat seconds.
    #[test]
    fn a_ramp_that_flattens_is_steady_at_the_right_second() {
        let mut xs: Vec<f64> = (0..10).map(|i| 1000.0 + 100.0 * i as f64).collect();
        xs.extend(std::iter::repeat_n(2000.0, 20));
        let mut d = Detector::new(set("iops:10%", 5, 0, false));
        assert_eq!(run(&mut d, &xs), Some(12));
        match &d.events()[0] {
            Event::Reached {
                t_s,
                mean,
                criterion,
            } => {
                assert_eq!(*t_s, 12);
                assert!((mean - 1880.0).abs() < 1e-9);
                assert!((criterion - 180.0 / 1880.0 * 100.0).abs() < 1e-9);
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn the_ramp_is_not_looked_at() {
        let xs = vec![1000.0; 20];
        let mut d = Detector::new(set("iops:10%", 5, 3, false));
        assert_eq!(run(&mut d, &xs), Some(8));
    }

    /// Steady at 1000, then a cliff to 500 at second 31: with a window of
    /// 10 and a 20% limit, the mean falls by 50 a second and passes 200
    /// below the level at second 35 (750); it is steady again at 500 once
    /// the window holds only the new level (second 40).
    #[test]
    fn a_cliff_after_steady_is_left_at_the_right_second_with_both_levels() {
        let mut xs = vec![1000.0; 30];
        xs.extend(vec![500.0; 20]);
        let mut d = Detector::new(set("iops:20%", 10, 0, true));
        assert_eq!(run(&mut d, &xs), None, "holding on never stops");
        assert_eq!(
            d.events(),
            &[
                Event::Reached {
                    t_s: 10,
                    mean: 1000.0,
                    criterion: 0.0
                },
                Event::Left {
                    t_s: 35,
                    level: 1000.0,
                    mean: 750.0
                },
                Event::Reached {
                    t_s: 40,
                    mean: 500.0,
                    criterion: 0.0
                },
            ]
        );
        assert!(d.steady());
    }

    #[test]
    fn noise_within_the_limit_is_steady_and_beyond_it_is_not() {
        // ±4% around 1000
        let xs: Vec<f64> = (0..30)
            .map(|i| if i % 2 == 0 { 1040.0 } else { 960.0 })
            .collect();
        let mut d = Detector::new(set("iops:5%", 10, 0, true));
        run(&mut d, &xs);
        assert_eq!(d.events().len(), 1, "{:?}", d.events());
        assert!(d.steady());
        let mut d = Detector::new(set("iops:3%", 10, 0, true));
        run(&mut d, &xs);
        assert!(d.events().is_empty());
        assert!((d.last_criterion().unwrap() - 4.0).abs() < 1e-9);
        // absolute: 40 from the mean
        let mut d = Detector::new(set("iops:40", 10, 0, false));
        assert_eq!(run(&mut d, &xs), Some(10));
    }

    /// A slow rise of 1% of the mean a second: its slope passes a 2%
    /// limit at once, a 0.5% limit never; the noisy flat series has a
    /// small slope though its range is wide.
    #[test]
    fn the_slope_criterion() {
        let xs: Vec<f64> = (0..20).map(|i| 1000.0 + 10.0 * i as f64).collect();
        let mut d = Detector::new(set("iops_slope:2%", 5, 0, false));
        assert_eq!(run(&mut d, &xs), Some(5));
        match &d.events()[0] {
            Event::Reached {
                criterion, mean, ..
            } => {
                assert!((mean - 1020.0).abs() < 1e-9);
                assert!((criterion - 1000.0 / 1020.0).abs() < 1e-9);
            }
            e => panic!("{e:?}"),
        }
        let mut d = Detector::new(set("iops_slope:0.5%", 5, 0, false));
        assert_eq!(run(&mut d, &xs), None);
        let mut d = Detector::new(set("iops_slope:9.5", 5, 0, false));
        assert_eq!(run(&mut d, &xs), None, "slope 10 > 9.5");
        let mut d = Detector::new(set("iops_slope:10", 5, 0, false));
        assert_eq!(run(&mut d, &xs), Some(5));
        let noisy: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 1200.0 } else { 800.0 })
            .collect();
        let mut d = Detector::new(set("iops_slope:5%", 10, 0, false));
        assert_eq!(run(&mut d, &noisy), Some(10));
        let mut d = Detector::new(set("iops:5%", 10, 0, false));
        assert_eq!(run(&mut d, &noisy), None);
    }
}
