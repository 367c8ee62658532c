//! `iogauge fio` running jobs: small job files in temporary directories,
//! checked for what fio would print and count (every request of a
//! size-bound job, each clone's region, the stages' order, the reporting
//! groups, the rate caps), what it leaves (nothing, unless --keep-files)
//! and what it refuses to touch.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// Run a job file's text in `dir` with fio's JSON on stdout.
fn json_run(dir: &Path, job: &str, extra: &[&str]) -> Value {
    std::fs::write(dir.join("t.fio"), job).unwrap();
    let mut args = vec!["--output-format=json"];
    args.extend_from_slice(extra);
    args.push("t.fio");
    let (code, out, err) = fio_in(dir, &args);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
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

/// A size-bound job issues exactly size/bs requests, reads each block of a
/// random read once (fio's random map), and leaves nothing behind; the
/// normal report has fio's lines.
#[test]
fn a_size_bound_job_does_size_over_bs_requests_and_leaves_nothing() {
    let dir = work_dir();
    std::fs::write(
        dir.path().join("t.fio"),
        "[global]\nsize=2m\nbs=16k\n[seq]\nrw=read\n[rand]\nrw=randread\nioengine=sync\n",
    )
    .unwrap();
    let (code, out, err) = fio_in(dir.path(), &["t.fio"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "seq: (g=0): rw=read, bs=(R) 16.0KiB-16.0KiB, (W) 16.0KiB-16.0KiB, (T) 16.0KiB-16.0KiB, ioengine=psync, iodepth=1\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "\nStarting 2 threads\nseq: Laying out IO file (1 file / 2MiB)\nrand: Laying out IO file (1 file / 2MiB)\n"
        ),
        "{out}"
    );
    assert_eq!(
        out.matches("issued rwts: total=128,0,0,0").count(),
        2,
        "{out}"
    );
    assert!(out.contains("Run status group 0 (all jobs):"), "{out}");
    assert!(out.contains("   READ: bw="), "{out}");
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    assert_untouched(dir.path());
}

/// numjobs clones each get their own file and region; with
/// group_reporting the group is one job in fio's JSON with all their
/// requests; a stonewall makes the next job a group of its own that runs
/// after, on the file the first stage wrote.
#[test]
fn clones_groups_and_stages_as_fio() {
    let dir = work_dir();
    let v = json_run(
        dir.path(),
        "[global]\nbs=4k\nioengine=libaio\niodepth=4\n\
         [w]\nrw=randwrite\nfilename=shared\nsize=1m\nnumjobs=3\noffset_increment=1m\ngroup_reporting\n\
         [r]\nstonewall\nrw=read\nfilename=shared\nsize=3m\nbs=64k\n\
         [m]\nstonewall\nrw=randrw\nrwmixread=75\nsize=4m\nnorandommap\n",
        &[],
    );
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3, "{v}");
    let w = job(&v, "w");
    assert_eq!(w["groupid"], 0);
    assert_eq!(ios(w, "write"), 3 * 256, "3 clones × 1 MiB / 4 KiB");
    assert_eq!(ios(w, "read"), 0);
    let r = job(&v, "r");
    assert_eq!(r["groupid"], 1);
    assert_eq!(ios(r, "read"), 48, "3 MiB / 64 KiB");
    let m = job(&v, "m");
    assert_eq!(m["groupid"], 2);
    let (rd, wr) = (ios(m, "read"), ios(m, "write"));
    assert_eq!(rd + wr, 1024);
    let share = rd as f64 / 1024.0;
    assert!((0.68..0.82).contains(&share), "read share {share}");
    assert_eq!(m["job options"]["rwmixread"], "75", "{m}");
    // a queue of 4: the depths fio reports go past 1
    assert!(w["iodepth_level"]["4"].as_f64().unwrap() > 0.0, "{w}");
    assert_untouched(dir.path());
}

/// A time-based job runs its runtime; rate_iops holds the job to its rate
/// (the null engine: nothing else holds it back); thinktime spaces the
/// requests.
#[test]
fn runtime_rate_and_thinktime_hold() {
    let dir = work_dir();
    let v = json_run(
        dir.path(),
        "[global]\nioengine=null\nsize=1g\nbs=4k\nruntime=1\ntime_based\n\
         [fast]\nrw=randread\n\
         [capped]\nrw=randread\nrate_iops=400\n\
         [thinking]\nrw=read\nthinktime=10ms\n",
        &[],
    );
    let fast = job(&v, "fast");
    let rt = fast["job_runtime"].as_u64().unwrap();
    assert!((990..1300).contains(&rt), "runtime {rt} ms");
    assert!(ios(fast, "read") > 10_000, "{fast}");
    let capped = ios(job(&v, "capped"), "read");
    assert!(
        (360..=420).contains(&capped),
        "rate_iops=400 for 1 s: {capped}"
    );
    let thinking = ios(job(&v, "thinking"), "read");
    assert!(
        (60..=101).contains(&thinking),
        "10 ms think time for 1 s: {thinking}"
    );
    assert_untouched(dir.path());
}

