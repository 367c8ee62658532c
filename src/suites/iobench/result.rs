//! IOBENCH's result, typed: what the run was ([`RunConfig`], the result's
//! `config`), what it measured ([`Figures`], its `metrics`), and the
//! terminal summary rendered from the two ([`IoBench`]), so the text a run
//! prints and the text `iogauge show` prints from its saved JSON are the
//! same.

use super::config::Config;
use super::control::{Mode, Run};
use super::server::ServerEnd;
use super::user::{DIST_BUCKETS, UserRecord};
use crate::engine::Choice;
use crate::measure::compact::{KindRec, KindSum};
use crate::measure::{OpKind, WorkerStats};
use crate::report::RunResult;
use crate::runner::Outcome;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// IOBENCH, typed: its configuration, its figures and its terminal
/// summary.
pub struct IoBench;

impl crate::suites::Benchmark for IoBench {
    const NAME: &'static str = "iobench";
    type Plan = RunConfig;
    type Figures = Figures;
    fn classic(plan: &RunConfig, figures: &Figures, result: &RunResult) -> String {
        super::report::terminal(plan, figures, result)
    }
}

/// What an IOBENCH result's `config` holds: the parameters and what the
/// run made of them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunConfig {
    /// Every keyword after precedence (control file > environment >
    /// default).
    pub parameters: Config,
    pub users_as: Mode,
    pub engine: Choice,
    pub direct: bool,
    pub duration_s: f64,
    pub seed: u64,
    /// The data files, as the results file prints them.
    pub paths: Vec<PathBuf>,
    /// min(L, N).
    pub locks_used_per_file: u64,
    pub file_units_per_user: u32,
    pub work_iterations_per_read: u64,
    pub verify_locks: bool,
    /// 1 with locking in the ioserver, else 0.
    pub variant: u32,
    /// Where the results file (`-o`) was written; absent when none was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_file: Option<PathBuf>,
}

/// What an IOBENCH result's `metrics` hold: Figure 1's totals, then
/// iogauge's additions. Only the users that completed are counted (failed
/// users are listed in `per_user`, not counted).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iobenchFigures")]
pub struct Figures {
    /// Transactions per second over the measured interval.
    pub transactions_per_s: f64,
    /// The paper's average response time: the mean over users of their
    /// duration / cycles, in s.
    pub mean_response_s: f64,
    /// The mean of all transaction response times, in s.
    pub mean_transaction_response_s: f64,
    /// Transactions completed.
    pub cycles: u64,
    /// The paper's MB of data: cycles·(R+W)·B / 10⁶.
    pub mb_processed: f64,
    /// Users that failed.
    pub failed_users: usize,
    /// USERS.
    pub users: u32,
    /// The users' CPU time, in s.
    pub cp_seconds: f64,
    /// The users' wall time inside read(2) and write(2) calls, in s.
    pub io_seconds: f64,
    /// The ioserver's CPU time (Variant 1; 0 without it), in s.
    pub server_cp_seconds: f64,
    /// The ioserver's I/O time: it does none (0), in s.
    pub server_io_seconds: f64,
    /// Users' and ioserver's CPU time, in s.
    pub total_cp_seconds: f64,
    /// Variant 1: what the ioserver did and what it cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerEnd>,
    /// CPU time of the CP work of the sampled transactions, in s.
    pub work_cpu_seconds: f64,
    /// Transactions whose CP work was timed.
    pub work_sampled_cycles: u64,
    /// Lock requests: one per lock in Variant 0; in Variant 1 every request
    /// sent to the ioserver, retries after "busy" included.
    pub lock_requests: u64,
    /// Total CP per transaction, in ms.
    pub cp_ms_per_transaction: f64,
    /// IO per transaction, in ms.
    pub io_ms_per_transaction: f64,
    /// CPU time of one transaction's CP work, measured:
    /// `work_cpu_seconds` / `work_sampled_cycles`, in s.
    pub cp_load_per_cycle_s: f64,
    /// The same, timed on an idle CPU before the run, in s.
    pub cp_load_calibrated_s: f64,
    /// Locks taken, every user's (failed users' included).
    pub locks_taken: u64,
    /// Records read.
    pub uses: u64,
    /// Transactions by whole seconds of response time: 0…24, and more
    /// than 24 (26 buckets).
    pub response_distribution_s: Vec<u64>,
    /// Each file's line of the lock and IO summaries.
    pub per_file: Vec<FileTotals>,
    /// Each user's line of the user summary, failed users included.
    pub per_user: Vec<UserTotals>,
    /// Peak RSS of the controller (of the whole process with threads), in
    /// KiB.
    pub controller_max_rss_kib: u64,
    /// Processes: the peak RSS of the largest user process, in KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_max_rss_kib: Option<u64>,
    /// Processes: the user processes' peak RSS summed, in KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users_rss_kib_total: Option<u64>,
    /// Processes: the user processes' proportional set sizes at their end
    /// summed, in KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users_pss_kib_total: Option<u64>,
    /// With the lock check: overlapping holders seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_violations: Option<u64>,
}

