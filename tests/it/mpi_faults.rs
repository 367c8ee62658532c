//! Many clients when a rank does not keep pace: `--stonewall` (and its
//! `--wear-out`), where one rank finishes its budget first, and a rank
//! killed mid-run. Every rank runs on this machine under Open MPI's mpirun.

use crate::common::*;
use crate::mpi::result_of;
use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One job of this module at a time: three jobs of four ranks on a small
/// machine would delay each other's stonewall by their scheduling alone.
static ONE_JOB: Mutex<()> = Mutex::new(());

fn one_job() -> std::sync::MutexGuard<'static, ()> {
    ONE_JOB.lock().unwrap_or_else(|p| p.into_inner())
}

/// `mpirun` in its MPMD form: one rank per budget in `ops`, in rank order,
/// every rank with the same `args` (the same --dir and --json).
fn mpirun_budgets(ops: &[&str], args: &[&str]) -> Output {
    let (mut c, _session) = crate::mpi::mpirun_command();
    for (i, n) in ops.iter().enumerate() {
        if i > 0 {
            c.arg(":");
        }
        c.args(["-np", "1"]).arg(bin_path()).args(args);
        c.args(["--ops", n]);
    }
    c.output()
        .expect("mpirun runs (Open MPI: apt-get install openmpi-bin)")
}

fn run_args<'a>(dir: &'a str, json: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        "--dir",
        dir,
        "--unique-bytes",
        "2M",
        "--size-mean",
        "4K",
        "--json",
        json,
    ];
    a.extend_from_slice(extra);
    a
}

fn per_rank(phase: &Value) -> &Vec<Value> {
    get(phase, "per_rank").as_array().unwrap()
}

#[test]
fn the_first_rank_done_stops_the_others_within_100_ms() {
    let _one = one_job();
    let d = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("r.json");
    // rank 1 has a small budget; the others could not finish theirs
    let out = mpirun_budgets(
        &["100000000", "20000", "100000000", "100000000"],
        &run_args(p(d.path()), p(&json), &["--stonewall"]),
    );
    let v = result_of(&out, &json);
    check_result(&v);
    assert!(get(&v, "complete").as_bool().unwrap(), "{v}");
    assert_eq!(str_at(&v, "cluster.stonewall"), "stop");
    let ph = &get(&v, "cluster.phases")[0];
    assert_eq!(u64_at(ph, "first_done_rank"), 1, "{ph}");
    let first_done = f64_at(ph, "first_done_s");
    let ranks = per_rank(ph);
    assert_eq!(ranks.len(), 4);
    for r in ranks {
        let late = f64_at(r, "end_s") - first_done;
        assert!(
            late <= 0.1,
            "rank {} ended {late:.3} s after the first was done: {ph}",
            u64_at(r, "rank")
        );
        assert!(u64_at(r, "ops") < 100_000_000);
        assert!(get(r, "complete").as_bool().unwrap());
    }
    assert_eq!(u64_at(&ranks[1], "ops"), 20_000);
    assert_eq!(u64_at(&ranks[1], "stonewall_ops"), 20_000);
    // the stonewall holds what every rank had done by then
    let sw = get(ph, "stonewall");
    assert_eq!(u64_at(sw, "first_rank"), 1);
    assert!((f64_at(sw, "at_s") - first_done).abs() < 1e-9, "{sw}");
    let at_wall: u64 = ranks.iter().map(|r| u64_at(r, "stonewall_ops")).sum();
    assert_eq!(u64_at(sw, "ops"), at_wall);
    let sum: u64 = ranks.iter().map(|r| u64_at(r, "ops")).sum();
    assert!(at_wall > 20_000 && at_wall <= sum, "{sw}");
    assert_eq!(u64_at(&v, "summary.ops"), sum);
    assert_untouched(d.path());
}

