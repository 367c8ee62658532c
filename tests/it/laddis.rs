//! Integration tests of `iogauge laddis`: a run's report and JSON figures,
//! the mix followed, an open loop at a rate, bad input refused with one
//! line and nothing left, and Ctrl-C.
//!
//! Runs are small: a 4 MiB file set (`--scaling off`) for 1 s.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Run `laddis` in `dir` on a 4 MiB set for 1 s with `args`; the result
/// (checked against the shared contract) and the report.
fn laddis(dir: &Path, args: &[&str]) -> (Value, String) {
    let mut all = vec![
        "laddis",
        "--dir",
        p(dir),
        "--scaling",
        "off",
        "--fileset",
        "4M",
        "--duration",
        "1",
    ];
    all.extend_from_slice(args);
    let (v, report) = run_json(&all);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "laddis");
    (v, report)
}

fn per_op(v: &Value) -> Vec<Value> {
    get(v, "metrics.per_op").as_array().unwrap().clone()
}

#[test]
fn a_run_reports_its_figures_and_leaves_nothing() {
    let dir = work_dir();
    let (v, report) = laddis(dir.path(), &["--procs", "2"]);
    assert!(get(&v, "complete").as_bool().unwrap());
    let n = u64_at(&v, "metrics.nfs_ops");
    assert!(n > 0);
    // every nhfsstone op has a local call: the runner counted each once
    assert_eq!(u64_at(&v, "summary.ops"), n);
    let rate = f64_at(&v, "metrics.nfs_ops_per_s");
    assert!((rate - n as f64 / f64_at(&v, "elapsed_s")).abs() < 1e-6 * rate);
    assert_eq!(str_at(&v, "metrics.response_basis"), "service");
    let mean = f64_at(&v, "metrics.mean_response_ms");
    assert_eq!(
        get(&v, "metrics.meets_50ms").as_bool().unwrap(),
        mean <= 50.0
    );
    assert_eq!(u64_at(&v, "metrics.procs"), 2);
    assert_eq!(u64_at(&v, "metrics.fileset_bytes"), 4 << 20);
    assert_eq!(str_at(&v, "metrics.mix"), "nhfsstone");
    let ops = per_op(&v);
    assert_eq!(ops.len(), 10);
    let counted: u64 = ops.iter().map(|o| o["count"].as_u64().unwrap()).sum();
    assert_eq!(counted, n);
    let lookup = ops.iter().find(|o| o["op"] == "lookup").unwrap();
    assert_eq!(lookup["mix_pct"], 34);
    assert!(
        lookup["failed"].as_u64().unwrap() > 0,
        "missing names are looked up"
    );
    // the mean over the op kinds, weighted by count, is the figure
    let sum: f64 = get(&v, "ops")
        .as_object()
        .unwrap()
        .values()
        .map(|o| o["latency_ns"]["mean"].as_f64().unwrap() * o["count"].as_f64().unwrap())
        .sum();
    assert!((sum / n as f64 / 1e6 - mean).abs() < 1e-9 + mean * 1e-9);
    for want in [
        "NFS ops/s",
        "average response time:",
        "LADDIS limit met:",
        "io_time_fraction:",
        "Per NFS operation (service times):",
        "readlink",
        "iogauge details: laddis",
    ] {
        assert!(report.contains(want), "{want}: {report}");
    }
    assert_untouched(dir.path());
}

/// Over a run, each op's share is that of the mix (within 2 points).
#[test]
fn the_run_follows_the_mix() {
    let dir = work_dir();
    let (v, _) = laddis(dir.path(), &["--mix", "sfs2", "--procs", "1"]);
    assert_eq!(str_at(&v, "metrics.mix"), "sfs2");
    let ops = per_op(&v);
    let n = u64_at(&v, "metrics.nfs_ops");
    assert!(n > 2000, "too few ops to judge: {n}");
    for o in &ops {
        let want = o["mix_pct"].as_f64().unwrap();
        let got = o["actual_pct"].as_f64().unwrap();
        assert!((got - want).abs() < 2.0, "{}: {got} vs {want}", o["op"]);
    }
    assert_untouched(dir.path());
}

/// A mix file: its ops run, those without a local call count at no cost.
#[test]
fn a_mix_file_runs() {
    let dir = work_dir();
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        f.path(),
        "# metadata\nlookup 40\nmkdir 10\nrmdir 10\nrename 10\nlink 10\nsymlink 10\nnull 10\n",
    )
    .unwrap();
    let (v, _) = laddis(dir.path(), &["--mix", p(f.path())]);
    let ops = per_op(&v);
    assert_eq!(ops.len(), 7);
    for o in &ops {
        assert!(o["count"].as_u64().unwrap() > 0, "{o}");
    }
    let null = ops.iter().find(|o| o["op"] == "null").unwrap();
    assert_eq!(null["mean_ms"].as_f64().unwrap(), 0.0);
    // null ops are NFS ops but not the runner's
    let n = u64_at(&v, "metrics.nfs_ops");
    assert_eq!(
        u64_at(&v, "summary.ops") + null["count"].as_u64().unwrap(),
        n
    );
    assert_untouched(dir.path());
}

