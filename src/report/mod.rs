//! Results: the versioned schema every command writes (`--json`), and the
//! human text that goes with it. JSON is the canonical form; text, tables
//! and plots render from it.

pub mod cluster;
pub mod compare;
pub mod export;
pub mod fio;
pub mod hist;
pub mod html;
pub mod plot;
pub mod repeats;
pub mod sheet;
pub mod text;
pub mod warn;
#[cfg(feature = "xlsx")]
pub mod xlsx;
#[cfg(not(feature = "xlsx"))]
#[path = "xlsx_disabled.rs"]
pub mod xlsx;

use crate::env::Environment;
use crate::measure::{Direction, KindStats, LatencySummary, Outcome};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const SCHEMA: &str = "iogauge/result/v1";

/// The git commit iogauge was built from (`unknown` outside a checkout).
pub const COMMIT: &str = env!("IOGAUGE_COMMIT");
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    pub name: String,
    pub version: String,
    pub commit: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: "iogauge".into(),
            version: VERSION.into(),
            commit: COMMIT.into(),
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub ops: u64,
    pub ops_per_s: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
    /// Share of the workers' time spent inside I/O calls: Σ I/O latency /
    /// (elapsed × workers), i.e. per worker-second (a run of phases sums
    /// each phase's elapsed × workers). Near 1: I/O-bound; near 0: the
    /// benchmark measures something else (Chen & Patterson's test). A
    /// worker with several requests in flight counts the time any was in
    /// flight once. Never clamped: above 1 means calls began before the
    /// measured phase.
    pub io_time_fraction: f64,
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    /// CPU seconds per wall second (1.0 = one core busy).
    pub cpu_util: f64,
    pub workers: usize,
    pub max_rss_kib: u64,
    /// Context switches and page faults of the run's process (and worker
    /// processes) over the measured phase (fio's `ctx`, `majf`, `minf`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ctx_switches: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub major_faults: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub minor_faults: u64,
    /// Open loop only: the rate offered and what was issued of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoop>,
    /// Only when more than one request was in flight at once: how many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_depth: Option<IoDepth>,
    /// Requests cancelled in flight when the run was interrupted (a
    /// queue); not in any count or latency.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cancelled: u64,
    /// Requests that failed because they would have blocked (`--nowait`);
    /// not in any count or latency.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub would_block: u64,
    /// How busy the machine was while the run was measured: other
    /// processes' CPU, steal, load average (absent where not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<crate::measure::machine::MachineLoad>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Bucket counts, where any was counted.
fn counted(b: [u64; 7]) -> Option<[u64; 7]> {
    b.iter().any(|&c| c > 0).then_some(b)
}

/// How deep the queue ran: in-flight counts seen at each issue.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct IoDepth {
    /// The most requests in flight at once.
    pub max: u32,
    /// Share of issues per bucket, as fio's "IO depths" line; only the
    /// buckets that saw issues.
    pub buckets: Vec<DepthShare>,
    /// Submissions per count submitted at once and waits per count
    /// reaped, in fio's buckets (0, 1–4, 5–8, 9–16, 17–32, 33–64, more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<[u64; 7]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<[u64; 7]>,
}

/// One bucket of [`IoDepth`].
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct DepthShare {
    /// The bucket's lowest count: issues that found at least this many in
    /// flight and fewer than twice as many (64: 64 or more), as fio's.
    pub depth: u32,
    /// Share of all issues, 0 to 1.
    pub share: f64,
}

