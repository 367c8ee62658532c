//! The human report: a few summary lines, a latency table per op kind, and
//! throughput over time, rendered from a [`RunResult`].

use super::RunResult;
use crate::units::{fmt_bytes, fmt_ns};
use std::fmt::Write;

/// Bytes per second in decimal MB/s, as storage people quote them.
pub fn mb_s(bytes_per_s: f64) -> String {
    format!("{:.1} MB/s", bytes_per_s / 1e6)
}

/// p50, p99, p99.9 and max of a latency summary, 9 characters each and
/// a space between: the latency columns of the suites' detail tables.
pub fn tail_cells(l: &crate::measure::LatencySummary) -> String {
    format!(
        "{:>9} {:>9} {:>9} {:>9}",
        fmt_ns(l.p50 as f64),
        fmt_ns(l.p99 as f64),
        fmt_ns(l.p999 as f64),
        fmt_ns(l.max as f64)
    )
}

/// The median of sorted counts: the middle one, or the mean of the middle
/// two of an even number (`1.5` for 1 and 2, `2` for 1 and 3).
pub fn median_of_sorted(v: &[u64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2] as f64,
        n => (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0,
    }
}

/// The summary lines and latency table of a run.
pub fn render(r: &RunResult) -> String {
    let mut o = String::new();
    let s = &r.summary;
    if !r.complete {
        let why = r.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(o, "  INCOMPLETE RUN ({why}): figures cover what ran");
    }
    if let Some(e) = &r.engine {
        let _ = writeln!(o, "  engine set up: {}", e.describe());
    }
    if !r.pinning.is_empty() {
        let line = crate::measure::placed::describe_all(&r.pinning);
        let _ = writeln!(o, "  pinned: {line}");
    }
    if let Some(d) = &r.environment.block_device {
        let _ = writeln!(o, "  on block device {}", d.describe());
    }
    let _ = writeln!(
        o,
        "  elapsed {:.3} s, {} worker{}: {} ops, {:.0} IO/s",
        r.elapsed_s,
        s.workers,
        if s.workers == 1 { "" } else { "s" },
        s.ops,
        s.ops_per_s
    );
    if s.bytes_read > 0 || s.bytes_written > 0 {
        let _ = writeln!(
            o,
            "  read  {:>12} {:>14}    write {:>12} {:>14}",
            fmt_bytes(s.bytes_read),
            mb_s(s.read_bytes_per_s),
            fmt_bytes(s.bytes_written),
            mb_s(s.write_bytes_per_s)
        );
    }
    let _ = writeln!(
        o,
        "  cpu   user {:.2} s, sys {:.2} s ({:.0}% of one core)    io_time_fraction {:.3}    peak RSS {}",
        s.cpu_user_s,
        s.cpu_sys_s,
        s.cpu_util * 100.0,
        s.io_time_fraction,
        fmt_bytes(s.max_rss_kib * 1024)
    );
    if let Some(ol) = &s.open_loop {
        let _ = writeln!(
            o,
            "  open loop: {:.1} requests/s offered, {:.1} issued ({} requests{})",
            ol.rate_offered,
            ol.rate_issued,
            ol.issued,
            if ol.missed > 0 {
                format!(
                    ", {} scheduled but never issued: the rate was not kept",
                    ol.missed
                )
            } else {
                String::new()
            }
        );
    }
    if s.cancelled > 0 {
        let _ = writeln!(
            o,
            "  cancelled: {} requests in flight when the run was interrupted (in no count or latency)",
            s.cancelled
        );
    }
    if s.would_block > 0 {
        let _ = writeln!(
            o,
            "  would block: {} requests refused with EAGAIN under --nowait (in no count or latency)",
            s.would_block
        );
    }
    latency_table(&mut o, r);
    per_second(&mut o, &r.timeseries.ops);
    io_logs(&mut o, &r.io_logs);
    if let Some(c) = &r.cluster {
        o += &c.render();
    }
    o
}

/// fio's per-I/O logs written: one line each.
fn io_logs(o: &mut String, logs: &[crate::measure::IoLogFile]) {
    for l in logs {
        let _ = writeln!(
            o,
            "  {} log: {} ({} line{})",
            l.log,
            l.path,
            l.lines,
            if l.lines == 1 { "" } else { "s" }
        );
    }
}

