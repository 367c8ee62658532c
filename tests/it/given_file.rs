//! `iogauge run --file`: the run works on a file the user names, as fio
//! does on its `--filename`. The file is read where it is, never laid out,
//! truncated, renamed or removed, and written only with `--allow-write`.

use crate::common::*;
use serde_json::Value;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A directory holding one file `f` of `bytes` bytes, no two 4 KiB blocks
/// alike, with an mtime in the past (so a write would show).
fn user_file(bytes: usize) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let data: Vec<u8> = (0..bytes).map(|i| (i / 4096 + i * 7) as u8).collect();
    std::fs::write(&f, data).unwrap();
    let old = std::fs::File::options().write(true).open(&f).unwrap();
    old.set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_500_000_000))
        .unwrap();
    (d, f)
}

/// The file's bytes and its modification time to the nanosecond.
fn state(f: &Path) -> (Vec<u8>, i64, i64) {
    let m = std::fs::metadata(f).unwrap();
    (std::fs::read(f).unwrap(), m.mtime(), m.mtime_nsec())
}

/// 4 KiB random reads of the file, with `extra` flags.
fn reads<'a>(f: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        "--file",
        p(f),
        "--read-frac",
        "1",
        "--seq-frac",
        "0",
        "--size-mean",
        "4k",
        "--size-cv",
        "0",
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn reads_a_given_file_and_leaves_it_as_it_was() {
    let (d, f) = user_file(4 << 20);
    let before = state(&f);
    let cwd = work_dir();
    let args = reads(&f, &["--ops", "20000", "--cold"]);
    let out = iogauge()
        .current_dir(cwd.path())
        .args(&args)
        .args(["--json", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_result(&v);
    assert_eq!(op_count(&v, "read"), 20000);
    assert_eq!(u64_at(&v, "summary.bytes_read"), 20000 * 4096);
    assert_eq!(u64_at(&v, "summary.bytes_written"), 0);
    let canonical = std::fs::canonicalize(&f).unwrap();
    assert_eq!(str_at(&v, "config.user_file.path"), p(&canonical));
    assert_eq!(u64_at(&v, "config.user_file.bytes"), 4 << 20);
    assert_eq!(get(&v, "config.user_file.writes"), false);
    // every offset of the file, and nothing past it
    assert_eq!(u64_at(&v, "config.workload.unique_bytes"), 4 << 20);
    assert_eq!(state(&f), before, "the given file changed");
    assert_eq!(
        tree(d.path()),
        ["f"],
        "the run made something beside the file"
    );
    assert_untouched(cwd.path());
    // O_DIRECT, where the file system takes it
    let direct = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&f);
    if direct.is_err() {
        eprintln!("skipped --direct: the file system of the temporary directory refuses O_DIRECT");
        return;
    }
    let (v, report) = run_json(&reads(&f, &["--ops", "2000", "--direct"]));
    assert_eq!(op_count(&v, "read"), 2000);
    assert_eq!(get(&v, "config.io.direct"), true);
    assert!(report.contains("the given file"), "{report}");
    assert_eq!(state(&f), before, "the given file changed under --direct");
}

#[test]
fn bad_files_and_unasked_writes_are_refused_in_one_line() {
    let (d, f) = user_file(64 << 10);
    let before = state(&f);
    let small = d.path().join("small");
    std::fs::write(&small, [7u8; 100]).unwrap();
    let missing = d.path().join("missing");
    let dir = p(d.path());
    let json = d.path().join("f");
    for (args, says) in [
        (reads(&missing, &[]), "does not exist"),
        (reads(d.path(), &[]), "is a directory"),
        (reads(&small, &[]), "less than one request"),
        (
            reads(&f, &["--unique-bytes", "1M"]),
            "--unique-bytes 1.00 MiB is larger than --file",
        ),
        (reads(&f, &["--files", "2"]), "--files 2"),
        (reads(&f, &["--size-mean", "128k"]), "--size-mean"),
        (reads(&f, &["--dir", dir]), "--dir"),
        (reads(&f, &["--json", p(&json)]), "which the run reads"),
        (
            vec!["run", "--file", p(&f), "--ops", "10"],
            "--read-frac 0.5 would write to --file",
        ),
        (
            vec!["run", "--allow-write", "--read-frac", "0", "--ops", "10"],
            "--file",
        ),
        (
            vec!["run", "--file", "/proc/self/status"],
            "pseudo file system",
        ),
    ] {
        let line = assert_usage_error(&args);
        assert!(line.contains(says), "{args:?}: {line}");
        assert_eq!(state(&f), before, "{args:?} changed the file");
    }
    // a character device is no regular file; block devices are refused too
    let line = assert_usage_error(&["run", "--file", "/dev/null", "--read-frac", "1"]);
    assert!(line.contains("not a regular file"), "{line}");
    if let Some(dev) = std::fs::read_dir("/dev").ok().and_then(|rd| {
        rd.flatten()
            .map(|e| e.path())
            .find(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()))
    }) {
        let line = assert_usage_error(&["run", "--file", p(&dev), "--read-frac", "1"]);
        assert!(line.contains("is a block device"), "{line}");
    }
    // --check reads the same refusals and makes nothing
    let out = iogauge().args(reads(&f, &["--check"])).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("the given file"));
    assert_eq!(tree(d.path()), ["f", "small"]);
    assert_eq!(state(&f), before);
}

