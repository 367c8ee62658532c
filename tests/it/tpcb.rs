//! Integration tests of `iogauge tpcb`: a run's result and its
//! consistency sums, synced and unsynced commits, and bad input refused
//! with one line and nothing left.
//!
//! Runs are small: a database for 1 tps (10 MB of accounts) for 1 s.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// Run `tpcb` in `dir` for 1 s with `args`; the result (checked against
/// the shared contract) and the report.
fn tpcb(dir: &Path, args: &[&str]) -> (Value, String) {
    let mut all = vec!["tpcb", "--dir", p(dir), "--duration", "1s"];
    all.extend_from_slice(args);
    let (v, report) = run_json(&all);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "tpcb");
    (v, report)
}

#[test]
fn a_run_is_consistent_and_leaves_nothing() {
    let dir = work_dir();
    let (v, report) = tpcb(dir.path(), &["--terminals", "3"]);
    assert!(get(&v, "complete").as_bool().unwrap());
    assert!(f64_at(&v, "metrics.tps") > 0.0);
    assert_eq!(u64_at(&v, "metrics.scale"), 1);
    assert_eq!(u64_at(&v, "metrics.terminals"), 3);
    assert!(get(&v, "metrics.commit_sync").as_bool().unwrap());
    assert!(get(&v, "metrics.consistent").as_bool().unwrap());
    let sum = |k: &str| {
        get(&v, &format!("metrics.consistency.{k}"))
            .as_i64()
            .unwrap()
    };
    assert_eq!(sum("accounts"), sum("tellers"));
    assert_eq!(sum("tellers"), sum("branches"));
    assert_eq!(sum("branches"), sum("history"));
    // one history record per transaction, one commit fsync each
    let n = op_count(&v, "transaction");
    assert!(n > 0);
    assert_eq!(u64_at(&v, "metrics.consistency.history_count"), n);
    assert_eq!(u64_at(&v, "metrics.transactions"), n);
    assert_eq!(op_count(&v, "append"), n);
    assert_eq!(op_count(&v, "fsync"), n);
    assert_eq!(op_count(&v, "read"), 3 * n);
    assert_eq!(u64_at(&v, "metrics.history_bytes"), 50 * n);
    assert_eq!(u64_at(&v, "metrics.database_bytes"), 10_001_100);
    // the constraint follows p90
    let p90 = f64_at(&v, "metrics.p90_response_s");
    assert!(p90 > 0.0);
    assert_eq!(
        get(&v, "metrics.constraint_met").as_bool().unwrap(),
        p90 <= 2.0
    );
    let hist = get(&v, "metrics.response_histogram").as_array().unwrap();
    let counted: u64 = hist.iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(counted, n);
    assert_eq!(u64_at(&v, "config.branches"), 1);
    assert_eq!(u64_at(&v, "config.accounts"), 100_000);
    assert!(report.contains("TPC-B constraint met: "), "{report}");
    assert!(
        report.contains("consistency:         consistent"),
        "{report}"
    );
    assert!(report.contains("iogauge scale tpcb"), "{report}");
    assert_untouched(dir.path());
}

/// On io_uring the result says how the terminals' rings were set up.
#[test]
fn io_uring_terminals_name_their_rings_setup() {
    let dir = work_dir();
    let (v, _) = tpcb(dir.path(), &["--engine", "io_uring"]);
    assert!(get(&v, "metrics.consistent").as_bool().unwrap());
    let mode = str_at(&v, "engine.mode");
    assert!(mode.ends_with(" ring"), "{mode}");
}

#[test]
fn commits_without_sync_run_and_say_so() {
    let dir = work_dir();
    let (v, report) = tpcb(dir.path(), &["--commit-sync", "off", "--engine", "sync"]);
    assert!(!get(&v, "metrics.commit_sync").as_bool().unwrap());
    assert_eq!(op_count(&v, "fsync"), 0);
    assert!(get(&v, "metrics.consistent").as_bool().unwrap());
    assert_eq!(
        u64_at(&v, "metrics.consistency.history_count"),
        op_count(&v, "transaction")
    );
    assert!(report.contains("commit sync:         off"), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn bad_input_is_refused_with_one_line() {
    let dir = work_dir();
    let d = p(dir.path());
    for (args, says) in [
        (vec!["--terminals", "0"], "--terminals"),
        (vec!["--tps-scale", "0"], "--tps-scale"),
        (vec!["--engine", "buffered"], "buffered"),
        (vec!["--engine", "null"], "null"),
        (vec!["--direct"], "O_DIRECT"),
        (vec!["--commit-sync", "maybe"], "--commit-sync"),
        (vec!["--duration", "0"], "--duration"),
    ] {
        let mut all = vec!["tpcb", "--dir", d];
        all.extend_from_slice(&args);
        let line = assert_usage_error(&all);
        assert!(line.contains(says), "{args:?}: {line}");
    }
    assert_untouched(dir.path());
}

/// `iogauge show` prints the report again: closed loop, unsynced commits
/// and an open loop; the tps read back is the one the report printed.
#[test]
fn show_prints_the_report_again() {
    let dir = work_dir();
    let short = ["tpcb", "--dir", p(dir.path()), "--duration", "0.3s"];
    for extra in [
        &[][..],
        &["--commit-sync", "off", "--terminals", "1"],
        &["--rate", "200"],
    ] {
        let (v, report) = assert_show_repeats(&[&short[..], extra].concat());
        let tps = format!("tps:                 {:.1} (", f64_at(&v, "metrics.tps"));
        assert!(report.contains(&tps), "{tps}: {report}");
    }
    assert_untouched(dir.path());
}
