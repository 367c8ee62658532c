//! IOBENCH's outputs: the results file in the layout of the paper's
//! Figure 1, the tab-delimited summary line, the `===` line, and the short
//! summary for the terminal; then what iogauge adds (percentiles, the share
//! of time in I/O, CPU and memory).
//!
//! Times are measured in nanoseconds and printed in the paper's units:
//! seconds (CP and IO totals with 3 decimals, response times with 6, since
//! today's reads take microseconds), CP per transaction in milliseconds.

use super::control::{Mode, Run};
use super::user::{DIST_BUCKETS, UserRecord};
use crate::report::RunResult;
use crate::units::fmt_ns;
use std::fmt::Write;

/// The figures every output shares, computed once from the users that
/// completed (failed users are listed, not counted).
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub cycles: u64,
    pub mb: f64,
    pub user_cp_s: f64,
    pub user_io_s: f64,
    /// The ioserver's CPU (Variant 1; 0 without it). It does no I/O.
    pub server_cp_s: f64,
    /// User + server.
    pub total_cp_s: f64,
    /// CPU time of one transaction's CP work, measured: the users' CPU
    /// clock over the CP work of the sampled transactions, divided by their
    /// number.
    pub cp_load_s: f64,
    pub tps: f64,
    /// The paper's: mean over users of duration / cycles.
    pub avg_response_s: f64,
    /// The mean of all transaction response times.
    pub mean_tx_response_s: f64,
    pub cp_ms_per_tx: f64,
    pub io_ms_per_tx: f64,
    pub failed: usize,
    pub completed: usize,
    pub files: Vec<FileTotals>,
    pub dist: Vec<u64>,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FileTotals {
    pub file: u32,
    pub locks_taken: u64,
    pub max_active: u32,
    pub opens: u64,
    pub closes: u64,
    pub uses: u64,
    pub read_mean_s: f64,
    pub read_stddev_s: f64,
    pub read_max_s: f64,
    pub max_record: u64,
    pub max_user: u32,
}

pub fn totals(run: &Run) -> Totals {
    let cfg = &run.spec.config;
    let ok: Vec<_> = run
        .users
        .iter()
        .filter(|u| u.failure.is_none())
        .map(|u| &u.record)
        .collect();
    let cycles: u64 = ok.iter().map(|r| r.cycles).sum();
    let secs = run.elapsed.as_secs_f64();
    // (+ 0.0: an empty sum of floats is -0.0)
    let user_cp_s = ok
        .iter()
        .map(|r| (r.cpu_user_ns + r.cpu_sys_ns) as f64 / 1e9)
        .sum::<f64>()
        + 0.0;
    let user_io_s = ok.iter().map(|r| r.io_ns as f64 / 1e9).sum::<f64>() + 0.0;
    let server_cp_s = run.server.as_ref().map_or(0.0, |s| s.cp_s());
    let total_cp_s = user_cp_s + server_cp_s;
    let work_ns: u64 = ok.iter().map(|r| r.work_cpu_ns).sum();
    let sampled: u64 = ok.iter().map(|r| r.work_sampled).sum();
    let per_user: Vec<f64> = ok
        .iter()
        .filter(|r| r.cycles > 0)
        .map(|r| r.duration_ns() as f64 / 1e9 / r.cycles as f64)
        .collect();
    let tx_sum: u128 = ok.iter().map(|r| r.transaction.sum_ns).sum();
    let per_tx = |s: f64| {
        if cycles > 0 {
            s * 1000.0 / cycles as f64
        } else {
            0.0
        }
    };
    let files = (0..cfg.files as usize)
        .map(|f| file_totals(run, &ok, f))
        .collect();
    let mut dist = vec![0u64; DIST_BUCKETS];
    for r in &ok {
        for (d, x) in dist.iter_mut().zip(&r.dist) {
            *d += x;
        }
    }
    Totals {
        cycles,
        mb: cfg.mb_of(cycles),
        user_cp_s,
        user_io_s,
        server_cp_s,
        total_cp_s,
        cp_load_s: if sampled > 0 {
            work_ns as f64 / 1e9 / sampled as f64
        } else {
            0.0
        },
        tps: if secs > 0.0 {
            cycles as f64 / secs
        } else {
            0.0
        },
        avg_response_s: if per_user.is_empty() {
            0.0
        } else {
            per_user.iter().sum::<f64>() / per_user.len() as f64
        },
        mean_tx_response_s: if cycles > 0 {
            tx_sum as f64 / 1e9 / cycles as f64
        } else {
            0.0
        },
        cp_ms_per_tx: per_tx(total_cp_s),
        io_ms_per_tx: per_tx(user_io_s),
        failed: run.users.len() - ok.len(),
        completed: ok.len(),
        files,
        dist,
    }
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
pub fn results_file(run: &Run, t: &Totals, r: &RunResult, o: &TextOpts) -> String {
    let cfg = &run.spec.config;
    let mut s = String::new();
    let w = &mut s;
    parameters(w, run, t, o);
    lock_summary(w, t);
    user_summary(w, run);
    io_summary(w, t);
    total_lines(w, t);
    transaction_lines(w, cfg, t);
    user_responses(w, run);
    if o.table {
        distribution(w, &t.dist);
    }
    let _ = writeln!(w, "{}", equals_line(cfg, t));
    additions(w, run, t, r);
    s
}

/// The opening lines: the run, its variant, the parameters and paths.
fn parameters(w: &mut String, run: &Run, t: &Totals, o: &TextOpts) {
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
    let users_as = match run.spec.mode {
        Mode::Processes => "processes",
        Mode::Threads => "threads",
    };
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
        t.cp_load_s, run.cp_load_s
    );
}

