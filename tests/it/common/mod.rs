#![allow(dead_code)]
//! Helpers for the command-line integration tests: running the binary,
//! checking the result schema and its internal consistency, directory
//! snapshots, and golden files with the volatile numbers masked.

pub mod faultfs;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Contents of the file that every test puts in `--dir` beforehand.
pub const KEEP_CONTENT: &[u8] = b"someone else's data\n";

/// The binary under test.
pub fn iogauge() -> Command {
    Command::cargo_bin("iogauge").expect("the iogauge binary is built")
}

/// Path of the binary, for tests that spawn it themselves (signals).
pub fn bin_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_iogauge"))
}

/// A fresh directory holding one file, `keep`, and one sub-directory with a
/// file, that no run may touch.
pub fn work_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(d.path().join("keep"), KEEP_CONTENT).unwrap();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    std::fs::write(d.path().join("sub/inner"), b"inner\n").unwrap();
    d
}

/// Every path under `dir` (relative, sorted), directories included.
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            out.push(p.strip_prefix(root).unwrap().display().to_string());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                walk(root, &p, out);
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, dir, &mut v);
    v.sort();
    v
}

/// The run left nothing behind in a [`work_dir`] and touched nothing of
/// what was there.
pub fn assert_untouched(dir: &Path) {
    assert_eq!(
        tree(dir),
        ["keep", "sub", "sub/inner"],
        "the run left something behind (or removed something) in {}",
        dir.display()
    );
    assert_eq!(std::fs::read(dir.join("keep")).unwrap(), KEEP_CONTENT);
    assert_eq!(std::fs::read(dir.join("sub/inner")).unwrap(), b"inner\n");
}

/// A temporary path as a command-line argument.
pub fn p(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// Run with `--json -` and return the parsed JSON and stderr (the report).
/// The command must succeed and print nothing but JSON on stdout.
pub fn run_json(args: &[&str]) -> (Value, String) {
    let out = iogauge().args(args).args(["--json", "-"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "iogauge {args:?} failed with {}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout of iogauge {args:?} is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (v, stderr)
}

/// The arguments of `cmd` in `dir` on `engine` with `--iodepth depth`,
/// then `args`.
pub fn queued_args<'a>(
    cmd: &'a str,
    dir: &'a str,
    engine: &'a str,
    depth: &'a str,
    args: &[&'a str],
) -> Vec<&'a str> {
    let mut all = vec![cmd, "--dir", dir, "--engine", engine, "--iodepth", depth];
    all.extend_from_slice(args);
    all
}

/// `cmd` in a new [`work_dir`] on `engine` at `depth`, then `args`: its
/// result, checked against the shared contract, and its report. The
/// directory must be left as it was found.
pub fn run_queued(cmd: &str, engine: &str, depth: &str, args: &[&str]) -> (Value, String) {
    let dir = work_dir();
    let (v, report) = run_json(&queued_args(cmd, p(dir.path()), engine, depth, args));
    check_result(&v);
    assert_untouched(dir.path());
    (v, report)
}

/// Run `args` with `--json` to a file, then `iogauge show` that file: it
/// must print the very report the run printed. Returns the result and the
/// report.
pub fn assert_show_repeats(args: &[&str]) -> (Value, String) {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("result.json");
    let out = iogauge()
        .args(args)
        .args(["--json", p(&json)])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "iogauge {args:?} failed with {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = iogauge().args(["show", p(&json)]).output().unwrap();
    assert!(
        shown.status.success(),
        "iogauge show failed after {args:?}: {}",
        String::from_utf8_lossy(&shown.stderr)
    );
    // the warnings after a report depend on the machine's load and memory:
    // the report is compared without them
    let report = strip_warnings(&report);
    assert_eq!(
        strip_warnings(&String::from_utf8_lossy(&shown.stdout)),
        report,
        "iogauge show printed another report than iogauge {args:?}"
    );
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (v, report)
}

/// `text` without iogauge's `warning: …` lines (whose figures depend on
/// the machine's load and memory at the time).
pub fn strip_warnings(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| !l.starts_with("warning: "))
        .collect()
}

/// Bad usage or input: exit code 2, exactly one line on stderr starting with
/// `iogauge:`, no panic, nothing on stdout. Returns that line.
pub fn assert_usage_error(args: &[&str]) -> String {
    usage_error_line(args, &iogauge().args(args).output().unwrap())
}

/// [`assert_usage_error`] of `out`, the output of `iogauge args` run some
/// other way (under a seccomp filter, say).
pub fn usage_error_line(args: &[&str], out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(2),
        "iogauge {args:?}: expected exit code 2, got {}; stderr: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "iogauge {args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "iogauge {args:?}: expected one line on stderr, got {stderr:?}"
    );
    assert!(
        lines[0].starts_with("iogauge: "),
        "iogauge {args:?}: {stderr:?}"
    );
    assert!(
        out.stdout.is_empty(),
        "iogauge {args:?} printed on stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    lines[0].to_string()
}

pub fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |v, k| {
        v.get(k)
            .unwrap_or_else(|| panic!("the result has no {path} (missing {k:?})"))
    })
}

