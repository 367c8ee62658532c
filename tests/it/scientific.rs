//! Integration tests of `iogauge scientific`: the request counts of both
//! phases (whole requests and the short last one), each phase alone, the
//! timed fsync, the cache states (warm, --direct, --drop-caches), the null
//! engine, Ctrl-C, and bad input refused with one line and nothing left.
//!
//! Runs are small (a few MiB) in temporary directories.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Run `scientific` in `dir` with `args`; the result (checked against the
/// shared contract) and the report.
fn scientific(dir: &Path, args: &[&str]) -> (Value, String) {
    let mut all = vec!["scientific", "--dir", p(dir)];
    all.extend_from_slice(args);
    let (v, report) = run_json(&all);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "scientific");
    (v, report)
}

/// The line of the report that starts with `prefix`.
fn line<'a>(report: &'a str, prefix: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in:\n{report}"))
}

#[test]
fn write_then_read_issue_size_over_request_requests_each() {
    let dir = work_dir();
    let (v, report) = scientific(dir.path(), &["--size", "4M", "--request", "128K"]);
    assert!(get(&v, "complete").as_bool().unwrap());
    // 4 MiB / 128 KiB = 32 writes, one fsync, 32 reads
    assert_eq!(op_count(&v, "write"), 32);
    assert_eq!(op_count(&v, "read"), 32);
    assert_eq!(op_count(&v, "fsync"), 1);
    assert_eq!(u64_at(&v, "summary.bytes_written"), 4 << 20);
    assert_eq!(u64_at(&v, "summary.bytes_read"), 4 << 20);
    assert_eq!(u64_at(&v, "ops.write.bytes") / 32, 128 << 10);
    assert_eq!(u64_at(&v, "metrics.requests"), 32);
    assert_eq!(u64_at(&v, "metrics.request_bytes"), 128 << 10);
    assert_eq!(u64_at(&v, "metrics.size_bytes"), 4 << 20);
    assert_eq!(str_at(&v, "metrics.cache"), "warm");
    assert!(get(&v, "metrics.write_fsync").as_bool().unwrap());
    for phase in ["write", "read"] {
        let d = |k: &str| format!("metrics.phases.{phase}.{k}");
        assert_eq!(u64_at(&v, &d("requests")), 32, "{phase}");
        assert_eq!(u64_at(&v, &d("bytes")), 4 << 20, "{phase}");
        assert!(get(&v, &d("complete")).as_bool().unwrap());
        let mb = f64_at(&v, &d("mb_per_s"));
        assert!(mb > 0.0, "{phase}: {mb}");
        assert_eq!(f64_at(&v, &format!("metrics.{phase}_mb_per_s")), mb);
        // the figure is the phase's bytes over its own time, in 10^6 B/s
        let own = (4 << 20) as f64 / 1e6 / f64_at(&v, &d("elapsed_s"));
        assert!((mb - own).abs() <= 1e-9 * own, "{phase}: {mb} vs {own}");
        assert!(u64_at(&v, &d("latency_ns.p50")) > 0, "{phase}");
    }
    assert!(u64_at(&v, "metrics.phases.write.fsync_ns") > 0);
    assert!(get(&v, "metrics.phases.read").get("fsync_ns").is_none());
    // the two phases' times add up to the run's
    let sum =
        f64_at(&v, "metrics.phases.write.elapsed_s") + f64_at(&v, "metrics.phases.read.elapsed_s");
    assert!((f64_at(&v, "elapsed_s") - sum).abs() < 1e-6);
    // the classic lines, then the caveat of a warm read, then the details
    let w = line(&report, "Large file write:");
    assert!(
        w.contains("MB/s (32 requests of 128.00 KiB, fsync timed, cache: warm)"),
        "{w}"
    );
    let r = line(&report, "Large file read:");
    assert!(
        r.contains("MB/s (32 requests of 128.00 KiB, cache: warm)"),
        "{r}"
    );
    let lines: Vec<&str> = report.lines().collect();
    assert!(lines[0].starts_with("Large file write:"), "{report}");
    assert!(lines[1].starts_with("Large file read:"), "{report}");
    assert!(line(&report, "note: the file was in the page cache").contains("not a disk figure"));
    assert!(
        report.contains("write phase:") && report.contains("read phase:"),
        "{report}"
    );
    assert!(report.contains("io_time_fraction"), "{report}");
    assert_untouched(dir.path());
}

