//! An MPI job's part of a result: each timed phase's ranks and hosts, as
//! rank 0 merged them (the result's `cluster` section), and its lines in a
//! text report. Plain data: the job itself is `crate::cluster`'s.

use crate::env::Environment;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One rank's figures in a phase: the result's `cluster.phases[].per_rank`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RankFigures {
    /// The rank (MPI_COMM_WORLD).
    pub rank: usize,
    /// Its host (MPI's processor name).
    pub host: String,
    /// Its workers (threads or processes).
    pub workers: usize,
    /// Its I/O ops (reads and writes; fsyncs and metadata ops are in the result's `ops`).
    pub ops: u64,
    /// Bytes it read.
    pub bytes_read: u64,
    /// Bytes it wrote.
    pub bytes_written: u64,
    /// Its measured phase, seconds from the job's first start (rank 0's
    /// clock).
    pub start_s: f64,
    /// The end of its measured phase, seconds from the job's first start.
    pub end_s: f64,
    /// `ops` over its own measured phase (end_s − start_s).
    pub ops_per_s: f64,
    /// `bytes_read` over its own measured phase, bytes per second.
    pub read_bytes_per_s: f64,
    /// `bytes_written` over its own measured phase, bytes per second.
    pub write_bytes_per_s: f64,
    /// Mean latency of all its I/O ops, ns.
    pub latency_mean_ns: f64,
    /// 99th percentile latency of all its I/O ops, ns (HDR histogram).
    pub latency_p99_ns: u64,
    /// Added to a time of this rank's clock, gives rank 0's (measured at the phase's start), ns.
    pub clock_offset_ns: i64,
    /// How far off the offset may be (half the best round trip), start or end, ns.
    pub clock_bound_ns: u64,
    /// Ops it had done when the stonewall came (`--stonewall`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall_ops: Option<u64>,
    /// False when a signal or an error cut its run short.
    pub complete: bool,
    /// Its error, if it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One host's figures in a phase (its ranks summed).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostFigures {
    /// The host's name.
    pub host: String,
    /// Its ranks.
    pub ranks: Vec<usize>,
    /// Its ranks' workers.
    pub workers: usize,
    /// Its ranks' I/O ops.
    pub ops: u64,
    /// Bytes its ranks read.
    pub bytes_read: u64,
    /// Bytes its ranks wrote.
    pub bytes_written: u64,
    /// `ops` over the phase's elapsed time.
    pub ops_per_s: f64,
    /// `bytes_read` over the phase's elapsed time, bytes per second.
    pub read_bytes_per_s: f64,
    /// `bytes_written` over the phase's elapsed time, bytes per second.
    pub write_bytes_per_s: f64,
}

/// What the ranks had done when the first finished (`--stonewall`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stonewall {
    /// Seconds from the first start to the first rank done.
    pub at_s: f64,
    /// The rank that was done first.
    pub first_rank: usize,
    /// Ops all ranks had done by then.
    pub ops: u64,
    /// `ops` over `at_s`.
    pub ops_per_s: f64,
}

/// What gathering the reports cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Gather {
    /// Bytes of every rank's report, rank 0's own included.
    pub bytes: u64,
    /// The largest one rank sent.
    pub max_rank_bytes: u64,
    /// Rank 0's time in the gather (the lengths, then the reports), s.
    pub seconds: f64,
}

/// One timed phase across the job: the result's `cluster.phases[]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Phase {
    /// Ranks that reported.
    pub ranks: usize,
    /// Last end − first start, s (rank 0's clock).
    pub elapsed_s: f64,
    /// Last start − first start, s.
    pub start_spread_s: f64,
    /// When the first rank was done, s from the first start.
    pub first_done_s: f64,
    /// When the last rank was done, s from the first start (= elapsed_s).
    pub last_done_s: f64,
    /// The rank done first.
    pub first_done_rank: usize,
    /// The largest clock bound of any rank, start or end, ns: times of
    /// different ranks compare to within it.
    pub clock_bound_ns: u64,
    /// The largest change of any rank's offset from start to end, ns.
    pub clock_drift_ns: u64,
    /// What the ranks had done when the first was done (`--stonewall`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<Stonewall>,
    /// What gathering the ranks' reports cost (absent when the job went down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gather: Option<Gather>,
    /// Ranks that did not report (died, or killed), with their hosts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<(usize, String)>,
    /// Each rank's figures, in rank order.
    pub per_rank: Vec<RankFigures>,
    /// Each host's figures (its ranks summed), by host name.
    pub per_host: Vec<HostFigures>,
}

