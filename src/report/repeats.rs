//! A benchmark run several times (`--repeat N`): every run's document and
//! the spread of each headline metric across them, under the schema
//! `iogauge/repeats/v1`. The headline metrics ([`headline`]) are also what
//! `iogauge compare` compares.

use super::{Collection, RunResult, Tool};
use crate::measure::significance::Spread;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

pub const SCHEMA: &str = "iogauge/repeats/v1";

/// Which way a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// Throughput and other rates.
    Higher,
    /// Latencies, times, errors.
    Lower,
    /// A figure with no direction (a count, a size, a load point).
    Either,
}

/// One headline figure of a document.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// `summary.ops_per_s`, `ops.read.lat_p99_ns`, `metrics.tps`; in a
    /// collection, prefixed by the entry's name and a slash.
    pub name: String,
    pub value: f64,
    pub better: Better,
    /// A throughput metric: the ones `--fail-if-slower` watches.
    pub throughput: bool,
}

/// The direction of a benchmark's own metric, from its name: rates are
/// higher-is-better throughput; times, latencies and errors lower is
/// better; anything else has no direction.
pub fn direction(name: &str) -> (Better, bool) {
    let n = name.to_ascii_lowercase();
    let rate = [
        "per_s",
        "per_h",
        "per_min",
        "tps",
        "iops",
        "throughput",
        "stones",
        "mb_s",
        "kb_s",
    ];
    if rate.iter().any(|r| n.contains(r)) {
        return (Better::Higher, true);
    }
    let time = ["latency", "response", "elapsed", "error", "seconds"];
    let unit = ["_ns", "_us", "_ms", "_s"];
    if time.iter().any(|t| n.contains(t)) || unit.iter().any(|u| n.ends_with(u)) {
        return (Better::Lower, false);
    }
    (Better::Either, false)
}

/// The runs of a result or collection document, each with its entry name
/// (empty for a single result).
pub fn runs_of(doc: &serde_json::Value) -> Result<Vec<(String, RunResult)>> {
    if doc.get("schema").and_then(|s| s.as_str()) == Some(SCHEMA) {
        bail!("a repeats document holds runs of its own; take them with read_repeats");
    }
    if doc.get("entries").is_some() {
        let c: Collection =
            serde_json::from_value(doc.clone()).context("not an iogauge collection of results")?;
        return Ok(c.entries.into_iter().map(|e| (e.name, e.result)).collect());
    }
    let r: RunResult = serde_json::from_value(doc.clone()).context("not an iogauge result")?;
    Ok(vec![(String::new(), r)])
}

/// What a document measured, to tell whether two can be compared: the
/// benchmark of a result; the schema and each entry's name and benchmark
/// of a collection.
pub fn identity(doc: &serde_json::Value) -> Result<String> {
    let runs = runs_of(doc)?;
    if doc.get("entries").is_none() {
        return Ok(runs[0].1.benchmark.clone());
    }
    let schema = doc.get("schema").and_then(|s| s.as_str()).unwrap_or("?");
    let names: Vec<String> = runs
        .iter()
        .map(|(n, r)| format!("{n}:{}", r.benchmark))
        .collect();
    Ok(format!("{schema} [{}]", names.join(", ")))
}

/// The headline metrics of a document (a result or a collection), in a
/// fixed order: the summary's rates, each op kind's mean, median and 99th
/// percentile latency, then the benchmark's own numeric metrics.
pub fn headline(doc: &serde_json::Value) -> Result<Vec<Metric>> {
    let mut v = Vec::new();
    for (entry, r) in runs_of(doc)? {
        let prefix = if entry.is_empty() {
            String::new()
        } else {
            format!("{entry}/")
        };
        v.extend(result_headline(&prefix, &r));
    }
    Ok(v)
}