/// A size that is not a multiple of the request: whole requests, then one
/// short request with the rest; the file is exactly the size asked.
#[test]
fn a_size_not_a_multiple_of_the_request_ends_with_a_short_request() {
    let dir = work_dir();
    // 1 MiB + 4 KiB = 8 × 128 KiB + 4 KiB
    let (v, report) = scientific(dir.path(), &["--size", "1028K", "--request", "128K"]);
    assert_eq!(op_count(&v, "write"), 9);
    assert_eq!(op_count(&v, "read"), 9);
    assert_eq!(u64_at(&v, "ops.write.bytes"), 1028 << 10);
    assert_eq!(u64_at(&v, "ops.read.bytes"), 1028 << 10);
    assert_eq!(u64_at(&v, "config.requests"), 9);
    assert_eq!(u64_at(&v, "config.last_request_bytes"), 4096);
    // issue 33: not "9 requests of 128.00 KiB", the last is 4 KiB
    for l in ["Large file write:", "Large file read:"] {
        assert!(
            line(&report, l).contains("(9 requests: 8 of 128.00 KiB and 1 of 4.00 KiB"),
            "{report}"
        );
    }
    assert!(
        report.contains("in requests of 128.00 KiB (the last of 4.00 KiB)"),
        "{report}"
    );
    // and sizes in plain bytes: 1000 B in requests of 300 B = 3 × 300 + 100
    let (v, _) = scientific(dir.path(), &["--size", "1000", "--request", "300"]);
    assert_eq!(op_count(&v, "write"), 4);
    assert_eq!(op_count(&v, "read"), 4);
    assert_eq!(u64_at(&v, "summary.bytes_written"), 1000);
    assert_eq!(u64_at(&v, "summary.bytes_read"), 1000);
    assert_untouched(dir.path());
}

