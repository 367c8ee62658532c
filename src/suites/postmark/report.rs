//! PostMark 1.53's reports (verbose and terse), line for line, and
//! iogauge's additions after them, both from a run's result.
//!
//! PostMark times a run with `time()` (whole seconds) at four points: t0
//! before the initial creations, t1 and t2 around the transactions, t3 after
//! the final deletions. Every interval goes through `diff_time`, which turns
//! 0 into 1. The verbose report uses C integer division for all file rates;
//! byte counters are single-precision `float`s and the data rates divide them
//! by the **total** elapsed time in `float`. The terse report prints `float`
//! quotients with `%.2f`. Rust's `{:.2}` on the exact `f32` value widened to
//! `f64` rounds exactly like glibc's `printf` (to nearest, ties to even).

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::report::{RunResult, text};
use crate::suites::postmark::config::ReportFormat;
use crate::suites::postmark::plan::RunSummary;
use crate::suites::postmark::{Figures, Plan, Rates, StreamFigures};
use crate::units::fmt_bytes;

const KILOBYTE: i32 = 1024;
const MEGABYTE: i32 = KILOBYTE * KILOBYTE;

/// PostMark's `scale(int)`, used by `show`: `%.2f megabytes` when
/// `i / 1048576 != 0`, else `%.2f kilobytes` when `i / 1024 != 0`, else
/// `%d bytes` (quotients computed in `float`).
pub fn scale(i: i32) -> String {
    if i / MEGABYTE != 0 {
        format!("{:.2} megabytes", f64::from(i as f32 / MEGABYTE as f32))
    } else if i / KILOBYTE != 0 {
        format!("{:.2} kilobytes", f64::from(i as f32 / KILOBYTE as f32))
    } else {
        format!("{i} bytes")
    }
}

/// PostMark's `scalef(float)`, used by the verbose report: megabytes only when
/// *strictly greater* than 1 MiB, kilobytes for any other non-zero value,
/// `%f bytes` (so `0.000000 bytes`) for zero.
pub fn scalef(x: f32) -> String {
    if x / MEGABYTE as f32 > 1.0 {
        format!("{:.2} megabytes", f64::from(x / MEGABYTE as f32))
    } else if x / KILOBYTE as f32 != 0.0 {
        format!("{:.2} kilobytes", f64::from(x / KILOBYTE as f32))
    } else {
        format!("{:.6} bytes", f64::from(x))
    }
}

/// PostMark's `diff_time(a, b)`: `a - b`, or 1 if that is 0.
pub fn diff_time(later: i64, earlier: i64) -> i64 {
    match later - earlier {
        0 => 1,
        d => d,
    }
}

/// The four intervals the reports divide by, each already through
/// [`diff_time`] (so never 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "postmarkReportTimes")]
pub struct ReportTimes {
    /// d(t3, t0): whole run, creation to final deletion (s).
    pub elapsed: i64,
    /// d(t2, t1): the transactions (s).
    pub transactions: i64,
    /// d(t1, t0): the initial creations, "Creation alone" (s).
    pub creation: i64,
    /// d(t3, t2): the final deletions, "Deletion alone" (s).
    pub deletion: i64,
}

impl ReportTimes {
    /// From the `time()` readings (seconds since the epoch): t0 before
    /// creating the initial files, t1 just before the first transaction, t2
    /// just after the last, t3 after the final deletions.
    pub fn from_timestamps(t0: i64, t1: i64, t2: i64, t3: i64) -> Self {
        ReportTimes {
            elapsed: diff_time(t3, t0),
            transactions: diff_time(t2, t1),
            creation: diff_time(t1, t0),
            deletion: diff_time(t3, t2),
        }
    }
}

