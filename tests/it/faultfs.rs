//! I/O errors from a file system that fails on purpose: a FUSE passthrough
//! of the tests' own (common/faultfs.rs) returns EIO, ENOSPC or EROFS from
//! chosen operations. Each benchmark that meets one must fail as a run
//! fails (exit 1), name the operation, the file and the errno in one line,
//! write `--json` with `complete: false` and that cause, leave nothing in
//! the directory, and leave the file system fit for the next run.

use crate::common::faultfs::{Fault, FaultFs, Op};
use crate::common::*;
use crate::fault_fs;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// What a run printed and wrote.
struct Ran {
    code: Option<i32>,
    stderr: String,
    json: Option<Value>,
}

/// Run `args` (the directory flag and `dir` added) in `cwd` with `--json`
/// to a file outside the file system under test.
fn run_in(cwd: &Path, args: &[&str], dir: &Path) -> Ran {
    let json = cwd.join("result.json");
    let _ = std::fs::remove_file(&json);
    let dir = p(dir);
    let mut all: Vec<&str> = args.to_vec();
    match args[0] {
        "bonnie" => all.extend(["-d", dir]),
        "ffsb" => all.extend(["--location", dir]),
        "postmark" => {}
        _ => all.extend(["--dir", dir]),
    }
    let out = iogauge()
        .current_dir(cwd)
        .args(&all)
        .arg("--json")
        .arg(&json)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "iogauge {all:?}: {stderr}");
    let json = std::fs::read(&json).ok().map(|b| {
        serde_json::from_slice(&b)
            .unwrap_or_else(|e| panic!("iogauge {all:?} wrote a JSON that does not parse: {e}"))
    });
    Ran {
        code: out.status.code(),
        stderr,
        json,
    }
}

/// The commands under test, small: its arguments, and those of its run
/// that syncs (PostMark never does; classic Bonnie does not, bonnie++ -b
/// does after every write).
fn commands() -> Vec<(Vec<&'static str>, Option<Vec<&'static str>>)> {
    let run = vec![
        "run",
        "--unique-bytes",
        "1M",
        "--duration",
        "0.3s",
        "--fsync",
        "every=4",
    ];
    let uring = [run.clone(), vec!["--engine", "io_uring", "--iodepth", "8"]].concat();
    let iozone = vec![
        "iozone", "-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-e",
    ];
    let scientific = vec!["scientific", "--size", "2M"];
    let ffsb = vec!["ffsb", "ffsb.prof", "--time", "1s"];
    let tpcb = vec!["tpcb", "--duration", "0.3"];
    vec![
        (run.clone(), Some(run)),
        (uring.clone(), Some(uring)),
        (vec!["postmark", "pm.pmrc"], None),
        (
            vec!["bonnie", "-s", "2", "-r", "0"],
            Some(vec![
                "bonnie", "--flavor", "bonnie++", "-s", "1", "-r", "0", "-f", "-b", "-n", "0",
            ]),
        ),
        (iozone.clone(), Some(iozone)),
        (scientific.clone(), Some(scientific)),
        (ffsb.clone(), Some(ffsb)),
        (tpcb.clone(), Some(tpcb)),
    ]
}

fn inputs(cwd: &Path, dir: &Path) {
    std::fs::write(
        cwd.join("pm.pmrc"),
        format!(
            "set location {}\nset number 50\nset transactions 100\nrun\nquit\n",
            dir.display()
        ),
    )
    .unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ffsb/mailserver.ffsb"),
        cwd.join("ffsb.prof"),
    )
    .unwrap();
}

/// The words a message may use for `op` (IOzone says "reading", TPC-B
/// "sync of", PostMark's buffered writes fail when the file is closed).
fn op_words(op: Op) -> &'static [&'static str] {
    match op {
        Op::Read => &["read"],
        Op::Write => &["write", "writing", "closing"],
        Op::Fsync => &["fsync", "sync of"],
        Op::Open => &["open"],
        Op::Create => &["creat", "open"],
        Op::Mkdir => &["mkdir", "director"],
        Op::Rename => &["rename"],
        _ => &[],
    }
}

