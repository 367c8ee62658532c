//! A load curve of a benchmark's points (`iogauge scale`, Sdet, the
//! survey's short forms): the search over loads, keeping each repetition's
//! result and why the search ended early, and the result document that
//! holds the curve.

use crate::measure::curve::{self, Curve, Load, Plan, Point, Sample};
use crate::report::RunResult;
use crate::runner::signals;
use anyhow::Result;

/// What a search gives: the curve, each repetition's result in the order
/// measured, and the failure that ended it early (or that no point was
/// measured at all).
pub struct Searched {
    pub curve: Curve,
    pub results: Vec<(Load, RunResult)>,
    pub failure: Option<anyhow::Error>,
}

/// Search `plan`'s curve, `measure(load, rep)` giving one repetition of
/// `workload` at a load. A repetition that fails ends the search; so does
/// one whose result holds an error. When nothing was measured, the failed
/// point, as far as it got, is the only result (the base of the document);
/// when not even that exists, the failure is the error.
pub fn search(
    plan: &Plan,
    workload: &str,
    mut measure: impl FnMut(Load, usize) -> Result<(Sample, RunResult)>,
    seen: impl FnMut(&Point),
) -> Result<Searched> {
    let mut results: Vec<(Load, RunResult)> = Vec::new();
    // the point that failed, as far as it got: the base of the result when
    // no point was measured
    let mut failed: Option<(Load, RunResult)> = None;
    let mut failure: Option<anyhow::Error> = None;
    let curve = curve::search(
        plan,
        |load, rep| -> Result<Sample> {
            let (s, r) = measure(load, rep).inspect_err(|_| {
                failed = crate::session::take_unfinished().map(|r| (load, r));
            })?;
            if let Some(e) = &r.error {
                let e = format!("{workload} at {}: {e}", load.label());
                failed = Some((load, r));
                anyhow::bail!(e);
            }
            results.push((load, r));
            Ok(s)
        },
        &signals::interrupted,
        seen,
    );
    let curve = match curve {
        // no point measured: nothing to report but why
        Ok(c) if c.points.is_empty() && !signals::interrupted() => {
            failure = Some(anyhow::anyhow!("{}", c.stopped));
            c
        }
        Ok(c) => c,
        Err(e) => {
            if results.is_empty() {
                match failed {
                    Some(f) => results.push(f),
                    None => return Err(e),
                }
            }
            failure = Some(e);
            Curve {
                points: Vec::new(),
                constraint: plan.constraint,
                peak: None,
                best: None,
                stopped: "failed".into(),
                usl: None,
            }
        }
    };
    Ok(Searched {
        curve,
        results,
        failure,
    })
}

/// The load the document is about: the best point under the constraint,
/// else the peak.
pub fn chosen(c: &Curve) -> Option<Load> {
    c.best.or(c.peak).map(|i| c.points[i].load)
}

/// The result document: the chosen point's last repetition as the base
/// (its environment, summary and op table), the curve in the metrics.
pub fn curve_result(
    workload: &str,
    scale_config: serde_json::Value,
    c: &Curve,
    results: &[(Load, RunResult)],
    unit: &str,
) -> Result<RunResult> {
    let chosen = chosen(c);
    let base = chosen
        .and_then(|l| results.iter().rev().find(|(load, _)| *load == l))
        .or(results.last())
        .map(|(_, r)| r.clone());
    let Some(mut r) = base else {
        anyhow::bail!("no point of the curve was measured");
    };
    let workload_config = std::mem::take(&mut r.config);
    r.benchmark = "scale".into();
    let open = c.points.iter().any(|p| matches!(p.load, Load::Open(_)));
    let mut config = serde_json::json!({
        "workload": workload,
        "workload_config": workload_config,
        "loop": if open { "open" } else { "closed" },
        "constraint": c.constraint,
        "chosen_point": chosen,
        "summary_is": "the chosen point's last repetition",
    });
    if let (Some(m), serde_json::Value::Object(extra)) = (config.as_object_mut(), scale_config) {
        m.extend(extra);
    }
    r.config = config;
    r.metric("unit", unit);
    r.metric("curve", c);
    let get = |i: Option<usize>| i.map(|i| &c.points[i]);
    if let Some(p) = get(c.peak) {
        r.metric("peak_throughput", p.mean.throughput);
        r.metric("peak_load", p.load);
    }
    if let Some(p) = get(c.best) {
        r.metric("best_throughput", p.mean.throughput);
        r.metric("best_load", p.load);
    }
    if let Some(f) = &c.usl {
        r.metric("usl", f);
    }
    Ok(r)
}
