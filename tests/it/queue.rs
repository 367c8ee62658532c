//! The queued engines from the command line: io_uring refused by the
//! kernel (a seccomp filter in the child) says so in one line while libaio
//! still runs; the open loop at depth 8 keeps its rate; the report splits
//! each latency into submission and completion at depth and only there;
//! the queue options are checked before anything runs; Ctrl-C with 128
//! O_DIRECT reads in flight stops the run with every request accounted.

use crate::common::*;
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `iogauge args` with a seccomp filter that makes io_uring_setup fail with
/// EPERM, as a container's default profile does. The filter is installed
/// in the child between fork and exec, so it holds for the whole run and
/// for no one else.
#[cfg(target_arch = "x86_64")]
fn without_io_uring(args: &[&str]) -> Output {
    // classic BPF over struct seccomp_data: nr at offset 0, arch at 4
    let stmt = |code: u16, k: u32| libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jeq = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: 0x15,
        jt,
        jf,
        k,
    };
    const LOAD_W: u16 = 0x20;
    const RET: u16 = 0x06;
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    let allow = stmt(RET, libc::SECCOMP_RET_ALLOW);
    let filter = [
        stmt(LOAD_W, 4),
        jeq(AUDIT_ARCH_X86_64, 1, 0),
        allow,
        stmt(LOAD_W, 0),
        jeq(libc::SYS_io_uring_setup as u32, 0, 1),
        stmt(RET, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        allow,
    ];
    let mut cmd = Command::new(bin_path());
    cmd.args(args);
    // SAFETY: the closure runs in the forked child before exec and makes
    // only two system calls (async-signal-safe); the filter it points the
    // kernel at is the closure's own copy, alive during the call.
    unsafe {
        cmd.pre_exec(move || {
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr().cast_mut(),
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0,
                    &prog as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("the iogauge binary runs")
}

#[cfg(target_arch = "x86_64")]
#[test]
fn io_uring_refused_by_the_kernel_names_the_sysctl_and_libaio_still_runs() {
    let dir = work_dir();
    let d = p(dir.path());
    let args = queued_args("run", d, "io_uring", "8", &["--ops", "1000"]);
    let l = usage_error_line(&args, &without_io_uring(&args));
    assert!(l.contains("kernel.io_uring_disabled"), "{l}");
    assert_untouched(dir.path());

    let out = without_io_uring(&queued_args(
        "run",
        d,
        "libaio",
        "8",
        &[
            "--direct",
            "--ops",
            "1000",
            "--unique-bytes",
            "4M",
            "--json",
            "-",
            "-q",
        ],
    ));
    assert!(
        out.status.success(),
        "libaio under the filter: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_result(&v);
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 1000);
    assert_untouched(dir.path());
}

/// Every percentile, the mean and the extremes of `a` are at least those
/// of `b`, up to the histograms' 3 significant digits: what holds when
/// each value of `a` is at least its value in `b`.
fn assert_dominates(a: &Value, b: &Value, what: &str) {
    for k in [
        "min", "p50", "p90", "p95", "p99", "p999", "p9999", "max", "mean",
    ] {
        let (x, y) = (a[k].as_f64().unwrap(), b[k].as_f64().unwrap());
        assert!(x * 1.001 + 1.0 >= y, "{what}: {k} {x} < {y}");
    }
}

/// An open loop at depth 8 on `engine` at 2,000 requests/s with equal gaps
/// for 2 s: the rate issued is within 1 % of it, and each kind's response
/// (from the intended start) is never below its service time.
fn open_loop_at_depth_8(engine: &str, args: &[&str]) {
    let mut all = vec!["--rate", "2000", "--arrivals", "uniform", "--duration", "2"];
    all.extend_from_slice(args);
    let (v, report) = run_queued("run", engine, "8", &all);
    let rate = f64_at(&v, "summary.open_loop.rate_issued");
    assert!(
        (rate - 2000.0).abs() <= 20.0,
        "rate issued {rate}: {report}"
    );
    assert_eq!(f64_at(&v, "summary.open_loop.rate_offered"), 2000.0);
    // The result leaves io_depth out when no more than one request was
    // ever in flight: cached reads on io_uring often complete inline.
    let depth = v["summary"]
        .get("io_depth")
        .map_or(1, |d| d["max"].as_u64().unwrap());
    assert!((1..=8).contains(&depth), "depth {depth}: {report}");
    let ops = get(&v, "ops").as_object().unwrap();
    assert!(!ops.is_empty());
    for (kind, o) in ops {
        assert_dominates(&o["response_ns"], &o["latency_ns"], kind);
    }
    assert!(report.contains("response (from each request's intended start)"));
}

#[test]
fn open_loop_at_depth_8_keeps_the_rate_on_nullq() {
    open_loop_at_depth_8("nullq", &[]);
}

/// Buffered 4 KiB reads of a 4 MiB file the prefill left in the page cache:
/// a rate any device keeps.
#[test]
fn open_loop_at_depth_8_keeps_the_rate_on_io_uring() {
    open_loop_at_depth_8(
        "io_uring",
        &[
            "--read-frac",
            "1",
            "--unique-bytes",
            "4M",
            "--size-mean",
            "4K",
            "--size-cv",
            "0",
        ],
    );
}

/// At depth 8 the result splits each kind's latency: the total is the
/// submission plus the completion of the same requests (so their means
/// add up), and the text report shows both parts.
fn assert_split(engine: &str, args: &[&str]) {
    let mut all = vec!["--ops", "4000", "--unique-bytes", "4M"];
    all.extend_from_slice(args);
    let (v, report) = run_queued("run", engine, "8", &all);
    let ops = get(&v, "ops").as_object().unwrap();
    assert!(!ops.is_empty());
    for (kind, o) in ops {
        let (total, sub, comp) = (&o["latency_ns"], &o["submission_ns"], &o["completion_ns"]);
        assert!(sub.is_object() && comp.is_object(), "ops.{kind}: {o}");
        let (t, s, c) = (
            total["mean"].as_f64().unwrap(),
            sub["mean"].as_f64().unwrap(),
            comp["mean"].as_f64().unwrap(),
        );
        assert!(
            (t - (s + c)).abs() <= 1e-6 * t + 1.0,
            "ops.{kind}: mean total {t} != submission {s} + completion {c}"
        );
        assert_dominates(total, sub, kind);
        assert_dominates(total, comp, kind);
    }
    assert!(report.contains("  submission (issued → accepted by the kernel"));
    assert!(report.contains("  completion (accepted by the kernel → reaped)"));
    assert!(report.contains("  total "), "{report}");
}

#[test]
fn at_depth_the_report_splits_submission_and_completion() {
    assert_split("nullq", &[]);
}

/// One request at a time on a synchronous engine: one latency per kind,
/// no split in the result or the report.
#[test]
fn at_depth_1_on_psync_nothing_is_split() {
    let dir = work_dir();
    let (v, report) = run_json(&[
        "run",
        "--dir",
        p(dir.path()),
        "--engine",
        "psync",
        "--ops",
        "1000",
        "--unique-bytes",
        "4M",
    ]);
    check_result(&v);
    for (kind, o) in get(&v, "ops").as_object().unwrap() {
        assert!(o.get("submission_ns").is_none(), "ops.{kind}: {o}");
        assert!(o.get("completion_ns").is_none(), "ops.{kind}: {o}");
    }
    assert!(!report.contains("submission"), "{report}");
    assert!(!report.contains("completion"), "{report}");
    assert!(report.contains("  latency "), "{report}");
    assert_untouched(dir.path());
}

/// Batches within the depth run; the queue options an engine or a mode
/// cannot have are refused in one line that names the flag, before the
/// run creates anything.
#[test]
fn queue_options_are_checked_before_the_run() {
    let dir = work_dir();
    let d = p(dir.path());
    let (v, _) = run_json(&queued_args(
        "run",
        d,
        "nullq",
        "8",
        &[
            "--iodepth-batch",
            "8",
            "--iodepth-batch-complete",
            "4",
            "--ops",
            "2000",
        ],
    ));
    check_result(&v);
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 2000);
    assert_eq!(u64_at(&v, "summary.io_depth.max"), 8);

    let refused: [(&[&str], &[&str]); 6] = [
        (
            &[
                "--engine",
                "io_uring",
                "--iodepth",
                "8",
                "--iodepth-batch",
                "16",
            ],
            &["--iodepth-batch 16", "--iodepth 8"],
        ),
        (
            &[
                "--engine",
                "io_uring",
                "--iodepth",
                "8",
                "--iodepth-batch-complete",
                "9",
            ],
            &["--iodepth-batch-complete 9", "--iodepth 8"],
        ),
        (
            &["--engine", "psync", "--fixedbufs"],
            &["--fixedbufs", "psync", "io_uring"],
        ),
        (
            &["--engine", "io_uring", "--iodepth", "8", "--hipri"],
            &["--hipri"],
        ),
        (
            &[
                "--engine",
                "io_uring",
                "--iodepth",
                "8",
                "--direct",
                "--uncached",
            ],
            &["--uncached"],
        ),
        (
            &[
                "--engine",
                "io_uring",
                "--iodepth",
                "8",
                "--sqthread-cpu",
                "0",
            ],
            &["--sqthread-cpu", "--sqthread-poll"],
        ),
    ];
    for (args, names) in refused {
        let mut all = vec!["run", "--dir", d, "--ops", "100"];
        all.extend_from_slice(args);
        let l = assert_usage_error(&all);
        for n in names {
            assert!(l.contains(n), "{args:?}: {l}");
        }
    }
    assert_untouched(dir.path());
}

/// Bytes the kernel has read from a device for process `pid` (`read_bytes`
/// in /proc/<pid>/io), or `None` where it keeps no such count.
fn device_reads(pid: u32) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("read_bytes:"))?
        .trim()
        .parse()
        .ok()
}

