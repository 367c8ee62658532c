//! fio's steady-state detection (`steadystate`/`ss`, `ss_dur`, `ss_ramp`,
//! `ss_interval`): every check interval the stage's IOPS and bandwidth
//! over the interval are sampled; once `ss_dur` of samples fill the
//! window, each new one judges it, and when the window is steady the
//! jobs end, as fio ends them.
//!
//! The arithmetic is fio's (steadystate.c): a ring of `ss_dur / interval`
//! samples, the largest deviation from the window's mean (`iops`, `bw`)
//! or the least-squares slope per interval (`iops_slope`, `bw_slope`),
//! as a percentage of the mean when the limit is one; steady when the
//! criterion is below the limit. Two things differ, both on purpose: an
//! interval's rate is its count over its measured length (fio multiplies
//! by the length instead of dividing, which is the same only when the
//! check comes exactly on time), and the checks are timed from the
//! stage's measured start (fio's come from its helper thread's clock, so
//! its first sample of a job may be short).

use super::plan::JobPlan;
use crate::measure::clock::now_ns;
pub use crate::report::fio::steady::{SsCriterion, SsMetric, SsReport};
use crate::runner::{self, Done, Watch};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

impl SsCriterion {
    /// fio's forms: `iops:L`, `iops_slope:L`, `bw:L`, `bw_slope:L`; L a
    /// percentage (`10%`), a number of IOPS, or a bandwidth in bytes per
    /// second with fio's size suffixes under `kb_base` (`50m`).
    pub fn parse(v: &str, kb_base: u64) -> Result<SsCriterion, String> {
        let t = v.trim();
        let Some((what, limit)) = t.split_once(':') else {
            return Err(format!(
                "'{t}': a criterion and its limit are needed: iops:L, iops_slope:L, bw:L or bw_slope:L (fio's steadystate threshold must be specified in addition to criterion)"
            ));
        };
        let (metric, slope) = match what.trim() {
            "iops" => (SsMetric::Iops, false),
            "iops_slope" => (SsMetric::Iops, true),
            "bw" => (SsMetric::Bw, false),
            "bw_slope" => (SsMetric::Bw, true),
            "lat" | "lat_slope" => {
                return Err(format!(
                    "'{t}': the latency criteria of later fio versions are not supported by iogauge (it judges iops, iops_slope, bw and bw_slope)"
                ));
            }
            w => {
                return Err(format!(
                    "'{w}' is not a steady-state criterion: iops, iops_slope, bw or bw_slope"
                ));
            }
        };
        let l = limit.trim();
        let number = |s: &str| -> Result<f64, String> {
            match s.trim().parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                _ => Err(format!(
                    "'{t}': the limit '{s}' is not a number of 0 or more"
                )),
            }
        };
        let (limit, pct) = if let Some(p) = l.strip_suffix('%') {
            (number(p)?, true)
        } else if metric == SsMetric::Iops {
            (number(l)?, false)
        } else {
            let b = super::value::size(l, kb_base).map_err(|e| format!("'{t}': {e}"))?;
            (b as f64, false)
        };
        Ok(SsCriterion {
            metric,
            slope,
            limit,
            pct,
        })
    }
}

/// A stage's steady-state settings, from its jobs' options.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SsSettings {
    pub criterion: SsCriterion,
    /// The window's length, a whole number of intervals (ns).
    pub dur_ns: u64,
    /// The time after the measured start before samples are kept (ns).
    pub ramp_ns: u64,
    /// The check interval (ns): a whole number of seconds, 1 s by default.
    pub interval_ns: u64,
}

impl SsSettings {
    /// Samples in the window.
    pub fn intervals(&self) -> usize {
        (self.dur_ns / self.interval_ns.max(1)) as usize
    }
}

