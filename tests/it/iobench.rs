//! Integration tests of `iogauge iobench`: the control file and the
//! environment reaching the run, bad input, the lock manager across
//! processes, the results file's layout (golden, numbers masked), a killed
//! user process, Ctrl-C/SIGTERM, FILEk paths, metering, the spectrum, and
//! many users adding up.
//!
//! Runs are short (a fraction of a second each) on small files in
//! temporary directories. `IOGAUGE_BLESS=1` rewrites the golden layout.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The keywords, so that the tests' environment cannot leak into a run.
const KEYS: [&str; 15] = [
    "RUN", "USERS", "FILES", "NRECS", "RECLEN", "READS", "WRITES", "LOCKS", "SLEEP", "START",
    "END", "DURATION", "WORK", "FILE0", "FILE1",
];

fn iobench(cwd: &Path) -> assert_cmd::Command {
    let mut c = iogauge();
    c.current_dir(cwd).arg("iobench");
    for k in KEYS {
        c.env_remove(k);
    }
    c
}

/// The binary as a plain process (for signals), with the keywords removed
/// from its environment.
fn spawnable(cwd: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(bin_path());
    c.current_dir(cwd).arg("iobench");
    for k in KEYS {
        c.env_remove(k);
    }
    c
}

/// Run and return the JSON result and stderr; the run must succeed.
fn run_ok(cwd: &Path, args: &[&str]) -> (Value, String) {
    let out = iobench(cwd)
        .args(args)
        .args(["--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "iogauge iobench {args:?}: {}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    (v, stderr)
}

/// The shared schema check. `summary.ops` leaves whole transactions out (as
/// the measurement core counts ops); the helper sums every kind, so the
/// transaction entry is checked here and set aside for it.
fn check(v: &Value) {
    let tx = op_count(v, "transaction");
    assert_eq!(tx, u64_at(v, "metrics.cycles"), "one transaction per cycle");
    let mut w = v.clone();
    w["ops"].as_object_mut().unwrap().remove("transaction");
    check_result(&w);
    assert_eq!(str_at(v, "benchmark"), "iobench");
}

fn metric(v: &Value, k: &str) -> u64 {
    u64_at(v, &format!("metrics.{k}"))
}

/// No lost or double-counted cycles: per-user cycles add up to the total,
/// and reads, writes and uses are exactly R, W and R per cycle.
fn assert_adds_up(v: &Value, reads: u64, writes: u64) {
    let cycles = metric(v, "cycles");
    assert!(cycles > 0, "no cycles");
    let per_user = get(v, "metrics.per_user").as_array().unwrap();
    let sum: u64 = per_user
        .iter()
        .filter(|u| u["failed"].is_null())
        .map(|u| u["cycles"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, cycles, "per-user cycles != total");
    assert_eq!(op_count(v, "read"), cycles * reads);
    assert_eq!(op_count(v, "write"), cycles * writes);
    assert_eq!(metric(v, "uses"), cycles * reads);
    let per_file: u64 = get(v, "metrics.per_file")
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["uses"].as_u64().unwrap())
        .sum();
    assert_eq!(per_file, cycles * reads);
}

/// The lock manager's count of locks taken equals the users' uses (with
/// locking on), or is zero (SLEEP = -1).
fn assert_locks(v: &Value, locking: bool) {
    let uses = metric(v, "uses");
    if locking {
        assert_eq!(metric(v, "locks_taken"), uses, "locks taken != uses");
        assert_eq!(op_count(v, "lock"), uses);
        let per_file = get(v, "metrics.per_file").as_array().unwrap();
        assert!(per_file.iter().all(|f| f["locks_taken"] == f["uses"]));
    } else {
        assert_eq!(metric(v, "locks_taken"), 0);
        assert_eq!(op_count(v, "lock"), 0);
    }
}

// ---------------------------------------------------------------- parameters

#[test]
fn every_keyword_of_the_control_file_reaches_the_run() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let f1 = files.path().join("data1");
    // the primary file switches to a secondary one that names the files
    std::fs::write(
        cwd.path().join("ctl"),
        "RUN = t1; USERS = 3;\nFILES = 2; NRECS = 100; RECLEN = 1024;\n\
         READS = 4; WRITES = 2; LOCKS = 7; SLEEP = 0; START = 0; END = 0;\n\
         DURATION = 5; WORK = 8; @common\nUSERS = 99;",
    )
    .unwrap();
    std::fs::write(
        cwd.path().join("common"),
        format!("FILE1 = {};\n", f1.display()),
    )
    .unwrap();
    let (v, report) = run_ok(
        cwd.path(),
        &[
            "ctl",
            "--threads",
            "--duration",
            "0.3s",
            "--dir",
            p(dir.path()),
            "--allow-outside",
        ],
    );
    check(&v);
    let c = |k: &str| get(&v, &format!("config.parameters.{k}")).clone();
    assert_eq!(c("run"), "t1");
    assert_eq!(c("users"), 3, "the text after '@' is not read");
    assert_eq!(
        [
            c("files"),
            c("nrecs"),
            c("reclen"),
            c("reads"),
            c("writes"),
            c("locks"),
            c("work")
        ],
        [2, 100, 1024, 4, 2, 7, 8]
    );
    assert_eq!(
        (c("sleep"), c("start"), c("end"), c("duration")),
        (0.0.into(), 0.0.into(), 0.0.into(), 5.0.into())
    );
    assert_eq!(str_at(&v, "config.users_as"), "threads");
    assert_eq!(u64_at(&v, "config.work_iterations_per_read"), 2000);
    assert!(
        (f64_at(&v, "config.duration_s") - 0.3).abs() < 1e-9,
        "--duration overrides DURATION"
    );
    let paths = get(&v, "config.paths").as_array().unwrap();
    assert_eq!(paths[1], p(&f1));
    assert_adds_up(&v, 4, 2);
    assert_locks(&v, true);
    assert!(
        op_count(&v, "cpu") > 0,
        "WORK = 8 burns CPU after each read"
    );
    assert_eq!(metric(&v, "users"), 3);
    // the results file
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    for line in [
        "Started ctl at ",
        "Run id is t1",
        "Number of users = 3",
        "Locks per file = 7",
        "Number of minutes = 0.005",
        "End delay = 0",
        "Work parameter = 8",
        "Reads = 4",
        "Writes = 2",
    ] {
        assert!(results.contains(line), "{line:?} missing from\n{results}");
    }
    assert!(results.contains(&format!("path[1] = {}", f1.display())));
    assert!(
        report.contains("Results written to iobench.results"),
        "{report}"
    );
    // the named file was created for the run and removed after it
    assert!(!f1.exists());
    assert_untouched(dir.path());
}

#[test]
fn control_file_over_environment_over_defaults() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(cwd.path().join("ctl"), "USERS = 2;").unwrap();
    let out = iobench(cwd.path())
        .args([
            "ctl",
            "--threads",
            "--engine",
            "null",
            "--duration",
            "0.1s",
            "--json",
            "-",
        ])
        .args(["--dir", p(dir.path())])
        .env("USERS", "5")
        .env("FILES", "3")
        .env("WORK", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        u64_at(&v, "config.parameters.users"),
        2,
        "control file over environment"
    );
    assert_eq!(
        u64_at(&v, "config.parameters.files"),
        3,
        "environment over default"
    );
    assert_eq!(u64_at(&v, "config.parameters.work"), 1);
    assert_eq!(u64_at(&v, "config.parameters.nrecs"), 1024, "default");
    // --ignore-env: only the control file and the defaults
    let out = iobench(cwd.path())
        .args([
            "ctl",
            "--threads",
            "--engine",
            "null",
            "--duration",
            "0.1s",
            "--json",
            "-",
        ])
        .args(["--ignore-env", "--dir", p(dir.path())])
        .env("FILES", "3")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(u64_at(&v, "config.parameters.files"), 4);
    // a bad environment value is a usage error that says where it came from
    let out = iobench(cwd.path())
        .args(["--threads", "--dir", p(dir.path())])
        .env("NRECS", "lots")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "iogauge: environment variable NRECS=lots: not a whole number"
    );
    assert_untouched(dir.path());
}