fn result_headline(prefix: &str, r: &RunResult) -> Vec<Metric> {
    let mut v = Vec::new();
    let mut push = |name: String, value: f64, better: Better, throughput: bool| {
        if value.is_finite() {
            v.push(Metric {
                name: format!("{prefix}{name}"),
                value,
                better,
                throughput,
            });
        }
    };
    let s = &r.summary;
    push(
        "summary.ops_per_s".into(),
        s.ops_per_s,
        Better::Higher,
        true,
    );
    if s.bytes_read > 0 {
        let n = "summary.read_bytes_per_s";
        push(n.into(), s.read_bytes_per_s, Better::Higher, true);
    }
    if s.bytes_written > 0 {
        let n = "summary.write_bytes_per_s";
        push(n.into(), s.write_bytes_per_s, Better::Higher, true);
    }
    for (kind, op) in &r.ops {
        if op.count == 0 {
            continue;
        }
        let l = &op.latency_ns;
        push(
            format!("ops.{kind}.lat_mean_ns"),
            l.mean,
            Better::Lower,
            false,
        );
        push(
            format!("ops.{kind}.lat_p50_ns"),
            l.p50 as f64,
            Better::Lower,
            false,
        );
        push(
            format!("ops.{kind}.lat_p99_ns"),
            l.p99 as f64,
            Better::Lower,
            false,
        );
    }
    for (name, value) in &r.metrics {
        if let Some(x) = value.as_f64().filter(|_| value.is_number()) {
            let (better, throughput) = direction(name);
            push(format!("metrics.{name}"), x, better, throughput);
        }
    }
    v
}

/// A series of runs of one benchmark, as `--repeat` writes it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Repeats {
    pub schema: String,
    pub tool: Tool,
    pub benchmark: String,
    pub started_at: String,
    /// Every run asked for done, and each complete.
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The N of --repeat (runs may hold fewer when the series stopped).
    pub repeats: u32,
    /// Confidence of the intervals in `stats`.
    pub confidence: f64,
    /// The --cv-warn threshold, percent.
    pub cv_warn_pct: f64,
    pub runs: Vec<Repeat>,
    /// One row per headline metric, over the complete runs.
    pub stats: Vec<MetricStats>,
}

/// One run of the series.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Repeat {
    /// 1-based.
    pub index: u32,
    /// The seed it ran with; None when the benchmark takes no seed (or
    /// chose its own).
    pub seed: Option<u64>,
    /// Its document, as a single run would have written it (a result or
    /// a collection).
    pub document: serde_json::Value,
}

/// The spread of one headline metric across the runs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MetricStats {
    pub metric: String,
    pub better: Better,
    pub throughput: bool,
    #[serde(flatten)]
    pub spread: Spread,
}

impl Repeats {
    pub fn new(benchmark: &str, repeats: u32, confidence: f64, cv_warn_pct: f64) -> Repeats {
        Repeats {
            schema: SCHEMA.to_string(),
            tool: Tool::default(),
            benchmark: benchmark.to_string(),
            started_at: super::now_rfc3339(),
            complete: false,
            error: None,
            repeats,
            confidence,
            cv_warn_pct,
            runs: Vec::new(),
            stats: Vec::new(),
        }
    }

    /// Whether a run's document is complete.
    fn run_complete(doc: &serde_json::Value) -> bool {
        doc.get("complete").and_then(|c| c.as_bool()) == Some(true)
    }

    /// Fill `stats` from the complete runs: each metric found in any, in
    /// the order first seen.
    pub fn compute_stats(&mut self) {
        let mut order: Vec<(String, Better, bool)> = Vec::new();
        let mut samples: std::collections::HashMap<String, Vec<f64>> = Default::default();
        for r in self.runs.iter().filter(|r| Self::run_complete(&r.document)) {
            let Ok(ms) = headline(&r.document) else {
                continue;
            };
            for m in ms {
                let s = samples.entry(m.name.clone()).or_default();
                if s.is_empty() {
                    order.push((m.name.clone(), m.better, m.throughput));
                }
                s.push(m.value);
            }
        }
        self.stats = order
            .into_iter()
            .filter_map(|(metric, better, throughput)| {
                let spread = Spread::of(&samples[&metric], self.confidence)?;
                Some(MetricStats {
                    metric,
                    better,
                    throughput,
                    spread,
                })
            })
            .collect();
    }

    /// One line per metric whose CV passes the threshold.
    pub fn warnings(&self) -> Vec<String> {
        self.stats
            .iter()
            .filter_map(|m| {
                let cv = m.spread.cv? * 100.0;
                (cv > self.cv_warn_pct).then(|| {
                    format!(
                        "{} varies by {cv:.1} % (CV) across {} runs, above --cv-warn {} %: a change smaller than that between two runs is noise",
                        m.metric,
                        m.spread.n,
                        fmt_pct(self.cv_warn_pct)
                    )
                })
            })
            .collect()
    }

