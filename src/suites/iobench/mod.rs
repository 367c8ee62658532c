//! IOBENCH (Wolman & Olson, Prime Computer, 1989; version 5.0 of 25 May
//! 1989; docs/iobench.md).
//!
//! U users do as many transactions as they can for M minutes on F files of
//! N fixed-length records of B bytes, under a lock manager with L locks per
//! file kept in shared memory; each transaction is R reads (the last W of
//! them followed by a write of the same record) with CP·1000/R null-loop
//! iterations of CPU work after each read. The results file is the paper's
//! Figure 1; iogauge adds percentiles, the share of time spent in I/O, CPU
//! and memory, and the JSON result.
//!
//! - [`config`]: the keywords, the control-file language, the precedence
//!   control file > environment > default.
//! - `shm`: the shared region and the lock manager (atomics in a memfd
//!   mapping, so it works across processes).
//! - `user`: the transaction loop of one user (thread or process).
//! - `control`: the controller: lay-out, start gate, stop, dead users,
//!   Ctrl-C, metering.
//! - [`report`]: the results file, summary and `===` lines.
//! - `server`, `msgq`: Variant 1, the `ioserver` process that owns the
//!   lock table and serves lock requests over System V message queues.
//! - `chart`: the spectrum chart (SVG).

mod chart;
pub mod config;
mod control;
mod msgq;
pub mod report;
mod server;
mod shm;
pub mod survey;
mod user;

pub use chart::{Figure, Series, figures, same_runs, series_of};
pub use config::Config;
pub use control::{Metering, Mode, PROCESS_KIND, Run, RunSpec, execute, process_worker};
pub use report::Totals;
pub use server::{SERVICE, ServerEnd, serve};

use crate::measure::compact::{KindRec, KindSum};
use crate::measure::{OpKind, WorkerStats};
use crate::report::RunResult;
use crate::runner::{NoProgress, Outcome};
use anyhow::Result;
use std::path::Path;
use std::time::Duration;

/// The survey hook: run `config` for `duration` (users as `mode`) in a work
/// directory under `dir`, and return the result. Nothing is left behind.
/// Processes mode re-executes the running binary, so it needs `iogauge`
/// itself (not a test harness) to be the current executable.
pub fn run_for(config: &Config, mode: Mode, duration: Duration, dir: &Path) -> Result<RunResult> {
    let spec = RunSpec::new(config.clone(), mode, Some(duration), dir);
    let run = execute(&spec, &NoProgress)?;
    let t = report::totals(&run);
    Ok(result_of(&run, &t))
}

/// The run as a `iogauge/result/v1` document (benchmark `iobench`).
pub fn result_of(run: &Run, t: &Totals) -> RunResult {
    let ok: Vec<&user::UserRecord> = run
        .users
        .iter()
        .filter(|u| u.failure.is_none())
        .map(|u| &u.record)
        .collect();
    let outcome = Outcome {
        stats: merged_stats(&ok),
        per_worker: Vec::new(),
        // only the completed users are in the stats
        workers: t.completed,
        worker_ns: 0,
        elapsed: run.elapsed,
        cpu: run.cpu,
        complete: run.complete,
        interrupted: run.interrupted,
        error: run.error.as_ref().map(|e| anyhow::anyhow!("{e}")),
        extras: Vec::new(),
        failures: Vec::new(),
    };
    let mut r = RunResult::new(
        "iobench",
        config_of(run),
        run.environment.clone(),
        run.started_at.clone(),
    )
    .with_outcome(&outcome);
    add_metrics(&mut r, run, t, &ok);
    r
}

/// The completed users' stats merged: each op kind's compact records
/// summed, then the users' per-second series.
fn merged_stats(ok: &[&user::UserRecord]) -> WorkerStats {
    let mut stats = WorkerStats::new(&[]);
    type Get = fn(&user::UserRecord) -> Option<&KindRec>;
    let kinds: [(OpKind, Get); 7] = [
        (OpKind::Read, |r| Some(&r.read)),
        (OpKind::Write, |r| r.write.as_ref()),
        (OpKind::Open, |r| r.open.as_ref()),
        (OpKind::Close, |r| r.close.as_ref()),
        (OpKind::Lock, |r| r.lock.as_ref()),
        (OpKind::Cpu, |r| r.cpu.as_ref()),
        (OpKind::Transaction, |r| Some(&r.transaction)),
    ];
    for (kind, get) in kinds {
        let mut sum = KindSum::default();
        for r in ok {
            if let Some(k) = get(r) {
                sum.add(k);
            }
        }
        if sum.count > 0 {
            stats.merge_kind(kind, &sum.to_kind_stats());
        }
    }
    for r in ok {
        for (i, (&o, &b)) in r.sec_ops.iter().zip(&r.sec_bytes).enumerate() {
            if o > 0 || b > 0 {
                stats.series.add(i as u64 * 1_000_000_000, o, b);
            }
        }
    }
    stats
}

/// The result's `config`: the parameters and what the run made of them.
fn config_of(run: &Run) -> serde_json::Value {
    let spec = &run.spec;
    serde_json::json!({
        "parameters": spec.config,
        "users_as": spec.mode,
        "engine": spec.engine,
        "direct": spec.direct,
        "duration_s": spec.duration().as_secs_f64(),
        "seed": spec.seed,
        "paths": run.paths,
        "locks_used_per_file": run.plan.locks,
        "file_units_per_user": run.plan.units,
        "work_iterations_per_read": run.plan.work_per_read,
        "verify_locks": spec.verify_locks,
        "variant": run.variant(),
    })
}