/// One file, over the completed users.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iobenchFile")]
pub struct FileTotals {
    /// The file's number k (FILEk).
    pub file: u32,
    /// Locks taken on it.
    pub locks_taken: u64,
    /// The most locks held on it at once.
    pub max_active: u32,
    /// Opens forced by running out of file units.
    pub opens: u64,
    /// Closes forced by running out of file units.
    pub closes: u64,
    /// Records read.
    pub uses: u64,
    /// Mean read time, in s.
    pub read_mean_s: f64,
    /// Standard deviation of the read times, in s.
    pub read_stddev_s: f64,
    /// Slowest read, in s.
    pub read_max_s: f64,
    /// The record of the slowest read.
    pub max_record: u64,
    /// The user of the slowest read.
    pub max_user: u32,
}

/// One user's line.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iobenchUser")]
pub struct UserTotals {
    /// The user's number.
    pub user: u32,
    /// Transactions completed.
    pub cycles: u64,
    /// CPU time, in s.
    pub cp_s: f64,
    /// Wall time inside read and write calls, in s.
    pub io_s: f64,
    /// Opens forced by running out of file units.
    pub opens: u64,
    /// Closes forced by running out of file units.
    pub closes: u64,
    /// From its start to its stop, in s.
    pub duration_s: f64,
    /// Mean transaction response time, in s.
    pub response_mean_s: f64,
    /// Standard deviation of the transaction response times, in s.
    pub response_stddev_s: f64,
    /// Slowest transaction, in s.
    pub response_max_s: f64,
    /// Peak RSS of a user process (0 for threads), in KiB.
    pub max_rss_kib: u64,
    /// Lock requests it made.
    pub lock_requests: u64,
    /// Why the user failed; null when it completed.
    pub failed: Option<String>,
}

impl Figures {
    /// Users that completed.
    pub fn completed(&self) -> usize {
        self.per_user.len() - self.failed_users
    }

    /// Per transaction, in ms.
    fn per_tx(&self, s: f64) -> f64 {
        if self.cycles > 0 {
            s * 1000.0 / self.cycles as f64
        } else {
            0.0
        }
    }
}

/// The users that completed, whose records are counted.
fn completed(run: &Run) -> Vec<&UserRecord> {
    run.users
        .iter()
        .filter(|u| u.failure.is_none())
        .map(|u| &u.record)
        .collect()
}

/// Σ `f` over `items`.
fn sum<T>(items: &[T], f: impl Fn(&T) -> u64) -> u64 {
    items.iter().map(f).sum()
}

/// The figures of a run, computed once from the users that completed.
pub fn figures_of(run: &Run) -> Figures {
    let cfg = &run.spec.config;
    let ok = completed(run);
    let cycles = sum(&ok, |r| r.cycles);
    let secs = run.elapsed.as_secs_f64();
    // (+ 0.0: an empty sum of floats is -0.0)
    let cp_seconds = ok
        .iter()
        .map(|r| (r.cpu_user_ns + r.cpu_sys_ns) as f64 / 1e9)
        .sum::<f64>()
        + 0.0;
    let io_seconds = ok.iter().map(|r| r.io_ns as f64 / 1e9).sum::<f64>() + 0.0;
    let server_cp_seconds = run.server.as_ref().map_or(0.0, ServerEnd::cp_s);
    let work_ns = sum(&ok, |r| r.work_cpu_ns);
    let sampled = sum(&ok, |r| r.work_sampled);
    let per_user: Vec<f64> = ok
        .iter()
        .filter(|r| r.cycles > 0)
        .map(|r| r.duration_ns() as f64 / 1e9 / r.cycles as f64)
        .collect();
    let tx_sum: u128 = ok.iter().map(|r| r.transaction.sum_ns).sum();
    let per_file: Vec<FileTotals> = (0..cfg.files as usize)
        .map(|f| file_totals(run, &ok, f))
        .collect();
    let mut dist = vec![0u64; DIST_BUCKETS];
    for r in &ok {
        for (d, x) in dist.iter_mut().zip(&r.dist) {
            *d += x;
        }
    }
    let processes = run.spec.mode == Mode::Processes;
    let rss = run.users.iter().map(|u| u.record.max_rss_kib);
    let mut f = Figures {
        transactions_per_s: if secs > 0.0 {
            cycles as f64 / secs
        } else {
            0.0
        },
        mean_response_s: if per_user.is_empty() {
            0.0
        } else {
            per_user.iter().sum::<f64>() / per_user.len() as f64
        },
        mean_transaction_response_s: if cycles > 0 {
            tx_sum as f64 / 1e9 / cycles as f64
        } else {
            0.0
        },
        cycles,
        mb_processed: cfg.mb_of(cycles),
        failed_users: run.users.len() - ok.len(),
        users: cfg.users,
        cp_seconds,
        io_seconds,
        server_cp_seconds,
        server_io_seconds: 0.0,
        total_cp_seconds: cp_seconds + server_cp_seconds,
        server: run.server.clone(),
        work_cpu_seconds: work_ns as f64 / 1e9,
        work_sampled_cycles: sampled,
        lock_requests: sum(&ok, |r| r.lock_requests),
        cp_ms_per_transaction: 0.0,
        io_ms_per_transaction: 0.0,
        cp_load_per_cycle_s: if sampled > 0 {
            work_ns as f64 / 1e9 / sampled as f64
        } else {
            0.0
        },
        cp_load_calibrated_s: run.cp_load_s,
        locks_taken: sum(&per_file, |f| f.locks_taken),
        uses: sum(&per_file, |f| f.uses),
        response_distribution_s: dist,
        per_file,
        per_user: run.users.iter().map(user_totals).collect(),
        controller_max_rss_kib: run.controller_rss_kib,
        user_max_rss_kib: processes.then(|| rss.clone().max().unwrap_or(0)),
        users_rss_kib_total: processes.then(|| rss.sum()),
        users_pss_kib_total: processes.then(|| sum(&run.users, |u| u.record.pss_kib)),
        lock_violations: run.violations,
    };
    f.cp_ms_per_transaction = f.per_tx(f.total_cp_seconds);
    f.io_ms_per_transaction = f.per_tx(f.io_seconds);
    f
}