/// The latency of each op kind and, in an open loop, its response time.
fn latency_table(o: &mut String, r: &RunResult) {
    if !r.ops.is_empty() {
        let open = r.summary.open_loop.is_some();
        let split = r.ops.values().any(|op| op.submission_ns.is_some());
        let _ = writeln!(
            o,
            "\n  {:<11} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            match (open, split) {
                (true, _) => "service",
                (false, true) => "total",
                (false, false) => "latency",
            },
            "count",
            "mean",
            "stddev",
            "min",
            "p50",
            "p90",
            "p99",
            "p99.9",
            "p99.99",
            "max"
        );
        let row = |o: &mut String, name: &str, count: u64, l: &crate::measure::LatencySummary| {
            let _ = writeln!(
                o,
                "  {:<11} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
                name,
                count,
                fmt_ns(l.mean),
                fmt_ns(l.stddev),
                fmt_ns(l.min as f64),
                fmt_ns(l.p50 as f64),
                fmt_ns(l.p90 as f64),
                fmt_ns(l.p99 as f64),
                fmt_ns(l.p999 as f64),
                fmt_ns(l.p9999 as f64),
                fmt_ns(l.max as f64)
            );
        };
        for (name, op) in &r.ops {
            row(o, name, op.count, &op.latency_ns);
        }
        if split {
            let titles = [
                "  submission (issued → accepted by the kernel; a page-cache hit is read inside this call):",
                "  completion (accepted by the kernel → reaped):",
            ];
            for (i, title) in titles.into_iter().enumerate() {
                let _ = writeln!(o, "{title}");
                for (name, op) in &r.ops {
                    let part = [&op.submission_ns, &op.completion_ns][i];
                    if let Some(l) = part {
                        row(o, name, op.count, l);
                    }
                }
            }
            let _ = writeln!(
                o,
                "  {} is issued → reaped, the two together",
                if open { "service" } else { "total" }
            );
        }
        if open {
            let _ = writeln!(o, "  response (from each request's intended start):");
            for (name, op) in &r.ops {
                if let Some(l) = &op.response_ns {
                    row(o, name, op.count, l);
                }
            }
        }
    }
}

/// The spread of IO/s over the run's whole seconds.
fn per_second(o: &mut String, ts: &[u64]) {
    if ts.len() >= 2 {
        // the last second is usually partial: leave it out of the spread
        let mut full: Vec<u64> = ts[..ts.len() - 1].to_vec();
        full.sort_unstable();
        let _ = writeln!(
            o,
            "\n  IO/s per second over {} s: min {}, median {}, max {}",
            full.len(),
            full[0],
            median_of_sorted(&full),
            full[full.len() - 1]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{OpSummary, Summary};

    #[test]
    fn renders_every_op_kind_and_flags_incomplete_runs() {
        let mut r = RunResult::new("run", (), Default::default(), "t".into());
        r.complete = false;
        r.summary = Summary {
            ops: 3,
            workers: 1,
            bytes_read: 4096,
            ..Default::default()
        };
        r.ops.insert("read".into(), OpSummary::default());
        r.ops.insert("write".into(), OpSummary::default());
        let t = render(&r);
        assert!(t.contains("INCOMPLETE RUN (interrupted)"));
        assert!(t.lines().any(|l| l.trim_start().starts_with("read ")));
        assert!(t.lines().any(|l| l.trim_start().starts_with("write ")));
    }

    /// Issue 33: the median of two per-second samples is their mean, not
    /// the larger one.
    #[test]
    fn the_median_of_an_even_number_of_seconds_is_the_mean_of_the_middle_two() {
        let mut r = RunResult::new("run", (), Default::default(), "t".into());
        // two full seconds and a partial one (left out)
        r.timeseries.ops = vec![10, 21, 5];
        let t = render(&r);
        assert!(t.contains("over 2 s: min 10, median 15.5, max 21"), "{t}");
        r.timeseries.ops = vec![10, 30, 20, 5];
        assert!(render(&r).contains("median 20,"), "{}", render(&r));
        assert_eq!(median_of_sorted(&[1, 2]), 1.5);
        assert_eq!(median_of_sorted(&[]), 0.0);
    }
}
