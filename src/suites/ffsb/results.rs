//! What a run of an FFSB profile measured: per thread group, per
//! operation FFSB's counters and iogauge's latency of each operation; per
//! system call the `[stats]` figures; the run's time and CPU. The report
//! ([`super::report`]) and the JSON are made from these.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::profile::{Op, Syscall};
use crate::measure::{CpuTimes, KindStats, WorkerStats};

/// One operation's counters in one thread group.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OpTally {
    /// FFSB's "Transactions": read(2)/write(2) calls of the data operations
    /// (every call, the short last one included: iogauge counts what was
    /// really done), 1 per metadata operation.
    pub transactions: u64,
    /// How many times the operation ran (FFSB's "% Op Weight" counts these).
    pub invocations: u64,
    /// Bytes really read and written (not FFSB rc2's whole-file figure of
    /// the write operation).
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Latency of each invocation, open to close (ns).
    pub latency: KindStats,
}

impl OpTally {
    pub fn merge(&mut self, o: &OpTally) {
        self.transactions += o.transactions;
        self.invocations += o.invocations;
        self.read_bytes += o.read_bytes;
        self.write_bytes += o.write_bytes;
        self.latency.merge(&o.latency);
    }
}

/// One system call's `[stats]` figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallStats {
    pub calls: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub total_ns: u64,
    /// Calls that fell in each `msec_range`, in the order declared (the
    /// first range that holds the time counts it; both ends inclusive).
    pub buckets: Vec<u64>,
}

impl CallStats {
    pub fn new(ranges: usize) -> CallStats {
        CallStats {
            calls: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            total_ns: 0,
            buckets: vec![0; ranges],
        }
    }

    /// One call of `ns` nanoseconds; it counts in the first of `ranges_ns`
    /// (bounds in ns, both inclusive) that holds it. `ranges_ns` has one
    /// range per bucket.
    #[inline]
    pub fn record(&mut self, ns: u64, ranges_ns: &[(u64, u64)]) {
        self.calls += 1;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
        self.total_ns += ns;
        if let Some(i) = ranges_ns.iter().position(|&(lo, hi)| lo <= ns && ns <= hi)
            && let Some(b) = self.buckets.get_mut(i)
        {
            *b += 1;
        }
    }

    pub fn merge(&mut self, o: &CallStats) {
        self.calls += o.calls;
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
        self.total_ns += o.total_ns;
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            *a += b;
        }
    }
}

/// One thread group's results (all its threads merged); a thread hands
/// back its own as a group of one.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupResult {
    pub threads: u32,
    /// Indexed by [`Op::index`].
    pub ops: Vec<OpTally>,
    /// With `[stats] enable_stats=1`: the calls timed (not ignored).
    pub calls: BTreeMap<Syscall, CallStats>,
}

impl GroupResult {
    pub fn new(threads: u32) -> GroupResult {
        GroupResult {
            threads,
            ops: vec![OpTally::default(); Op::ALL.len()],
            calls: BTreeMap::new(),
        }
    }

    pub fn op(&self, op: Op) -> &OpTally {
        &self.ops[op.index()]
    }

    pub fn merge(&mut self, o: &GroupResult) {
        self.threads += o.threads;
        for (a, b) in self.ops.iter_mut().zip(&o.ops) {
            a.merge(b);
        }
        for (k, v) in &o.calls {
            self.calls
                .entry(*k)
                .and_modify(|c| c.merge(v))
                .or_insert_with(|| v.clone());
        }
    }
}

/// What the set-up did to one file system before the run (in the result
/// as it is).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "ffsbFsSetup")]
pub struct FsSetup {
    /// Where the file system's file sets are.
    pub location: PathBuf,
    /// An earlier file set was reused (`reuse=1` and it matched).
    pub reused: bool,
    /// Files in the file set when the run started.
    pub files: u64,
    /// Bytes written to build it.
    pub bytes: u64,
    /// With `agefs`: bytes the aging wrote.
    pub aged_bytes: u64,
    /// Utilisation (a fraction of the blocks) before set-up.
    pub util_before: f64,
    /// Utilisation (a fraction of the blocks) at the start of the run.
    pub util_after: f64,
    /// The set-up's time, seconds.
    #[serde(rename = "setup_s")]
    pub secs: f64,
}

/// The whole run.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One per thread group of the profile, in its order.
    pub groups: Vec<GroupResult>,
    pub setup: Vec<FsSetup>,
    /// From the start of the threads to the end of the last one (FFSB's
    /// "Benchmark took").
    pub elapsed: Duration,
    /// This process's CPU over the run.
    pub cpu: CpuTimes,
    /// Every system call as iogauge's op kinds (read, write, open, close,
    /// create, delete, stat, fsync, mkdir…), all threads merged: the
    /// result's `ops`, `summary` and time series.
    pub stats: WorkerStats,
    pub complete: bool,
    pub interrupted: bool,
    pub error: Option<String>,
    /// How each thread's engine was set up (io_uring's ring).
    pub engine_modes: Vec<Option<String>>,
    /// How busy the machine was over the run.
    pub machine: crate::measure::machine::MachineLoad,
}