#[test]
fn each_phase_runs_alone() {
    let dir = work_dir();
    let (v, report) = scientific(dir.path(), &["--size", "2M", "--phase", "write"]);
    assert_eq!(op_count(&v, "write"), 16);
    assert_eq!(op_count(&v, "fsync"), 1);
    assert_eq!(op_count(&v, "read"), 0);
    assert!(get(&v, "metrics").get("read_mb_per_s").is_none());
    assert!(!report.contains("Large file read"), "{report}");
    assert!(
        !report.contains("note:"),
        "a synced write is a disk figure: {report}"
    );
    // the read alone reads a file laid out before timing: no write is timed
    let (v, report) = scientific(dir.path(), &["--size", "2M", "--phase", "read"]);
    assert_eq!(op_count(&v, "read"), 16);
    assert_eq!(op_count(&v, "write"), 0);
    assert_eq!(op_count(&v, "fsync"), 0);
    assert_eq!(u64_at(&v, "summary.bytes_read"), 2 << 20);
    assert!(get(&v, "metrics").get("write_mb_per_s").is_none());
    assert!(line(&report, "Large file read:").contains("16 requests"));
    assert!(!report.contains("Large file write"), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn no_fsync_leaves_the_sync_out_and_says_so() {
    let dir = work_dir();
    let (v, report) = scientific(dir.path(), &["--size", "1M", "--no-fsync"]);
    assert_eq!(op_count(&v, "write"), 8);
    assert_eq!(op_count(&v, "fsync"), 0);
    assert!(!get(&v, "metrics.write_fsync").as_bool().unwrap());
    assert!(get(&v, "metrics.phases.write").get("fsync_ns").is_none());
    assert!(line(&report, "Large file write:").contains("no fsync"));
    assert!(line(&report, "note: the write ended in the page cache").contains("--no-fsync"));
    assert_untouched(dir.path());
}

#[test]
fn the_null_engine_does_the_requests_and_touches_no_file() {
    let dir = work_dir();
    // the default 100 MiB in 128 KiB requests: 800 of each
    let (v, report) = scientific(dir.path(), &["--engine", "null"]);
    assert_eq!(op_count(&v, "write"), 800);
    assert_eq!(op_count(&v, "read"), 800);
    assert_eq!(op_count(&v, "fsync"), 1);
    assert_eq!(u64_at(&v, "summary.bytes_read"), 100 << 20);
    assert_eq!(str_at(&v, "config.engine"), "null");
    assert!(line(&report, "note: engine null").contains("no I/O"));
    assert_untouched(dir.path());
}

#[test]
fn direct_reads_past_the_page_cache() {
    let dir = work_dir();
    if !iogauge::env::supports_direct(dir.path()).unwrap() {
        eprintln!("skipped: {} refuses O_DIRECT", dir.path().display());
        return;
    }
    let (v, report) = scientific(dir.path(), &["--size", "4M", "--direct"]);
    assert_eq!(op_count(&v, "write"), 32);
    assert_eq!(op_count(&v, "read"), 32);
    assert_eq!(str_at(&v, "metrics.cache"), "direct");
    assert_eq!(get(&v, "config.direct"), &Value::Bool(true));
    assert!(line(&report, "Large file read:").contains("cache: direct"));
    assert!(!report.contains("note:"), "{report}");
    assert_untouched(dir.path());
}

/// As root with a writable control file the cache is dropped and the
/// report says cold; otherwise the flag is refused with one line that
/// points at --direct.
#[test]
fn drop_caches_is_cold_where_permitted_and_refused_elsewhere() {
    let dir = work_dir();
    let writable =
        rustix::fs::access("/proc/sys/vm/drop_caches", rustix::fs::Access::WRITE_OK).is_ok();
    let args = [
        "scientific",
        "--size",
        "1M",
        "--drop-caches",
        "--dir",
        p(dir.path()),
    ];
    if is_root() && writable {
        let (v, report) = run_json(&args);
        check_result(&v);
        assert_eq!(str_at(&v, "metrics.cache"), "cold");
        assert_eq!(op_count(&v, "read"), 8);
        assert!(line(&report, "Large file read:").contains("cache: cold"));
        assert!(!report.contains("note:"), "{report}");
    } else {
        let l = assert_usage_error(&args);
        assert!(l.contains("--drop-caches") && l.contains("--direct"), "{l}");
    }
    assert_untouched(dir.path());
}

#[test]
fn bad_input_is_one_line_exit_2_and_leaves_nothing() {
    let dir = work_dir();
    let d = p(dir.path());
    let cases: &[(&[&str], &str)] = &[
        (&["--size", "0"], "--size"),
        (&["--request", "0"], "--request"),
        (&["--size", "1M", "--request", "2M"], "larger than --size"),
        (&["--size", "4G", "--request", "2G"], "at most"),
        (&["--size", "1000T"], "space"),
        (&["--size", "ten"], "--size"),
        (&["--size", "-4M"], "negative"),
        (&["--request", "-1"], "negative"),
        (&["--request", "1.5"], "--request"),
        (&["--phase", "sideways"], "write, read, both"),
        (&["--bogus"], "--bogus"),
        (
            &["--direct", "--size", "1000", "--request", "100"],
            "--direct",
        ),
        (
            &["--direct", "--size", "1M", "--request", "1000"],
            "--direct",
        ),
        (&["--direct", "--engine", "buffered"], "buffered"),
        (&["--engine", "nope"], "nope"),
    ];
    for (args, says) in cases {
        let mut all = vec!["scientific", "--dir", d];
        all.extend_from_slice(args);
        let l = assert_usage_error(&all);
        assert!(l.contains(says), "{args:?}: {l}");
        assert_untouched(dir.path());
    }
    // a directory that is not there
    let l = assert_usage_error(&["scientific", "--dir", "/nonexistent/dir"]);
    assert!(l.contains("/nonexistent/dir"), "{l}");
}

/// Ctrl-C in the write phase: exit 130, the partial result is written,
/// the read phase is not run, and nothing is left behind.
#[test]
fn ctrl_c_stops_cleans_up_and_writes_a_partial_result() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    // the null engine: a thousand seconds of 4 KiB requests, no disk needed
    let mut child = std::process::Command::new(bin_path())
        .args([
            "scientific",
            "--engine",
            "null",
            "--size",
            "8T",
            "--request",
            "4K",
        ])
        .arg("--dir")
        .arg(dir.path())
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    let (status, _) = signal_and_wait(&mut child, libc::SIGINT);
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stdout.contains("INCOMPLETE RUN"), "{stdout}");
    assert!(
        line(&stdout, "Large file write:").contains(" of 2147483648 requests"),
        "{stdout}"
    );
    assert!(
        line(&stdout, "Large file read:").contains("not run"),
        "{stdout}"
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    check_result(&v);
    assert_eq!(get(&v, "complete"), &Value::Bool(false));
    assert!(op_count(&v, "write") > 0);
    assert_eq!(op_count(&v, "read"), 0);
    assert_eq!(
        op_count(&v, "fsync"),
        0,
        "no sync of a file not written through"
    );
    assert!(!get(&v, "metrics.phases.write.complete").as_bool().unwrap());
    assert_untouched(dir.path());
}

#[test]
fn csv_carries_both_figures() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let csv = out.path().join("r.csv");
    let o = iogauge()
        .args([
            "scientific",
            "-q",
            "--size",
            "1M",
            "--dir",
            p(dir.path()),
            "--csv",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty(), "--quiet prints no report");
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    for col in [
        "metric.write_mb_per_s",
        "metric.read_mb_per_s",
        "op",
        "count",
    ] {
        assert!(header.contains(&col), "no column {col}: {header:?}");
    }
    // one row per op kind: fsync, read, write
    assert_eq!(text.lines().count(), 4, "{text}");
    assert_untouched(dir.path());
}

#[test]
fn show_prints_the_report_again() {
    let d = work_dir();
    let dir = p(d.path());
    let small = ["scientific", "--request", "64K", "--dir", dir];
    for extra in [
        &["--size", "1M"][..],
        &["--size", "1M", "--phase", "read"],
        &["--size", "1M", "--phase", "write", "--no-fsync"],
        // a short last request, and no I/O
        &["--size", "1000K", "--engine", "null"],
    ] {
        let args: Vec<&str> = small.iter().chain(extra).copied().collect();
        let (v, report) = assert_show_repeats(&args);
        // a figure read back is the one the run printed
        let phase = if extra.contains(&"read") {
            "read"
        } else {
            "write"
        };
        let mb = format!(
            " {:.1} MB/s (",
            f64_at(&v, &format!("metrics.{phase}_mb_per_s"))
        );
        assert!(report.contains(&mb), "{mb:?} not in {report}");
    }
    assert_untouched(d.path());
}
