//! `--refine K`: two-parameter corrections where validation shows that a
//! pair of parameters interacts (beyond the paper).
//!
//! Shape independence fails when the effect of one parameter depends on
//! another (small requests gain from sequentiality, large ones do not).
//! Then the prediction errors of the validation sample correlate with the
//! *product* of the two parameters' distances from their focal values. For
//! every region, pair of parameters (i, j) and quadrant (the side of each
//! focal value), with e_k = ln(measured_k / predicted_k) for the validation
//! workloads k of that region and quadrant and w_k = w_i · w_j their
//! weights (0 at the focal value, 1 at the end of the range, see
//! `predict::side_weight`), a least-squares fit e ≈ γ·w gives
//!
//! ```text
//!   γ = Σ e_k w_k / Σ w_k²      gain = γ² · Σ w_k²  (the squared error it explains)
//! ```
//!
//! The quadrants with the largest gain, at least two workloads and |γ|
//! ≥ max(0.05, 2 × the repeatability error), read as a log ratio, are where the
//! model is least certain. They are taken one at a time and each corner —
//! both parameters at the ends of their ranges, the others focal — is
//! measured as soon as it is chosen: its measured effect c·w, when |c|
//! reaches that noise level, leaves the residuals before the next choice,
//! so one large error does not attract a measurement for every pair it
//! touches, and a corner that shows nothing leaves the residuals to the
//! pair that does explain them. Then every corner is measured again, and
//! the correction exp(c · w_i · w_j) with c = ln(measured / predicted) at
//! the corner is added to the model when both measurements lie on the same
//! side of the prediction and |c| reaches the same noise level. The
//! correction is exact at the corner, vanishes on both axes (the measured
//! curves stay exact) and is bilinear in the parameters' coordinates in
//! between.

use super::explore::Oracle;
use super::model::{Correction, Model, Param, Workload};
use super::predict::side_weight;
use super::validate::Case;
use anyhow::Result;
use serde::Serialize;

/// A quadrant where two parameters seem to interact.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interaction {
    pub region: usize,
    pub params: [Param; 2],
    pub quadrant: [i8; 2],
    pub workloads: usize,
    /// Fitted log error at the corner.
    pub gamma: f64,
    /// Squared log error the fit explains.
    pub gain: f64,
}

impl Interaction {
    /// `region 2 readFrac × processNum (+1, -1)`.
    pub fn describe(&self) -> String {
        format!(
            "region {} {} × {} ({:+}, {:+})",
            self.region,
            self.params[0].name(),
            self.params[1].name(),
            self.quadrant[0],
            self.quadrant[1]
        )
    }
}

/// The end of parameter `p`'s range on side `q` of the focal value in
/// region `idx`; `None` when there is no such side.
fn end(model: &Model, idx: usize, p: Param, q: i8) -> Option<f64> {
    let r = &model.regions[idx];
    let f = p.get(&r.focal);
    let v = match p {
        // the ends of the plateau (measured sweep points), not the
        // boundaries: there the cliff, not an interaction, decides
        Param::UniqueBytes => {
            if q > 0 {
                r.hi_bytes as f64
            } else {
                r.lo_bytes as f64
            }
        }
        Param::ReadFrac | Param::SeqFrac => {
            if q > 0 {
                1.0
            } else {
                0.0
            }
        }
        Param::SizeMean | Param::ProcessNum => {
            let c = r.curve(p)?;
            let xs = c.points.iter().map(|pt| p.get(&pt.workload));
            if q > 0 {
                xs.fold(f64::NEG_INFINITY, f64::max)
            } else {
                xs.fold(f64::INFINITY, f64::min)
            }
        }
    };
    let same_side = if q > 0 { v > f } else { v < f };
    (v.is_finite() && same_side).then_some(v)
}

/// The corner workload of a quadrant.
pub fn corner(
    model: &Model,
    idx: usize,
    params: [Param; 2],
    quadrant: [i8; 2],
) -> Option<Workload> {
    let mut w = model.regions[idx].focal;
    for k in 0..2 {
        let v = end(model, idx, params[k], quadrant[k])?;
        w = params[k].with(&w, v);
    }
    Some(w)
}

/// Every pair of distinct parameters, in order.
pub fn pairs() -> Vec<[Param; 2]> {
    let mut v = Vec::new();
    for (i, &a) in Param::ALL.iter().enumerate() {
        for &b in &Param::ALL[i + 1..] {
            v.push([a, b]);
        }
    }
    v
}

/// The weight of `c` in quadrant `quadrant` of pair `params` of region
/// `idx`, whose corner is `cw`: w_i · w_j (0 outside the quadrant).
fn weight(model: &Model, idx: usize, params: [Param; 2], cw: &Workload, c: &Case) -> f64 {
    let r = &model.regions[idx];
    params
        .iter()
        .map(|&p| side_weight(p, p.get(&c.workload), p.get(&r.focal), p.get(cw)))
        .product()
}

