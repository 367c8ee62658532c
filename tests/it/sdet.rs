//! `iogauge sdet`: the curve of scripts per hour against concurrency, its
//! peak, processes and threads, bad input and Ctrl-C, all through the
//! binary in temporary directories.

use crate::common::*;
use serde_json::Value;
use std::time::Duration;

fn points(v: &Value) -> &Vec<Value> {
    get(v, "metrics.curve.points").as_array().unwrap()
}

fn loads(v: &Value) -> Vec<u64> {
    points(v)
        .iter()
        .map(|pt| u64_at(pt, "load.value"))
        .collect()
}

#[test]
fn the_curve_has_a_point_per_concurrency_and_names_its_peak() {
    let dir = work_dir();
    let (v, report) = run_json(&[
        "sdet",
        "--max-procs",
        "2",
        "--duration",
        "0.5",
        "--commands",
        "12",
        "--dir",
        p(dir.path()),
    ]);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "sdet");
    assert_eq!(str_at(&v, "config.loop"), "closed");
    // processes by default
    assert_eq!(str_at(&v, "config.workers_as"), "processes");
    assert_eq!(str_at(&v, "config.workload_config.workers_as"), "processes");
    assert_eq!(u64_at(&v, "config.workload_config.commands_per_script"), 12);
    assert_eq!(loads(&v), [1, 2]);
    for pt in points(&v) {
        assert!(f64_at(pt, "mean.throughput") > 0.0);
        assert!(f64_at(pt, "mean.mean_s") > 0.0);
        let io = f64_at(pt, "mean.io_time_fraction");
        assert!((0.0..=1.0).contains(&io), "{io}");
    }
    let best = points(&v)
        .iter()
        .map(|pt| f64_at(pt, "mean.throughput"))
        .fold(0.0, f64::max);
    assert_eq!(f64_at(&v, "metrics.peak_throughput"), best);
    assert_eq!(f64_at(&v, "metrics.peak_scripts_per_hour"), best);
    let peak_n = u64_at(&v, "metrics.peak_concurrency");
    assert_eq!(str_at(&v, "metrics.unit"), "scripts/h");
    // the base result is the peak's: its scripts, commands and ops
    assert!(u64_at(&v, "metrics.scripts") > 0);
    assert_eq!(u64_at(&v, "metrics.scripts_at_once"), peak_n);
    assert_eq!(op_count(&v, "transaction"), u64_at(&v, "metrics.scripts"));
    for k in [
        "read", "write", "create", "delete", "stat", "readdir", "cpu",
    ] {
        assert!(op_count(&v, k) > 0, "no {k} ops");
    }
    let cmds = get(&v, "metrics.commands").as_array().unwrap();
    assert_eq!(cmds.len(), 8);
    // the text: the table and the peak named
    assert!(report.contains("concurrency"), "{report}");
    assert!(report.contains("scripts/h"), "{report}");
    assert!(report.contains("io_time"), "{report}");
    assert!(
        report.contains(&format!("at concurrency {peak_n}")),
        "{report}"
    );
    assert!(report.contains("peak:"), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn threads_run_the_same_curve_and_the_plot_is_written() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let svg = out.path().join("sdet.svg");
    let (v, report) = run_json(&[
        "sdet",
        "--threads",
        "--max-procs",
        "2",
        "--duration",
        "0.4",
        "--cpu-ns-per-byte",
        "200",
        "--plot",
        p(&svg),
        "--dir",
        p(dir.path()),
    ]);
    check_result(&v);
    assert_eq!(str_at(&v, "config.workers_as"), "threads");
    assert_eq!(str_at(&v, "config.workload_config.workers_as"), "threads");
    assert_eq!(u64_at(&v, "config.workload_config.cpu_ns_per_byte"), 200);
    assert_eq!(loads(&v), [1, 2]);
    assert!(report.contains("as threads"), "{report}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(report.contains("plot: "), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn bad_input_is_refused_with_one_line_and_nothing_left() {
    let dir = work_dir();
    let d = p(dir.path());
    let missing = dir.path().join("nope");
    for (args, says) in [
        (vec!["sdet", "--dir", d, "--commands", "3"], "--commands"),
        (vec!["sdet", "--dir", d, "--commands", "x"], "--commands"),
        (vec!["sdet", "--dir", d, "--max-procs", "0"], "--max-procs"),
        (vec!["sdet", "--dir", d, "--max-procs", "-2"], "--max-procs"),
        (vec!["sdet", "--dir", d, "--duration", "0"], "--duration"),
        (vec!["sdet", "--dir", d, "--duration", "soon"], "--duration"),
        (
            vec!["sdet", "--dir", d, "--cpu-ns-per-byte", "99999999"],
            "--cpu-ns-per-byte",
        ),
        (vec!["sdet", "--dir", d, "--max-reps", "0"], "--max-reps"),
        (
            vec!["sdet", "--dir", d, "--max-reps", "3", "--target-ci", "0"],
            "--target-ci",
        ),
        (vec!["sdet", "--dir", p(&missing)], "--dir"),
        (vec!["sdet", "--dir", d, "--plot", d], "--plot"),
    ] {
        let line = assert_usage_error(&args);
        assert!(line.contains(says), "{args:?}: {line}");
    }
    assert!(!missing.exists());
    assert_untouched(dir.path());
}

/// Ctrl-C in the middle of the curve: exit 130 soon, the points so far
/// written, nothing left behind, no script process left running.
#[test]
fn ctrl_c_ends_the_curve_with_its_points_so_far() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let tag = format!("IOGAUGE_SDET_TEST={}", std::process::id());
    let mut child = std::process::Command::new(bin_path())
        .env("IOGAUGE_SDET_TEST", std::process::id().to_string())
        .args(["sdet", "--duration", "1", "--max-procs", "8"])
        .args(["--dir", p(dir.path()), "--json", p(&json)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // the first point (1 s) is done, the second under way
    std::thread::sleep(Duration::from_millis(1600));
    let (status, took) = signal_and_wait(&mut child, libc::SIGINT);
    assert_eq!(status.code(), Some(130), "{status}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(str_at(&v, "benchmark"), "sdet");
    assert!(!get(&v, "complete").as_bool().unwrap());
    assert!(!points(&v).is_empty());
    assert_eq!(str_at(&v, "metrics.curve.stopped"), "interrupted");
    // no worker process of this run outlives it: none carries its tag
    std::thread::sleep(Duration::from_millis(100));
    let orphans = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("environ")).ok())
        .filter(|env| env.split(|&b| b == 0).any(|kv| kv == tag.as_bytes()))
        .count();
    assert_eq!(orphans, 0, "worker processes left running");
    assert_untouched(dir.path());
}

/// `iogauge show` prints the curve's report again, with processes and with
/// threads and a plot, and the peak read back is the one the report named.
#[test]
fn show_prints_the_curve_again() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let svg = out.path().join("sdet.svg");
    let small = ["--max-procs", "2", "--duration", "0.3", "--commands", "12"];
    let mut procs = vec!["sdet", "--dir", p(dir.path())];
    procs.extend_from_slice(&small);
    let (v, report) = assert_show_repeats(&procs);
    let peak = f64_at(&v, "metrics.peak_scripts_per_hour");
    let n = u64_at(&v, "metrics.peak_concurrency");
    assert!(
        report.contains(&format!("peak:    {peak:.0} scripts/h at concurrency {n} ")),
        "{report}"
    );
    assert!(report.contains("commands at the peak"), "{report}");
    let mut threads = vec!["sdet", "--dir", p(dir.path()), "--threads"];
    threads.extend_from_slice(&small);
    threads.extend_from_slice(&["--plot", p(&svg)]);
    let (v, report) = assert_show_repeats(&threads);
    assert!(report.contains("as threads"), "{report}");
    assert!(
        report.ends_with(&format!("plot: {}\n", svg.display())),
        "{report}"
    );
    assert_eq!(str_at(&v, "config.plot"), p(&svg));
    assert_untouched(dir.path());
}
