//! iogauge's result of an FFSB run: the run's system calls as op kinds,
//! and in the metrics FFSB's figures per thread group and in total, typed,
//! with each operation's latency percentiles.

use super::bench::Options;
use super::profile::Op;
use super::results::{FsSetup, GroupResult, Outcome};
use crate::measure::{LatencySummary, Outcome as RunOutcome};
use crate::report::RunResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One operation's figures in a thread group (or the total).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpFigures {
    pub transactions: u64,
    pub transactions_per_s: f64,
    /// Its share of the group's transactions.
    pub trans_share: f64,
    pub invocations: u64,
    /// Its share of the group's invocations (as the weights drew them).
    pub op_weight_share: f64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub bytes_per_s: f64,
    /// The latency of one operation.
    pub latency_ns: LatencySummary,
}

/// One system call's figures, as FFSB's `[stats]` keeps them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallFigures {
    pub calls: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub mean_ns: f64,
    /// Calls per `msec_range` bucket, in the order declared.
    pub buckets: Vec<u64>,
}

/// A thread group's (or the total's) figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupFigures {
    pub threads: u32,
    pub transactions: u64,
    pub transactions_per_s: f64,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
    /// The operations that ran, by FFSB's name.
    pub ops: BTreeMap<String, OpFigures>,
    pub syscalls: BTreeMap<String, CallFigures>,
}

impl GroupFigures {
    /// The figures of `g` over `secs` seconds.
    pub fn of(g: &GroupResult, secs: f64) -> GroupFigures {
        let tx: u64 = g.ops.iter().map(|o| o.transactions).sum();
        let inv: u64 = g.ops.iter().map(|o| o.invocations).sum();
        let read: u64 = g.ops.iter().map(|o| o.read_bytes).sum();
        let written: u64 = g.ops.iter().map(|o| o.write_bytes).sum();
        let mut ops = BTreeMap::new();
        for op in Op::ALL {
            let o = g.op(op);
            if o.invocations == 0 {
                continue;
            }
            ops.insert(
                op.name().into(),
                OpFigures {
                    transactions: o.transactions,
                    transactions_per_s: o.transactions as f64 / secs,
                    trans_share: o.transactions as f64 / tx.max(1) as f64,
                    invocations: o.invocations,
                    op_weight_share: o.invocations as f64 / inv.max(1) as f64,
                    read_bytes: o.read_bytes,
                    write_bytes: o.write_bytes,
                    bytes_per_s: (o.read_bytes + o.write_bytes) as f64 / secs,
                    latency_ns: o.latency.summary(),
                },
            );
        }
        let syscalls = g
            .calls
            .iter()
            .map(|(k, c)| {
                let f = CallFigures {
                    calls: c.calls,
                    min_ns: if c.calls > 0 { c.min_ns } else { 0 },
                    max_ns: c.max_ns,
                    mean_ns: c.total_ns as f64 / c.calls.max(1) as f64,
                    buckets: c.buckets.clone(),
                };
                (k.name().to_string(), f)
            })
            .collect();
        GroupFigures {
            threads: g.threads,
            transactions: tx,
            transactions_per_s: tx as f64 / secs,
            read_bytes_per_s: read as f64 / secs,
            write_bytes_per_s: written as f64 / secs,
            ops,
            syscalls,
        }
    }
}

/// FFSB's figures of a run, as the result's metrics hold them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub total: GroupFigures,
    pub threadgroups: Vec<GroupFigures>,
    pub filesystems: Vec<FsSetup>,
}

impl Figures {
    /// The figures of a run: each thread group's, their total, and each
    /// file system's set-up.
    pub fn of(out: &Outcome) -> Figures {
        let secs = out.elapsed.as_secs_f64().max(f64::MIN_POSITIVE);
        let mut total = GroupResult::new(0);
        let mut threadgroups = Vec::new();
        for g in &out.groups {
            threadgroups.push(GroupFigures::of(g, secs));
            total.merge(g);
        }
        Figures {
            total: GroupFigures::of(&total, secs),
            threadgroups,
            filesystems: out.setup.clone(),
        }
    }

    /// Put the figures in `r`'s metrics, the headline ones on top.
    pub fn add_to(&self, r: &mut RunResult) {
        r.metric("transactions_per_s", self.total.transactions_per_s);
        r.metric("read_bytes_per_s", self.total.read_bytes_per_s);
        r.metric("write_bytes_per_s", self.total.write_bytes_per_s);
        r.metric("total", &self.total);
        r.metric("threadgroups", &self.threadgroups);
        r.metric("filesystems", &self.filesystems);
    }
}

/// iogauge's result: the run's system calls as op kinds, and in `metrics`
/// FFSB's figures per thread group and in total, with each operation's
/// latency percentiles.
pub fn result_of(o: &Options, out: &Outcome, started: String) -> (RunResult, Figures) {
    let run = RunOutcome {
        stats: out.stats.clone(),
        per_worker: Vec::new(),
        // every thread of every thread group
        workers: o
            .profile
            .threadgroups
            .iter()
            .map(|t| t.num_threads as usize)
            .sum(),
        worker_ns: 0,
        elapsed: out.elapsed,
        cpu: out.cpu,
        complete: out.complete,
        interrupted: out.interrupted,
        error: out.error.as_ref().map(|e| anyhow::anyhow!("{e}")),
        extras: vec![serde_json::Value::Null],
        failures: vec![None],
    };
    let mut r = begun(o, started).with_outcome(&run);
    let figures = Figures::of(out);
    figures.add_to(&mut r);
    (r, figures)
}

/// The result as the run began: its configuration and environment.
pub fn begun(o: &Options, started: String) -> RunResult {
    let p = &o.profile;
    let first = p
        .filesystems
        .first()
        .map_or_else(|| PathBuf::from("."), |f| f.location.clone());
    let env = crate::env::detect(&existing(&first));
    let config = serde_json::json!({
        "profile": p.source,
        "seed": o.seed,
        "engine": o.engine,
        "max_age_bytes": o.max_age_bytes,
        "allow_aging": o.allow_aging,
        "pace": o.pace,
        "settings": p,
    });
    RunResult::new("ffsb", config, env, started)
}

/// The nearest existing directory at or above `p`.
fn existing(p: &Path) -> PathBuf {
    let mut q = p.to_path_buf();
    while !q.exists() {
        match q.parent() {
            Some(x) => q = x.to_path_buf(),
            None => return PathBuf::from("."),
        }
    }
    q
}
