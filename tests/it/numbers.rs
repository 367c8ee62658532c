//! Issue 33, "every number true": the figures every command exports,
//! checked against what the run did. Open-loop rates over the whole
//! schedule, the real worker count, no share clamped, I/O counted by one
//! rule, a point with nothing completed not taken for a measurement, and
//! rates the pacer cannot keep refused at once.

use crate::common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Uniform arrivals at 4/s for 1 s come at 0, 0.25, 0.5 and 0.75 s: the
/// measured time is the schedule's second, not the 0.75 s to the last
/// completion (which made 4 requests 5.3 requests/s).
#[test]
fn an_open_loop_rate_counts_the_whole_schedule() {
    let dir = work_dir();
    for procs in ["1", "2"] {
        let (v, report) = run_json(&[
            "run",
            "--dir",
            p(dir.path()),
            "--unique-bytes",
            "1M",
            "--rate",
            "4",
            "--arrivals",
            "uniform",
            "-p",
            procs,
            "--duration",
            "1s",
        ]);
        check_result(&v);
        let elapsed = f64_at(&v, "elapsed_s");
        assert!((0.999..1.2).contains(&elapsed), "-p {procs}: {elapsed} s");
        let issued = u64_at(&v, "summary.open_loop.issued");
        assert_eq!(issued, 4, "-p {procs}");
        let rate = f64_at(&v, "summary.open_loop.rate_issued");
        assert!(
            rate <= 4.0 + 1e-9,
            "-p {procs}: {rate} requests/s issued of 4"
        );
        assert!(f64_at(&v, "metrics.requests_per_s") <= 4.0 + 1e-9);
        assert!(report.contains("elapsed 1.0"), "{report}");
    }
    assert_untouched(dir.path());
}

/// The same in TPC-B: one transaction a second for a second is 1 tps, and
/// within the 1 tps a database of scale 1 is sized for (the false note
/// came from the overstated rate).
#[test]
fn tpcb_in_an_open_loop_reports_the_rate_it_was_given() {
    let dir = work_dir();
    let (v, report) = run_json(&[
        "tpcb",
        "--dir",
        p(dir.path()),
        "--duration",
        "1s",
        "--terminals",
        "1",
        "--rate",
        "1",
        "--arrivals",
        "uniform",
    ]);
    check_result(&v);
    assert_eq!(op_count(&v, "transaction"), 1);
    let tps = f64_at(&v, "metrics.tps");
    assert!(tps <= 1.0 + 1e-9, "{tps}");
    assert!(!report.contains("more than the 1 tps"), "{report}");
    assert_untouched(dir.path());
}

/// And in LADDIS: 4 NFS ops/s offered for a second, on a file set sized
/// for 4 ops/s, is no more than the set is sized for.
#[test]
fn laddis_in_an_open_loop_reports_the_rate_it_was_given() {
    let dir = work_dir();
    let (v, report) = run_json(&[
        "laddis",
        "--dir",
        p(dir.path()),
        "--procs",
        "1",
        "--duration",
        "1",
        "--rate",
        "4",
        "--arrivals",
        "uniform",
    ]);
    check_result(&v);
    let rate = f64_at(&v, "metrics.nfs_ops_per_s");
    assert!(rate <= 4.0 + 1e-9, "{rate}");
    assert!(!report.contains("is more than the"), "{report}");
    assert_untouched(dir.path());
}