/// The verbose report (1.53's `verbose_report`), with the 1.53 fix: the
/// "deleted" line counts deleted files.
pub fn verbose_report(s: &RunSummary, t: &ReportTimes) -> String {
    // PostMark prints these time_t / long values with %d.
    let (elapsed, t_elapsed) = (t.elapsed, t.transactions);
    let n = i64::from(s.base_files);
    let created = i64::from(s.files_created);
    let deleted = i64::from(s.files_deleted);
    let alone = i64::from(s.deleted_alone);
    let d = |x: i64| x as i32;
    let mut r = String::new();
    r.push_str("Time:\n");
    r.push_str(&format!("\t{} seconds total\n", d(elapsed)));
    r.push_str(&format!(
        "\t{} seconds of transactions ({} per second)\n",
        d(t_elapsed),
        d(i64::from(s.transactions) / t_elapsed)
    ));
    r.push_str("\nFiles:\n");
    r.push_str(&format!(
        "\t{} created ({} per second)\n",
        created,
        d(created / elapsed)
    ));
    let creation = i64::from(t.creation as i32);
    r.push_str(&format!(
        "\t\tCreation alone: {} files ({} per second)\n",
        n,
        d(n / creation)
    ));
    r.push_str(&format!(
        "\t\tMixed with transactions: {} files ({} per second)\n",
        created - n,
        d((created - n) / t_elapsed)
    ));
    r.push_str(&format!(
        "\t{} read ({} per second)\n",
        s.files_read,
        d(i64::from(s.files_read) / t_elapsed)
    ));
    r.push_str(&format!(
        "\t{} appended ({} per second)\n",
        s.files_appended,
        d(i64::from(s.files_appended) / t_elapsed)
    ));
    r.push_str(&format!(
        "\t{} deleted ({} per second)\n",
        deleted,
        d(deleted / elapsed)
    ));
    let deletion = i64::from(t.deletion as i32);
    r.push_str(&format!(
        "\t\tDeletion alone: {} files ({} per second)\n",
        alone,
        d(alone / deletion)
    ));
    r.push_str(&format!(
        "\t\tMixed with transactions: {} files ({} per second)\n",
        deleted - alone,
        d((deleted - alone) / t_elapsed)
    ));
    let ef = elapsed as f32;
    r.push_str("\nData:\n");
    r.push_str(&format!(
        "\t{} read ({} per second)\n",
        scalef(s.bytes_read),
        scalef(s.bytes_read / ef)
    ));
    r.push_str(&format!(
        "\t{} written ({} per second)\n",
        scalef(s.bytes_written),
        scalef(s.bytes_written / ef)
    ));
    r
}

/// The terse report (1.53's `terse_report`, with the 1.52 and 1.53 fixes):
/// one line, `float` quotients printed with `%.2f`, bytes per second unscaled.
pub fn terse_report(s: &RunSummary, t: &ReportTimes) -> String {
    let f = |num: f32, den: i64| f64::from(num / den as f32);
    let n = s.base_files;
    format!(
        "{} {} {:.2} {:.2} {:.2} {:.2} {:.2} {:.2} {:.2} {:.2} {:.2} {:.2} {:.2}\n",
        t.elapsed as i32,
        t.transactions as i32,
        f(s.transactions as f32, t.transactions),
        f(s.files_created as f32, t.elapsed),
        f(n as f32, t.creation),
        f((s.files_created - n) as f32, t.transactions),
        f(s.files_read as f32, t.transactions),
        f(s.files_appended as f32, t.transactions),
        f(s.files_deleted as f32, t.elapsed),
        f(s.deleted_alone as f32, t.deletion),
        f((s.files_deleted - s.deleted_alone) as f32, t.transactions),
        f(s.bytes_read, t.elapsed),
        f(s.bytes_written, t.elapsed),
    )
}

/// The report `run` prints for `format`, or `None` when the run stopped with
/// "out of files!" (1.53 prints no report then).
pub fn render_report(format: ReportFormat, s: &RunSummary, t: &ReportTimes) -> Option<String> {
    if s.out_of_files {
        return None;
    }
    Some(match format {
        ReportFormat::Verbose => verbose_report(s, t),
        ReportFormat::Terse => terse_report(s, t),
    })
}

/// PostMark's report of a run in the plan's format, from its figures:
/// empty when PostMark prints none (the run stopped early or ran out of
/// files).
pub fn postmark_report(plan: &Plan, f: &Figures) -> String {
    f.report
        .and_then(|r| render_report(plan.config.report, &f.summary(), &r.times))
        .unwrap_or_default()
}

/// iogauge's additions to PostMark's report: exact times and rates, the
/// streams, then latencies, CPU, the share of time in I/O and throughput
/// over time. Every line is indented by two spaces under an `iogauge:`
/// heading, so the block is easy to tell from PostMark's own output.
pub fn additions(plan: &Plan, f: &Figures, r: &RunResult) -> String {
    let mut t = String::new();
    let n = plan.threads;
    let _ = writeln!(
        t,
        "\niogauge: PostMark 1.53, engine {}, {} stream{}; times from the nanosecond clock",
        plan.engine,
        n,
        if n == 1 { "" } else { "s" }
    );
    let s = f.summary();
    if f.io_errors > 0 {
        let _ = writeln!(
            t,
            "  FAILED part-way{}: {} I/O error(s); the byte counts here and in PostMark's report above are what was really written ({} B; PostMark planned {} B) and read",
            if f.out_of_space {
                " (out of space)"
            } else {
                ""
            },
            f.io_errors,
            s.bytes_written_exact,
            f.planned_bytes_written
        );
    }
    if let Some(p) = &f.rates {
        rate_lines(&mut t, &s, p);
    }
    if s.out_of_files {
        let _ = writeln!(
            t,
            "  out of files after {} of {} transactions: PostMark prints no report",
            s.transactions_done, s.transactions
        );
    }
    if let Some(streams) = &f.streams {
        stream_table(&mut t, streams);
    }
    t.push_str(&text::render(r));
    let _ = writeln!(
        t,
        "  work directory {} (removed)",
        plan.work_dirs.join(", ")
    );
    t
}