/// The log errors ln(measured / predicted) of the cases (`None` where
/// either is missing).
fn residuals(cases: &[Case]) -> Vec<Option<f64>> {
    cases
        .iter()
        .map(|c| {
            (c.predicted_mb_per_s > 0.0 && c.measured.mb_per_s > 0.0)
                .then(|| (c.measured.mb_per_s / c.predicted_mb_per_s).ln())
        })
        .collect()
}

/// Fit γ in every region, pair and quadrant to the residuals `e`.
fn fit(model: &Model, cases: &[Case], e: &[Option<f64>]) -> Vec<Interaction> {
    let mut out = Vec::new();
    for (idx, r) in model.regions.iter().enumerate() {
        if r.focal_point.is_none() {
            continue;
        }
        for params in pairs() {
            for quadrant in [[1i8, 1i8], [1, -1], [-1, 1], [-1, -1]] {
                let Some(cw) = corner(model, idx, params, quadrant) else {
                    continue;
                };
                let (mut sew, mut sww, mut n) = (0.0, 0.0, 0);
                for (c, e) in cases.iter().zip(e) {
                    let Some(e) = e.filter(|_| c.region == r.number) else {
                        continue;
                    };
                    let w = weight(model, idx, params, &cw, c);
                    if w > 0.0 {
                        sew += e * w;
                        sww += w * w;
                        n += 1;
                    }
                }
                if n == 0 || sww == 0.0 {
                    continue;
                }
                let gamma = sew / sww;
                out.push(Interaction {
                    region: r.number,
                    params,
                    quadrant,
                    workloads: n,
                    gamma,
                    gain: gamma * gamma * sww,
                });
            }
        }
    }
    out.sort_by(|a, b| b.gain.total_cmp(&a.gain));
    out
}

/// The interactions in the validation residuals, largest gain first (each
/// fitted alone).
pub fn interactions(model: &Model, cases: &[Case]) -> Vec<Interaction> {
    fit(model, cases, &residuals(cases))
}

/// The next quadrant worth a measurement on residuals `e`: the largest
/// gain with at least two workloads and |γ| ≥ `noise`, whose corner is not
/// among `taken` and which has no correction yet.
fn next_pick(
    model: &Model,
    cases: &[Case],
    e: &[Option<f64>],
    noise: f64,
    taken: &[(Interaction, Workload)],
) -> Option<(usize, Interaction, Workload)> {
    for it in fit(model, cases, e) {
        if it.workloads < 2 || it.gamma.abs() < noise || it.gain <= 0.0 {
            continue;
        }
        let idx = model.regions.iter().position(|r| r.number == it.region);
        let Some((idx, cw)) =
            idx.and_then(|i| Some((i, corner(model, i, it.params, it.quadrant)?)))
        else {
            continue;
        };
        let seen = taken.iter().any(|(o, w)| {
            w.key() == cw.key()
                || (o.region, o.params, o.quadrant) == (it.region, it.params, it.quadrant)
        }) || model
            .corrections
            .iter()
            .any(|c| c.region == it.region && c.params == it.params && c.quadrant == it.quadrant);
        if !seen {
            return Some((idx, it, cw));
        }
    }
    None
}

/// Take the effect `c`·w of a quadrant out of the residuals of its region.
fn take_out(
    model: &Model,
    cases: &[Case],
    e: &mut [Option<f64>],
    (idx, it, cw): (usize, &Interaction, &Workload),
    c: f64,
) {
    for (case, e) in cases.iter().zip(e.iter_mut()) {
        if let Some(x) = e.as_mut().filter(|_| case.region == it.region) {
            *x -= c * weight(model, idx, it.params, cw, case);
        }
    }
}

/// The quadrants the residuals point to, chosen greedily (forward
/// stagewise) from the fits alone: the largest gain with at least two
/// workloads and |γ| ≥ `noise`; its fitted effect γ·w is taken out of the
/// residuals; again, up to `k` distinct corners. This is what [`refine`]
/// would measure if every corner showed the interaction its fit promises;
/// `refine` itself lets each corner's measurement decide what it explains.
pub fn choose(model: &Model, cases: &[Case], k: usize, noise: f64) -> Vec<(Interaction, Workload)> {
    let mut e = residuals(cases);
    let mut out: Vec<(Interaction, Workload)> = Vec::new();
    while out.len() < k {
        let Some((idx, it, cw)) = next_pick(model, cases, &e, noise, &out) else {
            break;
        };
        take_out(model, cases, &mut e, (idx, &it, &cw), it.gamma);
        out.push((it, cw));
    }
    out
}

