//! `--fio` and `--fio-json`: any result document laid out as fio's text
//! report or JSON. A single run is one job; each run of a collection (a
//! session's runs, a survey's points) is a job of its own group, as fio
//! reports jobs that ran one after another (`stonewall`).

use super::json::{self, Doc};
use super::{FioJobReport, rw_name, text};
use crate::report::RunResult;
use crate::report::export::{Document, Exporter};
use anyhow::Result;
use serde_json::Value;

/// What goes in `fio version`: this tool, not fio.
pub fn version() -> String {
    format!("iogauge-{}", crate::report::VERSION)
}

/// fio's text report.
pub struct FioText;
/// fio's JSON.
pub struct FioJson;

impl Exporter for FioText {
    fn name(&self) -> &'static str {
        "fio"
    }

    fn serialize(&self, doc: &Document) -> Result<Vec<u8>> {
        let jobs = jobs_of(doc);
        let mut out = text::header(&jobs, &version());
        out.push_str(&text::render(&jobs, &[]));
        Ok(out.into_bytes())
    }
}

impl Exporter for FioJson {
    fn name(&self) -> &'static str {
        "fio-json"
    }

    fn serialize(&self, doc: &Document) -> Result<Vec<u8>> {
        let jobs = jobs_of(doc);
        let v = version();
        let d = Doc {
            version: &v,
            ..Default::default()
        };
        Ok(json::render(&jobs, &d).into_bytes())
    }
}

fn jobs_of(doc: &Document) -> Vec<FioJobReport> {
    doc.runs()
        .into_iter()
        .enumerate()
        .map(|(i, (label, r))| {
            let name = if label.is_empty() {
                r.benchmark.as_str()
            } else {
                label
            };
            job_of_result(name, i as u32, r)
        })
        .collect()
}

fn num(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_f64()
}

fn string(v: &Value, path: &[&str]) -> Option<String> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))?
        .as_str()
        .map(str::to_string)
}

/// One job from a result: the figures from [`FioJobReport::from_result`],
/// the set-up from the result's `config`, named with fio's options.
pub fn job_of_result(name: &str, groupid: u32, r: &RunResult) -> FioJobReport {
    let c = &r.config;
    let engine = string(c, &["io", "engine"])
        .or_else(|| string(c, &["engine"]))
        .unwrap_or_else(|| "sync".into());
    let iodepth = num(c, &["io", "iodepth"])
        .map(|d| d as u32)
        .or_else(|| r.summary.io_depth.as_ref().map(|d| d.max))
        .unwrap_or(1)
        .max(1);
    let has = |k: &str| r.ops.get(k).is_some_and(|o| o.count > 0);
    let rw = match (
        num(c, &["workload", "read_frac"]),
        num(c, &["workload", "seq_frac"]),
    ) {
        (Some(rf), Some(sf)) => rw_name(rf, sf).to_string(),
        _ => match (has("read"), has("write") || has("append")) {
            (true, false) => "read",
            (false, true) => "write",
            _ => "rw",
        }
        .to_string(),
    };
    let mut job = FioJobReport::new(name, groupid, &rw, &engine, iodepth).from_result(r);
    // request sizes: run's own bounds where it says them, else the mean
    // size measured per direction
    let size_mean = num(c, &["workload", "size_mean"]).map(|v| v as u64);
    let fixed = num(c, &["workload", "size_cv"]) == Some(0.0);
    let align = num(c, &["workload", "align"]).map(|v| v as u64);
    let max_req = num(c, &["max_request_bytes"]).map(|v| v as u64);
    let bounds = match (size_mean, fixed, align, max_req) {
        (Some(m), true, _, _) => Some((m, m)),
        (Some(_), false, Some(a), Some(x)) => Some((a, x)),
        _ => None,
    };
    let dirs = job.dirs().map(|d| d.map(|d| (d.io_bytes, d.total_ios)));
    for (slot, d) in job.bs.iter_mut().zip(dirs) {
        *slot = match (bounds, d) {
            (Some(b), _) => b,
            (None, Some((bytes, n))) if n > 0 => (bytes / n, bytes / n),
            _ => (0, 0),
        };
    }
    let bs = match bounds {
        Some((a, b)) if a == b => a.to_string(),
        Some((a, b)) => format!("{a}-{b}"),
        None => job.bs.iter().map(|b| b.1).max().unwrap_or(0).to_string(),
    };
    let mut opts = vec![
        ("name", name.to_string()),
        ("ioengine", engine),
        ("rw", rw),
        ("bs", bs),
        ("iodepth", iodepth.to_string()),
        ("numjobs", r.summary.workers.max(1).to_string()),
    ];
    if let Some(s) = num(c, &["workload", "unique_bytes"]) {
        opts.push(("size", (s as u64).to_string()));
    }
    if let Some(p) = num(c, &["workload", "read_frac"]).filter(|p| *p > 0.0 && *p < 1.0) {
        opts.push(("rwmixread", format!("{}", (p * 100.0).round())));
    }
    if let Some(d) = num(c, &["duration_s"]) {
        opts.push(("runtime", format!("{}ms", (d * 1000.0).round())));
        opts.push(("time_based", "1".into()));
    }
    if c.pointer("/io/direct").and_then(Value::as_bool) == Some(true) {
        opts.push(("direct", "1".into()));
    }
    job.options = opts.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    job
}