/// The additions' exact times, counts and rates of a run that reached its
/// end.
fn rate_lines(t: &mut String, s: &RunSummary, p: &Rates) {
    let _ = writeln!(
        t,
        "  time     {:.6} s total, {:.6} s of transactions ({:.2} per second)",
        p.elapsed_s, p.transactions_s, p.transactions_per_s
    );
    let _ = writeln!(
        t,
        "  created  {}",
        alone_and_mixed(
            (s.files_created, p.files_created_per_s),
            (s.base_files, p.creation_s, p.creation_files_per_s),
            p.mixed_creation_files_per_s
        )
    );
    let _ = writeln!(
        t,
        "  read     {} ({:.2} per second), appended {} ({:.2} per second)",
        s.files_read, p.files_read_per_s, s.files_appended, p.files_appended_per_s
    );
    let _ = writeln!(
        t,
        "  deleted  {}",
        alone_and_mixed(
            (s.files_deleted, p.files_deleted_per_s),
            (s.deleted_alone, p.deletion_s, p.deletion_files_per_s),
            p.mixed_deletion_files_per_s
        )
    );
    let _ = writeln!(
        t,
        "  data     {} B read ({}, {:.2} B/s), {} B written ({}, {:.2} B/s)",
        s.bytes_read_exact,
        fmt_bytes(s.bytes_read_exact),
        p.read_bytes_per_s,
        s.bytes_written_exact,
        fmt_bytes(s.bytes_written_exact),
        p.write_bytes_per_s
    );
}

/// Files created (or deleted) in all, then alone in their phase and mixed
/// with the transactions: `(count, per second)` in all, `(count, seconds,
/// per second)` alone, and the mixed ones per second.
fn alone_and_mixed(all: (i32, f64), alone: (i32, f64, f64), mixed_per_s: f64) -> String {
    format!(
        "{} ({:.2} per second): alone {} in {:.6} s ({:.2} per second), mixed {} ({:.2} per second)",
        all.0,
        all.1,
        alone.0,
        alone.1,
        alone.2,
        all.0 - alone.0,
        mixed_per_s
    )
}