pub fn u64_at(v: &Value, path: &str) -> u64 {
    get(v, path)
        .as_u64()
        .unwrap_or_else(|| panic!("{path} is not an unsigned integer: {}", get(v, path)))
}

pub fn f64_at(v: &Value, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number: {}", get(v, path)))
}

pub fn str_at<'a>(v: &'a Value, path: &str) -> &'a str {
    get(v, path)
        .as_str()
        .unwrap_or_else(|| panic!("{path} is not a string: {}", get(v, path)))
}

/// Count of op kind `kind`, 0 when the result has none.
pub fn op_count(v: &Value, kind: &str) -> u64 {
    v["ops"]
        .get(kind)
        .map_or(0, |o| o["count"].as_u64().unwrap())
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) + 1e-9
}

/// Check a `iogauge/result/v1` document: every field of the contract is
/// there with the right type, and the figures agree with each other.
pub fn check_result(v: &Value) {
    assert_eq!(str_at(v, "schema"), "iogauge/result/v1");
    assert_eq!(str_at(v, "tool.name"), "iogauge");
    assert_eq!(str_at(v, "tool.version"), env!("CARGO_PKG_VERSION"));
    assert!(!str_at(v, "tool.commit").is_empty());
    assert!(!str_at(v, "benchmark").is_empty());
    assert!(get(v, "config").is_object(), "config is not an object");

    for f in [
        "hostname",
        "os",
        "cpu_model",
        "mount_options",
        "device",
        "target_dir",
    ] {
        str_at(v, &format!("environment.{f}"));
    }
    assert!(!str_at(v, "environment.kernel").is_empty());
    // a run on a raw block device has no file system
    assert!(
        !str_at(v, "environment.fs_type").is_empty()
            || get(v, "environment").get("block_device").is_some(),
        "environment.fs_type is empty"
    );
    assert!(u64_at(v, "environment.cpus") >= 1);
    assert!(u64_at(v, "environment.memory_bytes") > 0);

    // RFC 3339, UTC, seconds: 2025-01-31T12:34:56Z
    let t = str_at(v, "started_at");
    let shape_ok = t.len() == 20
        && t.chars().enumerate().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == 'T',
            13 | 16 => c == ':',
            19 => c == 'Z',
            _ => c.is_ascii_digit(),
        });
    assert!(shape_ok, "started_at {t:?} is not RFC 3339 UTC");

    let elapsed = f64_at(v, "elapsed_s");
    assert!(elapsed >= 0.0);
    assert!(get(v, "complete").is_boolean());

    // summary
    let ops = u64_at(v, "summary.ops");
    let br = u64_at(v, "summary.bytes_read");
    let bw = u64_at(v, "summary.bytes_written");
    // per worker-second, never clamped: above 1 only when calls overlap
    // within a worker, which no command here does
    let io = f64_at(v, "summary.io_time_fraction");
    assert!((0.0..=1.02).contains(&io), "io_time_fraction {io}");
    assert!(u64_at(v, "summary.workers") >= 1 || !get(v, "complete").as_bool().unwrap());
    assert!(f64_at(v, "summary.cpu_user_s") >= 0.0);
    assert!(f64_at(v, "summary.cpu_sys_s") >= 0.0);
    for (rate, total) in [
        ("ops_per_s", ops),
        ("read_bytes_per_s", br),
        ("write_bytes_per_s", bw),
    ] {
        let r = f64_at(v, &format!("summary.{rate}"));
        assert!(r >= 0.0, "summary.{rate} = {r}");
        if elapsed > 0.0 {
            assert!(
                close(r, total as f64 / elapsed, 1e-6),
                "summary.{rate} = {r}, but {total} / {elapsed} s = {}",
                total as f64 / elapsed
            );
        }
    }

    // ops per kind
    let kinds = get(v, "ops").as_object().expect("ops is an object");
    let mut sum = 0;
    for (kind, o) in kinds {
        let count = o["count"].as_u64().expect("count");
        o["bytes"].as_u64().expect("bytes");
        // I/Os only: a whole transaction spans ops counted on their own,
        // and locks and CPU work are no I/O (docs/measurement.md)
        if !matches!(kind.as_str(), "transaction" | "lock" | "unlock" | "cpu") {
            sum += count;
        }
        let lat = &o["latency_ns"];
        let names = ["min", "p50", "p90", "p95", "p99", "p999", "p9999", "max"];
        let vals: Vec<f64> = names
            .iter()
            .map(|n| {
                lat[n]
                    .as_f64()
                    .unwrap_or_else(|| panic!("ops.{kind}.latency_ns.{n} missing"))
            })
            .collect();
        let mean = lat["mean"].as_f64().expect("mean");
        let stddev = lat["stddev"].as_f64().expect("stddev");
        assert!(stddev >= 0.0, "ops.{kind}: stddev {stddev}");
        if count == 0 {
            continue;
        }
        // HDR histograms keep 3 significant digits: allow 0.1 % (+1 ns)
        for i in 1..names.len() {
            assert!(
                vals[i - 1] <= vals[i] * 1.001 + 1.0,
                "ops.{kind}.latency_ns: {} = {} > {} = {}",
                names[i - 1],
                vals[i - 1],
                names[i],
                vals[i]
            );
        }
        assert!(
            vals[0] <= mean + 1.0 && mean <= vals[7] + 1.0,
            "ops.{kind}: mean {mean} outside [min, max] = [{}, {}]",
            vals[0],
            vals[7]
        );
    }
    assert_eq!(
        ops, sum,
        "summary.ops != sum of ops[*].count (transactions, locks and CPU work aside)"
    );
    let bytes_of = |k: &str| kinds.get(k).map_or(0, |o| o["bytes"].as_u64().unwrap());
    assert_eq!(br, bytes_of("read"), "summary.bytes_read != ops.read.bytes");
    assert_eq!(
        bw,
        bytes_of("write") + bytes_of("append") + bytes_of("create"),
        "summary.bytes_written != the bytes of ops write, append and create"
    );

    assert!(get(v, "metrics").is_object(), "metrics is not an object");

    // time series
    assert!(f64_at(v, "timeseries.interval_s") > 0.0);
    let series = |k: &str| -> Vec<u64> {
        get(v, &format!("timeseries.{k}"))
            .as_array()
            .unwrap_or_else(|| panic!("timeseries.{k} is not an array"))
            .iter()
            .map(|x| x.as_u64().expect("a count"))
            .collect()
    };
    let (ts_ops, ts_bytes) = (series("ops"), series("bytes"));
    assert_eq!(ts_ops.len(), ts_bytes.len());
    assert_eq!(
        ts_ops.iter().sum::<u64>(),
        ops,
        "sum(timeseries.ops) != summary.ops"
    );
    assert_eq!(
        ts_bytes.iter().sum::<u64>(),
        br + bw,
        "sum(timeseries.bytes) != bytes read + written"
    );
}

