//! fio's JSON output (`--output-format=json`, and `json+`, which adds each
//! latency's histogram bins) read as results, so that a fio run sits
//! beside an iogauge run in the report.
//!
//! Each job becomes one result (`benchmark` "fio"), each direction that
//! did I/O (read, write, trim) one op kind:
//!
//! | fio                                     | result                        |
//! |-----------------------------------------|-------------------------------|
//! | `total_ios`, `io_bytes`                 | `ops.KIND.count`, `.bytes`    |
//! | `iops`, `bw_bytes` (summed over kinds)  | `summary.ops_per_s`, `*_bytes_per_s` |
//! | `lat_ns` mean/stddev/min/max            | `ops.KIND.latency_ns` (total: submission and completion) |
//! | `lat_ns.percentile`, else `clat_ns.percentile` | its p50 … p99.99 |
//! | `clat_ns`, `slat_ns` (when measured)    | `completion_ns`, `submission_ns` |
//! | `lat_ns.bins`, else `clat_ns.bins` (json+) | `ops.KIND.histogram`        |
//! | `usr_cpu`, `sys_cpu` (% of one CPU)     | `summary.cpu_*`               |
//! | `job_runtime` (ms), else `elapsed` (s)  | `elapsed_s`                   |
//! | `error` ≠ 0                             | `complete: false`, `error`    |
//! | `job options`                           | `config`                      |
//!
//! fio does not measure the share of time spent in I/O, nor the run's
//! memory, and its JSON has no time series (that needs its log files):
//! those are NaN or empty, and the report shows a dash. When the percentile
//! fio printed is clat's (no `lat_percentiles=1`), the latency curve drawn
//! from the bins is clat's too, and the report says which.

use crate::measure::LatencySummary;
use crate::report::{OpSummary, RunResult, Series, Summary, Tool};
use anyhow::{Context, Result, bail};
use hdrhistogram::Histogram;
use serde_json::Value;

/// Whether `doc` is fio's JSON output.
pub fn is_fio(doc: &Value) -> bool {
    doc.get("fio version").is_some() && doc.get("jobs").is_some()
}

/// Each job of fio's JSON output as a result, with the job's name.
pub fn results(doc: &Value) -> Result<Vec<(String, RunResult)>> {
    let version = doc["fio version"].as_str().unwrap_or("fio").to_string();
    let Some(jobs) = doc["jobs"].as_array() else {
        bail!("its 'jobs' is not a list");
    };
    if jobs.is_empty() {
        bail!("fio's output has no job");
    }
    let started = doc["timestamp"]
        .as_u64()
        .map(|t| {
            humantime::format_rfc3339_seconds(
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(t),
            )
            .to_string()
        })
        .unwrap_or_default();
    let devices: Vec<&str> = doc["disk_util"]
        .as_array()
        .map(|v| v.iter().filter_map(|d| d["name"].as_str()).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let name = job["jobname"].as_str().unwrap_or("job").to_string();
        let r = job_result(job, &version, &started, &devices)
            .with_context(|| format!("job {} ('{name}')", i + 1))?;
        out.push((name, r));
    }
    // two jobs of the same name (numjobs without group_reporting): number them
    let names: Vec<String> = out.iter().map(|o| o.0.clone()).collect();
    for (i, o) in out.iter_mut().enumerate() {
        if names.iter().filter(|n| **n == o.0).count() > 1 {
            o.0 = format!("{} #{}", o.0, i + 1);
        }
    }
    Ok(out)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_f64().map(|x| x as u64))
        .unwrap_or(0)
}

/// fio's percentile `p` (`"99.900000"`) from a `percentile` map.
fn pct(map: &Value, p: f64) -> Option<u64> {
    map.as_object()?.iter().find_map(|(k, v)| {
        let at: f64 = k.parse().ok()?;
        ((at - p).abs() < 1e-6).then(|| u(v))
    })
}

/// A latency summary from one of fio's `*_ns` objects: mean, stddev, min,
/// max from it, percentiles from `percentiles` (`None`: from its own).
fn summary(stat: &Value, percentiles: Option<&Value>) -> LatencySummary {
    let p = percentiles.unwrap_or(&stat["percentile"]);
    let at = |q| pct(p, q).unwrap_or(0);
    LatencySummary {
        mean: f(&stat["mean"]),
        stddev: f(&stat["stddev"]),
        min: u(&stat["min"]),
        max: u(&stat["max"]),
        p50: at(50.0),
        p90: at(90.0),
        p95: at(95.0),
        p99: at(99.0),
        p999: at(99.9),
        p9999: at(99.99),
    }
}

