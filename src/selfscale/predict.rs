//! Predicted performance (Chen & Patterson §IX-B2; docs/selfscale.md).
//!
//! Shape independence: the shape of each single-parameter curve does not
//! depend on the other parameters, so throughput is a product of
//! single-parameter functions. With the focal vector F of the workload's
//! region and its measured curves T_p:
//!
//! ```text
//!   T̂(x) = T(F) · Π_p  T_p(x_p) / T_p(f_p)
//! ```
//!
//! over the four region curves (sizeMean, readFrac, seqFrac, processNum) and
//! the uniqueBytes sweep. Each curve's point at F is taken as T(F), the mean
//! of all the region's measurements of F (see `anchored`), so every ratio
//! is 1 at the focal value. Between measured points a curve is
//! interpolated linearly in throughput against log2 of the value for sizes
//! and counts, and against the value for fractions; outside the measured
//! range it is held at the end point. The region is the one whose
//! uniqueBytes interval holds the workload's. IOPS are predicted the same
//! way from the IOPS of the same points.
//!
//! Interactions measured by design: where a region holds a curve measured
//! again at other values of a second parameter (the processNum curve at
//! readFrac 0 and 1), the processNum ratio is not the focal curve's alone.
//! Each curve gives ln(T_c(x) / T_c(f)) at the workload's processNum, and
//! these log ratios are interpolated linearly in readFrac between the
//! curves' readFrac values (the focal curve at the focal readFrac), held at
//! the ends. At the focal readFrac this is the separable prediction; on the
//! readFrac axis (processNum at its focal value) every ratio is 1. The
//! readFrac, seqFrac and processNum curves measured again with small
//! requests are taken across sizeMean the same way, in log2 sizeMean
//! (readFrac's and seqFrac's moves fading as a square, `fade`). The
//! uniqueBytes sweep is taken across readFrac the same way, across
//! processNum (the sweep with a process per CPU) in log2 processNum and
//! across sizeMean (the sweep with large requests) in log2 sizeMean. The
//! moves of one curve's log ratio given by different second parameters
//! are not added: the largest move up and the largest move down are taken
//! (`combine`).
//!
//! `--refine` corrections multiply on top: a correction for parameters
//! (i, j) in one quadrant around the focal point is exp(c · w_i · w_j),
//! where w goes linearly (in the same coordinates) from 0 at the focal
//! value to 1 at the measured corner, and c = ln(measured / predicted) at
//! the corner. It is 1 on both axes, so the measured curves stay exact.

use super::model::{CrossCurve, Curve, Model, Param, Region, Workload};

/// ln of a curve's ratio T(x) / T(f) for MB/s and IOPS.
fn log_ratio(c: Option<&Curve>, x: f64, f: f64) -> (f64, f64) {
    let (a, b) = ratio(c, x, f);
    (a.max(1e-300).ln(), b.max(1e-300).ln())
}

/// Linear interpolation of `pts` (sorted by x) at `x`; held at the end
/// values outside; 0 for no points.
pub fn interp(pts: &[(f64, f64)], x: f64) -> f64 {
    match pts {
        [] => 0.0,
        [only] => only.1,
        _ => {
            let first = pts[0];
            let last = pts[pts.len() - 1];
            if x <= first.0 {
                return first.1;
            }
            if x >= last.0 {
                return last.1;
            }
            let i = pts.partition_point(|p| p.0 <= x);
            let (a, b) = (pts[i - 1], pts[i]);
            if b.0 == a.0 {
                return b.1;
            }
            a.1 + (b.1 - a.1) * (x - a.0) / (b.0 - a.0)
        }
    }
}

/// Points of a curve: (coordinate, value), sorted by coordinate.
type Xy = Vec<(f64, f64)>;

/// A curve as (coordinate, MB/s) and (coordinate, IOPS), sorted.
fn coords(c: &Curve) -> (Xy, Xy) {
    let mut mb: Vec<(f64, f64)> = c
        .points
        .iter()
        .map(|q| (c.param.coord(c.param.get(&q.workload)), q.mb_per_s))
        .collect();
    let mut io: Vec<(f64, f64)> = c
        .points
        .iter()
        .map(|q| (c.param.coord(c.param.get(&q.workload)), q.iops))
        .collect();
    mb.sort_by(|a, b| a.0.total_cmp(&b.0));
    io.sort_by(|a, b| a.0.total_cmp(&b.0));
    (mb, io)
}

