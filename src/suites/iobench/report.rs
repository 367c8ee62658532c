//! IOBENCH's outputs: the results file in the layout of the paper's
//! Figure 1, the tab-delimited summary line, the `===` line, and the short
//! summary for the terminal; then what iogauge adds (percentiles, the share
//! of time in I/O, CPU and memory).
//!
//! Times are measured in nanoseconds and printed in the paper's units:
//! seconds (CP and IO totals with 3 decimals, response times with 6, since
//! today's reads take microseconds), CP per transaction in milliseconds.

use super::control::{Mode, Run};
use super::result::{Figures, RunConfig};
use super::user::DIST_BUCKETS;
use crate::report::RunResult;
use crate::units::fmt_ns;
use std::fmt::Write;

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Local time as ctime(3) prints it (`Fri Jun  2 13:47:09`), with the year
/// when asked.
pub fn ctime(unix: i64, year: bool) -> String {
    let t = unix as libc::time_t;
    // SAFETY: localtime_r writes the zeroed plain-data struct we pass.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to a time_t and a tm.
    unsafe { libc::localtime_r(&t, &mut tm) };
    let mut s = format!(
        "{} {} {:>2} {:02}:{:02}:{:02}",
        DAYS[tm.tm_wday.clamp(0, 6) as usize],
        MONTHS[tm.tm_mon.clamp(0, 11) as usize],
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    );
    if year {
        let _ = write!(s, " {}", tm.tm_year + 1900);
    }
    s
}

/// What the results file needs beyond the run.
pub struct TextOpts<'a> {
    /// The run's name for the first line (the control file, or `iobench`).
    pub name: &'a str,
    pub summary_file: Option<&'a std::path::Path>,
    /// `-t`: the response-time distribution table.
    pub table: bool,
}

fn s3(x: f64) -> String {
    format!("{x:.3}")
}

/// The results file: Figure 1's layout, then iogauge's additions.
pub fn results_file(run: &Run, f: &Figures, r: &RunResult, o: &TextOpts) -> String {
    let cfg = &run.spec.config;
    let mut s = String::new();
    let w = &mut s;
    parameters(w, run, f, o);
    lock_summary(w, f);
    user_summary(w, run);
    io_summary(w, f);
    total_lines(w, f);
    transaction_lines(w, cfg, f);
    user_responses(w, f);
    if o.table {
        distribution(w, &f.response_distribution_s);
    }
    let _ = writeln!(w, "{}", equals_line(cfg, f));
    additions(w, &super::result::config_of(run, None), f, r);
    s
}

/// The opening lines: the run, its variant, the parameters and paths.
fn parameters(w: &mut String, run: &Run, f: &Figures, o: &TextOpts) {
    let cfg = &run.spec.config;
    let _ = writeln!(w, "Started {} at {}", o.name, ctime(run.started_unix, true));
    let _ = writeln!(
        w,
        "IOBENCH version 5.0 of 25 May 1989 (iogauge {}, commit {})",
        crate::report::VERSION,
        crate::report::COMMIT
    );
    if let Some(p) = o.summary_file {
        let _ = writeln!(w, "Summary will be written to file {}", p.display());
    }
    let _ = writeln!(w, "Run id is {}", cfg.run);
    let users_as = run.spec.mode.name();
    match run.variant() {
        0 => writeln!(
            w,
            "Variant is 0 (no server: users lock shared memory; users are {users_as})"
        ),
        _ => writeln!(
            w,
            "Variant is 1 (locking in ioserver, over System V message queues; users are {users_as})"
        ),
    }
    .ok();
    let minutes = run.spec.duration().as_secs_f64() / 60.0;
    for (label, v) in [
        ("Number of files", cfg.files.to_string()),
        ("Number of records", cfg.nrecs.to_string()),
        ("Record length", cfg.reclen.to_string()),
        ("Number of users", cfg.users.to_string()),
        ("Locks per file", cfg.locks.to_string()),
        ("Lock sleep time", super::config::num(cfg.sleep)),
        ("Start delay", super::config::num(cfg.start)),
        ("Number of minutes", super::config::num(minutes)),
        ("End delay", super::config::num(cfg.end)),
        ("Work parameter", cfg.work.to_string()),
        ("Reads", cfg.reads.to_string()),
        ("Writes", cfg.writes.to_string()),
    ] {
        let _ = writeln!(w, "{label} = {v}");
    }
    for (i, p) in run.paths.iter().enumerate() {
        let _ = writeln!(w, "path[{i}] = {}", p.display());
    }
    let _ = writeln!(
        w,
        "CP load/cycle = {:.6} secs (measured; calibrated on an idle CPU: {:.6})",
        f.cp_load_per_cycle_s, f.cp_load_calibrated_s
    );
}