/// The run met an injected `errno` (its text `says`) in `op`: exit 1, one
/// line naming the operation, a file under the mount and the errno, a JSON
/// with `complete: false` and that cause, and nothing left on the mount.
fn assert_failed_cleanly(fs: &FaultFs, args: &[&str], op: Op, says: &str, r: &Ran) {
    let what = format!("iogauge {args:?} with {op:?} failing");
    assert_eq!(r.code, Some(1), "{what}: {}", r.stderr);
    // PostMark says why at the line of its configuration file
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains("iogauge: "))
        .unwrap_or_else(|| panic!("{what}: no message: {}", r.stderr));
    let mnt = p(fs.path());
    for cause in [line, r.json.as_ref().map_or("", |v| str_at(v, "error"))] {
        assert!(
            cause.contains(says)
                && cause.contains(&format!("{mnt}/"))
                && op_words(op).iter().any(|w| cause.contains(w)),
            "{what}: {cause}"
        );
    }
    let v = r.json.as_ref().expect("a JSON result");
    assert_eq!(v["complete"], false, "{what}: {v}");
    assert!(fs.injected() > 0, "{what}: no fault was met");
    assert!(fs.left().is_empty(), "{what} left {:?}", fs.left());
}

/// The file system is fine again: the same run passes, complete.
fn assert_next_run_passes(fs: &FaultFs, cwd: &Path, args: &[&str]) {
    fs.clear();
    let r = run_in(cwd, args, fs.path());
    assert_eq!(r.code, Some(0), "the next iogauge {args:?}: {}", r.stderr);
    let v = r.json.expect("a JSON result");
    assert_eq!(v["complete"], true, "{v}");
    assert!(v.get("error").is_none(), "{v}");
    assert!(
        fs.left().is_empty(),
        "iogauge {args:?} left {:?}",
        fs.left()
    );
}

/// EIO on the first read, on the first write, on the first fsync (where
/// the command syncs) of `command`'s run: each fails cleanly, and the next
/// run on the same file system passes.
fn eio_in_each_operation(test: &str, command: &str, n: usize) {
    let fs = fault_fs!(test);
    let cwd = tempfile::tempdir().unwrap();
    inputs(cwd.path(), fs.path());
    let (plain, syncing) = commands()
        .into_iter()
        .filter(|(a, _)| a[0] == command)
        .nth(n)
        .unwrap();
    for op in [Op::Read, Op::Write, Op::Fsync] {
        let args = match (op, &syncing) {
            (Op::Fsync, None) => continue,
            (Op::Fsync, Some(s)) => s.clone(),
            _ => plain.clone(),
        };
        fs.clear();
        fs.arm(Fault::new(op, libc::EIO));
        let t = std::time::Instant::now();
        let r = run_in(cwd.path(), &args, fs.path());
        eprintln!(
            "{args:?}, {op:?} fails with EIO: {:.2} s, exit {:?}",
            t.elapsed().as_secs_f64(),
            r.code
        );
        assert_failed_cleanly(&fs, &args, op, "Input/output error", &r);
        assert_next_run_passes(&fs, cwd.path(), &args);
    }
}

#[test]
fn eio_fails_run_psync_cleanly() {
    eio_in_each_operation("eio_fails_run_psync_cleanly", "run", 0);
}

#[test]
fn eio_fails_run_io_uring_at_depth_8_cleanly() {
    eio_in_each_operation("eio_fails_run_io_uring_at_depth_8_cleanly", "run", 1);
}

#[test]
fn eio_fails_postmark_cleanly() {
    eio_in_each_operation("eio_fails_postmark_cleanly", "postmark", 0);
}

#[test]
fn eio_fails_bonnie_cleanly() {
    eio_in_each_operation("eio_fails_bonnie_cleanly", "bonnie", 0);
}

#[test]
fn eio_fails_iozone_cleanly() {
    eio_in_each_operation("eio_fails_iozone_cleanly", "iozone", 0);
}

#[test]
fn eio_fails_scientific_cleanly() {
    eio_in_each_operation("eio_fails_scientific_cleanly", "scientific", 0);
}

#[test]
fn eio_fails_ffsb_cleanly() {
    eio_in_each_operation("eio_fails_ffsb_cleanly", "ffsb", 0);
}

#[test]
fn eio_fails_tpcb_cleanly() {
    eio_in_each_operation("eio_fails_tpcb_cleanly", "tpcb", 0);
}

/// ENOSPC in the middle of the timed writes at depth 8 (io_uring): past
/// the layout, with eight requests in flight.
#[test]
fn enospc_mid_write_at_depth_8_fails_cleanly() {
    let fs = fault_fs!("enospc_mid_write_at_depth_8_fails_cleanly");
    let cwd = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "--unique-bytes",
        "1M",
        "--duration",
        "1s",
        "--read-frac",
        "0",
        "--engine",
        "io_uring",
        "--iodepth",
        "8",
    ];
    // the layout of 1 MiB is done in far fewer writes
    fs.arm(Fault::new(Op::Write, libc::ENOSPC).after(200));
    let r = run_in(cwd.path(), &args, fs.path());
    assert_failed_cleanly(&fs, &args, Op::Write, "No space left on device", &r);
    let v = r.json.as_ref().unwrap();
    // it had measured writes before the failure
    assert!(u64_at(v, "summary.ops") > 0, "{v}");
    assert_next_run_passes(&fs, cwd.path(), &args);
}