/// A rate whose interval is below the schedule's nanosecond is refused at
/// once (it ran for a minute, deaf to SIGTERM, counting arrivals whose
/// float step no longer moved the schedule).
#[test]
fn a_rate_the_schedule_cannot_keep_is_refused_at_once() {
    let dir = work_dir();
    let t = Instant::now();
    let out = iogauge()
        .args(["run", "--dir", p(dir.path()), "--unique-bytes", "1M"])
        .args(["--rate", "1e12", "--duration", "0.5s"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--rate") && stderr.contains("1e9"),
        "{stderr}"
    );
    // the highest rate taken runs its time and stops
    let (v, _) = run_json(&[
        "run",
        "--dir",
        p(dir.path()),
        "--unique-bytes",
        "1M",
        "--engine",
        "null",
        "--rate",
        "1e9",
        "--duration",
        "0.3s",
    ]);
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    let ol = get(&v, "summary.open_loop");
    let scheduled = ol["issued"].as_u64().unwrap() + ol["missed"].as_u64().unwrap();
    assert!(
        (scheduled as f64 / 3e8 - 1.0).abs() < 0.01,
        "{scheduled} requests scheduled in 0.3 s at 1e9/s"
    );
    assert_untouched(dir.path());
}

/// A profile of two thread groups, 3 and 2 threads: 5 workers, and an
/// I/O share per worker-second, not 1 clamped from a share of one worker.
#[test]
fn ffsb_gives_its_real_worker_count_and_an_unclamped_io_share() {
    let dir = work_dir();
    let profile = dir.path().join("sub/two-groups.ffsb");
    std::fs::write(
        &profile,
        "time=1\n[filesystem0]\n\tlocation=/nonexistent\n\tnum_files=20\n\tnum_dirs=2\n\tmin_filesize=4k\n\tmax_filesize=4k\n[end0]\n[threadgroup0]\n\tnum_threads=3\n\tread_weight=1\n\tread_size=4k\n\tread_blocksize=4k\n[end0]\n[threadgroup1]\n\tnum_threads=2\n\tstat_weight=1\n[end1]\n",
    )
    .unwrap();
    let loc = dir.path().join("loc");
    std::fs::create_dir(&loc).unwrap();
    let (v, _) = run_json(&["ffsb", p(&profile), "--location", p(&loc)]);
    check_result(&v);
    assert_eq!(u64_at(&v, "summary.workers"), 5);
    let io = f64_at(&v, "summary.io_time_fraction");
    assert!(io > 0.0 && io < 1.0, "{io}");
    // the CSV says the same
    let csv = iogauge()
        .args(["ffsb", p(&profile), "--location", p(&loc), "--csv", "-"])
        .output()
        .unwrap();
    assert!(csv.status.success());
    let text = String::from_utf8_lossy(&csv.stdout);
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| row[head.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("workers"), "5");
    assert!(col("io_time_fraction").parse::<f64>().unwrap() < 1.0);
    std::fs::remove_file(&profile).unwrap();
    std::fs::remove_dir(&loc).unwrap();
    assert_untouched(dir.path());
}

/// Runs of several tests with their own workers (bonnie++'s seekers) and
/// of several children (IOzone's throughput mode) give the most workers
/// at once, and an I/O share over each test's own workers.
#[test]
fn composite_runs_give_their_workers_and_a_share_per_worker_second() {
    let dir = work_dir();
    let (v, _) = run_json(&[
        "bonnie",
        "--flavor",
        "bonnie++",
        "-d",
        p(dir.path()),
        "-s",
        "8",
        "-r",
        "4",
        "-n",
        "0",
        "-f",
    ]);
    check_result(&v);
    let seekers = u64_at(&v, "summary.workers");
    assert!(seekers > 1, "{seekers}");
    let io = f64_at(&v, "summary.io_time_fraction");
    assert!(io > 0.0 && io < 1.0, "{io}");
    let (v, _) = run_json(&[
        "iozone",
        "-t",
        "2",
        "-s",
        "64k",
        "-r",
        "4k",
        "-i",
        "0",
        "--dir",
        p(dir.path()),
    ]);
    check_result(&v);
    assert_eq!(u64_at(&v, "summary.workers"), 2);
    assert_untouched(dir.path());
}

fn io_kinds_count(v: &Value) -> u64 {
    get(v, "ops")
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "lock" | "unlock" | "cpu" | "transaction"))
        .map(|(_, o)| o["count"].as_u64().unwrap())
        .sum()
}

