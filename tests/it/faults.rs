//! Runs on a small file system that fills up (issue 33): worker processes
//! still report their figures and their own errors, and every command asked
//! for `--json` writes one when it fails, `complete: false` with the cause.
//!
//! Each test mounts its own tmpfs (we are root in CI): `size=` to run out
//! of space, `nr_inodes=` to run out of files. tmpfs counts its root
//! directory as one inode, the run's work directory as another. Where mount
//! is refused, a test says why and skips.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted for one test, unmounted when dropped.
struct SmallFs {
    _dir: tempfile::TempDir,
    mnt: PathBuf,
}

impl SmallFs {
    /// A tmpfs with mount options `opts` (e.g. `size=8m,nr_inodes=4`), or
    /// why it cannot be mounted here.
    fn new(opts: &str) -> Result<SmallFs, String> {
        if !is_root() {
            return Err("mounting a tmpfs needs root".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
            .arg(&mnt)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs -o {opts} was refused: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(SmallFs { _dir: dir, mnt })
    }

    fn path(&self) -> &str {
        p(&self.mnt)
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.mnt)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
        }
    }
}

/// A [`SmallFs`], or skip the test with the reason.
macro_rules! small_fs {
    ($test:expr, $opts:expr) => {
        match SmallFs::new($opts) {
            Ok(fs) => fs,
            Err(why) => {
                eprintln!("SKIPPED {}: {why}", $test);
                return;
            }
        }
    };
}

/// What a run printed and wrote.
struct Ran {
    code: Option<i32>,
    stderr: String,
    json: Option<Value>,
}

/// Run `args` in `cwd` with `--json` to a file outside the small file
/// system, and read back what it wrote (if anything).
fn run_with_json(cwd: &Path, args: &[&str]) -> Ran {
    let json = cwd.join("result.json");
    let _ = std::fs::remove_file(&json);
    let out = iogauge()
        .current_dir(cwd)
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "iogauge {args:?}: {stderr}");
    let json = std::fs::read(&json).ok().map(|b| {
        serde_json::from_slice(&b)
            .unwrap_or_else(|e| panic!("iogauge {args:?} wrote a JSON that does not parse: {e}"))
    });
    Ran {
        code: out.status.code(),
        stderr,
        json,
    }
}

/// The run succeeded, complete, with figures from every worker.
fn assert_complete(args: &[&str], r: &Ran) {
    assert_eq!(r.code, Some(0), "iogauge {args:?}: {}", r.stderr);
    let v = r.json.as_ref().expect("a JSON result");
    assert_eq!(v["complete"], true, "iogauge {args:?}: {v}");
    assert!(v.get("error").is_none(), "iogauge {args:?}: {}", v["error"]);
    assert!(u64_at(v, "summary.ops") > 0, "iogauge {args:?}: no ops");
}

/// Worker processes send their figures over pipes: a file system with no
/// inode left once the run has laid out its files loses none of them (they
/// were lost when workers wrote `worker.N.json` into the work directory).
#[test]
fn worker_processes_report_past_a_full_file_system() {
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("ctl"),
        "USERS = 2; FILES = 2; NRECS = 64; RECLEN = 512;",
    )
    .unwrap();
    // (files the run lays out, the command)
    let cases: [(u32, &[&str]); 4] = [
        (
            2,
            &[
                "run",
                "-p",
                "2",
                "--workers-as",
                "processes",
                "--files",
                "2",
                "--unique-bytes",
                "2M",
                "--duration",
                "0.3s",
            ],
        ),
        (
            2,
            &["iozone", "-t", "2", "-s", "1m", "-r", "64k", "-i", "0"],
        ),
        (1, &["bonnie", "-s", "8", "-r", "0"]),
        (2, &["iobench", "ctl", "--ignore-env", "--duration", "0.3s"]),
    ];
    for (files, args) in cases {
        // the root, the work directory and the run's own files
        let fs = small_fs!(
            "worker_processes_report_past_a_full_file_system",
            &format!("size=64m,nr_inodes={}", 2 + files)
        );
        let mut all = args.to_vec();
        let dir_flag = if args[0] == "bonnie" { "-d" } else { "--dir" };
        all.extend([dir_flag, fs.path()]);
        if args[0] == "iobench" {
            all.extend(["-o", "iobench.results"]);
        }
        let r = run_with_json(cwd.path(), &all);
        assert_complete(&all, &r);
    }
}

/// A worker process that fails says why, in the one line and in the JSON:
/// the operation, the file and the errno, not "exited with status 1".
#[test]
fn a_worker_process_names_its_own_error() {
    let cwd = tempfile::tempdir().unwrap();
    let cases: [(u32, &[&str], &str); 2] = [
        // one child cannot create its file
        (
            1,
            &["iozone", "-t", "2", "-s", "1m", "-r", "64k", "-i", "0"],
            "iozone.DUMMY.",
        ),
        // the script runs out of files: its runner's directory and 8
        // sources are laid out, its first new file is refused
        (
            9,
            &["sdet", "--max-procs", "1", "--duration", "0.3s"],
            "script.0/",
        ),
    ];
    for (files, args, file) in cases {
        let fs = small_fs!(
            "a_worker_process_names_its_own_error",
            &format!("size=64m,nr_inodes={}", 2 + files)
        );
        let mut all = args.to_vec();
        all.extend(["--dir", fs.path()]);
        let r = run_with_json(cwd.path(), &all);
        assert_eq!(r.code, Some(1), "iogauge {all:?}: {}", r.stderr);
        let line = r.stderr.trim_end();
        assert_eq!(line.lines().count(), 1, "iogauge {all:?}: {line}");
        for cause in [line, r.json.as_ref().map_or("", |v| str_at(v, "error"))] {
            assert!(
                cause.contains("worker process")
                    && cause.contains(file)
                    && cause.contains("No space left on device")
                    && !cause.contains("exited with status"),
                "iogauge {all:?}: {cause}"
            );
        }
        let v = r.json.as_ref().expect("a JSON result");
        assert_eq!(v["complete"], false, "{v}");
    }
}