/// The steady-state settings of a stage whose jobs ask for it (a
/// `steadystate_duration` above 0), or why they cannot run as asked.
/// fio judges each job alone, or a reporting group as one with
/// `group_reporting`; iogauge judges the counts of a whole stage, so a
/// stage that asks must be one job, or one group reported as one, with
/// the same settings throughout (fio refuses a group whose jobs differ).
pub fn stage_settings(stage: &[JobPlan]) -> Result<Option<SsSettings>, String> {
    let Some(first) = stage.iter().find(|p| p.job.ss_dur_ns > 0) else {
        return Ok(None);
    };
    let j = &first.job;
    let at = |job: &super::Job, opt: &str| super::plan::place(job, opt);
    if j.ss_dur_ns % j.ss_interval_ns != 0 || j.ss_dur_ns <= j.ss_interval_ns {
        return Err(format!(
            "{}: steadystate_duration {} s must be a multiple of the check interval ({} s) and longer than it, as fio requires",
            at(j, "steadystate_duration"),
            j.ss_dur_ns as f64 / 1e9,
            j.ss_interval_ns as f64 / 1e9
        ));
    }
    let set = SsSettings {
        criterion: j.ss,
        dur_ns: j.ss_dur_ns,
        ramp_ns: j.ss_ramp_ns,
        interval_ns: j.ss_interval_ns,
    };
    for p in stage {
        let o = &p.job;
        if !p.start_delay.is_zero() {
            return Err(format!(
                "{}: steady state with startdelay is not supported by iogauge: it samples from the stage's start, where fio samples each job from its own",
                at(o, "startdelay")
            ));
        }
        if stage.len() > 1 && !(o.group_reporting && o.group == j.group) {
            return Err(format!(
                "{}: steady state for one job of several that run together is not supported by iogauge: it judges the counts of all the jobs that run together; give them group_reporting (fio then judges the group as one) or run the job alone (stonewall)",
                at(j, "steadystate_duration")
            ));
        }
        let same = o.ss_dur_ns == set.dur_ns
            && o.ss == set.criterion
            && o.ss_ramp_ns == set.ramp_ns
            && o.ss_interval_ns == set.interval_ns;
        if !same {
            return Err(format!(
                "{}: job {} is rejected: steadystate options must be consistent within reporting groups (as fio says)",
                o.at, o.name
            ));
        }
    }
    Ok(Some(set))
}

/// fio's ring of samples and its running sums (steadystate.c), judged at
/// each new sample.
#[derive(Clone, Debug)]
pub struct Ring {
    set: SsSettings,
    n: usize,
    iops: Vec<u64>,
    bw: Vec<u64>,
    head: usize,
    tail: usize,
    full: bool,
    sum_y: u64,
    sum_xy: u64,
    oldest_y: u64,
    sum_x: u64,
    sum_x_sq: u64,
    attained: bool,
    criterion: f64,
    deviation: f64,
    slope: f64,
}

impl Ring {
    pub fn new(set: SsSettings) -> Ring {
        let n = set.intervals().max(2);
        let m = n as u64;
        Ring {
            set,
            n,
            iops: vec![0; n],
            bw: vec![0; n],
            head: 0,
            tail: 0,
            full: false,
            sum_y: 0,
            sum_xy: 0,
            oldest_y: 0,
            sum_x: m * (m - 1) / 2,
            sum_x_sq: (m - 1) * m * (2 * m - 1) / 6,
            attained: false,
            criterion: 0.0,
            deviation: 0.0,
            slope: 0.0,
        }
    }

    fn y(&self, i: usize) -> u64 {
        match self.set.criterion.metric {
            SsMetric::Iops => self.iops[i],
            SsMetric::Bw => self.bw[i],
        }
    }

    /// Take one interval's sample: true when the window is now steady.
    pub fn push(&mut self, iops: u64, bw: u64) -> bool {
        if self.attained {
            return true;
        }
        let steady = if self.set.criterion.slope {
            self.push_slope(iops, bw)
        } else {
            self.push_deviation(iops, bw)
        };
        if steady {
            self.attained = true;
        }
        steady
    }

    /// fio's `steadystate_slope`.
    fn push_slope(&mut self, iops: u64, bw: u64) -> bool {
        let n = self.n;
        self.iops[self.tail] = iops;
        self.bw[self.tail] = bw;
        let new_val = self.y(self.tail);
        if self.full || self.tail.wrapping_sub(self.head) == n - 1 {
            if !self.full {
                self.sum_y = 0;
                for i in 0..n {
                    self.sum_y += self.y(i);
                    let j = (self.head + i) % n;
                    self.sum_xy += i as u64 * self.y(j);
                }
                self.full = true;
            } else {
                self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(new_val);
                self.sum_xy = self
                    .sum_xy
                    .wrapping_sub(self.sum_y)
                    .wrapping_add(n as u64 * new_val);
            }
            self.oldest_y = self.y(self.head);
            let (sx, sy, m) = (self.sum_x as f64, self.sum_y as f64, n as f64);
            self.slope = (self.sum_xy as f64 - sx * sy / m) / (self.sum_x_sq as f64 - sx * sx / m);
            self.criterion = if self.set.criterion.pct {
                100.0 * self.slope / (sy / m)
            } else {
                self.slope
            };
            if self.criterion.abs() < self.set.criterion.limit {
                return true;
            }
        }
        self.tail = (self.tail + 1) % n;
        if self.tail <= self.head {
            self.head = (self.head + 1) % n;
        }
        false
    }