/// The histogram of json+'s `bins` (latency in ns → count), encoded as
/// the result keeps it; `None` when there are no bins.
pub fn bins_histogram(bins: &Value) -> Result<Option<Histogram<u64>>> {
    let Some(map) = bins.as_object() else {
        return Ok(None);
    };
    if map.is_empty() {
        return Ok(None);
    }
    let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3)
        .context("cannot make a latency histogram")?;
    for (k, v) in map {
        let ns: u64 = k
            .parse()
            .with_context(|| format!("a bin's latency '{k}' is not a number of ns"))?;
        let n = v
            .as_u64()
            .with_context(|| format!("bin {k}'s count is not a count"))?;
        h.record_n(ns.clamp(1, 3_600_000_000_000), n)
            .with_context(|| format!("bin {k} does not fit the histogram"))?;
    }
    Ok(Some(h))
}

fn job_result(job: &Value, version: &str, started: &str, devices: &[&str]) -> Result<RunResult> {
    let mut r = RunResult {
        schema: crate::report::SCHEMA.into(),
        tool: Tool {
            name: "fio".into(),
            version: version.trim_start_matches("fio-").to_string(),
            commit: String::new(),
        },
        benchmark: "fio".into(),
        config: job["job options"].clone(),
        started_at: started.to_string(),
        complete: true,
        ..Default::default()
    };
    r.environment.device = devices.join(", ");
    r.environment.target_dir = job["job options"]["directory"]
        .as_str()
        .or(job["job options"]["filename"].as_str())
        .unwrap_or_default()
        .to_string();
    let runtime_ms = ["read", "write", "trim"]
        .iter()
        .map(|d| u(&job[d]["runtime"]))
        .max()
        .unwrap_or(0)
        .max(u(&job["job_runtime"]));
    r.elapsed_s = if runtime_ms > 0 {
        runtime_ms as f64 / 1000.0
    } else {
        f(&job["elapsed"])
    };
    let err = u(&job["error"]);
    if err != 0 {
        r.complete = false;
        r.error = Some(format!("fio reported error {err} for this job"));
    }
    let mut s = Summary {
        io_time_fraction: f64::NAN,
        workers: 1,
        cpu_user_s: f(&job["usr_cpu"]) / 100.0 * r.elapsed_s,
        cpu_sys_s: f(&job["sys_cpu"]) / 100.0 * r.elapsed_s,
        cpu_util: (f(&job["usr_cpu"]) + f(&job["sys_cpu"])) / 100.0,
        ..Default::default()
    };
    for d in ["read", "write", "trim"] {
        let x = &job[d];
        let count = u(&x["total_ios"]);
        if count == 0 {
            continue;
        }
        let bytes = u(&x["io_bytes"]);
        s.ops += count;
        s.ops_per_s += f(&x["iops"]);
        match d {
            "read" => {
                s.bytes_read = bytes;
                s.read_bytes_per_s = f(&x["bw_bytes"]);
            }
            "write" => {
                s.bytes_written = bytes;
                s.write_bytes_per_s = f(&x["bw_bytes"]);
            }
            _ => {}
        }
        // total latency's percentiles when fio computed them, else clat's
        let lat_has_pct = x["lat_ns"]["percentile"].is_object();
        let pcts = if lat_has_pct {
            &x["lat_ns"]["percentile"]
        } else {
            &x["clat_ns"]["percentile"]
        };
        let measured = |v: &Value| u(&v["N"]) > 0;
        let bins = if x["lat_ns"]["bins"].is_object() {
            &x["lat_ns"]["bins"]
        } else {
            &x["clat_ns"]["bins"]
        };
        let hist = bins_histogram(bins)?
            .map(|h| crate::report::hist::encode(&h))
            .transpose()?;
        r.ops.insert(
            d.to_string(),
            OpSummary {
                count,
                bytes,
                latency_ns: summary(&x["lat_ns"], Some(pcts)),
                response_ns: None,
                submission_ns: measured(&x["slat_ns"]).then(|| summary(&x["slat_ns"], None)),
                completion_ns: measured(&x["clat_ns"]).then(|| summary(&x["clat_ns"], None)),
                histogram: hist,
            },
        );
        r.metric(&format!("{d}_iops"), f(&x["iops"]));
        r.metric(&format!("{d}_bw_bytes"), f(&x["bw_bytes"]));
        r.metric(
            &format!("{d}_percentiles_of"),
            if lat_has_pct { "lat" } else { "clat" },
        );
    }
    r.summary = s;
    r.timeseries = Series {
        interval_s: 1.0,
        ..Default::default()
    };
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "fio version": "fio-3.33",
            "timestamp": 1_700_000_000u64,
            "jobs": [{
                "jobname": "rr",
                "error": 0,
                "elapsed": 2,
                "job_runtime": 1500,
                "usr_cpu": 10.0,
                "sys_cpu": 30.0,
                "job options": {"rw": "randread", "bs": "4k", "directory": "/mnt/x"},
                "read": {
                    "io_bytes": 4096000, "bw_bytes": 2730666, "iops": 666.67,
                    "runtime": 1500, "total_ios": 1000,
                    "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
                    "clat_ns": {"min": 1000, "max": 9000, "mean": 2000.0, "stddev": 500.0, "N": 1000,
                        "percentile": {"50.000000": 1900, "90.000000": 3000, "95.000000": 4000,
                                       "99.000000": 8000, "99.900000": 9000, "99.990000": 9000},
                        "bins": {"1000": 400, "1900": 300, "3000": 200, "8000": 99, "9000": 1}},
                    "lat_ns": {"min": 1100, "max": 9100, "mean": 2100.0, "stddev": 500.0, "N": 1000}
                },
                "write": {"io_bytes": 0, "bw_bytes": 0, "iops": 0.0, "runtime": 0, "total_ios": 0},
                "trim": {"io_bytes": 0, "bw_bytes": 0, "iops": 0.0, "runtime": 0, "total_ios": 0}
            }],
            "disk_util": [{"name": "nvme0n1"}]
        })
    }

    /// Each field lands where the table of the module says.
    #[test]
    fn a_job_maps_onto_a_result() {
        let v = results(&doc()).unwrap();
        assert_eq!(v.len(), 1);
        let (name, r) = &v[0];
        assert_eq!(name, "rr");
        assert_eq!(r.benchmark, "fio");
        assert_eq!(r.tool.version, "3.33");
        assert_eq!(r.started_at, "2023-11-14T22:13:20Z");
        assert_eq!(r.elapsed_s, 1.5);
        assert!(r.complete);
        assert_eq!(r.summary.ops, 1000);
        assert_eq!(r.summary.ops_per_s, 666.67);
        assert_eq!(r.summary.bytes_read, 4_096_000);
        assert_eq!(r.summary.read_bytes_per_s, 2_730_666.0);
        assert!((r.summary.cpu_util - 0.4).abs() < 1e-12);
        assert!((r.summary.cpu_sys_s - 0.45).abs() < 1e-12);
        assert!(r.summary.io_time_fraction.is_nan());
        assert_eq!(r.environment.device, "nvme0n1");
        assert_eq!(r.environment.target_dir, "/mnt/x");
        assert_eq!(r.config["bs"], "4k");
        let op = &r.ops["read"];
        assert!(!r.ops.contains_key("write"), "no I/O, no kind");
        assert_eq!((op.count, op.bytes), (1000, 4_096_000));
        // lat's mean, clat's percentiles (fio computed no lat percentiles)
        assert_eq!(op.latency_ns.mean, 2100.0);
        assert_eq!(op.latency_ns.p50, 1900);
        assert_eq!(op.latency_ns.p99, 8000);
        assert_eq!(op.latency_ns.p9999, 9000);
        assert_eq!(r.metrics["read_percentiles_of"], "clat");
        assert!(op.submission_ns.is_none(), "slat not measured");
        assert_eq!(op.completion_ns.as_ref().unwrap().mean, 2000.0);
        // the bins, as a histogram: every count, the median where the bins put it
        let h = op.latency_histogram().unwrap().unwrap();
        assert_eq!(h.len(), 1000);
        assert_eq!(h.value_at_quantile(0.5), 1900);
        assert!(h.max() >= 9000 && h.max() < 9010);
    }

    #[test]
    fn errors_and_duplicates() {
        let mut d = doc();
        d["jobs"][0]["error"] = json!(5);
        let j = d["jobs"][0].clone();
        d["jobs"].as_array_mut().unwrap().push(j);
        let v = results(&d).unwrap();
        assert_eq!(v[0].0, "rr #1");
        assert_eq!(v[1].0, "rr #2");
        assert!(!v[0].1.complete);
        assert!(v[0].1.error.as_deref().unwrap().contains("error 5"));
        d["jobs"] = json!([]);
        assert!(results(&d).is_err());
        d["jobs"] = json!(3);
        assert!(results(&d).is_err());
        let mut d = doc();
        d["jobs"][0]["read"]["clat_ns"]["bins"] = json!({"abc": 3});
        assert!(results(&d).unwrap_err().to_string().contains("job 1"));
        assert!(is_fio(&doc()));
        assert!(!is_fio(&json!({"schema": "iogauge/result/v1"})));
    }
}