#[test]
fn bad_control_files_are_one_line_errors_with_file_and_line() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 7] = [
        (
            "unknown",
            "USERS = 2;\nUSER = 3;\n",
            "unknown:2: unknown keyword 'USER'",
        ),
        (
            "semicolon",
            "USERS = 2\nFILES = 3;\n",
            "semicolon:1: missing ';' after 'USERS = 2'",
        ),
        (
            "writes",
            "READS = 2;\nWRITES = 3;\n",
            "writes:2: WRITES = 3: WRITES must not exceed READS = 2",
        ),
        (
            "number",
            "\n\nNRECS = 1k;",
            "number:3: NRECS = 1k: not a whole number",
        ),
        (
            "sleep",
            "SLEEP = -5;",
            "sleep:1: SLEEP = -5: must be 0 (spin)",
        ),
        (
            "loop",
            "USERS = 2; @loop2",
            "loop2:1: '@loop' switches back to a control file already read",
        ),
        (
            "missing",
            "@nowhere",
            "missing:1: cannot read the control file nowhere",
        ),
    ];
    std::fs::write(cwd.path().join("loop2"), "@loop\n").unwrap();
    for (name, text, want) in cases {
        std::fs::write(cwd.path().join(name), text).unwrap();
        let line = {
            let out = iobench(cwd.path())
                .args([name, "--dir", p(dir.path())])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
            assert!(!stderr.contains("panicked"));
            assert!(out.stdout.is_empty());
            stderr.trim().to_string()
        };
        assert!(
            line.starts_with(&format!("iogauge: {want}")),
            "{name}: {line}"
        );
    }
    // command-line mistakes
    for args in [
        vec!["no-such-control-file"],
        vec!["--spectrum", "USERS"],
        vec!["--spectrum", "USERS=1,x"],
        vec!["--spectrum", "READS=1", "WRITES=2"],
        vec!["--duration", "0"],
        vec!["--fsync", "end"],
        vec!["-o", "/nonexistent/dir/results"],
        vec!["--direct", "--threads"],
    ] {
        let mut a: Vec<&str> = vec!["iobench"];
        a.extend(&args);
        a.extend(["--dir", p(dir.path())]);
        let line = {
            let out = iogauge().current_dir(cwd.path()).args(&a).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            stderr
        };
        assert!(line.starts_with("iogauge: "), "{line}");
    }
    assert!(!cwd.path().join("iobench.results").exists());
    assert_untouched(dir.path());
}

// ---------------------------------------------------------------- the lock manager

