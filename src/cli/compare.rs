//! `iogauge compare BASE.json NEW.json`: did it get faster or slower, and
//! is the difference more than noise?
//!
//! Each side is a result, a collection or a repeats document (`--repeat`),
//! or with `--base F… --new F…` a set of plain results taken as repeats.
//! Per headline metric ([`repeats::headline`]): with two or more runs on
//! each side, Welch's t-test; with one run each, a circular block bootstrap
//! of the per-second throughput of each run (its time series, the last,
//! partial interval left out). The maths is in `measure/significance.rs`.

use super::common::{JsonArgs, Paths, Status, percent_arg};
use crate::error::{UsageError, shown};
use crate::measure::significance::{BootDiff, bootstrap_mean_diff, welch};
use crate::report::RunResult;
use crate::report::compare::{self, Row};
use crate::report::repeats::{self, Better, Metric};
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Compare two results (or two sets of repeats) metric by metric, with a
/// significance test for each: faster, slower, or no significant change.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The baseline: a result, a collection, or a --repeat document, as written by --json.
    #[arg(value_name = "BASE.json")]
    pub base_file: Option<PathBuf>,
    /// The new result, of the same benchmark.
    #[arg(value_name = "NEW.json")]
    pub new_file: Option<PathBuf>,
    /// Instead of BASE.json: plain results (each a result or collection) taken as repeated runs of the baseline.
    #[arg(long = "base", value_name = "FILE", num_args = 1.., conflicts_with_all = ["base_file", "new_file"])]
    pub base: Vec<PathBuf>,
    /// Instead of NEW.json: plain results taken as repeated runs of the new side.
    #[arg(long = "new", value_name = "FILE", num_args = 1.., conflicts_with_all = ["base_file", "new_file"])]
    pub new: Vec<PathBuf>,
    /// Confidence of the tests: 95 (default), 99%, 0.9.
    #[arg(long, value_name = "PCT", default_value = "95", value_parser = confidence_arg)]
    pub confidence: f64,
    /// Exit 1 when a throughput metric (or, with --metric, a chosen one) is significantly slower by more than PCT percent (e.g. 5%); for CI.
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub fail_if_slower: Option<f64>,
    /// Compare only this metric (repeat the flag for more; names as the table shows them, e.g. summary.ops_per_s, ops.read.lat_p99_ns); --fail-if-slower then watches these.
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,
    /// Compare results of different benchmarks all the same, on the metrics they share.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub out: JsonArgs,
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        main(self)
    }
}

/// A confidence: `95`, `95%` or `0.95`; strictly between 0 and 100 %.
fn confidence_arg(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (t, pct) = match t.strip_suffix('%') {
        Some(t) => (t.trim(), true),
        None => (t, false),
    };
    let v: f64 = t
        .parse()
        .map_err(|_| format!("'{s}' is not a confidence (e.g. 95, 99% or 0.9)"))?;
    let v = if pct || v > 1.0 { v / 100.0 } else { v };
    if v.is_finite() && v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("must be between 0 and 100 %, not {s}"))
    }
}

/// Seed of the bootstrap: the same files give the same verdicts.
const BOOT_SEED: u64 = 1;
/// Resamples of the bootstrap.
const BOOT_RESAMPLES: usize = 10_000;
/// Fewest whole intervals a run needs for the bootstrap.
const MIN_INTERVALS: usize = 5;

/// One side of the comparison: its runs' documents.
struct Side {
    label: String,
    docs: Vec<serde_json::Value>,
    identity: String,
}

fn read_json(p: &Path) -> Result<serde_json::Value> {
    let name = shown(&p.display().to_string());
    let text = std::fs::read_to_string(p).map_err(|e| UsageError::new(format!("{name}: {e}")))?;
    serde_json::from_str(&text)
        .map_err(|e| UsageError::new(format!("{name}: not JSON ({e})")).into())
}

fn bad(p: &Path, e: impl std::fmt::Display) -> anyhow::Error {
    UsageError::new(format!("{}: {e}", shown(&p.display().to_string()))).into()
}