/// Each file's locks taken and most held at once.
fn lock_summary(w: &mut String, t: &Totals) {
    let _ = writeln!(w, " FILE  LOCKS TAKEN  MAX ACTIVE");
    for f in &t.files {
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
fn io_summary(w: &mut String, t: &Totals) {
    let _ = writeln!(
        w,
        " FILE  OPENS CLOSES       USES   AVG TIME    STD DEV      MAX T     RECORD  USER"
    );
    for f in &t.files {
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
fn total_lines(w: &mut String, t: &Totals) {
    let _ = writeln!(w, "*** Total cycles = {}", t.cycles);
    let _ = writeln!(w, "*** Total MB of data = {:.3}", t.mb);
    let _ = writeln!(w, "*** User   CP seconds = {:.3}", t.user_cp_s);
    let _ = writeln!(w, "*** User   IO seconds = {:.3} *", t.user_io_s);
    let _ = writeln!(w, "*** Server CP seconds = {:.3}", t.server_cp_s);
    let _ = writeln!(w, "*** Server IO seconds = 0.000");
    let _ = writeln!(w, "*** Total CP seconds = {:.3}", t.total_cp_s);
    let _ = writeln!(w, "*** Total IO seconds = {:.3} *", t.user_io_s);
    let _ = writeln!(w, "{IO_NOTE}");
}

/// Each completed user's transaction response times.
fn user_responses(w: &mut String, run: &Run) {
    let _ = writeln!(w, " USER   AVG TIME    STD DEV   MAX TIME");
    for u in run.users.iter().filter(|u| u.failure.is_none()) {
        let tx = &u.record.transaction;
        let _ = writeln!(
            w,
            "{:>5} {:>10.6} {:>10.6} {:>10.6}",
            u.record.user,
            tx.mean_ns() / 1e9,
            tx.stddev_ns() / 1e9,
            tx.max_ns as f64 / 1e9
        );
    }
}

/// What `IO TIME*` and the starred IO seconds are.
const IO_NOTE: &str = "* IO: wall time inside read(2)/write(2) calls (IOBENCH printed 0 on UNIX)";

fn transaction_lines(w: &mut String, cfg: &super::Config, t: &Totals) {
    let _ = writeln!(w, "*** Transaction statistics ***");
    let _ = writeln!(
        w,
        "*** {} transactions consisting of {} reads and {} writes",
        t.cycles, cfg.reads, cfg.writes
    );
    let _ = writeln!(w, "*** Transactions per Second = {:.3}", t.tps);
    let _ = writeln!(
        w,
        "*** Average response time = {:.6} Seconds (mean of all transactions: {:.6} Seconds)",
        t.avg_response_s, t.mean_tx_response_s
    );
    let _ = writeln!(
        w,
        "*** Average CP time per transaction = {:.3} milliseconds",
        t.cp_ms_per_tx
    );
    let _ = writeln!(
        w,
        "*** Average IO time per transaction = {:.3} milliseconds",
        t.io_ms_per_tx
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
pub fn equals_line(cfg: &super::Config, t: &Totals) -> String {
    format!(
        "=== {} {} {} {} {} {:.3} {:.3} {:.3} {}",
        cfg.files,
        cfg.users,
        cfg.reclen,
        cfg.work,
        t.cycles,
        t.mb,
        t.total_cp_s,
        t.user_io_s,
        t.failed
    )
}

/// The summary file's line: inputs F U B N R W CP, outputs MB, CP time, IO
/// time, average response time, transactions per second, failed users;
/// separated by tabs.
pub fn summary_line(cfg: &super::Config, t: &Totals) -> String {
    [
        cfg.files.to_string(),
        cfg.users.to_string(),
        cfg.reclen.to_string(),
        cfg.nrecs.to_string(),
        cfg.reads.to_string(),
        cfg.writes.to_string(),
        cfg.work.to_string(),
        format!("{:.3}", t.mb),
        format!("{:.3}", t.total_cp_s),
        format!("{:.3}", t.user_io_s),
        format!("{:.6}", t.avg_response_s),
        format!("{:.3}", t.tps),
        t.failed.to_string(),
    ]
    .join("\t")
}

/// The column names of [`summary_line`], for a header on the terminal.
pub const SUMMARY_HEADER: &str =
    "FILES\tUSERS\tRECLEN\tNRECS\tREADS\tWRITES\tWORK\tMB\tCP_S\tIO_S\tRESP_S\tTPS\tFAILED";

/// iogauge's additions, below the classic report.
fn additions(w: &mut String, run: &Run, t: &Totals, r: &RunResult) {
    let _ = writeln!(w, "--- iogauge additions ---");
    if !run.complete {
        let why = run.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(w, "INCOMPLETE RUN ({why}): figures cover what ran");
    }
    let _ = writeln!(
        w,
        "Users: {} {} ({} completed, {} failed); engine {}{}; measured interval {:.3} s",
        run.spec.config.users,
        match run.spec.mode {
            Mode::Processes => "processes",
            Mode::Threads => "threads",
        },
        t.completed,
        t.failed,
        run.spec.engine,
        if run.spec.direct { ", O_DIRECT" } else { "" },
        run.elapsed.as_secs_f64()
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
    memory_line(w, run);
    if let Some(sv) = &run.server {
        server_lines(w, sv, t);
    }
    let taken: u64 = t.files.iter().map(|f| f.locks_taken).sum();
    let uses: u64 = t.files.iter().map(|f| f.uses).sum();
    if run.plan.locking && taken != uses {
        let _ = writeln!(
            w,
            "Locks taken ({taken}) differ from uses ({uses}): the failed users' locks are counted, their uses are not"
        );
    }
    if let Some(v) = run.violations {
        let _ = writeln!(w, "Lock check: {v} overlapping holders");
    }
    for u in run.users.iter().filter(|u| u.failure.is_some()) {
        let _ = writeln!(
            w,
            "User {} failed: {}",
            u.record.user,
            u.failure.as_deref().unwrap_or_default()
        );
    }
}

/// Each op kind's latency percentiles, from the result.
fn latency_table(w: &mut String, r: &RunResult) {
    if !r.ops.is_empty() {
        let _ = writeln!(
            w,
            "  {:<11} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "latency", "count", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max"
        );
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
            let _ = writeln!(
                w,
                "  {:<11} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
                kind,
                op.count,
                fmt_ns(l.mean),
                fmt_ns(l.p50 as f64),
                fmt_ns(l.p90 as f64),
                fmt_ns(l.p99 as f64),
                fmt_ns(l.p999 as f64),
                fmt_ns(l.p9999 as f64),
                fmt_ns(l.max as f64)
            );
        }
    }
}

/// Peak memory: of the whole process, or of the controller and the user
/// processes.
fn memory_line(w: &mut String, run: &Run) {
    let kib = |k: u64| crate::units::fmt_bytes(k * 1024);
    let users: Vec<u64> = run.users.iter().map(|u| u.record.max_rss_kib).collect();
    match run.spec.mode {
        Mode::Threads => {
            let _ = writeln!(
                w,
                "Peak RSS: {} (controller and all users)",
                kib(run.controller_rss_kib)
            );
        }
        Mode::Processes => {
            let pss: u64 = run.users.iter().map(|u| u.record.pss_kib).sum();
            let _ = writeln!(
                w,
                "Peak RSS: controller {}; largest user process {}; all user processes {} (PSS at their end {})",
                kib(run.controller_rss_kib),
                kib(users.iter().copied().max().unwrap_or(0)),
                kib(users.iter().sum()),
                kib(pss)
            );
        }
    }
}

/// Variant 1: what the ioserver did and what it cost.
fn server_lines(w: &mut String, sv: &super::ServerEnd, t: &Totals) {
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
        if t.total_cp_s > 0.0 {
            100.0 * sv.cp_s() / t.total_cp_s
        } else {
            0.0
        },
        fmt_ns(sv.mean_service_s * 1e9)
    );
    if let Some(why) = &sv.died {
        let _ = writeln!(w, "ioserver DIED during the run: {why}");
    }
}

/// The short summary on the terminal.
pub fn terminal(run: &Run, t: &Totals, r: &RunResult) -> String {
    let cfg = &run.spec.config;
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
        super::config::num(run.spec.duration().as_secs_f64())
    );
    let _ = writeln!(w, "*** Total cycles = {}", t.cycles);
    let _ = writeln!(w, "*** Total MB of data = {:.3}", t.mb);
    if run.server.is_some() {
        let _ = writeln!(w, "*** Server CP seconds = {:.3}", t.server_cp_s);
    }
    let _ = writeln!(w, "*** Total CP seconds = {:.3}", t.total_cp_s);
    let _ = writeln!(w, "*** Total IO seconds = {:.3} *", t.user_io_s);
    let _ = writeln!(w, "{IO_NOTE}");
    transaction_lines(w, cfg, t);
    let _ = writeln!(w, "{}", equals_line(cfg, t));
    additions(w, run, t, r);
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
        assert!(
            lines[1].starts_with("Seconds |     0 |     1 |"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("Count   | 13572 |  1912 |"),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].starts_with("Percent | 87.6% | 12.3% |"),
            "{}",
            lines[3]
        );
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