/// L = 1 on one file, user processes: the lock manager never lets two users
/// hold the lock at once (each holder records itself beside the lock and
/// checks no one else is there), and the file's max active is 1.
#[test]
fn one_lock_many_user_processes_never_two_holders() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        "USERS = 12; FILES = 1; NRECS = 64; RECLEN = 512; LOCKS = 1; READS = 2; WRITES = 1; WORK = 20;",
    )
    .unwrap();
    let (v, _) = run_ok(
        cwd.path(),
        &[
            "ctl",
            "--verify-locks",
            "--duration",
            "0.5s",
            "--dir",
            p(dir.path()),
        ],
    );
    check(&v);
    assert_eq!(str_at(&v, "config.users_as"), "processes");
    assert_eq!(metric(&v, "lock_violations"), 0);
    let f = &get(&v, "metrics.per_file").as_array().unwrap()[0];
    assert_eq!(f["max_active"], 1);
    assert_adds_up(&v, 2, 1);
    assert_locks(&v, true);
    assert_eq!(metric(&v, "failed_users"), 0);
    assert_untouched(dir.path());
}

/// SLEEP = -1: no locking at all; the same check then sees users overlap
/// (which shows the check can see it).
#[test]
fn sleep_minus_one_disables_locking() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        "USERS = 16; FILES = 1; NRECS = 8; RECLEN = 512; LOCKS = 1; SLEEP = -1; WORK = 200;",
    )
    .unwrap();
    let (v, _) = run_ok(
        cwd.path(),
        &[
            "ctl",
            "--threads",
            "--verify-locks",
            "--duration",
            "0.5s",
            "--dir",
            p(dir.path()),
        ],
    );
    check(&v);
    assert_adds_up(&v, 1, 1);
    assert_locks(&v, false);
    assert!(!get(&v, "ops").as_object().unwrap().contains_key("lock"));
    assert!(
        metric(&v, "lock_violations") > 0,
        "unlocked users never overlapped?"
    );
    assert_untouched(dir.path());
}

/// SLEEP > 0: a busy lock is retried after a sleep; the run still stops on time.
#[test]
fn sleeping_lock_waiters_stop_on_time() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        "USERS = 6; FILES = 1; NRECS = 4; RECLEN = 512; LOCKS = 1; SLEEP = 0.01; END = 0;",
    )
    .unwrap();
    let t = Instant::now();
    let (v, _) = run_ok(
        cwd.path(),
        &[
            "ctl",
            "--threads",
            "--duration",
            "0.4s",
            "--dir",
            p(dir.path()),
        ],
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    check(&v);
    assert_adds_up(&v, 1, 1);
    assert_locks(&v, true);
    let lock = &v["ops"]["lock"]["latency_ns"];
    assert!(
        lock["max"].as_u64().unwrap() >= 10_000_000,
        "someone slept 10 ms: {lock}"
    );
    assert_untouched(dir.path());
}

// ---------------------------------------------------------------- outputs

/// The results file, numbers masked, against tests/fixtures/iobench.
#[test]
fn results_file_layout() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let out = iobench(cwd.path())
        .args([
            "--threads",
            "--engine",
            "null",
            "--duration",
            "0.3s",
            "-t",
            "-s",
            "summary",
        ])
        .args(["--ignore-env", "--dir", p(dir.path())])
        .env("USERS", "9")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    // names of days and months, paths and the build change from run to run
    let mut lines = Vec::new();
    for l in text.lines() {
        let mut l = l.to_string();
        if l.starts_with("path[") {
            l = format!("{} = PATH", l.split(" = ").next().unwrap());
        }
        if l.starts_with("IOBENCH version") {
            l = "IOBENCH version 5.0 of 25 May 1989 (iogauge VERSION)".into();
        }
        for w in [
            "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Jan", "Feb", "Mar", "Apr", "May",
            "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ] {
            if !l.starts_with("IOBENCH version") {
                l = l.replace(&format!("{w} "), "W ");
            }
        }
        lines.push(l);
    }
    let masked = mask(&(lines.join("\n") + "\n"));
    golden("iobench/results.txt", &masked);
    // the summary line: 13 tab-separated fields, inputs first
    let summary = std::fs::read_to_string(cwd.path().join("summary")).unwrap();
    let fields: Vec<&str> = summary.trim_end().split('\t').collect();
    assert_eq!(fields.len(), 13, "{summary:?}");
    assert_eq!(&fields[..7], ["4", "4", "2048", "1024", "1", "1", "0"]);
    assert_eq!(fields[12], "0");
    // the === line agrees with the totals
    let eq = text.lines().find(|l| l.starts_with("=== ")).unwrap();
    let cycles = text
        .lines()
        .find_map(|l| l.strip_prefix("*** Total cycles = "))
        .unwrap();
    let f: Vec<&str> = eq.split(' ').collect();
    assert_eq!(&f[1..5], ["4", "4", "2048", "0"]);
    assert_eq!(f[5], cycles);
    assert_eq!(f[9], "0");
    assert_untouched(dir.path());
}

fn user_pids(parent: u32) -> Vec<u32> {
    // the runner's worker processes: `iogauge worker --fd N --index I`
    children(parent, "worker\0--fd")
}

/// Children of `parent` whose command line contains `needle`.
fn children(parent: u32, needle: &str) -> Vec<u32> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, r)| r.split_whitespace().nth(1))
            .and_then(|x| x.parse::<u32>().ok());
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if ppid == Some(parent) && String::from_utf8_lossy(&cmd).contains(needle) {
            v.push(pid);
        }
    }
    v.sort_unstable();
    v
}