/// The additions' table of the streams of a run with `--threads`.
fn stream_table(t: &mut String, streams: &[StreamFigures]) {
    let _ = writeln!(
        t,
        "\n  {:>6} {:>11} {:>12} {:>9} {:>9} {:>9} {:>9} {:>12} {:>12} {:>10}",
        "stream",
        "seed",
        "tx/s",
        "created",
        "read",
        "appended",
        "deleted",
        "read B",
        "written B",
        "elapsed s"
    );
    for st in streams {
        let c = &st.counts;
        let _ = writeln!(
            t,
            "  {:>6} {:>11} {:>12} {:>9} {:>9} {:>9} {:>9} {:>12} {:>12} {:>10}",
            st.stream,
            st.seed,
            st.transactions_per_s
                .map_or("-".into(), |x| format!("{x:.2}")),
            c.files_created,
            c.files_read,
            c.files_appended,
            c.files_deleted,
            c.bytes_read,
            c.bytes_written,
            st.elapsed_s.map_or("-".into(), |x| format!("{x:.3}")),
        );
    }
    t.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_vector_1() -> RunSummary {
        // §2.10 first vector: N=20, T=50, size 500 2000.
        RunSummary {
            base_files: 20,
            transactions: 50,
            files_created: 42,
            files_read: 20,
            files_appended: 30,
            files_deleted: 42,
            deleted_alone: 14,
            bytes_read: 27973.0,
            bytes_written: 65282.0,
            bytes_read_exact: 27973,
            bytes_written_exact: 65282,
            transactions_done: 50,
            out_of_files: false,
        }
    }

    const ONE: ReportTimes = ReportTimes {
        elapsed: 1,
        transactions: 1,
        creation: 1,
        deletion: 1,
    };

    #[test]
    fn scale_like_show() {
        for (i, shown) in [
            (500, "500 bytes"),
            (1023, "1023 bytes"),
            (1024, "1.00 kilobytes"),
            (10000, "9.77 kilobytes"),
            (2000, "1.95 kilobytes"),
            (1048575, "1024.00 kilobytes"),
            (1048576, "1.00 megabytes"),
            // (float)i is rounded before dividing: 123456789 -> 123456792.
            (123456789, "117.74 megabytes"),
            (0, "0 bytes"),
        ] {
            assert_eq!(scale(i), shown, "{i}");
        }
    }

    #[test]
    fn scalef_like_report() {
        for (x, shown) in [
            (0.0, "0.000000 bytes"),
            (1.0, "0.00 kilobytes"),
            (500.0, "0.49 kilobytes"),
            // 384 / 1024 = 0.375 exactly: ties go to even, as in glibc.
            (384.0, "0.38 kilobytes"),
            (128.0, "0.12 kilobytes"),
            // Exactly 1 MiB is not "> 1": kilobytes.
            (1048576.0, "1024.00 kilobytes"),
            (1048577.0, "1.00 megabytes"),
            (27973.0, "27.32 kilobytes"),
        ] {
            assert_eq!(scalef(x), shown, "{x}");
        }
    }

    #[test]
    fn diff_time_never_zero() {
        assert_eq!(diff_time(5, 5), 1);
        assert_eq!(diff_time(7, 5), 2);
        assert_eq!(
            ReportTimes::from_timestamps(100, 103, 110, 112),
            ReportTimes {
                elapsed: 12,
                transactions: 7,
                creation: 3,
                deletion: 2
            }
        );
        assert_eq!(ReportTimes::from_timestamps(9, 9, 9, 9), ONE);
    }

    #[test]
    fn verbose_layout_of_spec_vector() {
        // Debian postmark 1.53-2+b1's output for this run (one second total).
        let expected = "Time:\n\
            \t1 seconds total\n\
            \t1 seconds of transactions (50 per second)\n\
            \n\
            Files:\n\
            \t42 created (42 per second)\n\
            \t\tCreation alone: 20 files (20 per second)\n\
            \t\tMixed with transactions: 22 files (22 per second)\n\
            \t20 read (20 per second)\n\
            \t30 appended (30 per second)\n\
            \t42 deleted (42 per second)\n\
            \t\tDeletion alone: 14 files (14 per second)\n\
            \t\tMixed with transactions: 28 files (28 per second)\n\
            \n\
            Data:\n\
            \t27.32 kilobytes read (27.32 kilobytes per second)\n\
            \t63.75 kilobytes written (63.75 kilobytes per second)\n";
        assert_eq!(verbose_report(&spec_vector_1(), &ONE), expected);
        assert_eq!(
            render_report(ReportFormat::Verbose, &spec_vector_1(), &ONE).as_deref(),
            Some(expected)
        );
    }

    #[test]
    fn terse_layout_of_spec_vector() {
        assert_eq!(
            terse_report(&spec_vector_1(), &ONE),
            "1 1 50.00 42.00 20.00 22.00 20.00 30.00 42.00 14.00 28.00 27973.00 65282.00\n"
        );
    }

    #[test]
    fn rates_use_integer_and_float_division_as_1_53() {
        let t = ReportTimes {
            elapsed: 4,
            transactions: 3,
            creation: 2,
            deletion: 7,
        };
        let s = RunSummary {
            bytes_read: 3.0 * 1048576.0,
            ..spec_vector_1()
        };
        let v = verbose_report(&s, &t);
        for line in [
            "\t3 seconds of transactions (16 per second)\n",
            "\t42 created (10 per second)\n",
            "Creation alone: 20 files (10 per second)\n",
            "Mixed with transactions: 22 files (7 per second)\n",
            "Deletion alone: 14 files (2 per second)\n",
            "\t3.00 megabytes read (768.00 kilobytes per second)\n",
        ] {
            assert!(v.contains(line), "{line:?} in {v}");
        }
        assert_eq!(
            terse_report(&s, &t),
            "4 3 16.67 10.50 10.00 7.33 6.67 10.00 10.50 2.00 9.33 786432.00 16320.50\n"
        );
    }

    #[test]
    fn no_report_after_out_of_files() {
        let s = RunSummary {
            out_of_files: true,
            ..spec_vector_1()
        };
        assert_eq!(render_report(ReportFormat::Terse, &s, &ONE), None);
    }
}