/// A side from one file (a repeats document gives its runs) or from
/// several plain results.
fn side(files: &[PathBuf], what: &str) -> Result<Side> {
    let mut docs = Vec::new();
    for p in files {
        let doc = read_json(p)?;
        if doc.get("schema").and_then(|s| s.as_str()) == Some(repeats::SCHEMA) {
            if files.len() > 1 {
                return Err(bad(
                    p,
                    format!(
                        "a repeats document cannot be one of several --{what} files; give it alone"
                    ),
                ));
            }
            let r: repeats::Repeats = serde_json::from_value(doc).map_err(|e| bad(p, e))?;
            docs.extend(
                r.runs
                    .into_iter()
                    .map(|r| r.document)
                    .filter(|d| d.get("complete").and_then(|c| c.as_bool()) == Some(true)),
            );
            if docs.is_empty() {
                return Err(bad(p, "the repeats document holds no complete run"));
            }
        } else {
            repeats::runs_of(&doc).map_err(|e| bad(p, format!("{e:#}")))?;
            docs.push(doc);
        }
    }
    let mut ids = Vec::new();
    for (d, p) in docs.iter().zip(files.iter().cycle()) {
        let id = repeats::identity(d).map_err(|e| bad(p, format!("{e:#}")))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() > 1 {
        crate::usage!(
            "the {what} files are of different benchmarks ({}): not repeats of one",
            ids.join(" and ")
        );
    }
    let label = files
        .iter()
        .map(|p| shown(&p.display().to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Side {
        label,
        docs,
        identity: ids.remove(0),
    })
}

/// The comparison document of `--json`.
#[derive(Debug, Serialize)]
struct Comparison<'a> {
    schema: &'static str,
    tool: crate::report::Tool,
    confidence: f64,
    base: SideDoc<'a>,
    new: SideDoc<'a>,
    metrics: &'a [Row],
    #[serde(skip_serializing_if = "Option::is_none")]
    fail_if_slower_pct: Option<f64>,
    /// The metrics slower by more than --fail-if-slower.
    failed: Vec<&'a str>,
}

#[derive(Debug, Serialize)]
struct SideDoc<'a> {
    files: &'a str,
    benchmark: &'a str,
    runs: usize,
}

/// A metric's values in each run of a side, in order first seen.
/// Each metric's values, by name.
type Values = BTreeMap<String, Vec<f64>>;

fn values(side: &Side) -> Result<(Vec<Metric>, Values)> {
    let mut order: Vec<Metric> = Vec::new();
    let mut vals: Values = BTreeMap::new();
    for d in &side.docs {
        for m in repeats::headline(d)? {
            let v = vals.entry(m.name.clone()).or_default();
            if v.is_empty() {
                order.push(m.clone());
            }
            v.push(m.value);
        }
    }
    Ok((order, vals))
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// The per-interval rate behind a throughput metric of a single run (the
/// last interval left out when the run ended part-way through it): ops/s,
/// or bytes/s when the run only read or only wrote.
fn interval_series(doc: &serde_json::Value, metric: &str) -> Option<Vec<f64>> {
    let (entry, field) = match metric.split_once('/') {
        Some((e, f)) => (e, f),
        None => ("", metric),
    };
    let runs = repeats::runs_of(doc).ok()?;
    let r: &RunResult = &runs.iter().find(|(n, _)| n == entry)?.1;
    let ts = &r.timeseries;
    let s = &r.summary;
    let counts: &[u64] = match field {
        "summary.ops_per_s" => &ts.ops,
        "summary.read_bytes_per_s" if s.bytes_written == 0 => &ts.bytes,
        "summary.write_bytes_per_s" if s.bytes_read == 0 => &ts.bytes,
        _ => return None,
    };
    if ts.interval_s <= 0.0 {
        return Some(Vec::new());
    }
    let mut whole = counts.len();
    if whole > 0 && ts.last_interval_s < ts.interval_s * 0.999 {
        whole -= 1;
    }
    Some(
        counts[..whole]
            .iter()
            .map(|&c| c as f64 / ts.interval_s)
            .collect(),
    )
}

fn verdict(better: Better, diff: f64) -> &'static str {
    match (better, diff > 0.0) {
        (Better::Higher, true) | (Better::Lower, false) => "faster",
        (Better::Higher, false) | (Better::Lower, true) => "slower",
        (Better::Either, true) => "higher",
        (Better::Either, false) => "lower",
    }
}

