//! LADDIS's report: its summary, the per-operation table, the notes, then
//! iogauge's details.

use super::mix::{FILESET_BYTES_PER_100_OPS, origin};
use super::run::{Basis, Figures, LIMIT_MS, Plan};
use crate::report::RunResult;
use crate::suites::classic;
use crate::units::fmt_bytes;
use std::fmt::Write;
use std::time::Duration;

/// LADDIS's summary, the per-operation table, notes, then iogauge's
/// details.
pub fn render(plan: &Plan, f: &Figures, r: &RunResult) -> String {
    let mut s = summary(plan, f, r);
    s += &per_op(f);
    s += &per_client(f);
    s += &notes(plan, f);
    let clients = r.cluster.as_ref().map_or(1, |c| c.ranks);
    let details = format!(
        "laddis, {} processes{} for {:?}, seed {}",
        plan.procs,
        if clients > 1 { " on rank 0" } else { "" },
        plan.duration_s
            .map(Duration::from_secs_f64)
            .unwrap_or_default(),
        plan.seed
    );
    classic::close(&mut s, r, &details);
    s
}

/// The load, then throughput, response time against the limit, the file
/// set and the share of time in the calls.
fn summary(plan: &Plan, f: &Figures, r: &RunResult) -> String {
    let mut s = String::new();
    let load = match (plan.rate, plan.thinktime_s) {
        (Some(rate), _) => format!("open loop at {rate} ops/s ({})", plan.arrivals.name()),
        (None, Some(t)) => format!("closed loop, think time {:?}", Duration::from_secs_f64(t)),
        (None, None) => "closed loop, no think time".to_string(),
    };
    let processes = |n: usize| format!("{n} process{}", if n == 1 { "" } else { "es" });
    let clients = r.cluster.as_ref().map_or(1, |c| c.ranks);
    let who = if clients > 1 {
        let each = f.clients.first().map(|c| c.procs);
        let procs = match each {
            Some(p) if f.clients.iter().all(|c| c.procs == p) => {
                format!("{} each", processes(p))
            }
            _ => format!("{} in all", processes(f.procs)),
        };
        let share = plan
            .rate
            .map(|rate| format!(", {:.1} ops/s a client", rate / clients as f64))
            .unwrap_or_default();
        format!("{clients} clients of {procs}, {load}{share}")
    } else {
        format!("{}, {load}", processes(plan.procs))
    };
    let _ = writeln!(s, "LADDIS ({}), one load point: {who}", origin(&plan.mix));
    let _ = writeln!(
        s,
        "  throughput:            {:.1} NFS ops/s ({} ops in {:.2} s)",
        f.nfs_ops_per_s, f.nfs_ops, r.elapsed_s
    );
    let basis = match f.response_basis {
        Basis::Response => "response time, from each request's intended start",
        Basis::Service => "service time: closed loop",
    };
    let _ = writeln!(
        s,
        "  average response time: {:.3} ms ({basis})",
        f.mean_response_ms
    );
    let _ = writeln!(
        s,
        "  LADDIS limit met:      {} (average at most {LIMIT_MS} ms)",
        if f.meets_50ms { "yes" } else { "no" }
    );
    let _ = writeln!(
        s,
        "  file set:              {} in {} files ({} in the working set), {}",
        fmt_bytes(plan.fileset_bytes),
        f.files,
        f.working_set_files,
        if plan.scaling {
            format!(
                "sized for {} ops/s (5.4 MiB per op/s)",
                plan.claim_ops_per_s
            )
        } else {
            "--scaling off".to_string()
        }
    );
    let _ = writeln!(
        s,
        "  io_time_fraction:      {:.3} (share of the processes' time inside the calls)",
        r.summary.io_time_fraction
    );
    s
}

/// One line per NFS operation: its share of the mix and of what ran,
/// count, errors and times.
fn per_op(f: &Figures) -> String {
    let what = match f.response_basis {
        Basis::Response => "response",
        Basis::Service => "service",
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nPer NFS operation ({what} times):\n  {:<9} {:>5} {:>8} {:>10} {:>8} {:>10} {:>10}",
        "op", "mix %", "actual %", "count", "errors", "mean ms", "p90 ms"
    );
    for p in &f.per_op {
        let _ = writeln!(
            s,
            "  {:<9} {:>5} {:>8.2} {:>10} {:>8} {:>10.4} {:>10.4}",
            p.op, p.mix_pct, p.actual_pct, p.count, p.failed, p.mean_ms, p.p90_ms
        );
    }
    s += "\n";
    s
}

/// On many clients: a line per client (its share of the load and of the
/// file set, and what it measured), the server's figures being above.
fn per_client(f: &Figures) -> String {
    if f.clients.is_empty() {
        return String::new();
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Per client (each its share of the server's load and file set; ops/s over its own time):\n  {:>6} {:<16} {:>6} {:>10} {:>10} {:>8} {:>10} {:>10} {:>10}",
        "rank", "host", "procs", "offered/s", "file set", "files", "ops", "ops/s", "mean ms"
    );
    for c in &f.clients {
        let offered = c
            .offered_ops_per_s
            .map_or_else(|| "-".to_string(), |x| format!("{x:.1}"));
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>6} {:>10} {:>10} {:>8} {:>10} {:>10.1} {:>10.3}",
            c.rank,
            c.host,
            c.procs,
            offered,
            fmt_bytes(c.fileset_bytes),
            c.files,
            c.nfs_ops,
            c.nfs_ops_per_s,
            c.mean_response_ms
        );
    }
    s += "\n";
    s
}

/// What LADDIS would not accept of this point, and that it is one point.
fn notes(plan: &Plan, f: &Figures) -> String {
    let mut s = String::new();
    let claim = plan.claim_ops_per_s;
    if plan.scaling && f.nfs_ops_per_s > claim * 1.0001 && f.nfs_ops > 0 {
        let _ = writeln!(
            s,
            "note: {:.1} ops/s is more than the {} ops/s the file set is sized for; LADDIS reports it only with --claim {} or more ({} of files)",
            f.nfs_ops_per_s,
            claim,
            f.nfs_ops_per_s.ceil(),
            fmt_bytes((f.nfs_ops_per_s.ceil() * FILESET_BYTES_PER_100_OPS as f64 / 100.0) as u64)
        );
    }
    if !plan.scaling {
        s += "note: --scaling off: the file set is not the size LADDIS requires for this load\n";
    }
    s += "note: lookups of missing names (35 %) are meant to fail and are counted under errors\n";
    s += "note: one load point; LADDIS's figure is the highest throughput over a load curve whose average response time is at most 50 ms\n";
    s
}