/// Measure up to `k` corners where the validation `cases` show pairs of
/// parameters interacting, and add a correction for each that holds up.
///
/// The corners are chosen one at a time, each measured as soon as it is
/// chosen: a corner's measured effect c = ln(measured / predicted), when
/// it reaches `min_effect`, is what leaves the residuals before the next
/// choice, and a corner that shows no interaction leaves them as they
/// were. So when the fits blame the wrong pair (readFrac × seqFrac where
/// the residuals come from readFrac × processNum: the read-heavy workloads
/// are in both quadrants), the measurement says so and the next choice
/// goes to the pair that remains, instead of the fit's γ explaining the
/// residuals away. Then every chosen corner is measured again (all once,
/// then all again, as the validation does), and a correction is added
/// for each whose two measurements agree on the direction and whose mean
/// differs from the prediction by at least `min_effect`: on a noisy
/// machine one measurement can be off by more than the interaction it
/// should capture. Corners left out are noted in the model. Returns
/// whether every measurement was made, and the corners chosen.
pub fn refine<O: Oracle>(
    model: &mut Model,
    cases: &[Case],
    k: usize,
    min_effect: f64,
    oracle: &mut O,
) -> Result<(bool, Vec<(Interaction, Workload)>)> {
    let lf = |m: f64, q: f64| {
        if m > 0.0 && q > 0.0 {
            (m / q).ln()
        } else {
            0.0
        }
    };
    let mut e = residuals(cases);
    let mut chosen: Vec<(Interaction, Workload)> = Vec::new();
    let mut first = Vec::new();
    while chosen.len() < k {
        let Some((idx, it, cw)) = next_pick(model, cases, &e, min_effect, &chosen) else {
            break;
        };
        let label = format!("refine {}/{k}: {}", chosen.len() + 1, it.describe());
        let Some(p) = oracle.measure(&cw, &label)? else {
            return Ok((false, chosen));
        };
        model.points.push(p.clone());
        let c = model
            .predict(&cw)
            .map_or(0.0, |q| lf(p.mb_per_s, q.mb_per_s));
        if c.abs() >= min_effect {
            take_out(model, cases, &mut e, (idx, &it, &cw), c);
        }
        first.push(p);
        chosen.push((it, cw));
    }
    let n = chosen.len();
    for (i, (it, w)) in chosen.iter().enumerate() {
        let label = format!("refine {}/{n}, again: {}", i + 1, it.describe());
        let Some(p) = oracle.measure(w, &label)? else {
            return Ok((false, chosen));
        };
        model.points.push(p.clone());
        let a = &first[i];
        let Some(pred) = model.predict(w) else {
            continue;
        };
        let both = super::explore::combine(&[a.clone(), p.clone()]).expect("two points");
        let c = lf(both.mb_per_s, pred.mb_per_s);
        let agree = lf(a.mb_per_s, pred.mb_per_s) * lf(p.mb_per_s, pred.mb_per_s) >= 0.0;
        if !agree || c.abs() < min_effect {
            model.notes.push(format!(
                "refine: {} not corrected: measured {:.1} and {:.1} MB/s against {:.1} predicted ({})",
                it.describe(),
                a.mb_per_s,
                p.mb_per_s,
                pred.mb_per_s,
                if agree {
                    format!("less than {:.0} % apart", (min_effect.exp() - 1.0) * 100.0)
                } else {
                    "the two measurements disagree".to_string()
                }
            ));
            continue;
        }
        model.corrections.push(Correction {
            region: it.region,
            params: it.params,
            quadrant: it.quadrant,
            corner: *w,
            log_factor: c,
            log_factor_iops: lf(both.iops, pred.iops),
            predicted_mb_per_s: pred.mb_per_s,
            predicted_iops: pred.iops,
            measured: both,
        });
    }
    Ok((true, chosen))
}

/// The correlation of the log errors with each parameter's coordinate
/// (Pearson), over all cases: which parameter the errors follow.
pub fn correlations(cases: &[Case]) -> Vec<(Param, f64)> {
    let e: Vec<f64> = cases
        .iter()
        .filter(|c| c.predicted_mb_per_s > 0.0 && c.measured.mb_per_s > 0.0)
        .map(|c| (c.measured.mb_per_s / c.predicted_mb_per_s).ln().abs())
        .collect();
    Param::ALL
        .iter()
        .map(|&p| {
            let x: Vec<f64> = cases
                .iter()
                .filter(|c| c.predicted_mb_per_s > 0.0 && c.measured.mb_per_s > 0.0)
                .map(|c| p.coord(p.get(&c.workload)))
                .collect();
            (p, pearson(&x, &e))
        })
        .collect()
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    if n < 3 {
        return 0.0;
    }
    let mx = x.iter().sum::<f64>() / n as f64;
    let my = y.iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx).powi(2);
        syy += (y[i] - my).powi(2);
    }
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_pairs() {
        let p = pairs();
        assert_eq!(p.len(), 10);
        assert!(p.contains(&[Param::SizeMean, Param::SeqFrac]));
    }

    #[test]
    fn pearson_of_a_line() {
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
        assert_eq!(pearson(&[1.0, 1.0, 1.0], &[2.0, 4.0, 6.0]), 0.0);
    }
}