/// Each file's locks taken and most held at once.
fn lock_summary(w: &mut String, t: &Figures) {
    let _ = writeln!(w, " FILE  LOCKS TAKEN  MAX ACTIVE");
    for f in &t.per_file {
        let _ = writeln!(
            w,
            "{:>5} {:>12} {:>11}",
            f.file, f.locks_taken, f.max_active
        );
    }
}

/// Each user's cycles, times, opens and closes, or why it failed.
fn user_summary(w: &mut String, run: &Run) {
    let _ = writeln!(
        w,
        " USER     CYCLES    CP TIME   IO TIME*  OPENS CLOSES ----START TIME----    DURATION"
    );
    for u in &run.users {
        let r = &u.record;
        match &u.failure {
            None => {
                let _ = writeln!(
                    w,
                    "{:>5} {:>10} {:>10} {:>10} {:>6} {:>6} {} {:>11}",
                    r.user,
                    r.cycles,
                    s3((r.cpu_user_ns + r.cpu_sys_ns) as f64 / 1e9),
                    s3(r.io_ns as f64 / 1e9),
                    r.opens,
                    r.closes,
                    ctime(r.start_unix, false),
                    s3(r.duration_ns() as f64 / 1e9)
                );
            }
            Some(why) => {
                let _ = writeln!(w, "{:>5}     FAILED: {why}", r.user);
            }
        }
    }
}

/// Each file's opens, closes, uses and read times.
fn io_summary(w: &mut String, t: &Figures) {
    let _ = writeln!(
        w,
        " FILE  OPENS CLOSES       USES   AVG TIME    STD DEV      MAX T     RECORD  USER"
    );
    for f in &t.per_file {
        let _ = writeln!(
            w,
            "{:>5} {:>6} {:>6} {:>10} {:>10.6} {:>10.6} {:>10.6} {:>10} {:>5}",
            f.file,
            f.opens,
            f.closes,
            f.uses,
            f.read_mean_s,
            f.read_stddev_s,
            f.read_max_s,
            f.max_record,
            f.max_user
        );
    }
}

/// The `***` totals.
fn total_lines(w: &mut String, t: &Figures) {
    let _ = writeln!(w, "*** Total cycles = {}", t.cycles);
    let _ = writeln!(w, "*** Total MB of data = {:.3}", t.mb_processed);
    let _ = writeln!(w, "*** User   CP seconds = {:.3}", t.cp_seconds);
    let _ = writeln!(w, "*** User   IO seconds = {:.3} *", t.io_seconds);
    let _ = writeln!(w, "*** Server CP seconds = {:.3}", t.server_cp_seconds);
    let _ = writeln!(w, "*** Server IO seconds = 0.000");
    cp_io_lines(w, t);
}

/// The `***` totals of CPU and I/O time, and what IO is.
fn cp_io_lines(w: &mut String, t: &Figures) {
    let _ = writeln!(w, "*** Total CP seconds = {:.3}", t.total_cp_seconds);
    let _ = writeln!(w, "*** Total IO seconds = {:.3} *", t.io_seconds);
    let _ = writeln!(w, "{IO_NOTE}");
}

/// Each completed user's transaction response times.
fn user_responses(w: &mut String, f: &Figures) {
    let _ = writeln!(w, " USER   AVG TIME    STD DEV   MAX TIME");
    for u in f.per_user.iter().filter(|u| u.failed.is_none()) {
        let _ = writeln!(
            w,
            "{:>5} {:>10.6} {:>10.6} {:>10.6}",
            u.user, u.response_mean_s, u.response_stddev_s, u.response_max_s
        );
    }
}