/// Block until `child`, a `run` on O_DIRECT reads in `dir`, is measuring:
/// its files are laid out (writes only) and it has read from the device
/// since. Where the kernel keeps no per-process count, a fixed second.
fn wait_until_measuring(child: &mut std::process::Child, dir: &std::path::Path) {
    let t = Instant::now();
    let mut before = None;
    loop {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the run never started reading"
        );
        if before.is_none() && tree(dir).iter().any(|e| e.ends_with("/data.0")) {
            before = device_reads(child.id());
            if before.is_none() {
                eprintln!("no read count in /proc/<pid>/io: waiting a second instead");
                std::thread::sleep(Duration::from_secs(1));
                return;
            }
        }
        if let Some(b) = before
            && device_reads(child.id()).is_some_and(|n| n > b)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A 60 s run of O_DIRECT reads at depth 128 on `engine`, interrupted once
/// it measures: it ends within 3 s with 130, says so, leaves nothing in
/// its directory, and writes a partial result in which every request
/// issued was either completed (an op) or cancelled. The result has no
/// issue count, but the depth histogram's shares are of every issue: over
/// ops + cancelled each must come out a whole number of issues. A total
/// off by k shows in the dominant bucket, and in the first one (which
/// holds the first issue) as 1 / issues at least: seen while fewer than
/// a million were issued, 60 times what 200 ms here issue.
fn ctrl_c_with_128_in_flight(engine: &str) {
    let dir = work_dir();
    if !iogauge::env::supports_direct(dir.path()).unwrap() {
        eprintln!("skipped: {} refuses O_DIRECT", dir.path().display());
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let mut child = Command::new(bin_path())
        .args(["run", "--dir", p(dir.path()), "--engine", engine])
        .args([
            "--direct",
            "--iodepth",
            "128",
            "-p",
            "1",
            "--read-frac",
            "1",
        ])
        .args(["--files", "4", "--unique-bytes", "4M", "--size-mean", "4K"])
        .args(["--duration", "60", "--json", p(&json)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until_measuring(&mut child, dir.path());
    // the queue fills within a millisecond; let some requests complete
    std::thread::sleep(Duration::from_millis(200));
    let (status, took) = signal_and_wait(&mut child, libc::SIGINT);
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(status.code(), Some(130), "{status}; stderr: {stderr}");
    assert!(took < Duration::from_secs(3), "took {took:?} to stop");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(!stderr.contains("still in flight"), "{stderr}");
    assert!(stdout.contains("INCOMPLETE RUN"), "{stdout}");
    assert_untouched(dir.path());
    assert_eq!(tree(out.path()), ["r.json"]);

    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    check_result(&v);
    assert_eq!(get(&v, "complete"), false);
    assert_eq!(get(&v, "config.io.iodepth").as_u64(), Some(128));
    let ops = op_count(&v, "read");
    assert!(ops > 0, "the partial result has the reads done");
    assert_eq!(u64_at(&v, "summary.ops"), ops);
    let cancelled = get(&v, "summary")
        .get("cancelled")
        .map_or(0, |c| c.as_u64().unwrap());
    assert!(cancelled <= 128, "cancelled {cancelled}");
    assert_eq!(u64_at(&v, "summary.io_depth.max"), 128);
    let issued = (ops + cancelled) as f64;
    for b in get(&v, "summary.io_depth.buckets").as_array().unwrap() {
        let n = f64_at(b, "share") * issued;
        assert!(
            (n - n.round()).abs() < 1e-6,
            "bucket {}: {n} issues of {ops} ops + {cancelled} cancelled: \
             some request was neither",
            b["depth"]
        );
    }
}

#[test]
fn ctrl_c_with_128_in_flight_on_io_uring_accounts_for_every_request() {
    ctrl_c_with_128_in_flight("io_uring");
}

#[test]
fn ctrl_c_with_128_in_flight_on_libaio_accounts_for_every_request() {
    ctrl_c_with_128_in_flight("libaio");
}

/// The result says how the io_uring ring was set up (the flags the kernel
/// took), once for both workers, and so does the text report; a psync run
/// has no such section.
#[test]
fn the_result_names_the_io_uring_rings_setup_flags() {
    let dir = work_dir();
    let run = |engine: &str, depth: &str| {
        run_json(&[
            "run",
            "--dir",
            p(dir.path()),
            "--engine",
            engine,
            "--iodepth",
            depth,
            "--processes",
            "2",
            "--ops",
            "400",
            "--unique-bytes",
            "1M",
        ])
    };
    let (v, report) = run("io_uring", "8");
    check_result(&v);
    let mode = get(&v, "engine.mode").as_str().unwrap();
    assert!(mode.contains("SINGLE_ISSUER"), "{mode}");
    assert!(mode.ends_with(" ring"), "{mode}");
    assert!(
        report.contains(&format!("engine set up: {mode}")),
        "{report}"
    );

    let (v, report) = run("psync", "1");
    check_result(&v);
    assert!(v.get("engine").is_none(), "{}", v["engine"]);
    assert!(!report.contains("engine set up"), "{report}");
    assert_untouched(dir.path());
}

/// Under SQ polling the kernel thread gives queue entries back only after
/// the batch it took, while its page-cache hits are already reaped: two
/// workers at depth 8 once stopped on "the submission queue is full".
#[test]
fn sq_polling_waits_for_room_in_the_queue() {
    let (v, _) = run_queued(
        "run",
        "io_uring",
        "8",
        &["--sqthread-poll", "-p", "2", "--duration", "1"],
    );
    assert_eq!(v["complete"], Value::Bool(true), "{}", v["summary"]);
    assert!(get(&v, "summary.ops").as_u64().unwrap() > 0);
}