/// Compare `base` with `new` at `confidence`.
fn compare(base: &Side, new: &Side, confidence: f64) -> Result<Vec<Row>> {
    let (order, bv) = values(base)?;
    let (_, nv) = values(new)?;
    let alpha = 1.0 - confidence;
    let mut rows = Vec::new();
    for m in order {
        let Some(n) = nv.get(&m.name) else { continue };
        let b = &bv[&m.name];
        let (bm, nm) = (mean(b), mean(n));
        let change_pct = (bm != 0.0).then(|| (nm - bm) / bm.abs() * 100.0);
        let mut row = Row {
            metric: m.name.clone(),
            better: m.better,
            throughput: m.throughput,
            n_base: b.len(),
            n_new: n.len(),
            base: bm,
            new: nm,
            change_pct,
            method: "none",
            p_value: None,
            diff_low: None,
            diff_high: None,
            significant: false,
            verdict: "not judged".into(),
            note: None,
        };
        if b.len() >= 2 && n.len() >= 2 {
            let w = welch(b, n).expect("two or more finite values a side");
            row.method = "welch";
            row.p_value = Some(w.p);
            row.significant = w.p < alpha;
        } else if b.len() == 1 && n.len() == 1 {
            let series = (
                interval_series(&base.docs[0], &m.name),
                interval_series(&new.docs[0], &m.name),
            );
            match series {
                (Some(sb), Some(sn)) if sb.len() < MIN_INTERVALS || sn.len() < MIN_INTERVALS => {
                    row.method = "block-bootstrap";
                    row.note = Some(format!(
                        "too few whole 1 s intervals to judge ({} and {}; {MIN_INTERVALS} needed): run longer or --repeat",
                        sb.len(),
                        sn.len()
                    ));
                }
                (Some(sb), Some(sn)) => {
                    let d: BootDiff =
                        bootstrap_mean_diff(&sb, &sn, confidence, BOOT_RESAMPLES, BOOT_SEED)
                            .expect("five or more finite intervals a side");
                    row.method = "block-bootstrap";
                    row.diff_low = Some(d.low);
                    row.diff_high = Some(d.high);
                    row.significant = d.significant();
                }
                _ => row.note = Some(
                    "one run each and no per-interval samples of it: compare --repeat documents"
                        .into(),
                ),
            }
        } else {
            row.note = Some(format!(
                "{} run(s) against {}: Welch's test needs two or more on each side",
                b.len(),
                n.len()
            ));
        }
        if row.method != "none" && row.note.is_none() {
            row.verdict = if row.significant {
                verdict(m.better, nm - bm).into()
            } else {
                "no significant change".into()
            };
        }
        rows.push(row);
    }
    Ok(rows)
}