/// A user process killed in the middle of the run is a failed user; the
/// run completes, reports it, and exits 0.
#[test]
fn a_killed_user_process_is_a_failed_user() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let json = cwd.path().join("r.json");
    let mut child = spawnable(cwd.path())
        .args(["--duration", "2s", "--dir", p(dir.path())])
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env("USERS", "4")
        .spawn()
        .unwrap();
    let t = Instant::now();
    let pids = loop {
        let v = user_pids(child.id());
        if v.len() == 4 {
            break v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "users never started: {v:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    std::thread::sleep(Duration::from_millis(600));
    // SAFETY: kill(2) on a grandchild we found by its parent.
    assert_eq!(
        unsafe { libc::kill(pids[1] as libc::pid_t, libc::SIGKILL) },
        0
    );
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0), "{status}");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    check(&v);
    assert_eq!(get(&v, "complete"), &Value::Bool(true));
    assert_eq!(metric(&v, "failed_users"), 1);
    let failed: Vec<&Value> = get(&v, "metrics.per_user")
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| !u["failed"].is_null())
        .collect();
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0]["failed"]
            .as_str()
            .unwrap()
            .contains("killed by signal 9")
    );
    assert_adds_up(&v, 1, 1);
    assert!(
        metric(&v, "locks_taken") > metric(&v, "uses"),
        "the dead user's locks were taken"
    );
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    assert!(results.contains("FAILED: killed by signal 9"), "{results}");
    let eq = results.lines().find(|l| l.starts_with("=== ")).unwrap();
    assert!(eq.ends_with(" 1"), "{eq}");
    assert_untouched(dir.path());
}

/// Ctrl-C or SIGTERM: users stop within a second, user processes are gone,
/// files are removed, the partial result is written, exit code 130.
fn interrupt(sig: libc::c_int, threads: bool) {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let json = cwd.path().join("r.json");
    let mut cmd = spawnable(cwd.path());
    cmd.args(["--duration", "30s", "--dir", p(dir.path())])
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .env("USERS", "5");
    if threads {
        cmd.arg("--threads");
    }
    let mut child = cmd.spawn().unwrap();
    // wait for the five users (processes, or threads of the controller)
    let t = Instant::now();
    let users = loop {
        let procs = user_pids(child.id());
        let threads_up =
            std::fs::read_dir(format!("/proc/{}/task", child.id())).map_or(0, |d| d.count());
        if (threads && threads_up > 5) || procs.len() == 5 {
            break procs;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the users never started"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(10));
    };
    std::thread::sleep(Duration::from_millis(700));
    let (status, took) = signal_and_wait(&mut child, sig);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(took < Duration::from_secs(2), "took {took:?} to stop");
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for pid in users {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| s.contains(") Z")),
            "user process {pid} outlived the run"
        );
    }
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    check(&v);
    assert_eq!(get(&v, "complete"), &Value::Bool(false));
    assert!(metric(&v, "cycles") > 0);
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    assert!(
        results.contains("INCOMPLETE RUN (interrupted)"),
        "{results}"
    );
    assert_untouched(dir.path());
}

#[test]
fn sigint_stops_user_processes_and_writes_a_partial_result() {
    interrupt(libc::SIGINT, false);
}

#[test]
fn sigterm_stops_user_threads_and_writes_a_partial_result() {
    interrupt(libc::SIGTERM, true);
}

// ---------------------------------------------------------------- files, metering, spectrum

/// FILEk outside the work directory: only with --allow-outside, and an
/// existing file only with --allow-existing too. A path that does not
/// exist is created and removed; an existing file is used and kept; one
/// that is too small is refused.
#[test]
fn named_files_create_only_what_is_missing_and_remove_only_that() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let (new, old) = (data.path().join("new"), data.path().join("old"));
    let content: Vec<u8> = (0..64 * 512u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&old, &content).unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        format!(
            "FILES = 2; NRECS = 64; RECLEN = 512; USERS = 2;\nFILE0 = {};\nFILE1 = {};\n",
            new.display(),
            old.display()
        ),
    )
    .unwrap();
    let base = [
        "ctl",
        "--threads",
        "--duration",
        "0.2s",
        "--dir",
        p(dir.path()),
    ];
    for (extra, says) in [
        (&[][..], "--allow-outside to create the file"),
        (
            &["--allow-outside"][..],
            "give --allow-existing to use that file",
        ),
    ] {
        let out = iobench(cwd.path()).args(base).args(extra).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("ctl:2: FILE0") || err.contains("ctl:3: FILE1"),
            "{err}"
        );
        assert!(err.contains(says), "{err}");
        assert!(!new.exists());
        assert_eq!(std::fs::read(&old).unwrap(), content);
    }
    let (v, _) = run_ok(
        cwd.path(),
        &[
            "ctl",
            "--threads",
            "--duration",
            "0.2s",
            "--dir",
            p(dir.path()),
            "--allow-outside",
            "--allow-existing",
        ],
    );
    check(&v);
    assert!(!new.exists(), "the file the run created is removed");
    // records are written back with what was read: the user's file is unchanged
    assert_eq!(std::fs::read(&old).unwrap(), content);
    // a file too small for NRECS × RECLEN is not grown
    std::fs::write(&old, b"short").unwrap();
    let out = iobench(cwd.path())
        .args(base)
        .args(["--allow-outside", "--allow-existing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("FILE1") && err.contains("fewer than NRECS × RECLEN"),
        "{err}"
    );
    assert_eq!(std::fs::read(&old).unwrap(), b"short");
    assert!(!new.exists());
    assert_untouched(dir.path());
}