/// T_p(x) / T_p(f) for MB/s and IOPS; (1, 1) for a missing or empty curve.
fn ratio(c: Option<&Curve>, x: f64, f: f64) -> (f64, f64) {
    let Some(c) = c.filter(|c| !c.points.is_empty()) else {
        return (1.0, 1.0);
    };
    let (mb, io) = coords(c);
    let (cx, cf) = (c.param.coord(x), c.param.coord(f));
    let r = |pts: &[(f64, f64)]| {
        let d = interp(pts, cf);
        if d > 0.0 { interp(pts, cx) / d } else { 1.0 }
    };
    (r(&mb), r(&io))
}

/// How far the log ratio of curve `main` (measured at `fixed`) between
/// `w`'s value and `f` moves when the curves measured again across second
/// parameters (`cross`) are taken in. For each second parameter, the log
/// ratios of `main` (at `fixed`'s value of it) and of the curves across it
/// are interpolated linearly in its coordinate at `w`'s value, held beyond
/// the ends; equivalently, each curve's difference from `main` goes from
/// nothing at `fixed`'s value to all of it at its own. The moves of
/// different second parameters (the sweep: readFrac, processNum, sizeMean)
/// are joined by `combine`; (0, 0) without cross curves.
fn across(
    main: Option<&Curve>,
    fixed: &Workload,
    cross: &[&CrossCurve],
    w: &Workload,
    f: f64,
) -> (f64, f64) {
    let Some(main) = main else {
        return (0.0, 0.0);
    };
    let p = main.param;
    let x = p.get(w);
    let m = log_ratio(Some(main), x, f);
    let (mut dmb, mut dio) = (Vec::new(), Vec::new());
    let mut seconds: Vec<Param> = Vec::new();
    for c in cross {
        if !seconds.contains(&c.across) {
            seconds.push(c.across);
        }
    }
    for q in seconds {
        let mut nodes = vec![(q.coord(q.get(fixed)), m)];
        for c in cross.iter().filter(|c| c.across == q) {
            nodes.push((q.coord(c.at), log_ratio(Some(&c.curve), x, f)));
        }
        nodes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let at = fade(p, q, &nodes, q.coord(q.get(w)), q.coord(q.get(fixed)));
        let lmb: Vec<(f64, f64)> = nodes.iter().map(|n| (n.0, n.1.0)).collect();
        let lio: Vec<(f64, f64)> = nodes.iter().map(|n| (n.0, n.1.1)).collect();
        dmb.push(interp(&lmb, at) - m.0);
        dio.push(interp(&lio, at) - m.1);
    }
    (combine(&dmb), combine(&dio))
}

/// Where between the nodes of `q` (coordinates, sorted) the move of curve
/// `p` is read at coordinate `at`, with `f` the main curve's own
/// coordinate. The readFrac and seqFrac curves measured again at 4 KiB
/// move with request size as the square of the way from the focal
/// sizeMean to 4 KiB, in log₂ sizeMean: measured on ext4's page cache at
/// 182 MiB (2026-11-24, two processes, `iogauge run` 3 s each), the share
/// of seqFrac 1 against 0's 4 KiB move left at 8, 16, 32 and 64 KiB was
/// 0.77, 0.44, 0.14 and 0.05 (readFrac 1 against 0: 0.73, 0.64, 0.28,
/// 0.04), where linear in log₂ sizeMean says 0.83, 0.67, 0.5 and 0.33 and
/// its square 0.69, 0.44, 0.25 and 0.11. Per-request work, which the
/// fractions change, is soon amortised by the copy. processNum's move
/// fades linearly (0.91, 0.77, 0.53, 0.42 measured), as do all others.
fn fade(p: Param, q: Param, nodes: &[(f64, (f64, f64))], at: f64, f: f64) -> f64 {
    let squared = matches!(p, Param::ReadFrac | Param::SeqFrac) && q == Param::SizeMean;
    let [a, b] = nodes else {
        return at;
    };
    let other = if a.0 == f { b.0 } else { a.0 };
    if !squared || other == f {
        return at;
    }
    let t = ((at - f) / (other - f)).clamp(0.0, 1.0);
    f + (other - f) * t * t
}