/// --rate: an open loop that holds the rate, with response times.
#[test]
fn a_rate_is_held_in_an_open_loop() {
    let dir = work_dir();
    let (v, report) = laddis(dir.path(), &["--rate", "400", "--arrivals", "uniform"]);
    let ol = get(&v, "summary.open_loop");
    assert_eq!(ol["rate_offered"].as_f64().unwrap(), 400.0);
    let issued = ol["rate_issued"].as_f64().unwrap();
    assert!((issued - 400.0).abs() < 40.0, "issued {issued}/s");
    let rate = f64_at(&v, "metrics.nfs_ops_per_s");
    assert!((rate - 400.0).abs() < 40.0, "{rate}");
    assert_eq!(str_at(&v, "metrics.response_basis"), "response");
    // the claim follows the rate
    assert_eq!(f64_at(&v, "metrics.claim_ops_per_s"), 400.0);
    assert!(get(&v, "ops.stat.response_ns").is_object());
    assert!(report.contains("open loop at 400 ops/s"), "{report}");
    assert!(report.contains("(response times)"), "{report}");
    assert_untouched(dir.path());
}

/// The set scales with --claim: 5.4 MiB per op/s.
#[test]
fn the_file_set_scales_with_the_claim() {
    let dir = work_dir();
    let (v, report) = run_json(&[
        "laddis",
        "--dir",
        p(dir.path()),
        "--claim",
        "2",
        "--procs",
        "1",
        "--duration",
        "1",
    ]);
    check_result(&v);
    assert_eq!(u64_at(&v, "metrics.fileset_bytes"), 11_324_621); // 2 × 5.4 × 2^20, rounded up
    assert!(u64_at(&v, "metrics.files") > 300);
    assert!(report.contains("sized for 2 ops/s"), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn bad_input_is_refused_with_one_line_and_nothing_left() {
    let dir = work_dir();
    let d = p(dir.path());
    let bad = tempfile::tempdir().unwrap();
    let mix = bad.path().join("bad.mix");
    std::fs::write(&mix, "lookup 50\n# fine\nread fifty\n").unwrap();
    let mix_s = mix.to_str().unwrap().to_string();
    let want_line = format!("{}:3: bad percentage `fifty` for read", mix_s);
    for (args, says) in [
        (vec!["--mix", mix_s.as_str()], want_line.as_str()),
        (vec!["--mix", "nosuch"], "--mix nosuch"),
        (vec!["--procs", "0"], "--procs"),
        (vec!["--duration", "0"], "--duration"),
        (vec!["--claim", "0"], "--claim"),
        (vec!["--fileset", "4M"], "--scaling off"),
        (vec!["--scaling", "off", "--fileset", "16k"], "--fileset"),
        (vec!["--scaling", "maybe"], "--scaling"),
        (vec!["--rate", "10", "--thinktime", "1ms"], "--thinktime"),
    ] {
        let mut all = vec!["laddis", "--dir", d];
        all.extend_from_slice(&args);
        let line = assert_usage_error(&all);
        assert!(line.contains(says), "{args:?}: {line}");
    }
    assert_untouched(dir.path());
}

/// Ctrl-C in the middle of a run: exit 130 at once, the partial result
/// written, nothing left.
#[test]
fn ctrl_c_stops_cleanly_with_a_partial_result() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let mut child = std::process::Command::new(bin_path())
        .args(["laddis", "--dir", p(dir.path()), "--scaling", "off"])
        .args(["--fileset", "4M", "--duration", "60s", "--json", p(&json)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let (status, took) = signal_and_wait(&mut child, libc::SIGINT);
    assert_eq!(status.code(), Some(130), "{status}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(!get(&v, "complete").as_bool().unwrap());
    assert!(u64_at(&v, "metrics.nfs_ops") > 0);
    assert_untouched(dir.path());
}

/// `iogauge show` prints a run's report again, closed loop and open, and
/// a figure read back is the one the report printed.
#[test]
fn show_prints_the_report_again() {
    let dir = work_dir();
    let d = p(dir.path());
    let small = ["--scaling", "off", "--fileset", "4M", "--duration", "0.3"];
    let mut closed = vec!["laddis", "--dir", d, "--procs", "1", "--thinktime", "1ms"];
    closed.extend_from_slice(&small);
    let (v, report) = assert_show_repeats(&closed);
    let n = u64_at(&v, "metrics.nfs_ops");
    assert!(n > 0);
    assert!(
        report.contains(&format!(" NFS ops/s ({n} ops in ")),
        "{report}"
    );
    assert!(report.contains("closed loop, think time 1ms"), "{report}");
    assert!(get(&v, "metrics.request_latency_ns.p90").is_u64());
    let mut open = vec!["laddis", "--dir", d, "--rate", "200"];
    open.extend_from_slice(&small);
    let (v, report) = assert_show_repeats(&open);
    assert_eq!(str_at(&v, "metrics.response_basis"), "response");
    assert!(
        report.contains("open loop at 200 ops/s (poisson)"),
        "{report}"
    );
    assert!(get(&v, "metrics.request_response_ns").is_object());
    let mut file = vec!["laddis", "--dir", d, "--claim", "1", "--mix", "sfs2"];
    file.extend_from_slice(&small[4..]);
    let (_, report) = assert_show_repeats(&file);
    assert!(report.contains("SPEC SFS 2.0's NFS v2 mix"), "{report}");
    assert!(report.contains("sized for 1 ops/s"), "{report}");
    assert_untouched(dir.path());
}
