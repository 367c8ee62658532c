//! Validation (Chen & Patterson Fig. 20–21): workloads drawn at random over
//! the model's whole space, each measured twice and predicted.
//!
//! - prediction error of a workload: |predicted − measured| / measured,
//!   with the first measurement;
//! - median and 75th-percentile error over the sample;
//! - enhanced error: the median over the workloads outside the thrashing
//!   zones (uniqueBytes strictly between the last point of a region and
//!   the first point of the next one across a cliff);
//! - repeatability error: the median of |second − first| / first, "using
//!   one run to predict the other".

use super::explore::Oracle;
use super::model::{Model, Param, Point, Workload};
use super::regions::{median, percentile};
use crate::workload::{Prng, unit_f64};
use anyhow::Result;
use rand_xoshiro::rand_core::SeedableRng;
use serde::Serialize;

/// `n` workloads drawn uniformly over the model's ranges: uniqueBytes and
/// sizeMean log-uniformly (sizeMean at most a quarter of uniqueBytes),
/// readFrac and seqFrac uniformly (two decimals), processNum uniformly
/// among the integers.
pub fn draw(model: &Model, n: usize, seed: u64) -> Vec<Workload> {
    let mut r = Prng::seed_from_u64(seed ^ 0x7365_6c66_7363_616c);
    let g = &model.ranges;
    let align = model.settings.align.max(1);
    let log_uniform = |r: &mut Prng, lo: f64, hi: f64| {
        let (lo, hi) = (lo.max(1.0), hi.max(lo.max(1.0)));
        (lo.ln() + unit_f64(r) * (hi.ln() - lo.ln())).exp()
    };
    let round = |x: f64| ((x / align as f64).round().max(1.0) as u64) * align;
    (0..n)
        .map(|_| {
            let u = round(log_uniform(
                &mut r,
                g.unique_bytes[0] as f64,
                g.unique_bytes[1] as f64,
            ));
            let smax = (g.size_mean[1] as f64).min(u as f64 / 4.0);
            let s = round(log_uniform(&mut r, g.size_mean[0] as f64, smax)).min(u);
            let frac = |r: &mut Prng, lo: f64, hi: f64| {
                ((lo + unit_f64(r) * (hi - lo)) * 100.0).round() / 100.0
            };
            let rf = frac(&mut r, g.read_frac[0], g.read_frac[1]);
            let sf = frac(&mut r, g.seq_frac[0], g.seq_frac[1]);
            let (plo, phi) = (g.process_num[0].max(1), g.process_num[1].max(1));
            let span = (phi.max(plo) - plo + 1) as f64;
            let p = plo + ((unit_f64(&mut r) * span) as u32).min(phi.max(plo) - plo);
            Workload {
                unique_bytes: u,
                size_mean: s,
                read_frac: rf,
                seq_frac: sf,
                process_num: p,
            }
        })
        .collect()
}

/// Whether uniqueBytes `u` lies in a thrashing zone of the model.
pub fn in_transition(model: &Model, u: u64) -> bool {
    model
        .boundaries
        .iter()
        .any(|b| b.cliff && u > b.transition[0] && u < b.transition[1])
}

/// One validation workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Case {
    pub workload: Workload,
    pub region: usize,
    pub in_transition: bool,
    pub predicted_mb_per_s: f64,
    pub predicted_iops: f64,
    /// The prediction without two-parameter corrections.
    pub separable_mb_per_s: f64,
    pub separable_iops: f64,
    pub measured: Point,
    /// The second measurement of the same workload.
    pub repeat: Option<Point>,
    /// |predicted − measured| / measured.
    pub error: f64,
    /// |second − first| / first.
    pub repeat_error: Option<f64>,
}

impl Case {
    pub fn new(model: &Model, measured: Point) -> Case {
        let w = measured.workload;
        let p = model.predict(&w);
        let (pmb, pio, smb, sio, region) = p.map_or((0.0, 0.0, 0.0, 0.0, 0), |p| {
            (
                p.mb_per_s,
                p.iops,
                p.separable_mb_per_s,
                p.separable_iops,
                p.region,
            )
        });
        Case {
            workload: w,
            region,
            in_transition: in_transition(model, w.unique_bytes),
            predicted_mb_per_s: pmb,
            predicted_iops: pio,
            separable_mb_per_s: smb,
            separable_iops: sio,
            error: rel_error(pmb, measured.mb_per_s),
            measured,
            repeat: None,
            repeat_error: None,
        }
    }

    /// Predict again with `model` (after corrections).
    pub fn repredict(&mut self, model: &Model) {
        let repeat = self.repeat.take();
        let repeat_error = self.repeat_error;
        *self = Case::new(model, self.measured.clone());
        self.repeat = repeat;
        self.repeat_error = repeat_error;
    }
}

/// |predicted − measured| / measured (infinite when nothing was measured).
pub fn rel_error(predicted: f64, measured: f64) -> f64 {
    if measured > 0.0 {
        (predicted - measured).abs() / measured
    } else {
        f64::INFINITY
    }
}

/// The figures of Chen & Patterson's Fig. 21, and a little more.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub workloads: usize,
    pub median_error: f64,
    pub p75_error: f64,
    pub enhanced_error: f64,
    /// Workloads outside the thrashing zones.
    pub enhanced_workloads: usize,
    pub repeatability_error: f64,
    pub repeated_workloads: usize,
    /// The median error against the mean of both measurements (less
    /// measurement noise than the paper's single measurement).
    pub median_error_vs_both: f64,
    /// The best any single number could do: the constant with the lowest
    /// median error over the sample, and that error.
    pub best_constant_mb_per_s: f64,
    pub best_constant_error: f64,
}