/// The combined move of a curve's log ratio from the moves `d` that its
/// cross curves of different second parameters give on their own: the
/// largest move up plus the largest move down, not the sum. Two second
/// parameters that move a curve the same way most often shrink or deepen
/// the same effect: processNum 1 → 2 gains 1.7× at ext4's page-cache focal
/// point, 1.2× with 4 KiB requests and nothing with writes alone, and a
/// small-request write-heavy workload does not lose the gain twice over;
/// the fall of the uniqueBytes sweep from the CPU caches to memory is
/// shallower with large requests, with two processes and with reads, each
/// for the same reason. The sum counted such a change once per second
/// parameter (docs/selfscale.md has the comparison).
pub fn combine(d: &[f64]) -> f64 {
    let up = d.iter().copied().fold(0.0, f64::max);
    let down = d.iter().copied().fold(0.0, f64::min);
    up + down
}

/// Region `r`'s curve of `p`, its point at the focal vector set to T(F),
/// the mean of all the region's focal measurements. Each curve measured
/// F twice (first and last) and its other points once, a few seconds
/// apart; where the level jumps from one measurement to the next (data
/// in a cache shared with other tenants: 13 % from one 2-second
/// measurement to the next at half the host's L3, unrelated to the
/// measurement before), the best estimate of F's level under a curve's
/// other points is the mean of all of F's measurements, not the curve's
/// own two.
fn anchored(r: &Region, p: Param) -> Option<Curve> {
    let mut c = r.curve(p)?.clone();
    if let Some(fp) = &r.focal_point {
        for q in c.points.iter_mut().filter(|q| q.workload == r.focal) {
            q.mb_per_s = fp.mb_per_s;
            q.iops = fp.iops;
        }
    }
    Some(c)
}

/// What the model says about one workload.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Prediction {
    /// Region number (1, 2, ...).
    pub region: usize,
    pub mb_per_s: f64,
    pub iops: f64,
    /// The model as measured: the product of single-parameter ratios with
    /// the measured interactions, without `--refine`'s corrections.
    pub separable_mb_per_s: f64,
    pub separable_iops: f64,
    /// The product of single-parameter ratios alone (the paper's shape
    /// independence, without the measured interactions).
    pub product_mb_per_s: f64,
    pub product_iops: f64,
}

/// The fraction of the way from the focal value `f` to `corner` that `x`
/// lies, in the parameter's coordinate, clamped to [0, 1]; 0 on the other
/// side of the focal value.
pub fn side_weight(p: Param, x: f64, f: f64, corner: f64) -> f64 {
    let d = p.coord(corner) - p.coord(f);
    if d == 0.0 {
        return 0.0;
    }
    ((p.coord(x) - p.coord(f)) / d).clamp(0.0, 1.0)
}

impl Model {
    /// The index (into `regions`) of the region for uniqueBytes `u`, among
    /// regions whose focal point was measured.
    pub fn region_index(&self, u: u64) -> Option<usize> {
        let usable: Vec<usize> = (0..self.regions.len())
            .filter(|&i| self.regions[i].focal_point.is_some())
            .collect();
        let first = *usable.first()?;
        let mut pick = first;
        for &i in &usable {
            if u >= self.regions[i].from_bytes {
                pick = i;
            }
        }
        Some(pick)
    }

    /// The separable prediction in region `r` (MB/s, IOPS).
    pub fn separable(&self, r: &Region, w: &Workload) -> (f64, f64) {
        let Some(fp) = &r.focal_point else {
            return (0.0, 0.0);
        };
        let (mut mb, mut io) = (fp.mb_per_s, fp.iops);
        for p in Param::CURVES {
            let (a, b) = ratio(anchored(r, p).as_ref(), p.get(w), p.get(&r.focal));
            mb *= a;
            io *= b;
        }
        let (a, b) = ratio(
            Some(&self.sweep),
            w.unique_bytes as f64,
            r.focal.unique_bytes as f64,
        );
        (mb * a, io * b)
    }

    /// The log factor by which region `r`'s measured interactions move the
    /// separable prediction at `w` (0 without cross curves).
    pub fn interaction(&self, r: &Region, w: &Workload) -> (f64, f64) {
        let (mut lmb, mut lio) = (0.0, 0.0);
        let mut add = |(a, b): (f64, f64)| {
            lmb += a;
            lio += b;
        };
        for p in Param::CURVES {
            let cross: Vec<&CrossCurve> = r
                .cross
                .iter()
                .filter(|c| c.curve.param == p && !c.curve.points.is_empty())
                .collect();
            add(across(
                anchored(r, p).as_ref(),
                &r.focal,
                &cross,
                w,
                p.get(&r.focal),
            ));
        }
        // the uniqueBytes sweep, the same way across readFrac, processNum
        // and sizeMean
        let cross: Vec<&CrossCurve> = self
            .sweep_cross
            .iter()
            .filter(|c| !c.curve.points.is_empty())
            .collect();
        add(across(
            Some(&self.sweep),
            &self.sweep.fixed,
            &cross,
            w,
            r.focal.unique_bytes as f64,
        ));
        (lmb, lio)
    }