    /// The summary table printed after the runs.
    pub fn summary(&self) -> String {
        let done = self.runs.len();
        let seeds: Vec<String> = self
            .runs
            .iter()
            .filter_map(|r| r.seed.map(|s| s.to_string()))
            .collect();
        let mut s = format!(
            "== summary: {} of {} runs of {}{} ==\n",
            done,
            self.repeats,
            self.benchmark,
            if seeds.is_empty() {
                String::new()
            } else {
                format!(", seeds {}", seeds.join(" "))
            }
        );
        if self.stats.is_empty() {
            s += "no complete run: nothing to summarise\n";
            return s;
        }
        let conf = format!("{} % CI", fmt_pct(self.confidence * 100.0));
        let rows: Vec<[String; 6]> = self
            .stats
            .iter()
            .map(|m| {
                let sp = &m.spread;
                let opt = |x: Option<f64>| x.map_or("-".to_string(), fmt_num);
                [
                    m.metric.clone(),
                    sp.n.to_string(),
                    fmt_num(sp.mean),
                    opt(sp.stddev),
                    match (sp.ci_low, sp.ci_high) {
                        (Some(l), Some(h)) => format!("{} .. {}", fmt_num(l), fmt_num(h)),
                        _ => "-".to_string(),
                    },
                    sp.cv
                        .map_or("-".to_string(), |c| format!("{:.2} %", c * 100.0)),
                ]
            })
            .collect();
        let head = ["metric", "n", "mean", "stddev", conf.as_str(), "CV"];
        s += &table(&head, &rows);
        s
    }

    /// The stats as CSV: one row per metric.
    pub fn csv(&self) -> String {
        let mut s = String::from("metric,better,throughput,n,mean,stddev,ci_low,ci_high,cv\n");
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
        for m in &self.stats {
            let sp = &m.spread;
            let better = serde_json::to_value(m.better).unwrap_or_default();
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{}",
                csv_field(&m.metric),
                better.as_str().unwrap_or(""),
                m.throughput,
                sp.n,
                sp.mean,
                opt(sp.stddev),
                opt(sp.ci_low),
                opt(sp.ci_high),
                opt(sp.cv)
            );
        }
        s
    }
}