/// What `IO TIME*` and the starred IO seconds are.
const IO_NOTE: &str = "* IO: wall time inside read(2)/write(2) calls (IOBENCH printed 0 on UNIX)";

fn transaction_lines(w: &mut String, cfg: &super::Config, t: &Figures) {
    let _ = writeln!(w, "*** Transaction statistics ***");
    let _ = writeln!(
        w,
        "*** {} transactions consisting of {} reads and {} writes",
        t.cycles, cfg.reads, cfg.writes
    );
    let _ = writeln!(
        w,
        "*** Transactions per Second = {:.3}",
        t.transactions_per_s
    );
    let _ = writeln!(
        w,
        "*** Average response time = {:.6} Seconds (mean of all transactions: {:.6} Seconds)",
        t.mean_response_s, t.mean_transaction_response_s
    );
    let _ = writeln!(
        w,
        "*** Average CP time per transaction = {:.3} milliseconds",
        t.cp_ms_per_transaction
    );
    let _ = writeln!(
        w,
        "*** Average IO time per transaction = {:.3} milliseconds",
        t.io_ms_per_transaction
    );
}

/// The `-t` table: whole seconds 0…24 and >24, nine to a row group. A
/// column is as wide as its widest cell (at least 5), so counts of any
/// size keep the bars of the three rows aligned.
fn distribution(w: &mut String, dist: &[u64]) {
    let total: u64 = dist.iter().sum();
    let _ = writeln!(w, "*** Response time distribution table");
    for group in (0..DIST_BUCKETS).collect::<Vec<_>>().chunks(9) {
        let mut rows = [
            String::from("Seconds |"),
            String::from("Count   |"),
            String::from("Percent |"),
        ];
        for &i in group {
            let label = if i == DIST_BUCKETS - 1 {
                ">24".to_string()
            } else {
                i.to_string()
            };
            let p = if total > 0 {
                100.0 * dist[i] as f64 / total as f64
            } else {
                0.0
            };
            let cells = [label, dist[i].to_string(), format!("{p:.1}%")];
            let width = cells.iter().map(String::len).max().unwrap_or(0).max(5);
            for (row, cell) in rows.iter_mut().zip(&cells) {
                let _ = write!(row, " {cell:>width$} |");
            }
        }
        let _ = writeln!(w, "{}\n{}\n{}", rows[0], rows[1], rows[2]);
    }
}

/// `=== F U B CP cycles MB CP IO failed`.
pub fn equals_line(cfg: &super::Config, t: &Figures) -> String {
    format!(
        "=== {} {} {} {} {} {:.3} {:.3} {:.3} {}",
        cfg.files,
        cfg.users,
        cfg.reclen,
        cfg.work,
        t.cycles,
        t.mb_processed,
        t.total_cp_seconds,
        t.io_seconds,
        t.failed_users
    )
}

/// The summary file's line: inputs F U B N R W CP, outputs MB, CP time, IO
/// time, average response time, transactions per second, failed users;
/// separated by tabs.
pub fn summary_line(cfg: &super::Config, t: &Figures) -> String {
    [
        cfg.files.to_string(),
        cfg.users.to_string(),
        cfg.reclen.to_string(),
        cfg.nrecs.to_string(),
        cfg.reads.to_string(),
        cfg.writes.to_string(),
        cfg.work.to_string(),
        format!("{:.3}", t.mb_processed),
        format!("{:.3}", t.total_cp_seconds),
        format!("{:.3}", t.io_seconds),
        format!("{:.6}", t.mean_response_s),
        format!("{:.3}", t.transactions_per_s),
        t.failed_users.to_string(),
    ]
    .join("\t")
}

/// The column names of [`summary_line`], for a header on the terminal.
pub const SUMMARY_HEADER: &str =
    "FILES\tUSERS\tRECLEN\tNRECS\tREADS\tWRITES\tWORK\tMB\tCP_S\tIO_S\tRESP_S\tTPS\tFAILED";