#[test]
fn under_wear_out_the_others_finish_their_budget() {
    let _one = one_job();
    let d = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("r.json");
    let out = mpirun_budgets(
        &["200000", "2000", "200000", "200000"],
        &run_args(p(d.path()), p(&json), &["--stonewall", "--wear-out"]),
    );
    let v = result_of(&out, &json);
    check_result(&v);
    assert!(get(&v, "complete").as_bool().unwrap(), "{v}");
    assert_eq!(str_at(&v, "cluster.stonewall"), "wear-out");
    let ph = &get(&v, "cluster.phases")[0];
    let ranks = per_rank(ph);
    for r in ranks {
        let rank = u64_at(r, "rank");
        let budget = if rank == 1 { 2_000 } else { 200_000 };
        assert_eq!(u64_at(r, "ops"), budget, "{ph}");
        // what each had done when rank 1 finished is still recorded
        let at_wall = u64_at(r, "stonewall_ops");
        assert!(at_wall <= budget, "{r}");
        if rank != 1 {
            assert!(
                at_wall < budget,
                "rank {rank} was done before the stonewall: {ph}"
            );
        }
    }
    let sw = get(ph, "stonewall");
    assert_eq!(u64_at(sw, "first_rank"), 1, "{sw}");
    assert!(f64_at(sw, "at_s") < f64_at(ph, "last_done_s"), "{ph}");
    assert_eq!(u64_at(&v, "summary.ops"), 602_000);
    assert_untouched(d.path());
}

/// The iogauge process that is rank `rank` of the job whose command line
/// names `dir`.
fn rank_pid(dir: &Path, rank: usize) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    let dir = p(dir);
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmd.split(|&b| b == 0).collect();
        let ours =
            args.first().is_some_and(|a| a.ends_with(b"iogauge")) && args.contains(&dir.as_bytes());
        if !ours {
            continue;
        }
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if env.split(|&b| b == 0).any(|v| v == want.as_bytes()) {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_rank_killed_mid_run_ends_the_job_with_the_survivors_result() {
    let _one = one_job();
    let d = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("r.json");
    let (stdout, stderr) = (out_dir.path().join("out"), out_dir.path().join("err"));
    let (mut mpirun, _session) = crate::mpi::mpirun_command();
    let mut child = mpirun
        .args(["-np", "4"])
        .arg(bin_path())
        .args(run_args(p(d.path()), p(&json), &["--duration", "30s"]))
        .stdout(Stdio::from(std::fs::File::create(&stdout).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&stderr).unwrap()))
        .spawn()
        .expect("mpirun runs (Open MPI: apt-get install openmpi-bin)");
    let began = Instant::now();
    let pid = loop {
        if let Some(pid) = rank_pid(d.path(), 2) {
            break pid;
        }
        if began.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("rank 2 did not start within 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_secs(1));
    // SAFETY: kill(2) of rank 2 of our own job, found just above.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let killed = Instant::now();
    let status = wait_for(&mut child, Duration::from_secs(10));
    let took = killed.elapsed();
    let err = std::fs::read_to_string(&stderr).unwrap();
    let text = std::fs::read_to_string(&stdout).unwrap();
    assert!(!status.success(), "{status:?}\n{text}\n{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    // rank 0 wrote what the survivors measured, and names the dead rank
    let v: Value = serde_json::from_slice(
        &std::fs::read(&json)
            .unwrap_or_else(|e| panic!("no partial result ({e}) after {took:?}\n{text}\n{err}")),
    )
    .unwrap();
    check_result(&v);
    assert!(!get(&v, "complete").as_bool().unwrap(), "{v}");
    let host = get(&v, "cluster.hosts")[0].as_str().unwrap().to_string();
    let named = format!("rank 2 on {host} did not report");
    assert!(str_at(&v, "error").contains(&named), "{}", get(&v, "error"));
    assert_eq!(err.matches(&named).count(), 1, "{err}");
    // the survivors say nothing of a result they did not write
    assert!(!err.contains("partial result was written"), "{err}");
    let ph = &get(&v, "cluster.phases")[0];
    assert_eq!(get(ph, "missing"), &serde_json::json!([[2, host]]), "{ph}");
    let ranks = per_rank(ph);
    let seen: Vec<u64> = ranks.iter().map(|r| u64_at(r, "rank")).collect();
    assert_eq!(seen, [0, 1, 3], "{ph}");
    assert!(ranks.iter().all(|r| u64_at(r, "ops") > 0), "{ph}");
    let sum: u64 = ranks.iter().map(|r| u64_at(r, "ops")).sum();
    assert_eq!(u64_at(&v, "summary.ops"), sum);
    assert!(text.contains("rank 2 on"), "{text}");
    // the survivors removed their work directories; rank 0 removed the dead
    // rank's (named with the job and the rank: provably the job's) after
    // writing the result, and no partial report is left behind
    assert_untouched(d.path());
}
