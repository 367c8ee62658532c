//! `iogauge fio` start and stop controls: `startdelay`, `number_ios`,
//! `exitall`/`exit_what`, `rate_min`/`rate_iops_min`. Small jobs on the
//! null engine (files of 1 MiB), each checked against what fio 3.33
//! prints or counts for the same file.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// Run a job file's text in `dir` with fio's JSON on stdout: the exit
/// code, the JSON, stderr and the wall time.
fn run(dir: &Path, job: &str) -> (i32, Value, String, Duration) {
    std::fs::write(dir.join("t.fio"), job).unwrap();
    let t = Instant::now();
    let (code, out, err) = fio_in(dir, &["--output-format=json", "t.fio"]);
    let took = t.elapsed();
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    let v = if out.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
    };
    (code, v, err, took)
}

fn job<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("no job {name}: {v}"))
}

fn ios(j: &Value, dir: &str) -> u64 {
    j[dir]["total_ios"].as_u64().unwrap()
}

fn runtime_ms(j: &Value, dir: &str) -> u64 {
    j[dir]["runtime"].as_u64().unwrap()
}

/// A delayed job runs its own runtime from its own start, at its own
/// rate from then (no burst to catch up the delay), and the run lasts
/// long enough for it. fio 3.33 on this file: both jobs `runt=2001msec`,
/// IOPS=1000 each, the run 3 s.
#[test]
fn a_delayed_job_runs_its_runtime_from_its_own_start() {
    let dir = work_dir();
    let (code, v, err, took) = run(
        dir.path(),
        "[global]\nioengine=null\nsize=1m\ntime_based\nruntime=1\nrate_iops=500\n\
         [a]\nrw=read\n[b]\nrw=read\nstartdelay=1\n",
    );
    assert_eq!(code, 0, "{err}");
    for name in ["a", "b"] {
        let j = job(&v, name);
        let ms = runtime_ms(j, "read");
        assert!((950..1400).contains(&ms), "{name}: runtime {ms} ms");
        let n = ios(j, "read");
        assert!((430..=560).contains(&n), "{name}: {n} requests at 500/s");
    }
    assert!(took >= Duration::from_millis(1900), "the run took {took:?}");
    assert_eq!(tree(dir.path()), tree(work_dir().path()), "nothing left");
}