/// iogauge's additions, below the classic report.
fn additions(w: &mut String, plan: &RunConfig, t: &Figures, r: &RunResult) {
    let _ = writeln!(w, "--- iogauge additions ---");
    if !r.complete {
        let why = r.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(w, "INCOMPLETE RUN ({why}): figures cover what ran");
    }
    let _ = writeln!(
        w,
        "Users: {} {} ({} completed, {} failed); engine {}{}; measured interval {:.3} s",
        plan.parameters.users,
        plan.users_as.name(),
        t.completed(),
        t.failed_users,
        plan.engine,
        if plan.direct { ", O_DIRECT" } else { "" },
        r.elapsed_s
    );
    latency_table(w, r);
    let s = &r.summary;
    let _ = writeln!(
        w,
        "io_time_fraction = {:.3} (share of the users' time inside I/O calls)",
        s.io_time_fraction
    );
    let _ = writeln!(
        w,
        "CPU over the measured interval: user {:.2} s, sys {:.2} s ({:.0}% of one core)",
        s.cpu_user_s,
        s.cpu_sys_s,
        s.cpu_util * 100.0
    );
    memory_line(w, plan.users_as, t);
    if let Some(sv) = &t.server {
        server_lines(w, sv, t);
    }
    let (taken, uses) = (t.locks_taken, t.uses);
    if plan.parameters.locking() && taken != uses {
        let _ = writeln!(
            w,
            "Locks taken ({taken}) differ from uses ({uses}): the failed users' locks are counted, their uses are not"
        );
    }
    if let Some(v) = t.lock_violations {
        let _ = writeln!(w, "Lock check: {v} overlapping holders");
    }
    for u in &t.per_user {
        if let Some(why) = &u.failed {
            let _ = writeln!(w, "User {} failed: {why}", u.user);
        }
    }
}

/// Each op kind's latency percentiles, from the result.
fn latency_table(w: &mut String, r: &RunResult) {
    let row = |w: &mut String, kind: &str, count: String, cells: [String; 7]| {
        let _ = write!(w, "  {kind:<11} {count:>10}");
        for c in cells {
            let _ = write!(w, " {c:>9}");
        }
        w.push('\n');
    };
    if !r.ops.is_empty() {
        let heads = ["mean", "p50", "p90", "p99", "p99.9", "p99.99", "max"];
        row(w, "latency", "count".into(), heads.map(String::from));
    }
    for kind in [
        "transaction",
        "read",
        "write",
        "lock",
        "cpu",
        "open",
        "close",
    ] {
        if let Some(op) = r.ops.get(kind) {
            let l = &op.latency_ns;
            let tail = [l.p50, l.p90, l.p99, l.p999, l.p9999, l.max].map(|v| v as f64);
            let [p50, p90, p99, p999, p9999, max] = tail.map(fmt_ns);
            let cells = [fmt_ns(l.mean), p50, p90, p99, p999, p9999, max];
            row(w, kind, op.count.to_string(), cells);
        }
    }
}

/// Peak memory: of the whole process, or of the controller and the user
/// processes.
fn memory_line(w: &mut String, mode: Mode, t: &Figures) {
    let kib = |k: Option<u64>| crate::units::fmt_bytes(k.unwrap_or(0) * 1024);
    let controller = kib(Some(t.controller_max_rss_kib));
    let _ = match mode {
        Mode::Threads => writeln!(w, "Peak RSS: {controller} (controller and all users)"),
        Mode::Processes => writeln!(
            w,
            "Peak RSS: controller {controller}; largest user process {}; all user processes {} (PSS at their end {})",
            kib(t.user_max_rss_kib),
            kib(t.users_rss_kib_total),
            kib(t.users_pss_kib_total)
        ),
    };
}