/// Failures of the name space, each where a benchmark meets it in its
/// run: an open of a laid-out file (run's worker), a create among
/// PostMark's transactions, a mkdir of FFSB's file set, a rename of FFSB's
/// metaop. Each fails cleanly and the next run passes.
#[test]
fn open_create_mkdir_and_rename_failures_fail_cleanly() {
    let fs = fault_fs!("open_create_mkdir_and_rename_failures_fail_cleanly");
    let cwd = tempfile::tempdir().unwrap();
    inputs(cwd.path(), fs.path());
    let meta = "time=1\n[filesystem0]\n\tlocation = /mnt/ffsb\n\tnum_files = 10\n\
                \tmin_filesize = 4k\n\tmax_filesize = 4k\n[end0]\n[threadgroup0]\n\
                \tnum_threads = 1\n\tmetaop_weight = 1\n\tread_weight = 1\n\
                \tread_size = 4k\n\tread_blocksize = 4k\n[end0]\n";
    std::fs::write(cwd.path().join("meta.prof"), meta).unwrap();
    let cases: [(&[&str], Fault); 4] = [
        (
            &["run", "--unique-bytes", "1M", "--duration", "0.3s"],
            Fault::new(Op::Open, libc::EIO),
        ),
        (
            &["postmark", "pm.pmrc"],
            Fault::new(Op::Create, libc::EIO).after(60),
        ),
        (
            &["ffsb", "ffsb.prof", "--time", "1s"],
            Fault::new(Op::Mkdir, libc::EIO).named("meta"),
        ),
        (&["ffsb", "meta.prof"], Fault::new(Op::Rename, libc::EIO)),
    ];
    for (args, fault) in cases {
        let op = fault.op;
        fs.clear();
        fs.arm(fault);
        let r = run_in(cwd.path(), args, fs.path());
        assert_failed_cleanly(&fs, args, op, "Input/output error", &r);
        assert_next_run_passes(&fs, cwd.path(), args);
    }
}

/// The work directory cannot be removed (every unlink fails): the run says
/// what it left and exits 1; the next run, with unlink working, removes the
/// leftover (its owner has ended) and passes.
#[test]
fn a_failed_unlink_at_cleanup_is_reported_and_cleared_by_the_next_run() {
    let fs = fault_fs!("a_failed_unlink_at_cleanup_is_reported_and_cleared_by_the_next_run");
    let cwd = tempfile::tempdir().unwrap();
    let args = ["run", "--unique-bytes", "1M", "--duration", "0.2s"];
    fs.arm(Fault::new(Op::Unlink, libc::EIO));
    let r = run_in(cwd.path(), &args, fs.path());
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let line = r.stderr.lines().find(|l| l.contains("could not remove"));
    let line = line.unwrap_or_else(|| panic!("nothing said: {}", r.stderr));
    assert!(
        line.contains(&format!("{}/iogauge-run-", p(fs.path())))
            && line.contains("Input/output error")
            && line.contains("still there: data.0"),
        "{line}"
    );
    let left = fs.left();
    assert!(left.iter().any(|f| f.ends_with("/data.0")), "{left:?}");
    // the figures stand; the JSON was written
    assert_eq!(r.json.as_ref().unwrap()["complete"], true);

    fs.clear();
    let r = run_in(cwd.path(), &args, fs.path());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("removed") && r.stderr.contains("left by an earlier run"),
        "{}",
        r.stderr
    );
    assert!(fs.left().is_empty(), "{:?}", fs.left());
}

/// The pids of the children of `pid` (every thread's).
fn children(pid: u32) -> Vec<u32> {
    let mut v = Vec::new();
    for t in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let text = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
        v.extend(
            text.split_whitespace()
                .filter_map(|s| s.parse::<u32>().ok()),
        );
    }
    v
}

/// Whether `pid` still runs (a zombie waiting for its reaper does not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let state = s.rsplit(')').next().unwrap_or("").split_whitespace().next();
        !matches!(state, Some("Z") | Some("X") | None)
    })
}