/// `number_ios` ends a job after that many requests, reads and writes
/// together, times `loops`, twice for trimwrite, the in-flight ones
/// counted (fio 3.33, ioengine=null, size=64m, number_ios=1000:
/// `total_ios` 1000; randrw 482+518; loops=3 3000; trimwrite 1000 trims
/// and 1000 writes; iodepth=8 1000).
#[test]
fn number_ios_ends_a_job_after_that_many_requests_as_fio() {
    let dir = work_dir();
    let (code, v, err, _) = run(
        dir.path(),
        "[global]\nioengine=null\nsize=64m\nnumber_ios=1000\n\
         [seq]\nrw=read\n[mixed]\nrw=randrw\n[looped]\nrw=read\nloops=3\n\
         [tw]\nrw=trimwrite\n[deep]\nrw=randread\niodepth=8\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(ios(job(&v, "seq"), "read"), 1000);
    let m = job(&v, "mixed");
    assert_eq!(ios(m, "read") + ios(m, "write"), 1000);
    assert!(ios(m, "read") > 300 && ios(m, "write") > 300, "{m}");
    assert_eq!(ios(job(&v, "looped"), "read"), 3000);
    let tw = job(&v, "tw");
    assert_eq!((ios(tw, "trim"), ios(tw, "write")), (1000, 1000));
    assert_eq!(ios(job(&v, "deep"), "read"), 1000);
    assert_eq!(job(&v, "seq")["read"]["io_bytes"].as_u64(), Some(4_096_000));
}

/// A time-based job runs to its runtime whatever `number_ios` says, as
/// fio 3.33's does; iogauge says so before the run.
#[test]
fn number_ios_does_not_end_a_time_based_job() {
    let dir = work_dir();
    let (code, v, err, _) = run(
        dir.path(),
        "[t]\nioengine=null\nsize=1m\nnumber_ios=100\ntime_based\nruntime=300ms\nrate_iops=1000\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(ios(job(&v, "t"), "read") > 200, "{v}");
    assert!(err.contains("number_ios with time_based"), "{err}");
}

/// With `exitall`, a job's end ends the others of its group at once
/// (fio 3.33: the long job `runt=299msec` beside a short one of 300
/// requests at 1000/s); `exit_what=all` ends the run, the stage after the
/// next stonewall never runs; a job of another group goes on.
#[test]
fn exitall_ends_the_other_jobs_of_the_group() {
    let dir = work_dir();
    let (code, v, err, took) = run(
        dir.path(),
        "[global]\nioengine=null\nsize=1m\nexitall\nrate_iops=1000\n\
         [short]\nrw=read\nnumber_ios=200\n\
         [long]\nrw=read\ntime_based\nruntime=20\n\
         [other]\nnew_group\nrw=read\ntime_based\nruntime=1\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(ios(job(&v, "short"), "read"), 200);
    let long = runtime_ms(job(&v, "long"), "read");
    assert!(long < 1000, "long ran {long} ms");
    let other = runtime_ms(job(&v, "other"), "read");
    assert!((950..1500).contains(&other), "other ran {other} ms");
    assert!(took < Duration::from_secs(8), "{took:?}");

    let (code, v, err, took) = run(
        dir.path(),
        "[global]\nioengine=null\nsize=1m\nexitall\nrate_iops=1000\n\
         [short]\nrw=read\nnumber_ios=200\nexit_what=all\n\
         [long]\nrw=read\ntime_based\nruntime=20\n\
         [never]\nstonewall\nrw=read\ntime_based\nruntime=20\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(runtime_ms(job(&v, "long"), "read") < 1000, "{v}");
    assert!(
        !v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["jobname"] == "never" && j["read"]["total_ios"].as_u64() != Some(0)),
        "{v}"
    );
    assert!(took < Duration::from_secs(8), "{took:?}");
    assert_eq!(tree(dir.path()), tree(work_dir().path()), "nothing left");
}

/// A job below its least rate, once fio's 2 s of settling and a rate
/// cycle are over, ends in error with fio's message (fio 3.33: `x:
/// rate_iops_min=500 not met, got 99 IOPS`, `err= 5`, exit 1, after
/// 3 s); a job that keeps its least rate under a cap runs on.
#[test]
fn a_job_below_its_least_rate_ends_with_fios_message() {
    let dir = work_dir();
    let (code, v, err, _) = run(
        dir.path(),
        "[global]\nioengine=null\nsize=1m\ntime_based\nruntime=4\n\
         [slow]\nthinktime=10ms\nrate_iops_min=500\n\
         [slowbytes]\nthinktime=10ms\nrate_min=1m\n\
         [capped]\nrate_iops=400\nrate_iops_min=300\n",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("slow: rate_iops_min=500 not met, got "),
        "{err}"
    );
    assert!(
        err.contains("slowbytes: rate_min=1048576B/s not met, got "),
        "{err}"
    );
    for name in ["slow", "slowbytes"] {
        let j = job(&v, name);
        assert_eq!(j["error"], 5, "{j}");
        let ms = runtime_ms(j, "read");
        assert!((2900..3900).contains(&ms), "{name} ran {ms} ms");
    }
    let c = job(&v, "capped");
    assert_eq!(c["error"], 0, "{c}");
    assert!(runtime_ms(c, "read") >= 3900, "{c}");
}

/// Least rates fio refuses are refused at their line.
#[test]
fn least_rates_fio_refuses_are_refused() {
    let dir = work_dir();
    for (text, why) in [
        (
            "[j]\nioengine=null\nsize=1m\nrate=1m\nrate_min=2m\n",
            "t.fio:5: the least read rate is above the job's rate cap",
        ),
        (
            "[j]\nioengine=null\nsize=1m\nrate_min=1m\nrate_iops_min=10\n",
            "t.fio:5: rate_min and rate_iops_min are mutually exclusive",
        ),
        (
            "[j]\nioengine=null\nsize=1m\nexit_what=some\n",
            "exit_what is group, stonewall or all",
        ),
    ] {
        let (code, _, err, _) = run(dir.path(), text);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(err.contains(why), "{text}: {err}");
    }
}
