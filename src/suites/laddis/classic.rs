//! LADDIS's report: its summary, the per-operation table, the notes, then
//! iogauge's details.

use super::mix::FILESET_BYTES_PER_100_OPS;
use super::run::{LIMIT_MS, Options, Report};
use crate::runner::StopRule;
use crate::suites::classic;
use crate::units::fmt_bytes;
use std::fmt::Write;

/// LADDIS's summary, the per-operation table, notes, then iogauge's
/// details.
pub fn render(o: &Options, rule: &StopRule, rep: &Report) -> String {
    let mut s = summary(o, rule, rep);
    s += &per_op(rep);
    s += &notes(rep);
    let details = format!(
        "laddis, {} processes for {:?}, seed {}",
        o.procs,
        rule.duration.unwrap_or_default(),
        o.seed
    );
    classic::close(&mut s, &rep.result, &details);
    s
}

/// Whether the times are response times (open loop) or service times.
fn is_response(rep: &Report) -> bool {
    rep.figures.response_basis == "response"
}

/// The load, then throughput, response time against the limit, the file
/// set and the share of time in the calls.
fn summary(o: &Options, rule: &StopRule, rep: &Report) -> String {
    let f = &rep.figures;
    let mut s = String::new();
    let load = match (rule.pace.rate, rule.pace.think) {
        (Some(rate), _) => format!("open loop at {rate} ops/s ({})", rule.pace.arrivals.name()),
        (None, Some(t)) => format!("closed loop, think time {t:?}"),
        (None, None) => "closed loop, no think time".to_string(),
    };
    let _ = writeln!(
        s,
        "LADDIS ({}), one load point: {} process{}, {load}",
        o.mix.origin(),
        o.procs,
        if o.procs == 1 { "" } else { "es" },
    );
    let _ = writeln!(
        s,
        "  throughput:            {:.1} NFS ops/s ({} ops in {:.2} s)",
        f.ops_per_s, f.nfs_ops, rep.result.elapsed_s
    );
    let basis = if is_response(rep) {
        "response time, from each request's intended start"
    } else {
        "service time: closed loop"
    };
    let _ = writeln!(
        s,
        "  average response time: {:.3} ms ({basis})",
        f.mean_response_ms
    );
    let _ = writeln!(
        s,
        "  LADDIS limit met:      {} (average at most {LIMIT_MS} ms)",
        if f.meets_limit { "yes" } else { "no" }
    );
    let _ = writeln!(
        s,
        "  file set:              {} in {} files ({} in the working set), {}",
        fmt_bytes(rep.set.bytes),
        rep.set.files,
        rep.set.working_files,
        if rep.set.scaled {
            format!("sized for {} ops/s (5.4 MiB per op/s)", rep.set.claim)
        } else {
            "--scaling off".to_string()
        }
    );
    let _ = writeln!(
        s,
        "  io_time_fraction:      {:.3} (share of the processes' time inside the calls)",
        f.io_time_fraction
    );
    s
}

/// One line per NFS operation: its share of the mix and of what ran,
/// count, errors and times.
fn per_op(rep: &Report) -> String {
    let what = if is_response(rep) {
        "response"
    } else {
        "service"
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nPer NFS operation ({what} times):\n  {:<9} {:>5} {:>8} {:>10} {:>8} {:>10} {:>10}",
        "op", "mix %", "actual %", "count", "errors", "mean ms", "p90 ms"
    );
    for p in &rep.figures.per_op {
        let _ = writeln!(
            s,
            "  {:<9} {:>5} {:>8.2} {:>10} {:>8} {:>10.4} {:>10.4}",
            p.op, p.mix_pct, p.actual_pct, p.count, p.failed, p.mean_ms, p.p90_ms
        );
    }
    s += "\n";
    s
}

/// What LADDIS would not accept of this point, and that it is one point.
fn notes(rep: &Report) -> String {
    let f = &rep.figures;
    let mut s = String::new();
    if rep.set.scaled && f.ops_per_s > rep.set.claim * 1.0001 && f.nfs_ops > 0 {
        let _ = writeln!(
            s,
            "note: {:.1} ops/s is more than the {} ops/s the file set is sized for; LADDIS reports it only with --claim {} or more ({} of files)",
            f.ops_per_s,
            rep.set.claim,
            f.ops_per_s.ceil(),
            fmt_bytes((f.ops_per_s.ceil() * FILESET_BYTES_PER_100_OPS as f64 / 100.0) as u64)
        );
    }
    if !rep.set.scaled {
        s += "note: --scaling off: the file set is not the size LADDIS requires for this load\n";
    }
    s += "note: lookups of missing names (35 %) are meant to fail and are counted under errors\n";
    s += "note: one load point; LADDIS's figure is the highest throughput over a load curve whose average response time is at most 50 ms\n";
    s
}