/// The headline metrics: Figure 1's totals, then iogauge's additions.
fn add_metrics(r: &mut RunResult, run: &Run, t: &Totals, ok: &[&user::UserRecord]) {
    let spec = &run.spec;
    r.metric("transactions_per_s", t.tps);
    r.metric("mean_response_s", t.avg_response_s);
    r.metric("mean_transaction_response_s", t.mean_tx_response_s);
    r.metric("cycles", t.cycles);
    r.metric("mb_processed", t.mb);
    r.metric("failed_users", t.failed);
    r.metric("users", spec.config.users);
    r.metric("cp_seconds", t.user_cp_s);
    r.metric("io_seconds", t.user_io_s);
    r.metric("server_cp_seconds", t.server_cp_s);
    r.metric("server_io_seconds", 0.0);
    r.metric("total_cp_seconds", t.total_cp_s);
    if let Some(sv) = &run.server {
        r.metric("server", sv);
    }
    r.metric(
        "work_cpu_seconds",
        ok.iter().map(|u| u.work_cpu_ns).sum::<u64>() as f64 / 1e9,
    );
    r.metric(
        "work_sampled_cycles",
        ok.iter().map(|u| u.work_sampled).sum::<u64>(),
    );
    r.metric(
        "lock_requests",
        ok.iter().map(|u| u.lock_requests).sum::<u64>(),
    );
    r.metric("cp_ms_per_transaction", t.cp_ms_per_tx);
    r.metric("io_ms_per_transaction", t.io_ms_per_tx);
    r.metric("cp_load_per_cycle_s", t.cp_load_s);
    r.metric("cp_load_calibrated_s", run.cp_load_s);
    r.metric(
        "locks_taken",
        t.files.iter().map(|f| f.locks_taken).sum::<u64>(),
    );
    r.metric("uses", t.files.iter().map(|f| f.uses).sum::<u64>());
    r.metric("response_distribution_s", &t.dist);
    r.metric("per_file", &t.files);
    r.metric("per_user", per_user(run));
    r.metric("controller_max_rss_kib", run.controller_rss_kib);
    if spec.mode == Mode::Processes {
        let rss = run.users.iter().map(|u| u.record.max_rss_kib);
        r.metric("user_max_rss_kib", rss.clone().max().unwrap_or(0));
        r.metric("users_rss_kib_total", rss.sum::<u64>());
        r.metric(
            "users_pss_kib_total",
            run.users.iter().map(|u| u.record.pss_kib).sum::<u64>(),
        );
    }
    if let Some(v) = run.violations {
        r.metric("lock_violations", v);
    }
}

/// Each user's line of `per_user`, failed users included.
fn per_user(run: &Run) -> Vec<serde_json::Value> {
    run.users
        .iter()
        .map(|u| {
            let x = &u.record;
            serde_json::json!({
                "user": x.user,
                "cycles": x.cycles,
                "cp_s": (x.cpu_user_ns + x.cpu_sys_ns) as f64 / 1e9,
                "io_s": x.io_ns as f64 / 1e9,
                "opens": x.opens,
                "closes": x.closes,
                "duration_s": x.duration_ns() as f64 / 1e9,
                "response_mean_s": x.transaction.mean_ns() / 1e9,
                "response_stddev_s": x.transaction.stddev_ns() / 1e9,
                "response_max_s": x.transaction.max_ns as f64 / 1e9,
                "max_rss_kib": x.max_rss_kib,
                "lock_requests": x.lock_requests,
                "failed": u.failure,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(users: u32) -> Config {
        Config {
            users,
            files: 3,
            nrecs: 64,
            reclen: 512,
            reads: 3,
            writes: 1,
            locks: 8,
            end: 0.0,
            ..Default::default()
        }
    }

    /// Threads: the counts add up — no lost or double-counted cycles.
    #[test]
    fn threads_run_and_everything_adds_up() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = small(8);
        let r = run_for(&cfg, Mode::Threads, Duration::from_millis(300), dir.path()).unwrap();
        assert!(r.complete, "{:?}", r.error);
        let m = |k: &str| r.metrics[k].as_f64().unwrap();
        let cycles = m("cycles") as u64;
        assert!(cycles > 0);
        let per_user: u64 = r.metrics["per_user"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["cycles"].as_u64().unwrap())
            .sum();
        assert_eq!(per_user, cycles);
        assert_eq!(r.ops["transaction"].count, cycles);
        assert_eq!(r.ops["read"].count, cycles * 3);
        assert_eq!(r.ops["write"].count, cycles);
        assert_eq!(r.ops["lock"].count, cycles * 3);
        assert_eq!(m("locks_taken") as u64, cycles * 3);
        assert_eq!(m("uses") as u64, cycles * 3);
        assert_eq!(r.summary.bytes_read, cycles * 3 * 512);
        assert_eq!(m("failed_users"), 0.0);
        assert!((m("mb_processed") - cycles as f64 * 4.0 * 512.0 / 1e6).abs() < 1e-9);
        // nothing left behind
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn no_locking_takes_no_locks() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = small(4);
        cfg.sleep = -1.0;
        let r = run_for(&cfg, Mode::Threads, Duration::from_millis(200), dir.path()).unwrap();
        assert!(r.complete);
        assert_eq!(r.metrics["locks_taken"].as_u64().unwrap(), 0);
        assert!(!r.ops.contains_key("lock"));
        assert!(r.metrics["uses"].as_u64().unwrap() > 0);
    }
}