/// The median error of predicting every workload as `c` MB/s.
pub fn constant_error(cases: &[Case], c: f64) -> f64 {
    let e: Vec<f64> = cases
        .iter()
        .map(|k| rel_error(c, k.measured.mb_per_s))
        .collect();
    median(&e)
}

pub fn metrics(cases: &[Case]) -> Metrics {
    let errors: Vec<f64> = cases.iter().map(|c| c.error).collect();
    let enhanced: Vec<f64> = cases
        .iter()
        .filter(|c| !c.in_transition)
        .map(|c| c.error)
        .collect();
    let rep: Vec<f64> = cases.iter().filter_map(|c| c.repeat_error).collect();
    let both: Vec<f64> = cases
        .iter()
        .filter_map(|c| {
            let r = c.repeat.as_ref()?;
            Some(rel_error(
                c.predicted_mb_per_s,
                (c.measured.mb_per_s + r.mb_per_s) / 2.0,
            ))
        })
        .collect();
    let (mut best_c, mut best_e) = (0.0, f64::INFINITY);
    for k in cases {
        let e = constant_error(cases, k.measured.mb_per_s);
        if e < best_e {
            (best_c, best_e) = (k.measured.mb_per_s, e);
        }
    }
    Metrics {
        workloads: cases.len(),
        median_error: median(&errors),
        p75_error: percentile(&errors, 0.75),
        enhanced_error: median(&enhanced),
        enhanced_workloads: enhanced.len(),
        repeatability_error: median(&rep),
        repeated_workloads: rep.len(),
        median_error_vs_both: median(&both),
        best_constant_mb_per_s: best_c,
        best_constant_error: if best_e.is_finite() { best_e } else { 0.0 },
    }
}

/// Measure `workloads` (twice each when `repeat`: the whole list, then the
/// whole list again) and predict them with `model`. Returns the cases and
/// whether every measurement was taken.
pub fn run<O: Oracle>(
    model: &Model,
    oracle: &mut O,
    workloads: &[Workload],
    repeat: bool,
) -> Result<(Vec<Case>, bool)> {
    let n = workloads.len();
    let mut cases = Vec::with_capacity(n);
    for (i, w) in workloads.iter().enumerate() {
        let label = format!("validation {}/{n}: {}", i + 1, short(w));
        let Some(p) = oracle.measure(w, &label)? else {
            return Ok((cases, false));
        };
        cases.push(Case::new(model, p));
    }
    if repeat {
        for (i, c) in cases.iter_mut().enumerate() {
            let label = format!("repeat {}/{n}: {}", i + 1, short(&c.workload));
            let Some(p) = oracle.measure(&c.workload, &label)? else {
                return Ok((cases, false));
            };
            c.repeat_error = Some(rel_error(p.mb_per_s, c.measured.mb_per_s));
            c.repeat = Some(p);
        }
    }
    Ok((cases, true))
}

/// `64 MiB 16 KiB r0.5 s0.5 p1`
pub fn short(w: &Workload) -> String {
    format!(
        "{} {} r{} s{} p{}",
        Param::UniqueBytes.show(w.unique_bytes as f64),
        Param::SizeMean.show(w.size_mean as f64),
        w.read_frac,
        w.seq_frac,
        w.process_num
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(mb: f64) -> Point {
        Point {
            workload: Workload {
                unique_bytes: 1 << 20,
                size_mean: 4096,
                read_frac: 0.5,
                seq_frac: 0.5,
                process_num: 1,
            },
            mb_per_s: mb,
            iops: 0.0,
            read_mb_per_s: 0.0,
            write_mb_per_s: 0.0,
            mean_request_bytes: 0.0,
            rel_half_width: 0.0,
            batches: 0,
            seconds: 0.0,
            converged: true,
        }
    }

    #[test]
    fn metrics_follow_the_definitions() {
        let mk = |pred: f64, meas: f64, trans: bool, rep: f64| Case {
            workload: point(meas).workload,
            region: 1,
            in_transition: trans,
            predicted_mb_per_s: pred,
            predicted_iops: 0.0,
            separable_mb_per_s: pred,
            separable_iops: 0.0,
            measured: point(meas),
            repeat: Some(point(rep)),
            error: rel_error(pred, meas),
            repeat_error: Some(rel_error(rep, meas)),
        };
        let cases = [
            mk(110.0, 100.0, false, 101.0), // 10 %
            mk(95.0, 100.0, false, 99.0),   // 5 %
            mk(150.0, 100.0, true, 104.0),  // 50 %, thrashing
            mk(80.0, 100.0, false, 98.0),   // 20 %
        ];
        let m = metrics(&cases);
        assert_eq!(m.workloads, 4);
        assert!((m.median_error - 0.15).abs() < 1e-12);
        assert!((m.p75_error - 0.275).abs() < 1e-12);
        assert!((m.enhanced_error - 0.10).abs() < 1e-12);
        assert_eq!(m.enhanced_workloads, 3);
        assert!((m.repeatability_error - 0.015).abs() < 1e-12);
        // against the mean of both: 110 vs 100.5 and 80 vs 99 in the middle
        let want = ((110.0 / 100.5 - 1.0) + (1.0 - 80.0 / 99.0)) / 2.0;
        assert!((m.median_error_vs_both - want).abs() < 1e-12);
        // every workload measured 100: the constant 100 is exact
        assert_eq!(m.best_constant_error, 0.0);
    }
}
