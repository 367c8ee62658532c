//! What each rank reports at the end of a phase, and how rank 0 merges the
//! reports: plain data, so that the merge is tested without MPI.
//!
//! Times travel on each rank's own clock with the rank's offset to rank 0's
//! (measured at the phase's start and again at its end); the merge puts
//! starts on rank 0's clock with the start offset and ends with the end
//! offset. Histograms travel bucket by bucket ([`StatsWire`]) and are added,
//! so the merged percentiles are those of every sample of every rank.

pub use crate::report::cluster::{Gather, HostFigures, Phase, RankFigures, Section, Stonewall};

use super::{Job, Opts};
use crate::env::Environment;
use crate::measure::{CpuTimes, KindStats, StatsWire, WorkerStats};
use crate::runner::Outcome;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// A rank's clock against rank 0's: `offset_ns` added to a time of the
/// rank gives rank 0's time, to within `bound_ns` (half the best
/// round trip).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offset {
    pub offset_ns: i64,
    pub bound_ns: u64,
}

impl Offset {
    /// `t` of the rank on rank 0's clock.
    pub fn to_root(&self, t: u64) -> u64 {
        t.saturating_add_signed(self.offset_ns)
    }
}

/// One rank's phase, as it sends it to rank 0.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RankReport {
    pub rank: usize,
    pub host: String,
    pub workers: usize,
    /// All its workers merged.
    pub stats: StatsWire,
    /// Each worker's, when it ran more than one.
    pub per_worker: Vec<StatsWire>,
    /// Its measured phase, on its own clock (ns).
    pub start_ns: u64,
    pub end_ns: u64,
    /// Its workers' time (ns, decimal: a u128).
    pub worker_ns: String,
    pub cpu_user_ns: u64,
    pub cpu_sys_ns: u64,
    pub max_rss_kib: u64,
    pub complete: bool,
    pub interrupted: bool,
    pub error: Option<String>,
    pub extras: Vec<serde_json::Value>,
    pub failures: Vec<Option<String>>,
    pub engine_modes: Vec<Option<String>>,
    /// Its clock at the phase's start and at its end.
    pub clock_start: Offset,
    pub clock_end: Offset,
    /// Ops it had done when the stonewall came (`--stonewall`).
    pub stonewall_ops: Option<u64>,
    /// Its machine and the shared directory's mount as it sees them (the
    /// job's first phase only: clients may differ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
}

impl RankReport {
    /// Rank `rank`'s report of `o`, whose measured phase began at
    /// `start_ns` on its clock.
    pub fn of(rank: usize, host: &str, o: &Outcome, start_ns: u64) -> RankReport {
        RankReport {
            rank,
            host: host.to_string(),
            workers: o.workers,
            stats: o.stats.to_wire(),
            per_worker: o.per_worker.iter().map(WorkerStats::to_wire).collect(),
            start_ns,
            end_ns: start_ns + o.elapsed.as_nanos() as u64,
            worker_ns: o.worker_time_ns().to_string(),
            cpu_user_ns: o.cpu.user.as_nanos() as u64,
            cpu_sys_ns: o.cpu.sys.as_nanos() as u64,
            max_rss_kib: o.cpu.max_rss_kib,
            complete: o.complete,
            interrupted: o.interrupted,
            error: o.error.as_ref().map(crate::error::cause),
            extras: o.extras.clone(),
            failures: o.failures.clone(),
            engine_modes: o.engine_modes.clone(),
            clock_start: Offset::default(),
            clock_end: Offset::default(),
            stonewall_ops: None,
            environment: None,
        }
    }

    fn start(&self) -> u64 {
        self.clock_start.to_root(self.start_ns)
    }

    fn end(&self) -> u64 {
        self.clock_end.to_root(self.end_ns).max(self.start())
    }
}

