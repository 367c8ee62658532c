//! The pvsync and pvsync2 engines, through `iogauge fio` and `iogauge
//! run`: the bytes and requests each moves, the system calls and flags
//! strace shows (the flags of `hipri_percentage=50` are the ones fio 3.33
//! gave the same job), and what is refused.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Run `job` (one job file's text) in `dir` with fio's JSON output; exit
/// code, the JSON's first job and standard error.
fn run_job(dir: &Path, job: &str) -> (i32, Value, String) {
    std::fs::write(dir.join("t.fio"), job).unwrap();
    let (code, out, err) = fio_in(dir, &["--output-format=json", "t.fio"]);
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v["jobs"][0].clone(), err)
}

fn dir_sum(j: &Value, key: &str) -> u64 {
    ["read", "write"].iter().map(|d| u64_at(&j[d], key)).sum()
}

/// Each engine moves the job's bytes in blocks of `bs`, as psync does,
/// and runs as itself: no note says it runs as another.
#[test]
fn pvsync_and_pvsync2_move_the_jobs_bytes() {
    let dir = work_dir();
    for engine in ["pvsync", "pvsync2"] {
        for rw in ["randrw", "write", "read"] {
            let job = format!("[j]\nioengine={engine}\nsize=64k\nbs=4k\nrw={rw}\nfsync=4\n");
            let (code, j, err) = run_job(dir.path(), &job);
            assert_eq!(code, 0, "{job}: {err}");
            assert!(!err.contains("runs as"), "{err}");
            assert_eq!(j["job options"]["ioengine"], engine);
            assert_eq!(j["error"], 0);
            assert_eq!(dir_sum(&j, "io_bytes"), 65536, "{job}");
            assert_eq!(dir_sum(&j, "total_ios"), 16, "{job}");
            if rw == "write" {
                // a sync every 4 writes
                assert_eq!(u64_at(&j["sync"], "total_ios"), 4, "{job}: {j}");
            }
        }
    }
    // the files the runs made are gone
    let mut left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["keep", "sub"]);
}

/// strace, if this machine has it.
fn strace() -> Option<Command> {
    let ok = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        println!("skipped: no strace here");
        return None;
    }
    Some(Command::new("strace"))
}

/// What `iogauge fio` did under strace.
struct Traced {
    code: i32,
    /// The data calls (4 KiB): (call, flags; `-` for none).
    calls: Vec<(String, String)>,
    stderr: String,
}