/// Mask what changes from run to run in a text report: every number
/// (with its unit, when it is a time or a size, since the unit moves with the
/// magnitude) becomes `N`, and runs of spaces inside a line (column padding)
/// become one. Numbers that are part of a word (`p99.9`) stay.
pub fn mask(text: &str) -> String {
    // longest first, so "ms" is not taken for "m" + "s"
    const UNITS: [&str; 9] = ["KiB", "MiB", "GiB", "TiB", "ns", "µs", "ms", "s", "B"];
    let mut out = String::new();
    for line in text.lines() {
        let body = line.trim_start();
        out.push_str(&line[..line.len() - body.len()]);
        let chars: Vec<char> = body.chars().collect();
        let mut masked = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let in_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '.');
            if !c.is_ascii_digit() || in_word {
                masked.push(c);
                i += 1;
                continue;
            }
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())))
            {
                i += 1;
            }
            if chars.get(i) == Some(&' ') {
                let rest: String = chars[i + 1..].iter().collect();
                for u in UNITS {
                    let after = rest.strip_prefix(u).map(|r| r.chars().next());
                    if let Some(next) = after
                        && next.is_none_or(|n| !n.is_alphanumeric() && n != '/')
                    {
                        i += 1 + u.chars().count();
                        break;
                    }
                }
            }
            masked.push('N');
        }
        out.push_str(&masked.split_whitespace().collect::<Vec<_>>().join(" "));
        out.push('\n');
    }
    out
}

/// Compare `actual` with `tests/fixtures/<name>`. With `IOGAUGE_BLESS=1` in
/// the environment, write the fixture instead.
pub fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    if std::env::var_os("IOGAUGE_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); run with IOGAUGE_BLESS=1 to create it",
            path.display()
        )
    });
    assert_eq!(
        actual,
        expected,
        "the report layout differs from {} (IOGAUGE_BLESS=1 rewrites it)",
        path.display()
    );
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `selfscale` on the null engine with the smallest flags: a model in about
/// two seconds, for tests of `predict` and of the model's use.
// not every test binary builds models
#[allow(dead_code)]
pub fn null_model_args<'a>(dir: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "selfscale",
        dir,
        "--engine",
        "null",
        "--quick",
        "--max-bytes",
        "4M",
        "--point-time",
        "0.02s",
        "--out",
        out,
    ]
}

/// Wait for `child` to end within `limit`; kill it and fail otherwise.
pub fn wait_for(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> std::process::ExitStatus {
    let t = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            panic!("the run did not end within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Send `sig` to `child` and wait (at most 5 s) for it to end: its status
/// and how long it took to stop.
pub fn signal_and_wait(
    child: &mut std::process::Child,
    sig: i32,
) -> (std::process::ExitStatus, std::time::Duration) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
    let t = std::time::Instant::now();
    let status = wait_for(child, std::time::Duration::from_secs(5));
    (status, t.elapsed())
}

/// `iogauge fio ARGS` in `dir`; (exit code, stdout, stderr).
pub fn fio_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = iogauge()
        .current_dir(dir)
        .arg("fio")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}