/// FILEk a symbolic link to nothing (issue 33): refused as bad input,
/// naming the link and where it points (it was "cannot create ...: File
/// exists", exit 1); the link and its directory are left as they were.
#[test]
fn a_named_file_that_is_a_dangling_link_is_refused() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let link = data.path().join("FILE0");
    let target = data.path().join("gone/away");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        format!(
            "FILES = 1; NRECS = 64; RECLEN = 512; USERS = 1;\nFILE0 = {};\n",
            link.display()
        ),
    )
    .unwrap();
    let line = {
        let out = iobench(cwd.path())
            .args(["ctl", "--threads", "--duration", "0.2s", "--allow-outside"])
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains("FILE0")
            && line.contains("symbolic link")
            && line.contains(&target.display().to_string())
            && !line.contains("File exists"),
        "{line}"
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    assert!(!target.exists());
    assert_untouched(dir.path());
}

#[test]
fn usage_metering_runs_beside_the_run() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(cwd.path().join("ctl"), "END = 0;").unwrap();
    let t = Instant::now();
    let (v, _) = run_ok(
        cwd.path(),
        &[
            "ctl",
            "--threads",
            "--engine",
            "null",
            "--duration",
            "0.3s",
            "-u",
            "echo metering started; sleep 30",
            "--dir",
            p(dir.path()),
        ],
    );
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "the meter was not stopped"
    );
    check(&v);
    let usage = std::fs::read_to_string(cwd.path().join("iobench.usage")).unwrap();
    assert!(usage.contains("metering started"), "{usage:?}");
    assert_untouched(dir.path());
}

#[test]
fn a_spectrum_runs_the_cross_product() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let out = iobench(cwd.path())
        .args([
            "--threads",
            "--duration",
            "0.15s",
            "-s",
            "sum.tsv",
            "--json",
            "spectrum.json",
        ])
        .args(["--dir", p(dir.path())])
        .args(["--spectrum", "FILES=1,2", "USERS=2,3", "WORK=0,5"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sum = std::fs::read_to_string(cwd.path().join("sum.tsv")).unwrap();
    let lines: Vec<Vec<&str>> = sum.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 8, "{sum}");
    // first key slowest: FILES, USERS, WORK
    let inputs: Vec<(&str, &str, &str)> = lines.iter().map(|l| (l[0], l[1], l[6])).collect();
    assert_eq!(inputs[0], ("1", "2", "0"));
    assert_eq!(inputs[1], ("1", "2", "5"));
    assert_eq!(inputs[2], ("1", "3", "0"));
    assert_eq!(inputs[7], ("2", "3", "5"));
    assert!(
        lines
            .iter()
            .all(|l| l.len() == 13 && l[7].parse::<f64>().unwrap() > 0.0)
    );
    assert_eq!(
        stdout.lines().filter(|l| l.contains('\t')).count(),
        9,
        "{stdout}"
    );
    let svg = std::fs::read_to_string(cwd.path().join("iobench-results.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("MB of data"),
        "{svg}"
    );
    let v: Value =
        serde_json::from_slice(&std::fs::read(cwd.path().join("spectrum.json")).unwrap()).unwrap();
    assert_eq!(str_at(&v, "schema"), "iogauge/iobench-spectrum/v1");
    let runs = get(&v, "entries").as_array().unwrap();
    assert_eq!(runs.len(), 8);
    for r in runs {
        check(&r["result"]);
        assert!(r["figure"].as_f64().unwrap() > 0.0);
        assert_eq!(r["unit"], "MB");
    }
    assert_eq!(runs[7]["name"], "FILES=2 USERS=3 WORK=5");
    assert_eq!(get(&v, "complete"), &Value::Bool(true));
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    assert_eq!(results.matches("\n=== ").count(), 8);
    assert_untouched(dir.path());
}

// ---------------------------------------------------------------- scale

/// Many users, threads and processes: nothing lost or counted twice.
#[test]
fn many_users_add_up() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    for (users, threads) in [(300, true), (60, false)] {
        std::fs::write(
            cwd.path().join("ctl"),
            format!("USERS = {users}; FILES = 4; NRECS = 256; RECLEN = 1024; READS = 3; WRITES = 1; LOCKS = 16;"),
        )
        .unwrap();
        let mut args = vec!["ctl", "--duration", "0.5s", "--dir", p(dir.path())];
        if threads {
            args.push("--threads");
        }
        let (v, _) = run_ok(cwd.path(), &args);
        check(&v);
        assert_eq!(metric(&v, "failed_users"), 0);
        assert_eq!(get(&v, "metrics.per_user").as_array().unwrap().len(), users);
        assert_adds_up(&v, 3, 1);
        assert_locks(&v, true);
        let mb = f64_at(&v, "metrics.mb_processed");
        let want = metric(&v, "cycles") as f64 * 4.0 * 1024.0 / 1e6;
        assert!((mb - want).abs() < 1e-6, "{mb} vs {want}");
    }
    assert_untouched(dir.path());
}