/// Start `args` with `--json` in `cwd`, wait until it has `kids` children
/// and `dir` holds its work directory, and give back the child process.
fn start(cwd: &Path, args: &[&str], dir: &Path, kids: usize) -> std::process::Child {
    let child = std::process::Command::new(bin_path())
        .current_dir(cwd)
        .args(args)
        .arg("--dir")
        .arg(dir)
        .arg("--json")
        .arg(cwd.join("result.json"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(cwd.join("stderr")).unwrap())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while (children(child.id()).len() < kids || tree(dir).is_empty())
        && t.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    // into its timed phase
    std::thread::sleep(Duration::from_millis(300));
    child
}

/// A worker process killed mid-run (SIGKILL): the run names it and the
/// signal, stops the other workers at once (well before its deadline),
/// writes what it measured with `complete: false`, and leaves nothing.
#[test]
fn a_killed_worker_process_is_named_and_stops_the_run() {
    let cwd = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "-p",
        "3",
        "--workers-as",
        "processes",
        "--unique-bytes",
        "3M",
        "--duration",
        "20s",
    ];
    let mut child = start(cwd.path(), &args, dir.path(), 3);
    let kids = children(child.id());
    assert_eq!(kids.len(), 3, "{kids:?}");
    let t = std::time::Instant::now();
    // SAFETY: a plain kill(2) of our grandchild.
    unsafe { libc::kill(kids[1] as i32, libc::SIGKILL) };
    let status = child.wait().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(status.code(), Some(1));
    for k in &kids {
        assert!(!alive(*k), "worker {k} still runs");
    }
    let stderr = std::fs::read_to_string(cwd.path().join("stderr")).unwrap();
    let line = stderr.trim_end().lines().last().unwrap();
    assert!(
        line.contains("worker process 1: killed by signal 9 (SIGKILL")
            && line.contains("the other workers were stopped"),
        "{stderr}"
    );
    let v: Value =
        serde_json::from_slice(&std::fs::read(cwd.path().join("result.json")).unwrap()).unwrap();
    assert_eq!(v["complete"], false);
    assert!(str_at(&v, "error").contains("killed by signal 9"), "{v}");
    assert!(u64_at(&v, "summary.ops") > 0, "{v}");
    assert!(tree(dir.path()).is_empty(), "{:?}", tree(dir.path()));
}

/// SIGKILL of iogauge itself mid-run: its worker processes die with it,
/// the `--json` file holds the provisional result (valid, `complete:
/// false`, saying it was killed), and the next run in the same `--dir`
/// removes the work directory left behind and passes; a live run's work
/// directory is left alone meanwhile.
#[test]
fn a_killed_run_leaves_a_provisional_result_and_the_next_run_clears_its_directory() {
    let cwd = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "-p",
        "2",
        "--workers-as",
        "processes",
        "--unique-bytes",
        "2M",
        "--duration",
        "20s",
    ];
    let mut child = start(cwd.path(), &args, dir.path(), 2);
    let kids = children(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    let t = std::time::Instant::now();
    while kids.iter().any(|k| alive(*k)) && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for k in &kids {
        assert!(!alive(*k), "worker {k} outlived the killed run");
    }
    let v: Value =
        serde_json::from_slice(&std::fs::read(cwd.path().join("result.json")).unwrap()).unwrap();
    crate::schema::assert_valid("the provisional result", &v);
    assert_eq!(v["complete"], false);
    assert!(
        str_at(&v, "error").contains("killed before it ended"),
        "{v}"
    );
    let left = tree(dir.path());
    assert_eq!(left.len(), 3, "{left:?}");
    let leftover = left[0].clone();
    assert!(
        left.contains(&format!("{leftover}/.iogauge-owner")),
        "{left:?}"
    );

    // the next run removes it, and says so
    let mut live = start(cwd.path(), &args, dir.path(), 2);
    let during = tree(dir.path());
    assert!(!during.contains(&leftover), "{during:?}");
    let stderr = std::fs::read_to_string(cwd.path().join("stderr")).unwrap();
    assert!(
        stderr.contains(&format!("removed {}", dir.path().join(&leftover).display()))
            && stderr.contains("that was killed"),
        "{stderr}"
    );
    // a run beside a live one leaves the live one's directory alone
    let quick = ["run", "--unique-bytes", "1M", "--duration", "0.2s"];
    let r = run_in(cwd.path(), &quick, dir.path());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!r.stderr.contains("removed"), "{}", r.stderr);
    assert_eq!(tree(dir.path()), during);
    live.kill().unwrap();
    live.wait().unwrap();

    let r = run_in(cwd.path(), &quick, dir.path());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.contains("left by an earlier run"), "{}", r.stderr);
    assert_eq!(r.json.unwrap()["complete"], true);
    assert!(tree(dir.path()).is_empty(), "{:?}", tree(dir.path()));
}