/// One file's line of the IO summary, over the completed users `ok`.
fn file_totals(run: &Run, ok: &[&UserRecord], f: usize) -> FileTotals {
    let mut t = FileTotals {
        file: f as u32,
        locks_taken: run.locks.get(f).map_or(0, |l| l.taken),
        max_active: run.locks.get(f).map_or(0, |l| l.max_active),
        ..Default::default()
    };
    let (mut sum, mut sumsq, mut max) = (0u128, 0u128, 0u64);
    for r in ok {
        let fr = &r.files[f];
        t.opens += fr.opens;
        t.closes += fr.closes;
        t.uses += fr.uses;
        sum += fr.read_sum_ns;
        sumsq += fr.read_sumsq_ns;
        if fr.read_max_ns > max {
            max = fr.read_max_ns;
            t.max_record = fr.read_max_record;
            t.max_user = r.user;
        }
    }
    let m = crate::measure::Moments {
        count: t.uses,
        sum,
        sumsq,
    };
    t.read_mean_s = m.mean_ns() / 1e9;
    t.read_stddev_s = m.stddev_ns() / 1e9;
    t.read_max_s = max as f64 / 1e9;
    t
}

/// A user's line of `per_user`.
fn user_totals(u: &super::control::UserEnd) -> UserTotals {
    let x = &u.record;
    UserTotals {
        user: x.user,
        cycles: x.cycles,
        cp_s: (x.cpu_user_ns + x.cpu_sys_ns) as f64 / 1e9,
        io_s: x.io_ns as f64 / 1e9,
        opens: x.opens,
        closes: x.closes,
        duration_s: x.duration_ns() as f64 / 1e9,
        response_mean_s: x.transaction.mean_ns() / 1e9,
        response_stddev_s: x.transaction.stddev_ns() / 1e9,
        response_max_s: x.transaction.max_ns as f64 / 1e9,
        max_rss_kib: x.max_rss_kib,
        lock_requests: x.lock_requests,
        failed: u.failure.clone(),
    }
}

/// The run's `config`; `results_file` where the results file went.
pub fn config_of(run: &Run, results_file: Option<&Path>) -> RunConfig {
    let spec = &run.spec;
    RunConfig {
        parameters: spec.config.clone(),
        users_as: spec.mode,
        engine: spec.engine,
        direct: spec.direct,
        duration_s: spec.duration().as_secs_f64(),
        seed: spec.seed,
        paths: run.paths.clone(),
        locks_used_per_file: run.plan.locks,
        file_units_per_user: run.plan.units,
        work_iterations_per_read: run.plan.work_per_read,
        verify_locks: spec.verify_locks,
        variant: run.variant(),
        results_file: results_file.map(Path::to_path_buf),
    }
}

/// The run as a `iogauge/result/v1` document (benchmark `iobench`), with
/// `figures` ([`figures_of`]) as its metrics; `results_file` where the
/// results file went.
pub fn result_of(run: &Run, figures: &Figures, results_file: Option<&Path>) -> RunResult {
    let ok = completed(run);
    let outcome = Outcome {
        stats: merged_stats(&ok),
        per_worker: Vec::new(),
        // only the completed users are in the stats
        workers: ok.len(),
        worker_ns: 0,
        elapsed: run.elapsed,
        cpu: run.cpu,
        complete: run.complete,
        interrupted: run.interrupted,
        error: run.error.as_ref().map(|e| anyhow::anyhow!("{e}")),
        extras: Vec::new(),
        failures: Vec::new(),
        engine_modes: Vec::new(),
        pinned: Vec::new(),
        machine: Default::default(),
    };
    let mut r = RunResult::new(
        "iobench",
        config_of(run, results_file),
        run.environment.clone(),
        run.started_at.clone(),
    )
    .with_outcome(&outcome);
    r.set_figures(figures);
    r
}

/// The completed users' stats merged: each op kind's compact records
/// summed, then the users' per-second series.
fn merged_stats(ok: &[&UserRecord]) -> WorkerStats {
    let mut stats = WorkerStats::new(&[]);
    type Get = fn(&UserRecord) -> Option<&KindRec>;
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