#[test]
fn help_lists_the_options() {
    let out = iogauge().args(["iobench", "--help"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "-o",
        "-s",
        "-t",
        "-u",
        "--duration",
        "--threads",
        "--spectrum",
        "--dir",
        "--json",
        "[CONTROL]",
    ] {
        assert!(text.contains(flag), "{flag} missing from\n{text}");
    }
    assert!(!text.contains("verify-locks"));
    // the worker mode is hidden
    let top = String::from_utf8(iogauge().arg("--help").output().unwrap().stdout).unwrap();
    assert!(
        top.contains("iobench") && !top.lines().any(|l| l.trim_start().starts_with("worker")),
        "{top}"
    );
}

/// The ioserver's message queues (named in the result) no longer exist.
fn assert_queues_removed(v: &Value) {
    let queues = std::fs::read_to_string("/proc/sysvipc/msg").unwrap();
    for q in get(v, "metrics.server.queue_ids").as_array().unwrap() {
        let id = q.as_u64().unwrap().to_string();
        assert!(
            !queues
                .lines()
                .skip(1)
                .any(|l| l.split_whitespace().nth(1) == Some(&id)),
            "queue {id} left behind: {queues}"
        );
    }
}

/// The `*** NAME = x` figure of a results file.
fn stars(results: &str, name: &str) -> f64 {
    results
        .lines()
        .find_map(|l| l.strip_prefix(&format!("*** {name} = ")))
        .unwrap_or_else(|| panic!("no '*** {name}' in {results}"))
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Variant 1: every lock goes through the ioserver, which counts it; its
/// CPU is reported and adds into the total.
#[test]
fn variant_1_locks_through_the_ioserver() {
    let _one = one_server_at_a_time();
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        "USERS = 4; FILES = 2; NRECS = 64; RECLEN = 512; LOCKS = 4; READS = 2; END = 0;",
    )
    .unwrap();
    let (v, _) = run_ok(
        cwd.path(),
        &[
            "ctl",
            "--server",
            "--duration",
            "1s",
            "--dir",
            p(dir.path()),
        ],
    );
    check(&v);
    assert_eq!(u64_at(&v, "config.variant"), 1);
    let cycles = metric(&v, "cycles");
    assert!(cycles > 0);
    assert_adds_up(&v, 2, 1);
    // users asked, the server answered, the lock manager counted: all agree
    let asked = metric(&v, "lock_requests");
    assert_eq!(asked, cycles * 2);
    assert_eq!(u64_at(&v, "metrics.server.lock_requests"), asked);
    assert_eq!(metric(&v, "locks_taken"), asked);
    assert_eq!(op_count(&v, "lock"), asked);
    assert_eq!(
        u64_at(&v, "metrics.server.granted_at_once")
            + u64_at(&v, "metrics.server.granted_after_wait"),
        asked
    );
    assert_eq!(u64_at(&v, "metrics.server.unlocks"), asked);
    assert_eq!(u64_at(&v, "metrics.server.bad"), 0);
    assert!(get(&v, "metrics.server.died").is_null());
    let server_cp = f64_at(&v, "metrics.server_cp_seconds");
    let elapsed = f64_at(&v, "elapsed_s");
    assert!(
        server_cp > 0.0 && server_cp <= elapsed,
        "{server_cp} of {elapsed}"
    );
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    assert!(
        results.contains("\nVariant is 1 (locking in ioserver"),
        "{results}"
    );
    let (user, server, total) = (
        stars(&results, "User   CP seconds"),
        stars(&results, "Server CP seconds"),
        stars(&results, "Total CP seconds"),
    );
    assert!(
        server > 0.0 && (server - server_cp).abs() < 0.0015,
        "{server} {server_cp}"
    );
    assert!(
        (user + server - total).abs() < 0.0025,
        "{user} + {server} != {total}"
    );
    assert!(results.contains("ioserver (pid "), "{results}");
    assert_queues_removed(&v);
    assert_untouched(dir.path());
}

/// Variant 1 keeps mutual exclusion (one lock, users as threads, checked
/// beside the server), and SLEEP > 0 is answered "busy" and retried.
#[test]
fn variant_1_one_lock_never_two_holders_and_busy_retries() {
    let _one = one_server_at_a_time();
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    for sleep in ["0", "0.001"] {
        let out = iobench(cwd.path())
            .args([
                "--server",
                "--threads",
                "--verify-locks",
                "--duration",
                "0.5s",
            ])
            .args(["--json", "-", "--dir", p(dir.path())])
            .env("USERS", "6")
            .env("FILES", "1")
            .env("LOCKS", "1")
            .env("END", "0")
            .env("SLEEP", sleep)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(metric(&v, "lock_violations"), 0, "SLEEP = {sleep}");
        let taken = metric(&v, "locks_taken");
        assert!(taken > 0);
        assert_eq!(taken, op_count(&v, "lock"));
        assert_eq!(
            u64_at(&v, "metrics.server.lock_requests"),
            metric(&v, "lock_requests")
        );
        let busy = u64_at(&v, "metrics.server.busy");
        if sleep == "0" {
            // a busy lock is queued at the server and granted on release
            assert_eq!(busy, 0);
            assert_eq!(metric(&v, "lock_requests"), taken);
        } else {
            assert_eq!(u64_at(&v, "metrics.server.granted_after_wait"), 0);
            assert!(busy > 0, "six users on one lock never found it busy");
            assert_eq!(metric(&v, "lock_requests"), taken + busy);
        }
    }
    assert_untouched(dir.path());
}

/// The ioserver killed mid-run: the run ends at once with exit 1, the
/// partial result, no user process left, no queue, nothing on disk.
#[test]
fn a_killed_ioserver_ends_the_run() {
    let _one = one_server_at_a_time();
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let json = cwd.path().join("r.json");
    let mut child = spawnable(cwd.path())
        .args(["--server", "--duration", "30s", "--dir", p(dir.path())])
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .env("USERS", "4")
        .spawn()
        .unwrap();
    let t = Instant::now();
    let (users, server) = loop {
        let (u, s) = (
            user_pids(child.id()),
            children(child.id(), "worker\0--service\0iobench-server"),
        );
        if u.len() == 4 && s.len() == 1 {
            break (u, s[0]);
        }
        assert!(t.elapsed() < Duration::from_secs(10), "no run: {u:?} {s:?}");
        std::thread::sleep(Duration::from_millis(10));
    };
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on a grandchild we found by its parent.
    assert_eq!(
        unsafe { libc::kill(server as libc::pid_t, libc::SIGKILL) },
        0
    );
    let killed = Instant::now();
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert!(
        killed.elapsed() < Duration::from_secs(5),
        "{:?}",
        killed.elapsed()
    );
    assert_eq!(status.code(), Some(1), "{status}");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("the ioserver (pid "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(get(&v, "complete"), &Value::Bool(false));
    assert!(str_at(&v, "error").contains("killed by signal 9"), "{v}");
    assert_eq!(str_at(&v, "metrics.server.died"), "killed by signal 9");
    assert!(
        metric(&v, "cycles") > 0,
        "the partial result holds what ran"
    );
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    assert!(
        results.contains("INCOMPLETE RUN (the ioserver"),
        "{results}"
    );
    for u in users {
        assert!(
            !Path::new(&format!("/proc/{u}")).exists(),
            "user process {u} outlived the run"
        );
    }
    assert_queues_removed(&v);
    assert_untouched(dir.path());
}

#[test]
fn server_without_locking_is_refused() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let ctl = cwd.path().join("ctl");
    std::fs::write(&ctl, "SLEEP = -1;").unwrap();
    let line = assert_usage_error(&["iobench", p(&ctl), "--server", "--dir", p(dir.path())]);
    assert!(
        line.contains("--server does the locking in the ioserver"),
        "{line}"
    );
    assert_untouched(dir.path());
    assert_eq!(
        std::fs::read_dir(cwd.path()).unwrap().count(),
        1,
        "only ctl"
    );
}

/// `CP load/cycle` is the measured CPU of the CP work over the cycles, and
/// close to the calibration on an idle CPU.
#[test]
fn cp_load_per_cycle_is_measured() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let mut c = iobench(cwd.path());
    let out = c
        .args(["--threads", "--engine", "null", "--duration", "0.5s"])
        .args(["--json", "-", "--dir", p(dir.path())])
        .env("USERS", "1")
        .env("WORK", "50")
        .env("END", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cycles = metric(&v, "cycles") as f64;
    let sampled = metric(&v, "work_sampled_cycles") as f64;
    // every 8th transaction of each user is sampled
    assert!(sampled >= (cycles / 8.0).floor() && sampled <= cycles / 8.0 + 1.0);
    let work = f64_at(&v, "metrics.work_cpu_seconds");
    let load = f64_at(&v, "metrics.cp_load_per_cycle_s");
    let calibrated = f64_at(&v, "metrics.cp_load_calibrated_s");
    assert!(load > 0.0);
    assert!(
        (load - work / sampled).abs() < 1e-12,
        "{load} {work} {sampled}"
    );
    assert!(
        load > calibrated / 5.0 && load < calibrated * 5.0,
        "measured {load} s against {calibrated} s calibrated"
    );
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    let line = results
        .lines()
        .find_map(|l| l.strip_prefix("CP load/cycle = "))
        .unwrap();
    let printed: f64 = line.split_whitespace().next().unwrap().parse().unwrap();
    assert!(printed > 0.0, "{line}");
    assert!((printed - load).abs() <= 0.5e-6, "{printed} against {load}");
    assert_untouched(dir.path());
}

/// The `-t` table keeps its bars aligned when a bucket holds millions.
#[test]
fn the_distribution_table_stays_aligned() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let mut c = iobench(cwd.path());
    let out = c
        .args([
            "--threads",
            "--engine",
            "null",
            "--duration",
            "0.6s",
            "-t",
            "-q",
        ])
        .args(["--dir", p(dir.path())])
        .env("USERS", "1")
        .env("END", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = std::fs::read_to_string(cwd.path().join("iobench.results")).unwrap();
    let lines: Vec<&str> = results
        .lines()
        .skip_while(|l| !l.starts_with("*** Response time distribution table"))
        .skip(1)
        .take(9)
        .collect();
    assert_eq!(lines.len(), 9, "{results}");
    let bars = |l: &str| {
        l.char_indices()
            .filter(|&(_, c)| c == '|')
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    };
    for g in lines.chunks(3) {
        assert_eq!(bars(g[0]), bars(g[1]), "{results}");
        assert_eq!(bars(g[0]), bars(g[2]), "{results}");
    }
    assert_untouched(dir.path());
}

/// The terminal summary is rendered from the result: `iogauge show`
/// prints it again, with users as processes or threads, with the
/// ioserver's lines and the lock check; the figures it prints are the
/// result's.
#[test]
fn show_prints_the_summary_again() {
    let _one = one_server_at_a_time();
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let ctl = cwd.path().join("ctl");
    std::fs::write(
        &ctl,
        "USERS = 2; FILES = 2; NRECS = 64; RECLEN = 512; LOCKS = 4; READS = 2; END = 0;",
    )
    .unwrap();
    let results = cwd.path().join("r.results");
    let run = [
        "iobench",
        p(&ctl),
        "--ignore-env",
        "--duration",
        "0.3s",
        "--dir",
        p(dir.path()),
        "-o",
        p(&results),
    ];
    for extra in [
        &[][..],
        &["--threads"],
        &["--threads", "--server", "--verify-locks"],
    ] {
        let (v, report) = assert_show_repeats(&[&run[..], extra].concat());
        let tps = f64_at(&v, "metrics.transactions_per_s");
        let line = format!("*** Transactions per Second = {tps:.3}");
        assert!(report.contains(&line), "{line}: {report}");
        let cycles = format!("*** Total cycles = {}", metric(&v, "cycles"));
        assert!(report.contains(&cycles), "{cycles}: {report}");
        let written = format!("Results written to {}\n", results.display());
        assert!(report.ends_with(&written), "{report}");
        assert_eq!(
            report.contains("ioserver (pid"),
            extra.contains(&"--server")
        );
        assert_eq!(
            report.contains("Lock check: 0"),
            extra.contains(&"--verify-locks")
        );
        assert_eq!(report.contains("largest user process"), extra.is_empty());
    }
    assert_untouched(dir.path());
}

// ---------------------------------------------------------------- message queues of killed runs

/// The message queues (ids) that one of `pids` last sent to or received
/// from, from /proc/sysvipc/msg.
fn queues_touched_by(pids: &[u32]) -> Vec<i32> {
    let table = std::fs::read_to_string("/proc/sysvipc/msg").unwrap();
    table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let pid = |i: usize| f.get(i).and_then(|x| x.parse::<u32>().ok());
            let touched = [pid(5), pid(6)]
                .into_iter()
                .flatten()
                .any(|p| pids.contains(&p));
            touched.then(|| f[1].parse().ok()).flatten()
        })
        .collect()
}