/// `iogauge fio ARGS` in `dir` under strace, if there is one.
fn traced(dir: &Path, args: &[&str]) -> Option<Traced> {
    let mut cmd = strace()?;
    let trace = dir.join("trace");
    let out = cmd
        .current_dir(dir)
        .args(["-f", "-qq", "-o", p(&trace)])
        .args(["-e", "trace=preadv2,pwritev2,preadv,pwritev"])
        .arg(bin_path())
        .arg("fio")
        .args(args)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&trace).unwrap();
    std::fs::remove_file(&trace).unwrap();
    let calls = text
        .lines()
        .filter(|l| l.contains("iov_len=4096"))
        .map(|l| {
            let call = l.split_whitespace().nth(1).unwrap();
            let name = call.split('(').next().unwrap().to_string();
            let head = l.rsplit_once(") = ").unwrap().0;
            // strace names the flags it knows; others are `0x80 /* RWF_??? */`
            let last = head.rsplit(", ").next().unwrap();
            let last = last.split(' ').next().unwrap();
            // preadv/pwritev end at the offset: no flags
            let flags = if name.ends_with('2') { last } else { "-" };
            (name, flags.to_string())
        })
        .collect();
    Some(Traced {
        code: out.status.code().unwrap_or(-1),
        calls,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// pvsync issues preadv/pwritev, pvsync2 preadv2/pwritev2 with the flags
/// its options ask: RWF_HIPRI on the share fio draws (the pattern of fio
/// 3.33's first 20 reads with hipri_percentage=50), also on buffered
/// I/O, which the kernel does not poll and completes as usual (fio runs
/// it the same way).
#[test]
fn strace_shows_the_calls_and_their_flags() {
    let dir = work_dir();
    let d = dir.path();
    let Some(Traced {
        code,
        calls,
        stderr: err,
    }) = traced(
        d,
        &["--name=j", "--ioengine=pvsync", "--size=64k", "--rw=randrw"],
    )
    else {
        return;
    };
    assert_eq!(code, 0, "{err}");
    assert_eq!(calls.len(), 16, "{calls:?}");
    assert!(
        calls.iter().all(|c| c.0 == "preadv" || c.0 == "pwritev"),
        "{calls:?}"
    );
    for (extra, want) in [
        ("--hipri", "RWF_HIPRI"),
        ("--nowait=0", "0"),
        ("--hipri_percentage=0", "0"),
    ] {
        let args = [
            "--name=j",
            "--ioengine=pvsync2",
            "--size=32k",
            "--rw=write",
            extra,
        ];
        let Traced {
            code,
            calls,
            stderr: err,
        } = traced(d, &args).unwrap();
        assert_eq!(code, 0, "{extra}: {err}");
        assert_eq!(calls.len(), 8, "{extra}: {calls:?}");
        for c in &calls {
            assert_eq!((c.0.as_str(), c.1.as_str()), ("pwritev2", want), "{extra}");
        }
    }
    let args = [
        "--name=j",
        "--ioengine=pvsync2",
        "--size=80k",
        "--rw=randread",
        "--hipri",
        "--hipri_percentage=50",
    ];
    let Traced {
        code,
        calls,
        stderr: err,
    } = traced(d, &args).unwrap();
    assert_eq!(code, 0, "{err}");
    let got: String = calls
        .iter()
        .map(|c| match (c.0.as_str(), c.1.as_str()) {
            ("preadv2", "RWF_HIPRI") => 'H',
            ("preadv2", "0") => '.',
            _ => panic!("{c:?}"),
        })
        .collect();
    assert_eq!(got, ".......HHH..H..HH...");
}

/// nowait: a read that would wait for the disk fails with EAGAIN and ends
/// the job, as fio's pvsync2 does (fio 3.33: `err=11`, exit 1); the files
/// a run lays out are dropped from the page cache first, so the first
/// read waits. strace shows RWF_NOWAIT on it.
#[test]
fn nowait_ends_the_job_at_the_first_read_that_would_block() {
    let dir = work_dir();
    let job = "[j]\nioengine=pvsync2\nnowait=1\nsize=64k\nrw=randread\n";
    let (code, j, err) = run_job(dir.path(), job);
    if code == 0 {
        println!("skipped: every read found its pages cached ({err})");
        return;
    }
    assert_eq!(code, 1, "{err}");
    assert_eq!(j["error"], 11, "{j}");
    assert!(
        err.contains("read of 4096 B at offset")
            && err.contains("Resource temporarily unavailable"),
        "{err}"
    );
    let args = [
        "--name=j",
        "--ioengine=pvsync2",
        "--nowait=1",
        "--size=64k",
        "--rw=randread",
    ];
    if let Some(Traced { code, calls, .. }) = traced(dir.path(), &args) {
        assert_eq!(code, 1);
        assert_eq!(calls, [("preadv2".to_string(), "RWF_NOWAIT".to_string())]);
    }
}

/// uncached: RWF_DONTCACHE (0x80) on buffered requests where the kernel
/// (6.14+) has it, with a note saying how fio 3.33 differs; none with
/// O_DIRECT, as fio; refused at its line where the kernel lacks it.
#[test]
fn uncached_sets_dontcache_on_buffered_requests() {
    let dir = work_dir();
    let job = "[j]\nioengine=pvsync2\nuncached=1\nsize=32k\nrw=write\n";
    let (code, j, err) = run_job(dir.path(), job);
    if code == 2 {
        assert!(
            err.starts_with("iogauge: t.fio:3: uncached asks RWF_DONTCACHE")
                || err.contains("RWF_DONTCACHE"),
            "{err}"
        );
        println!("skipped: {err}");
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert_eq!(dir_sum(&j, "io_bytes"), 32768);
    assert!(
        err.contains("t.fio:3: uncached sets RWF_DONTCACHE") && err.contains("fio 3.33"),
        "{err}"
    );
    let args = [
        "--name=j",
        "--ioengine=pvsync2",
        "--uncached=1",
        "--size=32k",
        "--rw=write",
    ];
    if let Some(Traced {
        code,
        calls,
        stderr: err,
    }) = traced(dir.path(), &args)
    {
        assert_eq!(code, 0, "{err}");
        assert_eq!(calls.len(), 8);
        for (call, flags) in calls {
            assert_eq!(call, "pwritev2");
            // strace before 6.14 does not name the flag
            assert!(flags == "RWF_DONTCACHE" || flags == "0x80", "{flags}");
        }
    }
}

/// Another engine's options stay refused at their place (or left out with
/// --ignore-unsupported); pvsync2's are checked as fio checks them.
#[test]
fn engine_options_are_refused_where_they_do_not_belong() {
    let dir = work_dir();
    let d = dir.path();
    let (code, _, err) = fio_in(d, &["--name=j", "--ioengine=io_uring", "--hipri"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("iogauge: command line, argument 4: fio option 'hipri' is not supported by iogauge with ioengine=io_uring (it is taken for pvsync2)"),
        "{err}"
    );
    std::fs::write(d.join("t.fio"), "[global]\nnowait=1\n[j]\nsize=4k\n").unwrap();
    let (code, out, err) = fio_in(d, &["--parse-only", "--ignore-unsupported", "t.fio"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("fio options left out (--ignore-unsupported):\n  nowait=1  [j]  t.fio:2\n"),
        "{out}"
    );
    std::fs::write(
        d.join("t.fio"),
        "[j]\nioengine=pvsync2\nhipri_percentage=101\n",
    )
    .unwrap();
    let (code, _, err) = fio_in(d, &["--parse-only", "t.fio"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("iogauge: t.fio:3: hipri_percentage:") && err.contains("0 to 100"),
        "{err}"
    );
    std::fs::remove_file(d.join("t.fio")).unwrap();
}

/// `run --engine pvsync2` takes --hipri with a share, and refuses a share
/// without --hipri, or on an engine that has none; the config says what
/// ran.
#[test]
fn run_takes_pvsync2_and_its_flags() {
    let dir = work_dir();
    let d = dir.path();
    let json = d.join("r.json");
    let out = iogauge()
        .args(["run", "--dir", p(d), "--engine", "pvsync2", "--hipri"])
        .args(["--hipri-percentage", "30", "--unique-bytes", "256K"])
        .args(["--ops", "64", "--json", p(&json)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["config"]["io"]["engine"], "pvsync2");
    assert_eq!(v["config"]["io"]["queue"]["hipri_percentage"], 30);
    assert_eq!(u64_at(&v, "summary.ops"), 64);
    std::fs::remove_file(&json).unwrap();
    for (args, want) in [
        (
            &["--engine", "pvsync2", "--hipri-percentage", "30"][..],
            "--hipri-percentage: a share of the requests --hipri polls; add --hipri",
        ),
        (
            &["--engine", "pvsync", "--hipri"][..],
            "--hipri: engine 'pvsync' has no polled completions",
        ),
        (
            &["--engine", "io_uring", "--hipri", "--hipri-percentage", "5"][..],
            "--hipri-percentage: engine 'io_uring' has no polling on a share of requests (pvsync2 has)",
        ),
    ] {
        let line = assert_usage_error(&[&["run", "--dir", p(d)][..], args].concat());
        assert!(line.contains(want), "{args:?}: {line}");
    }
}