/// Variant 1: what the ioserver did and what it cost.
fn server_lines(w: &mut String, sv: &super::ServerEnd, t: &Figures) {
    let per = |x: f64| {
        if sv.lock_requests > 0 {
            fmt_ns(x * 1e9 / sv.lock_requests as f64)
        } else {
            "-".into()
        }
    };
    let _ = writeln!(
        w,
        "ioserver (pid {}): {} lock requests ({} granted at once, {} after waiting, {} answered busy), {} unlocks, {} releases of dead users, {} bad requests",
        sv.pid,
        sv.lock_requests,
        sv.granted_at_once,
        sv.granted_after_wait,
        sv.busy,
        sv.unlocks,
        sv.releases,
        sv.bad
    );
    let _ = writeln!(
        w,
        "ioserver CPU: user {:.3} s, sys {:.3} s = {} per lock request; {:.1}% of Total CP; mean service {} per request",
        sv.cpu_user_s,
        sv.cpu_sys_s,
        per(sv.cp_s()),
        if t.total_cp_seconds > 0.0 {
            100.0 * sv.cp_s() / t.total_cp_seconds
        } else {
            0.0
        },
        fmt_ns(sv.mean_service_s * 1e9)
    );
    if let Some(why) = &sv.died {
        let _ = writeln!(w, "ioserver DIED during the run: {why}");
    }
}

/// The short summary on the terminal, and where the results file went:
/// IOBENCH's classic report, from the result.
pub fn terminal(plan: &RunConfig, t: &Figures, r: &RunResult) -> String {
    let cfg = &plan.parameters;
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "IOBENCH run {}: {} files × {} records × {} B, {} users, R={} W={} L={} S={} CP={}, {} s",
        cfg.run,
        cfg.files,
        cfg.nrecs,
        cfg.reclen,
        cfg.users,
        cfg.reads,
        cfg.writes,
        cfg.locks,
        super::config::num(cfg.sleep),
        cfg.work,
        super::config::num(plan.duration_s)
    );
    let _ = writeln!(w, "*** Total cycles = {}", t.cycles);
    let _ = writeln!(w, "*** Total MB of data = {:.3}", t.mb_processed);
    if t.server.is_some() {
        let _ = writeln!(w, "*** Server CP seconds = {:.3}", t.server_cp_seconds);
    }
    cp_io_lines(w, t);
    transaction_lines(w, cfg, t);
    let _ = writeln!(w, "{}", equals_line(cfg, t));
    additions(w, plan, t, r);
    if let Some(p) = &plan.results_file {
        let _ = writeln!(w, "Results written to {}", p.display());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_looks_like_ctime() {
        let s = ctime(0, true);
        // 1970 in any time zone: "Thu Jan  1 00:00:00 1970" or the evening before
        assert_eq!(s.len(), 24, "{s:?}");
        assert!(s.ends_with("1970") || s.ends_with("1969"), "{s}");
        assert_eq!(ctime(0, false).len(), 19);
    }

    #[test]
    fn distribution_has_three_row_groups() {
        let mut w = String::new();
        let mut d = vec![0u64; DIST_BUCKETS];
        d[0] = 13572;
        d[1] = 1912;
        d[25] = 1;
        distribution(&mut w, &d);
        let lines: Vec<&str> = w.lines().collect();
        assert_eq!(lines.len(), 10);
        let heads = [
            "Seconds |     0 |     1 |",
            "Count   | 13572 |  1912 |",
            "Percent | 87.6% | 12.3% |",
        ];
        for (line, head) in lines[1..4].iter().zip(heads) {
            assert!(line.starts_with(head), "{line}");
        }
        assert!(lines[7].ends_with("   >24 |"), "{}", lines[7]);
        // a full bucket still leaves a space after the bar
        let mut w = String::new();
        d.fill(0);
        d[0] = 1_234_567;
        distribution(&mut w, &d);
        assert!(w.contains("Count   | 1234567 |"), "{w}");
        assert!(w.contains("Percent |  100.0% |"), "{w}");
        assert_eq!(lines[7].matches('|').count(), 9);
        // the bars stay aligned in every row group, whatever the counts
        for n in [1_000_000u64, 12_345_678_901] {
            let mut w = String::new();
            d.fill(3);
            d[0] = n;
            d[20] = n;
            distribution(&mut w, &d);
            let lines: Vec<&str> = w.lines().skip(1).collect();
            for g in lines.chunks(3) {
                let bars = |l: &str| {
                    l.char_indices()
                        .filter(|&(_, c)| c == '|')
                        .map(|(i, _)| i)
                        .collect::<Vec<_>>()
                };
                assert_eq!(bars(g[0]), bars(g[1]), "{w}");
                assert_eq!(bars(g[0]), bars(g[2]), "{w}");
            }
        }
    }
}