/// IO/s counts I/O calls only: TPC-B's and IOBENCH's lock acquisitions
/// are not I/O (37,734 "IO/s" of which 30,936 were locks).
#[test]
fn locks_are_not_counted_as_io() {
    let dir = work_dir();
    let (v, report) = run_json(&[
        "tpcb",
        "--dir",
        p(dir.path()),
        "--duration",
        "0.5s",
        "--terminals",
        "2",
    ]);
    assert!(op_count(&v, "lock") > 0);
    let ops = u64_at(&v, "summary.ops");
    assert_eq!(ops, io_kinds_count(&v));
    let elapsed = f64_at(&v, "elapsed_s");
    let iops = f64_at(&v, "summary.ops_per_s");
    assert!((iops * elapsed - ops as f64).abs() < 1.0);
    assert!(report.contains(&format!("{ops} ops")), "{report}");
    let series: u64 = get(&v, "timeseries.ops")
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(series, ops);
    assert_untouched(dir.path());
}

#[test]
fn iobench_locks_and_cpu_work_are_not_counted_as_io() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        "USERS = 2; FILES = 2; NRECS = 64; RECLEN = 512; READS = 2; WRITES = 1; LOCKS = 4; WORK = 1;",
    )
    .unwrap();
    let out = iogauge()
        .current_dir(cwd.path())
        .args([
            "iobench",
            "ctl",
            "--ignore-env",
            "--threads",
            "--duration",
            "0.5s",
        ])
        .args(["--dir", p(dir.path()), "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_result(&v);
    assert!(
        op_count(&v, "lock") > 0 && op_count(&v, "cpu") > 0,
        "{stderr}"
    );
    assert_eq!(u64_at(&v, "summary.ops"), io_kinds_count(&v));
    assert_eq!(u64_at(&v, "summary.workers"), 2);
    assert_untouched(dir.path());
}

/// A point at which no script finished is no measurement: not "1 0 - 0
/// ns" and "throughput stopped rising at N=4 (0.00 → 0.00)" with exit 0,
/// but the reason, exit 1 and a JSON that says it is incomplete.
#[test]
fn sdet_takes_no_point_without_a_finished_script_for_a_measurement() {
    let dir = work_dir();
    let json = dir.path().join("sub/sdet.json");
    let out = iogauge()
        .args(["sdet", "--threads", "--max-procs", "4", "--duration", "1ms"])
        .args([
            "--commands",
            "10000",
            "--dir",
            p(dir.path()),
            "--json",
            p(&json),
        ])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("no script completed at N=1"), "{stderr}");
    assert!(!stdout.contains("stopped rising"), "{stdout}");
    assert!(!stdout.contains("peak:    0"), "{stdout}");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(get(&v, "complete"), &Value::Bool(false));
    assert!(str_at(&v, "error").contains("no script completed"));
    assert!(
        get(&v, "metrics.curve.points")
            .as_array()
            .unwrap()
            .is_empty()
    );
    std::fs::remove_file(&json).unwrap();
    assert_untouched(dir.path());
}

/// `scale` in an open loop: each point's rate is over its whole schedule.
#[test]
fn scale_open_loop_points_are_over_the_whole_schedule() {
    let dir = work_dir();
    let (v, _) = run_json(&[
        "scale",
        "--rates",
        "4,8",
        "--max-reps",
        "1",
        "run",
        "--dir",
        p(dir.path()),
        "--unique-bytes",
        "1M",
        "--arrivals",
        "uniform",
        "--duration",
        "0.5s",
    ]);
    for pt in get(&v, "metrics.curve.points").as_array().unwrap() {
        let rate = f64_at(pt, "load.value");
        let x = f64_at(pt, "mean.throughput");
        assert!(x <= rate + 1e-9, "{x} requests/s at {rate}/s offered");
    }
    assert_untouched(dir.path());
}