/// The job's section of the result: `environments` are the hosts' as their ranks
/// reported them (by host name).
pub fn section(
    job: &Job,
    opts: Opts,
    phases: Vec<Phase>,
    environments: &BTreeMap<String, Environment>,
) -> Section {
    let mut hosts = job.hosts.clone();
    hosts.sort();
    hosts.dedup();
    Section {
        ranks: job.size,
        environments: hosts
            .iter()
            .filter_map(|h| environments.get(h).cloned())
            .collect(),
        hosts,
        stonewall: opts.name().into(),
        seeds: super::rank_seeds(job.size),
        phases,
    }
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn rate(x: u64, s: f64) -> f64 {
    if s > 0.0 { x as f64 / s } else { 0.0 }
}

/// Merge the reports of the ranks that sent one (`hosts`: every rank's
/// host, in rank order) into the outcome of the whole job and the phase's
/// figures. Ranks without a report are named in the outcome's error.
pub fn merge(mut reports: Vec<RankReport>, hosts: &[String]) -> Result<(Outcome, Phase)> {
    reports.sort_by_key(|r| r.rank);
    let first = reports.iter().map(RankReport::start).min().unwrap_or(0);
    let last_start = reports.iter().map(RankReport::start).max().unwrap_or(0);
    let last_end = reports.iter().map(RankReport::end).max().unwrap_or(first);
    let elapsed = last_end.saturating_sub(first);
    let mut stats = WorkerStats::default();
    let mut per_worker = Vec::new();
    let (mut extras, mut failures, mut modes) = (Vec::new(), Vec::new(), Vec::new());
    let (mut user, mut sys, mut rss, mut worker_ns) = (0u64, 0u64, 0u64, 0u128);
    let mut figures = Vec::with_capacity(reports.len());
    let mut first_error = None;
    for r in &reports {
        let s = WorkerStats::from_wire(&r.stats)
            .map_err(|e| anyhow::anyhow!("rank {} sent damaged stats: {e}", r.rank))?;
        stats.merge_at(&s, r.start() - first);
        if r.per_worker.is_empty() {
            per_worker.push(s.clone());
        }
        for w in &r.per_worker {
            per_worker.push(
                WorkerStats::from_wire(w)
                    .map_err(|e| anyhow::anyhow!("rank {} sent damaged stats: {e}", r.rank))?,
            );
        }
        extras.extend(r.extras.iter().cloned());
        failures.extend(r.failures.iter().cloned());
        modes.extend(r.engine_modes.iter().cloned());
        user += r.cpu_user_ns;
        sys += r.cpu_sys_ns;
        rss = rss.max(r.max_rss_kib);
        worker_ns += r
            .worker_ns
            .parse::<u128>()
            .context("a rank's worker time")?;
        if first_error.is_none()
            && let Some(e) = &r.error
        {
            first_error = Some(format!("rank {} ({}): {e}", r.rank, r.host));
        }
        figures.push(rank_figures(r, &s, first));
    }
    let missing: Vec<(usize, String)> = (0..hosts.len())
        .filter(|i| !reports.iter().any(|r| r.rank == *i))
        .map(|i| (i, hosts[i].clone()))
        .collect();
    let error = if missing.is_empty() {
        first_error
    } else {
        Some(missing_text(&missing, &reports))
    };
    let done = reports.iter().min_by_key(|r| r.end());
    let phase = Phase {
        ranks: reports.len(),
        elapsed_s: secs(elapsed),
        start_spread_s: secs(last_start - first),
        first_done_s: done.map_or(0.0, |r| secs(r.end() - first)),
        last_done_s: secs(elapsed),
        first_done_rank: done.map_or(0, |r| r.rank),
        clock_bound_ns: reports
            .iter()
            .map(|r| r.clock_start.bound_ns.max(r.clock_end.bound_ns))
            .max()
            .unwrap_or(0),
        clock_drift_ns: reports
            .iter()
            .map(|r| r.clock_end.offset_ns.abs_diff(r.clock_start.offset_ns))
            .max()
            .unwrap_or(0),
        stonewall: stonewall(&reports, first),
        gather: None,
        missing,
        per_host: host_figures(&figures, secs(elapsed)),
        per_rank: figures,
    };
    let interrupted = reports.iter().any(|r| r.interrupted);
    let complete = phase.missing.is_empty() && reports.iter().all(|r| r.complete);
    let outcome = Outcome {
        workers: per_worker
            .len()
            .max(reports.iter().map(|r| r.workers).sum()),
        stats,
        per_worker,
        worker_ns,
        elapsed: Duration::from_nanos(elapsed),
        cpu: CpuTimes {
            user: Duration::from_nanos(user),
            sys: Duration::from_nanos(sys),
            max_rss_kib: rss,
            ..Default::default()
        },
        complete,
        interrupted,
        error: error.map(|e| anyhow::anyhow!(e)),
        extras,
        failures,
        engine_modes: modes,
        pinned: Vec::new(),
        machine: Default::default(),
    };
    Ok((outcome, phase))
}

fn missing_text(missing: &[(usize, String)], reports: &[RankReport]) -> String {
    let gone: Vec<String> = missing
        .iter()
        .map(|(r, h)| format!("rank {r} on {h}"))
        .collect();
    let held: Vec<String> = reports.iter().map(|r| r.rank.to_string()).collect();
    format!(
        "{} did not report (died or was killed); the result holds what rank{} {} measured",
        gone.join(", "),
        if held.len() == 1 { "" } else { "s" },
        held.join(", ")
    )
}

fn rank_figures(r: &RankReport, s: &WorkerStats, first: u64) -> RankFigures {
    use crate::measure::Direction;
    let el = secs(r.end() - r.start());
    let mut all = KindStats::new();
    for (_, k) in s.kinds().filter(|(k, _)| k.is_io()) {
        all.merge(k);
    }
    let lat = all.summary();
    let ops = s.total_ops();
    let (br, bw) = (s.bytes(Direction::Read), s.bytes(Direction::Write));
    RankFigures {
        rank: r.rank,
        host: r.host.clone(),
        workers: r.workers,
        ops,
        bytes_read: br,
        bytes_written: bw,
        start_s: secs(r.start() - first),
        end_s: secs(r.end() - first),
        ops_per_s: rate(ops, el),
        read_bytes_per_s: rate(br, el),
        write_bytes_per_s: rate(bw, el),
        latency_mean_ns: lat.mean,
        latency_p99_ns: lat.p99,
        clock_offset_ns: r.clock_start.offset_ns,
        clock_bound_ns: r.clock_start.bound_ns.max(r.clock_end.bound_ns),
        stonewall_ops: r.stonewall_ops,
        complete: r.complete,
        error: r.error.clone(),
    }
}

fn host_figures(ranks: &[RankFigures], elapsed_s: f64) -> Vec<HostFigures> {
    let mut by: BTreeMap<&str, HostFigures> = BTreeMap::new();
    for r in ranks {
        let h = by.entry(&r.host).or_insert_with(|| HostFigures {
            host: r.host.clone(),
            ..Default::default()
        });
        h.ranks.push(r.rank);
        h.workers += r.workers;
        h.ops += r.ops;
        h.bytes_read += r.bytes_read;
        h.bytes_written += r.bytes_written;
    }
    by.into_values()
        .map(|mut h| {
            h.ops_per_s = rate(h.ops, elapsed_s);
            h.read_bytes_per_s = rate(h.bytes_read, elapsed_s);
            h.write_bytes_per_s = rate(h.bytes_written, elapsed_s);
            h
        })
        .collect()
}

fn stonewall(reports: &[RankReport], first: u64) -> Option<Stonewall> {
    if reports.iter().all(|r| r.stonewall_ops.is_none()) {
        return None;
    }
    let done = reports.iter().min_by_key(|r| r.end())?;
    let at_s = secs(done.end() - first);
    let ops = reports.iter().filter_map(|r| r.stonewall_ops).sum();
    Some(Stonewall {
        at_s,
        first_rank: done.rank,
        ops,
        ops_per_s: rate(ops, at_s),
    })
}

#[cfg(test)]
mod tests;