#[test]
fn writes_need_the_acknowledgement_and_stay_inside_the_file() {
    let (d, f) = user_file(256 << 10);
    let before = state(&f);
    let (v, report) = run_json(&[
        "run",
        "--file",
        p(&f),
        "--allow-write",
        "--read-frac",
        "0",
        "--size-mean",
        "4k",
        "--size-cv",
        "0",
        "--ops",
        "500",
    ]);
    assert_eq!(op_count(&v, "write"), 500);
    assert_eq!(get(&v, "config.user_file.writes"), true);
    assert!(report.contains("writes allowed"), "{report}");
    let after = state(&f);
    assert_eq!(after.0.len(), before.0.len(), "the file grew or shrank");
    assert_ne!(after.0, before.0, "the writes did not land in the file");
    assert_eq!(tree(d.path()), ["f"]);
}

#[test]
fn ctrl_c_or_a_failed_run_leaves_the_file_in_place() {
    let (d, f) = user_file(1 << 20);
    let before = state(&f);
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let mut child = std::process::Command::new(bin_path())
        .args(reads(&f, &["--duration", "60", "--json", p(&json)]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let (status, _) = signal_and_wait(&mut child, libc::SIGINT);
    assert_eq!(status.code(), Some(130), "{status}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(get(&v, "complete"), false);
    assert!(op_count(&v, "read") > 0);
    assert_eq!(state(&f), before);
    assert_eq!(tree(d.path()), ["f"]);
    // more libaio contexts than the system allows: the run fails setting
    // up its engines, after the checks
    let max: u64 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(u64::MAX);
    let workers = max / 4096 + 1;
    if workers > 64 {
        eprintln!("skipped the failed run: fs.aio-max-nr {max} takes {workers} workers to exceed");
        return;
    }
    let workers = workers.to_string();
    let args = reads(
        &f,
        &[
            "--engine",
            "libaio",
            "--iodepth",
            "4096",
            "-p",
            &workers,
            "--ops",
            "10",
        ],
    );
    let out = iogauge().args(&args).output().unwrap();
    assert!(!out.status.success(), "{args:?} ran: {out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("aio-max-nr"), "{err}");
    assert_eq!(state(&f), before);
    assert_eq!(tree(d.path()), ["f"]);
}

#[test]
fn scale_runs_each_point_on_the_given_file() {
    let (d, f) = user_file(1 << 20);
    let before = state(&f);
    let mut args = vec!["scale", "--max-procs", "2", "--max-reps", "1"];
    args.extend(reads(&f, &["--duration", "0.2"]));
    let (v, _) = run_json(&args);
    assert_eq!(str_at(&v, "config.workload"), "run");
    assert_eq!(
        str_at(&v, "config.workload_config.user_file.path"),
        p(&std::fs::canonicalize(&f).unwrap())
    );
    let points = get(&v, "metrics.curve.points").as_array().unwrap();
    assert!(points.len() >= 2, "{points:?}");
    assert!(points.iter().all(|pt| f64_at(pt, "mean.throughput") > 0.0));
    assert_eq!(state(&f), before);
    assert_eq!(tree(d.path()), ["f"]);
}
