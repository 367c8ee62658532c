//! iogauge's result of an FFSB run: the run's system calls as op kinds,
//! and in the metrics FFSB's figures per thread group and in total, typed,
//! with each operation's latency percentiles; FFSB's report rendered from
//! that result ([`Ffsb`]).

use super::bench::Options;
use super::profile::{Op, Profile};
use super::results::{FsSetup, GroupResult, Outcome};
use crate::engine::Choice;
use crate::measure::{LatencySummary, Outcome as RunOutcome};
use crate::report::RunResult;
use crate::runner::Pace;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// FFSB, typed: its plan, its figures and its report.
pub struct Ffsb;

impl crate::suites::Benchmark for Ffsb {
    const NAME: &'static str = "ffsb";
    type Plan = Plan;
    type Figures = Figures;
    fn classic(plan: &Plan, figures: &Figures, result: &RunResult) -> String {
        super::report::render(plan, figures, result)
    }
}

/// What an FFSB result's `config` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The profile file.
    pub profile: PathBuf,
    pub seed: u64,
    pub engine: Choice,
    pub max_age_bytes: u64,
    pub allow_aging: bool,
    pub pace: Pace,
    /// The profile as the run used it (relocated, its time set).
    pub settings: Profile,
}

/// One operation's figures in a thread group (or the total).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ffsbOp")]
pub struct OpFigures {
    /// FFSB's transactions: read(2)/write(2) calls of a data operation, 1
    /// per metadata operation.
    pub transactions: u64,
    /// Transactions per second of the run.
    pub transactions_per_s: f64,
    /// Its share of the group's transactions, 0 to 1.
    pub trans_share: f64,
    /// How many times the operation ran.
    pub invocations: u64,
    /// Its share of the group's invocations (as the weights drew them), 0 to 1.
    pub op_weight_share: f64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Bytes read and written per second of the run.
    pub bytes_per_s: f64,
    /// The latency of one operation, open to close, nanoseconds.
    #[schemars(with = "serde_json::Value")]
    pub latency_ns: LatencySummary,
}

/// One system call's figures, as FFSB's `[stats]` keeps them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ffsbCall")]
pub struct CallFigures {
    /// Calls timed.
    pub calls: u64,
    /// The shortest, ns (0 without calls).
    pub min_ns: u64,
    /// The longest, ns.
    pub max_ns: u64,
    /// Their mean, ns.
    pub mean_ns: f64,
    /// Their sum, ns.
    pub total_ns: u64,
    /// Calls per `msec_range` bucket, in the order declared.
    pub buckets: Vec<u64>,
}

/// A thread group's (or the total's) figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ffsbGroup")]
pub struct GroupFigures {
    /// Its threads.
    pub threads: u32,
    /// Its transactions, every operation's.
    pub transactions: u64,
    /// Transactions per second of the run.
    pub transactions_per_s: f64,
    /// Bytes read per second of the run.
    pub read_bytes_per_s: f64,
    /// Bytes written per second of the run.
    pub write_bytes_per_s: f64,
    /// The operations that ran, by FFSB's name.
    pub ops: BTreeMap<String, OpFigures>,
    /// With `[stats] enable_stats=1`: each system call timed, by name.
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
            if o.invocations == 0 && o.transactions == 0 {
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
                    total_ns: c.total_ns,
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ffsbFigures")]
pub struct Figures {
    /// Every thread group's transactions per second.
    pub transactions_per_s: f64,
    /// Every thread group's bytes read per second.
    pub read_bytes_per_s: f64,
    /// Every thread group's bytes written per second.
    pub write_bytes_per_s: f64,
    /// Every thread group together.
    pub total: GroupFigures,
    /// Each thread group, in the profile's order.
    pub threadgroups: Vec<GroupFigures>,
    /// What the set-up did to each file system.
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
        let total = GroupFigures::of(&total, secs);
        Figures {
            transactions_per_s: total.transactions_per_s,
            read_bytes_per_s: total.read_bytes_per_s,
            write_bytes_per_s: total.write_bytes_per_s,
            total,
            threadgroups,
            filesystems: out.setup.clone(),
        }
    }
}

/// iogauge's result: the run's system calls as op kinds, and in `metrics`
/// FFSB's figures per thread group and in total, with each operation's
/// latency percentiles.
pub fn result_of(o: &Options, out: &Outcome, started: String) -> (RunResult, Figures) {
    let run = RunOutcome {
        stats: out.stats.clone(),
        per_worker: Vec::new(),
        // every thread of every thread group (of every rank, on rank 0
        // of an MPI job)
        workers: o
            .profile
            .threadgroups
            .iter()
            .map(|t| t.num_threads as usize)
            .sum::<usize>()
            * crate::cluster::merged_ranks(),
        worker_ns: 0,
        elapsed: out.elapsed,
        cpu: out.cpu,
        complete: out.complete,
        interrupted: out.interrupted,
        error: out.error.as_ref().map(|e| anyhow::anyhow!("{e}")),
        extras: vec![serde_json::Value::Null],
        failures: vec![None],
        engine_modes: out.engine_modes.clone(),
        pinned: Vec::new(),
        machine: out.machine.clone(),
    };
    let mut r = begun(o, started).with_outcome(&run);
    let figures = Figures::of(out);
    r.set_figures(&figures);
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
    let plan = Plan {
        profile: p.source.clone(),
        seed: o.seed,
        engine: o.engine,
        max_age_bytes: o.max_age_bytes,
        allow_aging: o.allow_aging,
        pace: o.pace,
        settings: p.clone(),
    };
    RunResult::new("ffsb", plan, env, started)
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