fn queue_exists(id: i32) -> bool {
    std::fs::read_to_string("/proc/sysvipc/msg")
        .unwrap()
        .lines()
        .skip(1)
        .any(|l| l.split_whitespace().nth(1) == Some(&id.to_string()))
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|c| {
            std::fs::read_to_string(format!("/proc/{c}/stat"))
                .ok()
                .and_then(|s| {
                    let rest = &s[s.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(pid)
        })
        .collect()
}

/// The tests that start an ioserver run one at a time: a run reclaims the
/// queues that dead runs left, and the tests look at those queues.
fn one_server_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static SERVERS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERVERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// An `iobench --server` run with users as threads, long enough to be
/// killed: the controller, its ioserver's pid and the two queues.
// the caller kills and waits for the controller it is handed
#[allow(clippy::zombie_processes)]
fn serving(cwd: &Path, dir: &Path) -> (std::process::Child, u32, Vec<i32>) {
    std::fs::write(
        cwd.join("ctl"),
        "USERS = 2; FILES = 1; NRECS = 64; RECLEN = 512; LOCKS = 1; END = 0;",
    )
    .unwrap();
    let mut child = spawnable(cwd)
        .args(["ctl", "--server", "--threads", "--duration", "60s"])
        .args(["--dir", p(dir)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ctl = child.id();
    let t = Instant::now();
    loop {
        let kids = children_of(ctl);
        if let Some(&server) = kids.first() {
            let q = queues_touched_by(&[ctl, server]);
            if q.len() >= 2 {
                return (child, server, q);
            }
        }
        if t.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the ioserver never served");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Remove what a failed test left (queues) and stop what it started.
fn sweep(queues: &[i32], pids: &[u32]) {
    for &q in queues {
        // SAFETY: IPC_RMID takes no buffer.
        unsafe { libc::msgctl(q, libc::IPC_RMID, std::ptr::null_mut()) };
    }
    for &pid in pids {
        // SAFETY: signalling a process this test started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
}

/// Issue 33: SIGKILL of `iobench --server` leaked both System V message
/// queues. The ioserver now removes them when its controller dies.
#[test]
fn sigkill_of_the_controller_takes_the_ioservers_queues_with_it() {
    let _one = one_server_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let (mut child, server, queues) = serving(cwd.path(), dir.path());
    // SAFETY: signalling the process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    let t = Instant::now();
    while queues.iter().any(|&q| queue_exists(q)) && t.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let left: Vec<i32> = queues
        .iter()
        .copied()
        .filter(|&q| queue_exists(q))
        .collect();
    sweep(&left, &[server]);
    assert!(left.is_empty(), "queues {left:?} outlived the killed run");
}

/// Issue 33: queues of a run killed together with its ioserver (neither
/// could remove them) are removed by the next `--server` run, which
/// leaves every other queue alone.
#[test]
fn queues_left_by_a_run_killed_whole_are_reclaimed_by_the_next_one() {
    let _one = one_server_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let (mut child, server, queues) = serving(cwd.path(), dir.path());
    // the server is stopped so that it cannot clean up, then both die
    // SAFETY: signalling processes this test started.
    unsafe {
        libc::kill(server as i32, libc::SIGSTOP);
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    child.wait().unwrap();
    // SAFETY: as above.
    unsafe { libc::kill(server as i32, libc::SIGKILL) };
    let t = Instant::now();
    while Path::new(&format!("/proc/{server}")).exists() && t.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        queues.iter().all(|&q| queue_exists(q)),
        "the killed run removed its queues itself"
    );
    // someone else's queue
    // SAFETY: msgget with IPC_PRIVATE makes a new queue; removed below.
    let other = unsafe { libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600) };
    let out = iobench(cwd.path())
        .args(["ctl", "--server", "--threads", "--duration", "0.2s"])
        .args(["--dir", p(dir.path())])
        .output()
        .unwrap();
    let left: Vec<i32> = queues
        .iter()
        .copied()
        .filter(|&q| queue_exists(q))
        .collect();
    let other_kept = queue_exists(other);
    sweep(&left, &[]);
    sweep(&[other], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        left.is_empty(),
        "queues {left:?} of the killed run were not reclaimed"
    );
    assert!(other_kept, "a queue iogauge did not make was removed");
}