fn main(a: Args) -> Result<Status> {
    let (bf, nf) = match (&a.base_file, &a.new_file) {
        (Some(b), Some(n)) => (vec![b.clone()], vec![n.clone()]),
        (Some(_), None) => crate::usage!("compare needs two files: BASE.json NEW.json"),
        (None, _) if a.base.is_empty() || a.new.is_empty() => {
            crate::usage!("compare needs BASE.json NEW.json, or --base FILE… and --new FILE…")
        }
        (None, _) => (a.base.clone(), a.new.clone()),
    };
    let mut paths = Paths::new();
    for p in bf.iter().chain(&nf) {
        paths.input(format!("{}", p.display()), p);
    }
    a.out.check_with(&mut paths)?;
    let base = side(&bf, "base")?;
    let new = side(&nf, "new")?;
    if base.identity != new.identity && !a.force {
        crate::usage!(
            "not comparable: the base is {}, the new is {} (--force compares the metrics they share)",
            base.identity,
            new.identity
        );
    }
    let mut rows = compare(&base, &new, a.confidence)?;
    if !a.metrics.is_empty() {
        for m in &a.metrics {
            if !rows.iter().any(|r| &r.metric == m) {
                let known: Vec<&str> = rows.iter().map(|r| r.metric.as_str()).collect();
                crate::usage!(
                    "--metric {}: no such metric in both files (they have: {})",
                    shown(m),
                    known.join(", ")
                );
            }
        }
        rows.retain(|r| a.metrics.contains(&r.metric));
    }
    if rows.is_empty() {
        crate::usage!("the files share no metric to compare");
    }
    let failed: Vec<&str> = match a.fail_if_slower {
        Some(limit) => rows
            .iter()
            .filter(|r| (r.throughput || !a.metrics.is_empty()) && r.verdict == "slower")
            .filter(|r| r.change_pct.is_some_and(|c| c.abs() > limit))
            .map(|r| r.metric.as_str())
            .collect(),
        None => Vec::new(),
    };
    fn named(s: &Side) -> compare::Side<'_> {
        compare::Side {
            label: &s.label,
            identity: &s.identity,
            runs: s.docs.len(),
        }
    }
    let text = compare::render(
        &named(&base),
        &named(&new),
        a.confidence,
        a.fail_if_slower,
        &rows,
        &failed,
    );
    if !a.out.quiet {
        if a.out.json.as_deref() == Some(Path::new("-")) {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
    if let Some(p) = &a.out.json {
        let doc = Comparison {
            schema: "iogauge/compare/v1",
            tool: crate::report::Tool::default(),
            confidence: a.confidence,
            base: SideDoc {
                files: &base.label,
                benchmark: &base.identity,
                runs: base.docs.len(),
            },
            new: SideDoc {
                files: &new.label,
                benchmark: &new.identity,
                runs: new.docs.len(),
            },
            metrics: &rows,
            fail_if_slower_pct: a.fail_if_slower,
            failed: failed.clone(),
        };
        crate::report::write_json(p, &doc)?;
    }
    Ok(if failed.is_empty() {
        Status::Done
    } else {
        Status::Failed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_values() {
        assert_eq!(confidence_arg("95").unwrap(), 0.95);
        assert_eq!(confidence_arg("99%").unwrap(), 0.99);
        assert_eq!(confidence_arg("0.9").unwrap(), 0.9);
        assert!(confidence_arg("100").is_err());
        assert!(confidence_arg("0").is_err());
        assert!(confidence_arg("x").is_err());
    }

    #[test]
    fn verdicts_by_direction() {
        assert_eq!(verdict(Better::Higher, 1.0), "faster");
        assert_eq!(verdict(Better::Higher, -1.0), "slower");
        assert_eq!(verdict(Better::Lower, 1.0), "slower");
        assert_eq!(verdict(Better::Lower, -1.0), "faster");
        assert_eq!(verdict(Better::Either, 1.0), "higher");
    }

    fn run(ops: &[u64], last: f64) -> serde_json::Value {
        let mut r = RunResult {
            benchmark: "run".into(),
            complete: true,
            ..Default::default()
        };
        r.timeseries.interval_s = 1.0;
        r.timeseries.ops = ops.to_vec();
        r.timeseries.last_interval_s = last;
        r.summary.ops_per_s = mean(&ops.iter().map(|&o| o as f64).collect::<Vec<_>>());
        serde_json::to_value(r).unwrap()
    }

    fn one(doc: serde_json::Value) -> Side {
        Side {
            label: "x".into(),
            identity: repeats::identity(&doc).unwrap(),
            docs: vec![doc],
        }
    }

    #[test]
    fn the_partial_last_interval_is_left_out() {
        let s = interval_series(&run(&[10, 20, 5], 0.25), "summary.ops_per_s").unwrap();
        assert_eq!(s, [10.0, 20.0]);
        let s = interval_series(&run(&[10, 20, 5], 1.0), "summary.ops_per_s").unwrap();
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn single_runs_by_bootstrap() {
        let base: Vec<u64> = (0..20).map(|i| 1000 + (i * 37 % 23)).collect();
        let slow: Vec<u64> = base.iter().map(|v| v * 8 / 10).collect();
        let rows = compare(&one(run(&base, 1.0)), &one(run(&slow, 1.0)), 0.95).unwrap();
        let r = &rows[0];
        assert_eq!(
            (r.method, r.verdict.as_str()),
            ("block-bootstrap", "slower")
        );
        assert!((r.change_pct.unwrap() + 20.0).abs() < 0.1);
        let rows = compare(&one(run(&base, 1.0)), &one(run(&base, 1.0)), 0.95).unwrap();
        assert_eq!(rows[0].verdict, "no significant change");
        let rows = compare(&one(run(&[5, 5, 5], 1.0)), &one(run(&[4, 4, 4], 1.0)), 0.95).unwrap();
        assert_eq!(rows[0].verdict, "not judged");
        assert!(rows[0].note.as_ref().unwrap().contains("too few"));
    }

    #[test]
    fn repeats_by_welch() {
        let side = |v: &[u64]| Side {
            label: "x".into(),
            identity: "run".into(),
            docs: v.iter().map(|&x| run(&[x; 6], 1.0)).collect(),
        };
        let rows = compare(
            &side(&[100, 101, 99, 100, 100]),
            &side(&[95, 96, 94, 95, 95]),
            0.95,
        )
        .unwrap();
        assert_eq!(
            (rows[0].method, rows[0].verdict.as_str()),
            ("welch", "slower")
        );
        assert!(rows[0].p_value.unwrap() < 1e-4);
        let rows = compare(&side(&[100, 101, 99]), &side(&[101, 99, 100]), 0.95).unwrap();
        assert_eq!(rows[0].verdict, "no significant change");
        assert_eq!(rows[0].p_value, Some(1.0));
    }
}