    /// The sum of the log correction factors of region `r` at `w`.
    pub fn correction(&self, r: &Region, w: &Workload) -> (f64, f64) {
        let (mut lmb, mut lio) = (0.0, 0.0);
        for c in self.corrections.iter().filter(|c| c.region == r.number) {
            let mut weight = 1.0;
            for k in 0..2 {
                let p = c.params[k];
                let (x, f, corner) = (p.get(w), p.get(&r.focal), p.get(&c.corner));
                weight *= if (corner - f).signum() as i8 == c.quadrant[k] {
                    side_weight(p, x, f, corner)
                } else {
                    0.0
                };
            }
            lmb += c.log_factor * weight;
            lio += c.log_factor_iops * weight;
        }
        (lmb, lio)
    }

    /// [`Model::predict`] for a workload a user asks about: an error to
    /// show as it is when the model has no region for it, or when its
    /// figures give no finite, non-negative prediction (a model file changed
    /// by hand: a figure of 1e308 or 1e-308 overflows the product of ratios).
    pub fn prediction(&self, w: &Workload) -> Result<Prediction, String> {
        let p = self
            .predict(w)
            .ok_or_else(|| "the model has no measured region".to_string())?;
        let fine = |x: f64| x.is_finite() && x >= 0.0;
        if !(fine(p.mb_per_s) && fine(p.iops)) {
            return Err(format!(
                "the model predicts {} MB/s and {} IO/s for {}: its figures are damaged; use the model.json that 'iogauge selfscale' wrote",
                p.mb_per_s,
                p.iops,
                w.describe()
            ));
        }
        Ok(p)
    }

    /// Predict one workload; `None` when the model has no usable region.
    pub fn predict(&self, w: &Workload) -> Option<Prediction> {
        let i = self.region_index(w.unique_bytes)?;
        let r = &self.regions[i];
        let (smb, sio) = self.separable(r, w);
        let (imb, iio) = self.interaction(r, w);
        let (lmb, lio) = self.correction(r, w);
        Some(Prediction {
            region: r.number,
            mb_per_s: smb * (imb + lmb).exp(),
            iops: sio * (iio + lio).exp(),
            separable_mb_per_s: smb * imb.exp(),
            separable_iops: sio * iio.exp(),
            product_mb_per_s: smb,
            product_iops: sio,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_is_linear_inside_and_held_outside() {
        let pts = [(0.0, 10.0), (1.0, 20.0), (3.0, 0.0)];
        assert_eq!(interp(&pts, -5.0), 10.0);
        assert_eq!(interp(&pts, 0.5), 15.0);
        assert_eq!(interp(&pts, 1.0), 20.0);
        assert_eq!(interp(&pts, 2.0), 10.0);
        assert_eq!(interp(&pts, 9.0), 0.0);
        assert_eq!(interp(&[(1.0, 7.0)], 100.0), 7.0);
        assert_eq!(interp(&[], 1.0), 0.0);
    }

    #[test]
    fn moves_the_same_way_are_not_added() {
        assert_eq!(combine(&[]), 0.0);
        assert_eq!(combine(&[0.3]), 0.3);
        assert_eq!(combine(&[-0.3]), -0.3);
        assert_eq!(combine(&[0.1, 0.3, 0.2]), 0.3);
        assert_eq!(combine(&[-0.1, -0.4]), -0.4);
        assert!((combine(&[0.3, -0.1, 0.2, -0.25]) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn side_weights() {
        let p = Param::SizeMean;
        assert_eq!(side_weight(p, 4096.0, 4096.0, 65536.0), 0.0);
        assert_eq!(side_weight(p, 16384.0, 4096.0, 65536.0), 0.5);
        assert_eq!(side_weight(p, 1e9, 4096.0, 65536.0), 1.0);
        assert_eq!(side_weight(p, 1024.0, 4096.0, 65536.0), 0.0);
        assert_eq!(side_weight(Param::ReadFrac, 0.25, 0.5, 0.0), 0.5);
    }
}