/// The user's own file is read where it is, whole, and never written
/// without --allow-write; with it, writes go to the named region only; it
/// is never removed.
#[test]
fn the_users_file_is_read_and_written_only_when_allowed() {
    let dir = work_dir();
    let mine = dir.path().join("mine");
    let content: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&mine, &content).unwrap();
    let v = json_run(dir.path(), "[r]\nfilename=mine\nrw=randread\nbs=4k\n", &[]);
    assert_eq!(ios(job(&v, "r"), "read"), 256, "the whole file, once");
    assert_eq!(std::fs::read(&mine).unwrap(), content);
    // a write is refused, naming the way
    std::fs::write(dir.path().join("w.fio"), "[w]\nfilename=mine\nrw=write\n").unwrap();
    let (code, out, err) = fio_in(dir.path(), &["w.fio"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.starts_with("iogauge: w.fio:2: ") && err.contains("--allow-write"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // nor extended
    std::fs::write(dir.path().join("w.fio"), "[w]\nfilename=mine\nsize=2m\n").unwrap();
    let (code, _, err) = fio_in(dir.path(), &["w.fio"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not extend"), "{err}");
    // allowed: the second half only, the first untouched
    std::fs::write(
        dir.path().join("w.fio"),
        "[w]\nfilename=mine\nrw=write\noffset=50%\nbs=64k\n",
    )
    .unwrap();
    let (code, _, err) = fio_in(dir.path(), &["--allow-write", "w.fio"]);
    assert_eq!(code, 0, "{err}");
    let after = std::fs::read(&mine).unwrap();
    assert_eq!(after.len(), content.len());
    assert_eq!(after[..1 << 19], content[..1 << 19]);
    assert_ne!(after[1 << 19..], content[1 << 19..]);
    std::fs::remove_file(dir.path().join("w.fio")).unwrap();
    std::fs::remove_file(&mine).unwrap();
    assert_untouched(dir.path());
}

/// --keep-files keeps what the jobs made (as fio does); --json writes
/// iogauge's own result, one valid result per job; --output takes the
/// report; --check plans without making anything.
#[test]
fn keep_files_json_output_and_check() {
    let dir = work_dir();
    std::fs::write(
        dir.path().join("t.fio"),
        "[a]\nsize=256k\nrw=write\nnrfiles=2\n[b]\nsize=128k\nrw=randread\n",
    )
    .unwrap();
    let (code, out, err) = fio_in(dir.path(), &["--check", "t.fio"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "2 jobs in 1 stage: checked; nothing was run\n");
    assert_eq!(tree(dir.path()), ["keep", "sub", "sub/inner", "t.fio"]);
    let (code, out, err) = fio_in(
        dir.path(),
        &[
            "--keep-files",
            "--json",
            "r.json",
            "--output",
            "report.txt",
            "t.fio",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "{out}");
    let report = std::fs::read_to_string(dir.path().join("report.txt")).unwrap();
    assert!(report.contains("a: (groupid=0, jobs=1)"), "{report}");
    let made: Vec<u64> = ["a.0.0", "a.0.1", "b.0.0"]
        .iter()
        .map(|f| std::fs::metadata(dir.path().join(f)).unwrap().len())
        .collect();
    assert_eq!(made, vec![128 << 10, 128 << 10, 128 << 10]);
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(v["schema"], "iogauge/fio/v1");
    assert_eq!(v["complete"], true);
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    for e in entries {
        check_result(&e["result"]);
    }
    assert_eq!(entries[0]["result"]["ops"]["write"]["count"], 64);
    assert_eq!(entries[1]["result"]["ops"]["read"]["count"], 32);
}

/// What cannot run is refused with one line and its file:line, before
/// anything is made.
#[test]
fn refusals_name_their_line_and_make_nothing() {
    let dir = work_dir();
    for (text, line, needle) in [
        ("[a]\nrw=read\n", 1, "give size="),
        ("[a]\nsize=1m\ntime_based\n", 3, "needs a runtime"),
        ("[a]\nsize=1m\ndirectory=nowhere\n", 3, "does not exist"),
        ("[a]\nsize=1m\nverify=md5\n", 3, "verify=md5"),
        ("[a]\nsize=1m\nrw=read:-2k\n", 3, "backwards"),
        (
            "[a]\nsize=1m\n[b]\nsize=1m\n[c]\nsize=1m\nwait_for=a\n",
            7,
            "stonewall",
        ),
        ("[a]\nsize=1m\nrate=1m\nrate_iops=10\n", 4, "give one"),
        ("[a]\nfilename=/dev/iogauge-none\n", 2, "no such device"),
        (
            "[a]\nsize=2t\nbs=1t\nrw=write\n",
            3,
            "more than iogauge issues at once",
        ),
    ] {
        std::fs::write(dir.path().join("t.fio"), text).unwrap();
        let (code, out, err) = fio_in(dir.path(), &["t.fio"]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(out.is_empty(), "{text}: {out}");
        assert_eq!(err.lines().count(), 1, "{text}: {err}");
        assert!(
            err.starts_with(&format!("iogauge: t.fio:{line}: ")) && err.contains(needle),
            "{text}: {err}"
        );
    }
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    assert_untouched(dir.path());
}

/// A job's write_lat_log / write_iops_log give fio's log files, named by
/// the job's number, one line per request (or per window with
/// log_avg_msec), listed in --json.
#[test]
fn job_logs_are_written_as_fio_names_them() {
    let dir = work_dir();
    std::fs::write(
        dir.path().join("t.fio"),
        "[global]\nioengine=null\n[a]\nrw=read\nsize=1m\nwrite_lat_log=a\n[b]\nrw=randread\nsize=1g\nruntime=1\ntime_based\nwrite_iops_log=b\nlog_avg_msec=100\n",
    )
    .unwrap();
    let (code, _, err) = fio_in(dir.path(), &["--json", "r.json", "t.fio"]);
    assert_eq!(code, 0, "{err}");
    let lat = std::fs::read_to_string(dir.path().join("a_lat.1.log")).unwrap();
    assert_eq!(lat.lines().count(), 256, "1 MiB in 4 KiB reads");
    for l in lat.lines() {
        let f: Vec<&str> = l.split(", ").collect();
        assert_eq!(f.len(), 5, "{l}");
        assert_eq!((f[2], f[3], f[4]), ("0", "4096", "0"), "{l}");
    }
    let iops = std::fs::read_to_string(dir.path().join("b_iops.2.log")).unwrap();
    let n = iops.lines().count();
    assert!(
        (9..=11).contains(&n),
        "{n} windows of 100 ms in 1 s: {iops}"
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let logs: Vec<&str> = v["io_logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert!(
        logs.contains(&"a_lat.1.log") && logs.contains(&"b_iops.2.log"),
        "{logs:?}"
    );
}

/// cpus_allowed with the split policy gives each clone its own CPU, by
/// fio's job numbers; a CPU the machine lacks is refused at its place.
#[test]
fn cpus_allowed_split_pins_each_clone() {
    let dir = work_dir();
    let (code, _, err) = fio_in(
        dir.path(),
        &[
            "--json",
            "r.json",
            "--output-format=json",
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--numjobs=2",
            "--cpus_allowed=0",
            "--cpus_allowed_policy=split",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    for e in v["entries"].as_array().unwrap() {
        assert_eq!(e["result"]["pinning"][0]["cpus"], "0", "{e}");
    }
    let (code, _, err) = fio_in(
        dir.path(),
        &["--name=a", "--size=1m", "--cpus_allowed=4095"],
    );
    assert_eq!(code, 2);
    assert!(
        err.starts_with("iogauge: command line, argument ") && err.contains("CPU 4095"),
        "{err}"
    );
}

/// A queued job keeps its queue full as fio does (one completion taken per
/// wait, so the queue is refilled one at a time): fio's depth, submit and
/// complete shares are measured, as are the context switches; a job file
/// naming its file bare gets the disk stats of the working directory's
/// device (where it is on one).
#[test]
fn a_queued_job_reports_its_depth_submits_and_completions_as_fio() {
    use std::os::unix::fs::MetadataExt;
    let dir = work_dir();
    let v = json_run(
        dir.path(),
        "[q]\nrw=randread\nbs=4k\nsize=4m\nioengine=libaio\niodepth=8\nloops=3\n",
        &[],
    );
    let j = job(&v, "q");
    assert_eq!(ios(j, "read"), 3 * 1024);
    let pct = |k: &str, b: &str| j[k][b].as_f64().unwrap();
    // the first 7 issues find fewer in flight; every other one, 8
    assert!(pct("iodepth_level", "8") > 98.0, "{j}");
    assert_eq!(pct("iodepth_submit", "4"), 100.0, "{j}");
    // one per wait, but the last waits of each pass collect the rest
    assert!(pct("iodepth_complete", "4") > 98.0, "{j}");
    assert!(j["ctx"].as_u64().unwrap() > 0, "{j}");
    let on_a_disk = std::fs::metadata(dir.path()).unwrap().dev() >> 8 != 0
        && std::path::Path::new("/proc/diskstats").exists();
    let disks = v["disk_util"].as_array().map_or(0, Vec::len);
    if on_a_disk {
        assert_eq!(disks, 1, "{v}");
    }
}