/// What an open-loop run offered and did.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct OpenLoop {
    /// Requests per second offered, all workers together.
    pub rate_offered: f64,
    /// Requests issued per second of the measured phase.
    pub rate_issued: f64,
    /// Requests issued whose intended start fell in the measured phase.
    pub issued: u64,
    /// Requests scheduled before the end that were never issued: the run
    /// could not keep up with the rate.
    pub missed: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct OpSummary {
    pub count: u64,
    pub bytes: u64,
    /// Service time: from the call's start to its end.
    pub latency_ns: LatencySummary,
    /// Open loop only: response time, from the intended start of the
    /// request the op belongs to (queueing included) to the op's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_ns: Option<LatencySummary>,
    /// Queued engines: from issue to the kernel's acceptance of the request
    /// (its submitting system call returned; fio's slat). Page-cache hits
    /// are served inside that call, so for them this is the read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submission_ns: Option<LatencySummary>,
    /// Queued engines: from the kernel's acceptance to the reap (fio's
    /// clat). `latency_ns` is then the total, issue to reap (fio's lat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_ns: Option<LatencySummary>,
    /// Every latency of `latency_ns`, in ns, as HdrHistogram's compressed
    /// V2 encoding in base64 (3 significant digits): any percentile can be
    /// recomputed from it, and the histograms of several runs add exactly.
    /// HdrHistogram's libraries read it; `iogauge report` and `iogauge
    /// compare` use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}

impl OpSummary {
    /// The latency histogram kept in the result, if any.
    pub fn latency_histogram(&self) -> Option<Result<hdrhistogram::Histogram<u64>>> {
        self.histogram.as_deref().map(hist::decode)
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Series {
    pub interval_s: f64,
    pub ops: Vec<u64>,
    pub bytes: Vec<u64>,
    /// How much of the last interval the run covered (it usually ends
    /// mid-second): divide the last bucket by this, not by `interval_s`.
    #[serde(default)]
    pub last_interval_s: f64,
}

/// One run of one benchmark, as written by `--json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    pub schema: String,
    pub tool: Tool,
    pub benchmark: String,
    pub config: serde_json::Value,
    /// How the engine was set up, where that can differ from what
    /// `config` asked (io_uring: the setup flags the kernel took).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineSetup>,
    /// Where each worker was pinned (`--cpus-allowed`, `--numa-node`), as
    /// it read its CPUs and memory policy back; empty when nothing was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinning: Vec<crate::measure::placed::Placed>,
    pub environment: Environment,
    pub started_at: String,
    pub elapsed_s: f64,
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub summary: Summary,
    pub ops: BTreeMap<String, OpSummary>,
    pub metrics: BTreeMap<String, serde_json::Value>,
    pub timeseries: Series,
    /// An MPI job's ranks: each phase's per-rank and per-host figures,
    /// clocks and stonewall (absent on one machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<cluster::Section>,
    /// `--steady-state`: when each timed phase reached steady state (and
    /// left it, with `--steady-state-hold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<crate::measure::steady::SteadyState>,
    /// The data the run touches against the memory the page cache could
    /// hold, where the benchmark says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_set: Option<warn::WorkingSet>,
    /// What makes the figures say less than they seem to (`warn::assess`):
    /// a working set in the page cache, O_DIRECT refused, a CPU-bound or
    /// short run, a busy machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<warn::Warning>,
    /// `--verify` or `--verify-only`: the units written and checked, and
    /// every mismatch found (docs/verify.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::verify::track::Section>,
    /// fio's per-I/O logs the run wrote (`--write-lat-log` and the
    /// others; docs/logs.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub io_logs: Vec<crate::measure::IoLogFile>,
}

/// How the workers' engines were set up ([`crate::engine::Engine::mode`]):
/// one `mode` when every worker's is the same, else each worker's.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct EngineSetup {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// In worker order; null for a worker whose engine said nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_worker: Vec<Option<String>>,
}

impl EngineSetup {
    /// From each worker's mode: `None` when no engine said anything.
    pub fn of(modes: &[Option<String>]) -> Option<EngineSetup> {
        let first = modes.first()?;
        if modes.iter().all(Option::is_none) {
            None
        } else if modes.iter().all(|m| m == first) {
            Some(EngineSetup {
                mode: first.clone(),
                per_worker: Vec::new(),
            })
        } else {
            Some(EngineSetup {
                mode: None,
                per_worker: modes.to_vec(),
            })
        }
    }

    /// One line for the text report.
    pub fn describe(&self) -> String {
        match &self.mode {
            Some(m) => m.clone(),
            None => self
                .per_worker
                .iter()
                .enumerate()
                .map(|(i, m)| format!("worker {i}: {}", m.as_deref().unwrap_or("-")))
                .collect::<Vec<_>>()
                .join("; "),
        }
    }
}

/// Σ I/O latency over the workers' time, both in ns (0 when there was no
/// time).
pub fn io_share(io_ns: u128, worker_ns: u128) -> f64 {
    if worker_ns == 0 {
        0.0
    } else {
        io_ns as f64 / worker_ns as f64
    }
}

/// The current time as RFC 3339 (UTC, seconds).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl RunResult {
    pub fn new(
        benchmark: &str,
        config: impl Serialize,
        environment: Environment,
        started_at: String,
    ) -> Self {
        RunResult {
            schema: SCHEMA.into(),
            tool: Tool::default(),
            benchmark: benchmark.into(),
            config: serde_json::to_value(config).unwrap_or(serde_json::Value::Null),
            environment,
            started_at,
            complete: true,
            timeseries: Series {
                interval_s: 1.0,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Fill summary, ops and time series from what the runner measured.
    pub fn with_outcome(mut self, o: &Outcome) -> Self {
        let secs = o.elapsed.as_secs_f64();
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let st = &o.stats;
        let workers = o.workers;
        let (br, bw) = (st.bytes(Direction::Read), st.bytes(Direction::Write));
        let cpu = o.cpu.user.as_secs_f64() + o.cpu.sys.as_secs_f64();
        self.elapsed_s = secs;
        self.complete = o.complete;
        // an MPI job's (rank 0): every phase's ranks and hosts so far
        self.cluster = cluster::current();
        // an outcome remade from parts asked no engine: keep what was known
        if !o.engine_modes.is_empty() {
            self.engine = EngineSetup::of(&o.engine_modes);
        }
        if !o.pinned.is_empty() {
            self.pinning = o.pinned.clone();
        }
        self.error = o.error.as_ref().map(crate::error::cause);
        // measured by the runner, else what the session saw around the run
        let machine = if o.machine.is_empty() {
            self.summary.machine.take()
        } else {
            Some(o.machine.clone())
        };
        self.summary = Summary {
            ops: st.total_ops(),
            ops_per_s: per_s(st.total_ops() as f64),
            bytes_read: br,
            bytes_written: bw,
            read_bytes_per_s: per_s(br as f64),
            write_bytes_per_s: per_s(bw as f64),
            io_time_fraction: io_share(st.io_ns, o.worker_time_ns()),
            cpu_user_s: o.cpu.user.as_secs_f64(),
            cpu_sys_s: o.cpu.sys.as_secs_f64(),
            cpu_util: per_s(cpu),
            workers,
            max_rss_kib: o.cpu.max_rss_kib,
            ctx_switches: o.cpu.ctx_switches,
            major_faults: o.cpu.major_faults,
            minor_faults: o.cpu.minor_faults,
            open_loop: (st.arrivals.rate > 0.0).then(|| OpenLoop {
                rate_offered: st.arrivals.rate,
                rate_issued: per_s(st.arrivals.issued as f64),
                issued: st.arrivals.issued,
                missed: st.arrivals.missed,
            }),
            io_depth: (st.depths.max > 1).then(|| {
                let n = st.depths.total().max(1) as f64;
                IoDepth {
                    max: st.depths.max,
                    buckets: crate::measure::depth::BOUNDS
                        .iter()
                        .zip(st.depths.issues)
                        .filter(|(_, c)| *c > 0)
                        .map(|(&depth, c)| DepthShare {
                            depth,
                            share: c as f64 / n,
                        })
                        .collect(),
                    submit: counted(st.depths.submits),
                    complete: counted(st.depths.completes),
                }
            }),
            cancelled: st.cancelled,
            would_block: st.would_block,
            machine,
        };
        self.ops = st
            .kinds()
            .map(|(k, s)| {
                (
                    k.name().to_string(),
                    OpSummary {
                        count: s.count,
                        bytes: s.bytes,
                        latency_ns: s.summary(),
                        response_ns: st.response(k).map(KindStats::summary),
                        submission_ns: st.submission(k).map(KindStats::summary),
                        completion_ns: st.completion(k).map(KindStats::summary),
                        histogram: (s.count > 0).then(|| hist::encode(&s.hist).ok()).flatten(),
                    },
                )
            })
            .collect();
        self.timeseries.ops = st.series.ops().to_vec();
        self.timeseries.bytes = st.series.bytes().to_vec();
        let full = self.timeseries.ops.len().saturating_sub(1) as f64;
        self.timeseries.last_interval_s = (secs - full).clamp(0.0, 1.0);
        self.warnings = warn::assess(&self);
        self
    }

    /// Say the data the run touched, where the benchmark knows it better
    /// than its set-up did, and look at the warnings again.
    pub fn set_working_set(&mut self, bytes: u64) {
        if let Some(ws) = &mut self.working_set {
            ws.bytes = bytes;
            self.warnings = warn::assess(self);
        }
    }

    /// Add a warning found outside [`warn::assess`] (an O_DIRECT refusal),
    /// once.
    pub fn warn(&mut self, w: warn::Warning) {
        if !self.warnings.iter().any(|x| x.code == w.code) {
            self.warnings.push(w);
        }
    }

    /// Put a benchmark's typed figures ([`crate::suites::Benchmark::Figures`])
    /// into `metrics`, one key per field; a key already there is replaced.
    pub fn set_figures(&mut self, figures: &impl Serialize) {
        if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(figures) {
            self.metrics.extend(m);
        }
    }

    /// A benchmark's typed figures, read back from `metrics`.
    pub fn figures<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(serde_json::to_value(&self.metrics)?)
    }

    pub fn metric(&mut self, name: &str, value: impl Serialize) {
        self.metrics.insert(
            name.into(),
            serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
        );
    }
}

/// Several results in one document (a PostMark session's runs, an IOBENCH
/// spectrum, a survey), each with its name, under a schema name of its
/// own (`iogauge/survey/v1`, ...). `extra` holds the collection's own
/// fields beside the entries.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Collection {
    pub schema: String,
    pub tool: Tool,
    pub started_at: String,
    /// Every entry complete, and nothing cut short.
    pub complete: bool,
    /// Why the collection stopped short, when it failed (absent otherwise);
    /// an entry that failed says why in its own result too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub entries: Vec<Entry>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// One result of a collection.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub name: String,
    /// The entry's headline figure, where the collection has one per entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// A line said under the entry's figure (a survey row's warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub result: RunResult,
}

impl Entry {
    pub fn new(name: impl Into<String>, result: RunResult) -> Entry {
        Entry {
            name: name.into(),
            figure: None,
            unit: None,
            note: None,
            result,
        }
    }
}

impl Collection {
    /// A collection of `entries` under `schema`, started now.
    pub fn new(schema: &str, entries: Vec<Entry>) -> Collection {
        let mut c = Collection {
            schema: schema.to_string(),
            tool: Tool::default(),
            started_at: now_rfc3339(),
            complete: true,
            error: None,
            entries: Vec::with_capacity(entries.len()),
            extra: BTreeMap::new(),
        };
        for e in entries {
            c.push(e);
        }
        c
    }

    /// Add an entry: the collection stays complete only if it is, and the
    /// first entry that failed says why the collection failed.
    pub fn push(&mut self, e: Entry) {
        self.complete &= e.result.complete;
        if self.error.is_none()
            && let Some(why) = &e.result.error
        {
            self.error = Some(format!("{}: {why}", e.name));
        }
        self.entries.push(e);
    }

    /// Set one of the collection's own fields.
    pub fn set(&mut self, key: &str, value: impl Serialize) {
        self.extra.insert(
            key.to_string(),
            serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
        );
    }
}

/// Write `value` as pretty JSON to `path`, or to stdout when `path` is `-`
/// (for documents that are not results: models, validations).
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let mut text = serde_json::to_vec_pretty(value).context("cannot serialise the result")?;
    text.push(b'\n');
    export::emit(path, &text, "JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Workers that agree give one mode; workers that differ are listed
    /// each, null where an engine said nothing; no mode at all gives no
    /// section.
    #[test]
    fn engine_setup_is_one_mode_when_the_workers_agree() {
        let a = Some("SQPOLL, registered ring".to_string());
        let one = EngineSetup::of(&[a.clone(), a.clone()]).unwrap();
        assert_eq!(one.mode, a);
        assert!(one.per_worker.is_empty());
        assert_eq!(one.describe(), "SQPOLL, registered ring");

        let two = EngineSetup::of(&[a.clone(), None]).unwrap();
        assert_eq!(two.mode, None);
        assert_eq!(two.per_worker, vec![a, None]);
        assert_eq!(
            two.describe(),
            "worker 0: SQPOLL, registered ring; worker 1: -"
        );

        assert_eq!(EngineSetup::of(&[None, None]), None);
        assert_eq!(EngineSetup::of(&[]), None);
    }
}
