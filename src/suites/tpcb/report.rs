//! TPC-B's report: its summary, the notes on what it measured, the
//! response-time histogram, then iogauge's details.

use super::run::{CONSTRAINT_S, Figures, Plan};
use crate::report::RunResult;
use crate::suites::classic;
use crate::units::{fmt_bytes, fmt_ns};
use std::fmt::Write;
use std::time::Duration;

/// A response time in seconds, in the unit that suits it (µs, ms, s).
fn secs(s: f64) -> String {
    fmt_ns(s * 1e9)
}

/// TPC-B's summary, the notes on what it measured, then iogauge's
/// details.
pub fn render(o: &Plan, f: &Figures, r: &RunResult) -> String {
    let mut s = summary(o, f, r);
    s += &histogram(f);
    s += &notes(o, f);
    let details = format!(
        "tpcb, engine {}, {} terminals for {:?}, seed {}, history {}",
        o.engine,
        o.terminals,
        Duration::from_secs_f64(o.duration_s),
        o.seed,
        fmt_bytes(f.history_bytes)
    );
    classic::close(&mut s, r, &details);
    s
}

/// The load, then the figures: tps, response times, the constraint, the
/// database, commits and the consistency check.
fn summary(o: &Plan, f: &Figures, r: &RunResult) -> String {
    let mut s = String::new();
    let load = match (o.pace.rate, o.pace.think) {
        (Some(r), _) => format!(
            "open loop at {r} tx/s ({} arrivals; response from each transaction's intended start)",
            o.pace.arrivals.name()
        ),
        (None, Some(t)) => format!("closed loop, think time {t:?} ({})", o.pace.arrivals.name()),
        (None, None) => "closed loop, no think time".into(),
    };
    let _ = writeln!(
        s,
        "TPC-B (debit-credit), one load point: {} terminal{}, {load}",
        o.terminals,
        if o.terminals == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "  tps:                 {:.1} ({} transactions in {:.2} s)",
        f.tps, f.transactions, r.elapsed_s
    );
    let _ = writeln!(
        s,
        "  response time:       mean {}, p50 {}, p90 {}, p99 {}, max {}",
        secs(f.mean_response_s),
        secs(f.p50_response_s),
        secs(f.p90_response_s),
        secs(f.p99_response_s),
        secs(f.max_response_s)
    );
    let _ = writeln!(
        s,
        "  TPC-B constraint met: {}, p90 = {:.4} s (90 % of transactions within {CONSTRAINT_S} s)",
        if f.constraint_met { "yes" } else { "no" },
        f.p90_response_s
    );
    let _ = writeln!(
        s,
        "  database:            scale {} ({} branch{}, {} tellers, {} accounts: {} of records), sized for up to {} tps",
        f.scale,
        o.branches,
        if o.branches == 1 { "" } else { "es" },
        o.tellers,
        o.accounts,
        fmt_bytes(f.database_bytes),
        f.max_tps_of_scale
    );
    let _ = writeln!(
        s,
        "  commit sync:         {}",
        if o.commit_sync {
            "on (fsync of the history at each commit)"
        } else {
            "off (commits end in the page cache: not durable)"
        }
    );
    match &f.consistency {
        Some(c) => {
            let _ = writeln!(
                s,
                "  consistency:         {}: accounts {}, tellers {}, branches {}, history {} ({} records)",
                if c.consistent() {
                    "consistent"
                } else {
                    "INCONSISTENT"
                },
                c.accounts,
                c.tellers,
                c.branches,
                c.history,
                c.history_count
            );
        }
        None => s += "  consistency:         not checked (the run failed or did not start)\n",
    }
    s
}

/// TPC-B's response-time histogram: each bucket's count and share.
fn histogram(f: &Figures) -> String {
    let mut s = String::from("\nResponse-time histogram (transactions):\n");
    let total = f.transactions.max(1) as f64;
    for b in &f.response_histogram {
        let range = match b.hi_s {
            Some(hi) => format!("{:.1} - {:.1} s", b.lo_s, hi),
            None => format!(">= {:.1} s", b.lo_s),
        };
        let _ = writeln!(
            s,
            "  {range:<12} {:>10}  {:>5.1} %",
            b.count,
            b.count as f64 * 100.0 / total
        );
    }
    s += "\n";
    s
}

/// What TPC-B would not accept of this point, and that it is one point.
fn notes(o: &Plan, f: &Figures) -> String {
    let mut s = String::new();
    if f.tps > f.max_tps_of_scale as f64 {
        let _ = writeln!(
            s,
            "note: {:.1} tps is more than the {} tps the database is sized for; TPC-B reports it only with --tps-scale {} or more",
            f.tps,
            f.max_tps_of_scale,
            f.tps.ceil() as u64
        );
    }
    if !o.commit_sync {
        s += "note: --commit-sync off: commits were not durable, which TPC-B does not allow\n";
    }
    s += "note: one load point; TPC-B's maximum tps is the best over a load curve that meets the constraint: 'iogauge scale tpcb' searches it\n";
    s
}

/// TPC-B's sizing rule at a measured throughput: a database may report at
/// most the tps it is sized for (`iogauge scale tpcb` says so of its chosen
/// point); `None` within it.
pub fn sizing_note(tps_scale: u32, tps: f64) -> Option<String> {
    let sized = super::db::Scale::new(tps_scale).max_tps() as f64;
    (tps > sized).then(|| {
        format!(
            "TPC-B lets a database report at most the tps it is sized for ({sized:.0} here); {tps:.0} tx/s needs --tps-scale {:.0} or more",
            tps.ceil()
        )
    })
}