    /// fio's `steadystate_deviation`.
    fn push_deviation(&mut self, iops: u64, bw: u64) -> bool {
        let n = self.n;
        self.iops[self.tail] = iops;
        self.bw[self.tail] = bw;
        if self.full || self.tail.wrapping_sub(self.head) == n - 1 {
            if !self.full {
                self.sum_y = (0..n).map(|i| self.y(i)).sum();
                self.full = true;
            } else {
                self.sum_y = self
                    .sum_y
                    .wrapping_sub(self.oldest_y)
                    .wrapping_add(self.y(self.tail));
            }
            self.oldest_y = self.y(self.head);
            let mean = self.sum_y as f64 / n as f64;
            self.deviation = (0..n)
                .map(|i| (self.y(i) as f64 - mean).abs())
                .fold(0.0, f64::max);
            self.criterion = if self.set.criterion.pct {
                100.0 * self.deviation / mean
            } else {
                self.deviation
            };
            if self.criterion < self.set.criterion.limit {
                return true;
            }
        }
        self.tail = (self.tail + 1) % n;
        if self.tail == self.head {
            self.head = (self.head + 1) % n;
        }
        false
    }

    /// The report, the window's samples oldest first as fio's JSON lists
    /// them.
    pub fn report(&self, kb_base: u64) -> SsReport {
        let n = self.n;
        let first = if self.attained || !self.full {
            self.head
        } else if self.head == 0 {
            n - 1
        } else {
            self.head - 1
        };
        let order = |v: &[u64]| (0..n).map(|l| v[(first + l) % n]).collect();
        SsReport {
            criterion: self.set.criterion,
            duration_s: self.set.dur_ns / 1_000_000_000,
            attained: self.attained,
            value: self.criterion,
            max_deviation: self.deviation,
            slope: self.slope,
            iops: order(&self.iops),
            bw: order(&self.bw),
            kb_base,
        }
    }
}

/// The stage's watch: samples the runner's counts every interval of the
/// measured phase and stops the stage once the window is steady.
pub struct SsWatch {
    set: SsSettings,
    state: Mutex<WatchState>,
}

struct WatchState {
    ring: Ring,
    /// The last check: its time after the measured start (ns) and counts.
    last: (u64, Done),
    checks: u64,
}

impl SsWatch {
    pub fn new(set: SsSettings) -> SsWatch {
        SsWatch {
            set,
            state: Mutex::new(WatchState {
                ring: Ring::new(set),
                last: (0, Done::default()),
                checks: 0,
            }),
        }
    }

    /// What it found, once the stage is over.
    pub fn report(&self, kb_base: u64) -> SsReport {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .ring
            .report(kb_base)
    }
}

impl Watch for SsWatch {
    fn polled(&self) -> bool {
        true
    }