/// The line above each run's report.
pub fn header(index: u32, of: u32, seed: Option<u64>) -> String {
    match seed {
        Some(s) => format!("== repeat {index} of {of} (seed {s}) ==\n"),
        None => format!("== repeat {index} of {of} ==\n"),
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A percentage without trailing zeros: 95, 99.9, 5.
pub fn fmt_pct(v: f64) -> String {
    format!("{}", (v * 1e4).round() / 1e4)
}

/// A figure with about five significant digits, without exponent for the
/// sizes benchmarks produce.
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i32;
    let decimals = (4 - mag).clamp(0, 6) as usize;
    format!("{v:.decimals$}")
}

/// An aligned text table: the first column left-aligned, the rest right.
pub fn table<const N: usize>(head: &[&str; N], rows: &[[String; N]]) -> String {
    let mut w = head.map(|h| h.chars().count());
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i == 0 {
                l += c;
                l += &" ".repeat(pad);
            } else {
                l += "  ";
                l += &" ".repeat(pad);
                l += c;
            }
        }
        l.trim_end().to_string() + "\n"
    };
    let mut s = line(head.to_vec());
    for r in rows {
        s += &line(r.iter().map(String::as_str).collect());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(ops_per_s: f64, p99: u64, tps: f64) -> serde_json::Value {
        let mut r = RunResult {
            benchmark: "run".into(),
            complete: true,
            ..Default::default()
        };
        r.summary.ops_per_s = ops_per_s;
        r.summary.bytes_read = 10;
        r.summary.read_bytes_per_s = ops_per_s * 4096.0;
        let mut op = crate::report::OpSummary {
            count: 5,
            ..Default::default()
        };
        op.latency_ns.p99 = p99;
        op.latency_ns.p50 = p99 / 2;
        op.latency_ns.mean = p99 as f64 / 2.0;
        r.ops.insert("read".into(), op);
        r.metrics.insert("transactions_per_s".into(), tps.into());
        r.metrics.insert("note".into(), "text".into());
        serde_json::to_value(r).unwrap()
    }

    #[test]
    fn directions_by_name() {
        assert_eq!(direction("transactions_per_s"), (Better::Higher, true));
        assert_eq!(direction("iostones_per_s"), (Better::Higher, true));
        assert_eq!(direction("request_latency_ns"), (Better::Lower, false));
        assert_eq!(direction("total_s"), (Better::Lower, false));
        assert_eq!(direction("median_error"), (Better::Lower, false));
        assert_eq!(direction("peak_load"), (Better::Either, false));
        assert_eq!(direction("iops"), (Better::Higher, true));
    }

    #[test]
    fn headline_of_a_result_and_a_collection() {
        let m = headline(&result(100.0, 800, 7.0)).unwrap();
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "summary.ops_per_s",
                "summary.read_bytes_per_s",
                "ops.read.lat_mean_ns",
                "ops.read.lat_p50_ns",
                "ops.read.lat_p99_ns",
                "metrics.transactions_per_s"
            ]
        );
        assert_eq!(m[4].value, 800.0);
        assert_eq!(m[4].better, Better::Lower);
        let c = serde_json::json!({
            "schema": "iogauge/x/v1", "tool": Tool::default(), "started_at": "", "complete": true,
            "entries": [{"name": "a", "result": result(1.0, 2, 3.0)}]
        });
        let m = headline(&c).unwrap();
        assert_eq!(m[0].name, "a/summary.ops_per_s");
        assert_eq!(identity(&c).unwrap(), "iogauge/x/v1 [a:run]");
    }

    /// Three runs: 90, 100, 110 ops/s: mean 100, sd 10, CV 10 %, the
    /// interval 100 ± 4.302653 · 10/√3; a failed run is left out.
    #[test]
    fn the_stats_table() {
        let mut r = Repeats::new("run", 4, 0.95, 5.0);
        for (i, v) in [90.0, 100.0, 110.0].into_iter().enumerate() {
            r.runs.push(Repeat {
                index: i as u32 + 1,
                seed: Some(i as u64 + 1),
                document: result(v, 1000, 5.0),
            });
        }
        let mut failed = result(1e9, 1, 1.0);
        failed["complete"] = false.into();
        r.runs.push(Repeat {
            index: 4,
            seed: Some(4),
            document: failed,
        });
        r.compute_stats();
        let ops = &r.stats[0];
        assert_eq!(ops.metric, "summary.ops_per_s");
        assert_eq!(ops.spread.n, 3);
        assert!((ops.spread.mean - 100.0).abs() < 1e-9);
        assert!((ops.spread.stddev.unwrap() - 10.0).abs() < 1e-9);
        assert!((ops.spread.cv.unwrap() - 0.1).abs() < 1e-12);
        let hw = 4.302_652_73 * 10.0 / 3f64.sqrt();
        assert!((ops.spread.ci_high.unwrap() - (100.0 + hw)).abs() < 1e-5);
        // constant metrics: sd 0, CV 0, no warning
        let p99 = r
            .stats
            .iter()
            .find(|m| m.metric == "ops.read.lat_p99_ns")
            .unwrap();
        assert_eq!(p99.spread.cv, Some(0.0));
        let w = r.warnings();
        assert_eq!(w.len(), 2, "{w:?}"); // ops_per_s and read bytes/s vary by 10 %
        assert!(w[0].starts_with("summary.ops_per_s varies by 10.0 %"));
        let text = r.summary();
        assert!(text.contains("seeds 1 2 3 4"), "{text}");
        assert!(text.contains("95 % CI"), "{text}");
        assert!(
            r.csv()
                .lines()
                .nth(1)
                .unwrap()
                .starts_with("summary.ops_per_s,higher,true,3,100,10,")
        );
    }

    #[test]
    fn numbers_and_tables() {
        assert_eq!(fmt_num(123456.789), "123457");
        assert_eq!(
            (fmt_pct(95.0), fmt_pct(99.9), fmt_pct(5.0)),
            ("95".into(), "99.9".into(), "5".into())
        );
        assert_eq!(fmt_num(12.3456789), "12.346");
        assert_eq!(fmt_num(0.0012346), "0.001235");
        let t = table(&["a", "bb"], &[["long".into(), "1".into()]]);
        assert_eq!(t, "a     bb\nlong   1\n");
    }
}