/// The result's `cluster` section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Section {
    /// Ranks of the job (mpirun -np).
    pub ranks: usize,
    /// Its hosts, sorted.
    pub hosts: Vec<String>,
    /// `off`, `stop` or `wear-out`.
    pub stonewall: String,
    /// Each host's machine and mount of the shared directory, in the
    /// order of `hosts` (the result's `environment` is rank 0's).
    #[schemars(schema_with = "environments_schema")]
    pub environments: Vec<Environment>,
    /// The seed each rank drew its requests from, in rank order (rank 0's
    /// is the one given; rank r's adds r·0x9E3779B97F4A7C15).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<u64>,
    /// Each timed phase of the benchmark, in order.
    pub phases: Vec<Phase>,
}

/// Where a result made from an outcome finds the job's section: set by an
/// MPI job once joined (on rank 0), so that every result made there carries
/// the phases merged so far.
static SOURCE: std::sync::OnceLock<fn() -> Option<Section>> = std::sync::OnceLock::new();

/// Make `source` the job's section for results ([`SOURCE`]).
pub fn set_source(source: fn() -> Option<Section>) {
    let _ = SOURCE.set(source);
}

/// The job's section now, if this process is rank 0 of one.
pub fn current() -> Option<Section> {
    SOURCE.get().and_then(|f| f())
}

/// The hosts' environments: the result's own environment schema.
fn environments_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": { "$ref": "#/$defs/environment" }
    })
}

impl Section {
    /// The job in a few lines for a text report: each phase's spread,
    /// first and last done, clock bound, and a line per rank (per host
    /// when there are more than 16 ranks).
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "  MPI: {} rank{} on {} host{}, stonewall {}",
            self.ranks,
            if self.ranks == 1 { "" } else { "s" },
            self.hosts.len(),
            if self.hosts.len() == 1 { "" } else { "s" },
            self.stonewall
        );
        for (i, p) in self.phases.iter().enumerate() {
            let tag = if self.phases.len() > 1 {
                format!("phase {}: ", i + 1)
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "  {tag}start spread {:.3} ms, first done {:.3} s (rank {}), last done {:.3} s, clocks within {:.1} µs",
                p.start_spread_s * 1e3,
                p.first_done_s,
                p.first_done_rank,
                p.last_done_s,
                p.clock_bound_ns as f64 / 1e3
            );
            if let Some(sw) = &p.stonewall {
                let _ = writeln!(
                    o,
                    "  {tag}stonewall at {:.3} s (rank {} done): {} ops, {:.0} ops/s",
                    sw.at_s, sw.first_rank, sw.ops, sw.ops_per_s
                );
            }
            for (r, h) in &p.missing {
                let _ = writeln!(o, "  {tag}rank {r} on {h}: DID NOT REPORT");
            }
            if p.per_rank.len() <= 16 {
                let _ = writeln!(
                    o,
                    "  {:>6} {:<16} {:>12} {:>12} {:>10} {:>10} {:>12}",
                    "rank", "host", "ops", "ops/s", "start s", "end s", "p99 lat"
                );
                for r in &p.per_rank {
                    let _ = writeln!(
                        o,
                        "  {:>6} {:<16} {:>12} {:>12.0} {:>10.3} {:>10.3} {:>12}",
                        r.rank,
                        r.host,
                        r.ops,
                        r.ops_per_s,
                        r.start_s,
                        r.end_s,
                        crate::units::fmt_ns(r.latency_p99_ns as f64)
                    );
                }
            } else {
                let _ = writeln!(
                    o,
                    "  {:<16} {:>6} {:>12} {:>12}",
                    "host", "ranks", "ops", "ops/s"
                );
                for h in &p.per_host {
                    let _ = writeln!(
                        o,
                        "  {:<16} {:>6} {:>12} {:>12.0}",
                        h.host,
                        h.ranks.len(),
                        h.ops,
                        h.ops_per_s
                    );
                }
            }
        }
        o
    }
}