    fn poll_done(&self, done: Done) -> bool {
        let t0 = runner::last_t0();
        let now = now_ns();
        if t0 == 0 || now < t0 {
            // the ramp: nothing is counted yet
            return false;
        }
        let t = now - t0;
        let every = self.set.interval_ns.max(1);
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.ring.attained {
            return true;
        }
        if t < (st.checks + 1) * every {
            return false;
        }
        st.checks = t / every;
        let (t_last, d_last) = st.last;
        st.last = (t, done);
        // fio keeps samples from one interval after ss_ramp on
        if t < self.set.ramp_ns + every {
            return false;
        }
        let dt = (t - t_last).max(1) as u128;
        let per_s = |a: u64, b: u64| (u128::from(a.saturating_sub(b)) * 1_000_000_000 / dt) as u64;
        let iops = per_s(done.ops, d_last.ops);
        let bw = per_s(done.bytes, d_last.bytes);
        st.ring.push(iops, bw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(c: &str, dur_s: u64) -> SsSettings {
        SsSettings {
            criterion: SsCriterion::parse(c, 1024).unwrap(),
            dur_ns: dur_s * 1_000_000_000,
            ramp_ns: 0,
            interval_ns: 1_000_000_000,
        }
    }

    #[test]
    fn criteria_parse_as_fio_reads_them() {
        let c = SsCriterion::parse("iops:10%", 1024).unwrap();
        assert_eq!(
            (c.metric, c.slope, c.limit, c.pct),
            (SsMetric::Iops, false, 10.0, true)
        );
        let c = SsCriterion::parse("bw_slope:1%", 1024).unwrap();
        assert_eq!((c.metric, c.slope, c.pct), (SsMetric::Bw, true, true));
        let c = SsCriterion::parse("bw:50m", 1024).unwrap();
        assert_eq!((c.limit, c.pct), (50.0 * 1048576.0, false));
        let c = SsCriterion::parse("iops_slope:20", 1024).unwrap();
        assert_eq!((c.limit, c.pct), (20.0, false));
        assert_eq!(SsCriterion::default().fio_form(), "iops_slope:0.010000%");
        assert_eq!(
            SsCriterion::parse("iops:20%", 1024).unwrap().fio_form(),
            "iops:20.000000%"
        );
        for bad in ["iops", "x:1%", "iops:abc", "iops:-1%", "bw:zz", "lat:5%"] {
            assert!(SsCriterion::parse(bad, 1024).is_err(), "{bad}");
        }
        assert!(
            SsCriterion::parse("lat:5%", 1024)
                .unwrap_err()
                .contains("latency")
        );
    }

    /// fio 3.33 on `ss=iops:20% ss_dur=3 rate_iops=1000`: samples 996,
    /// 1004, 1000 give a largest deviation of 4 and a criterion of 0.4 %.
    #[test]
    fn the_deviation_is_fios() {
        let mut r = Ring::new(set("iops:20%", 3));
        assert!(!r.push(996, 4_082_331));
        assert!(!r.push(1004, 4_116_418));
        assert!(r.push(1000, 4_096_000));
        let rep = r.report(1024);
        assert!(rep.attained);
        assert_eq!(rep.iops, [996, 1004, 1000]);
        assert_eq!(rep.bw, [4_082_331, 4_116_418, 4_096_000]);
        assert!((rep.max_deviation - 4.0).abs() < 1e-9);
        assert!((rep.value - 0.4).abs() < 1e-9);
        assert_eq!(rep.iops_mean(), 1000);
        assert_eq!(rep.bw_mean(), 4_098_249);
    }

    /// A window that is not steady slides: the oldest sample leaves.
    #[test]
    fn the_window_slides_until_steady() {
        let mut r = Ring::new(set("iops:5%", 3));
        for x in [100, 500, 1000, 1010] {
            assert!(!r.push(x, 0), "{x}");
        }
        assert!(r.push(1000, 0));
        assert_eq!(r.report(1024).iops, [1000, 1010, 1000]);
    }

    /// The least-squares slope: 10, 20, 30 rises by 10 a sample, 50 % of
    /// the mean of 20; a flat window has slope 0.
    #[test]
    fn the_slope_is_least_squares() {
        let mut r = Ring::new(set("iops_slope:1%", 3));
        for x in [10, 20] {
            assert!(!r.push(x, 0));
        }
        assert!(!r.push(30, 0));
        let rep = r.report(1024);
        assert!((rep.slope - 10.0).abs() < 1e-9, "{}", rep.slope);
        assert!((rep.value - 50.0).abs() < 1e-9, "{}", rep.value);
        // the window slides: 20, 30, 30 then 30, 30, 30
        assert!(!r.push(30, 0));
        assert!(r.push(30, 0));
        assert!(r.report(1024).slope.abs() < 1e-9);
        // absolute limits on a falling window
        let mut r = Ring::new(set("iops_slope:15", 4));
        for x in [40, 30, 20] {
            assert!(!r.push(x, 0));
        }
        assert!(r.push(10, 0), "slope -10 is within 15");
        assert!((r.report(1024).slope + 10.0).abs() < 1e-9);
    }
}
