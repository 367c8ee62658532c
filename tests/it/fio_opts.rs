//! `iogauge fio` running the options fio runs otherwise than at their
//! defaults: backwards sequential I/O (`rw=read:-8k`), `trimwrite` and
//! `randtrimwrite`, think times every N blocks (`thinktime_blocks`,
//! `thinktime_blocks_type`, `thinktime_spin`, `thinktime_iotime`) and
//! `iodepth_low`. The offsets expected are the ones fio 3.33 issues for
//! the same jobs (its `write_iolog` with `ioengine=null`).

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// Run `job` (one job, its own lines) in `dir`; its JSON job entry.
fn json_job(dir: &Path, job: &str) -> Value {
    std::fs::write(dir.join("t.fio"), job).unwrap();
    let (code, out, err) = fio_in(dir, &["--output-format=json", "t.fio"]);
    assert_eq!(code, 0, "{job}: {err}");
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    v["jobs"][0].clone()
}

/// The requests of `job` (null engine) in order, as `dKiB` (`r`, `w`,
/// `t` and the offset in KiB), from its latency log with offsets.
fn offsets(dir: &Path, job: &str) -> Vec<String> {
    let text = format!("[j]\nioengine=null\nwrite_lat_log=x\nlog_offset=1\n{job}");
    json_job(dir, &text);
    let log = dir.join("x_lat.1.log");
    let lines = std::fs::read_to_string(&log).unwrap();
    for l in ["x_lat.1.log", "x_clat.1.log", "x_slat.1.log"] {
        std::fs::remove_file(dir.join(l)).unwrap();
    }
    lines
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(", ").collect();
            let d = ["r", "w", "t"][f[2].parse::<usize>().unwrap()];
            format!("{d}{}", f[4].parse::<u64>().unwrap() / 1024)
        })
        .collect()
}

fn seq(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// A negative skip goes down from the region's end, wrapping, after a
/// first request at its start; a trimwrite trims each block, then writes
/// it, in the order fio 3.33 gives.
#[test]
fn backwards_and_trimwrite_issue_fios_offsets() {
    let dir = work_dir();
    for (job, want) in [
        (
            "size=64k\nbs=4k\nrw=read:-8k\n",
            "r0 r56 r52 r48 r44 r40 r36 r32 r28 r24 r20 r16 r12 r8 r4 r0",
        ),
        (
            "size=64k\nbs=4k\nrw=write:-12k\n",
            "w0 w52 w44 w36 w28 w20 w12 w4 w52 w44 w36 w28 w20 w12 w4 w52",
        ),
        (
            "size=32k\nbs=4k\nrw=read:-8k\nloops=2\n",
            "r0 r24 r20 r16 r12 r8 r4 r0 r24 r20 r16 r12 r8 r4 r0 r24",
        ),
        (
            // fio's wrap with an offset lands `offset` past the region's
            // end less the skip, in the 48 KiB file it makes
            "filename=g\noffset=16k\nsize=32k\nbs=4k\nrw=read:-8k\n",
            "r24 r20 r16 r40 r36 r32 r28 r24",
        ),
        (
            "size=32k\nbs=4k\nrw=trimwrite\n",
            "t0 w0 t4 w4 t8 w8 t12 w12 t16 w16 t20 w20 t24 w24 t28 w28",
        ),
        (
            "size=32k\nbs=4k\nrw=trimwrite:-8k\n",
            "t0 w0 t24 w24 t20 w20 t16 w16 t12 w12 t8 w8 t4 w4 t0 w0",
        ),
    ] {
        assert_eq!(offsets(dir.path(), job), seq(want), "{job}");
    }
    // randtrimwrite: each block trimmed once, in random order, each trim
    // followed by the write of its block
    let got = offsets(dir.path(), "size=64k\nbs=4k\nrw=randtrimwrite\n");
    assert_eq!(got.len(), 32);
    let mut blocks = Vec::new();
    for pair in got.chunks(2) {
        assert!(
            pair[0].starts_with('t') && pair[1] == format!("w{}", &pair[0][1..]),
            "{got:?}"
        );
        blocks.push(pair[0][1..].parse::<u64>().unwrap());
    }
    blocks.sort_unstable();
    assert_eq!(blocks, (0..16).map(|b| b * 4).collect::<Vec<_>>());
    assert_untouched(dir.path());
}

/// A trimwrite on a real file trims and writes each block once (the data
/// file's size in each direction) and leaves nothing.
#[test]
fn trimwrite_runs_on_a_file() {
    let dir = work_dir();
    let j = json_job(
        dir.path(),
        "[j]\nioengine=psync\nsize=256k\nbs=16k\nrw=trimwrite\n",
    );
    assert_eq!(j["trim"]["total_ios"], 16, "{j}");
    assert_eq!(j["write"]["total_ios"], 16, "{j}");
    assert_eq!(j["write"]["io_bytes"], 256 << 10, "{j}");
    assert_untouched(dir.path());
}

/// A think time every N blocks: N-block bursts, each followed by the
/// think time (the last one too, as fio); spinning burns the CPU for its
/// part; a think is no request's latency.
#[test]
fn think_times_every_n_blocks() {
    let dir = work_dir();
    let base = "[j]\nioengine=null\nsize=200k\nbs=4k\nrw=read\nthinktime=10ms\n";
    // 50 requests, a think after every 10: five of 10 ms
    let j = json_job(dir.path(), &format!("{base}thinktime_blocks=10\n"));
    assert_eq!(j["read"]["total_ios"], 50);
    let rt = j["job_runtime"].as_u64().unwrap();
    assert!((48..=90).contains(&rt), "5 thinks of 10 ms: {rt} ms");
    let lat = j["read"]["lat_ns"]["max"].as_f64().unwrap();
    assert!(lat < 5e6, "a think counted as latency: {lat} ns");
    // spin 8 of the 10 ms: the job's CPU is mostly user time
    let j = json_job(
        dir.path(),
        &format!("{base}thinktime_blocks=10\nthinktime_spin=8ms\n"),
    );
    let rt = j["job_runtime"].as_u64().unwrap();
    assert!((48..=90).contains(&rt), "{rt} ms");
    let usr = j["usr_cpu"].as_f64().unwrap();
    assert!(usr > 30.0, "spinning 40 of {rt} ms: usr {usr}%");
    // issue side, queued: a think after every 5 issued: ten
    let j = json_job(
        dir.path(),
        &format!("{base}thinktime_blocks=5\nthinktime_blocks_type=issue\niodepth=4\n"),
    );
    assert_eq!(j["read"]["total_ios"], 50);
    let rt = j["job_runtime"].as_u64().unwrap();
    assert!((98..=160).contains(&rt), "10 thinks of 10 ms: {rt} ms");
    // by time: a 10 ms think once 30 ms passed, over 200 ms
    let j = json_job(
        dir.path(),
        "[j]\nioengine=null\nsize=1g\nbs=4k\nrw=read\nthinktime=10ms\nthinktime_iotime=30ms\nruntime=200ms\ntime_based\n",
    );
    let rt = j["job_runtime"].as_u64().unwrap();
    assert!((195..=260).contains(&rt), "{rt} ms");
    assert!(j["read"]["total_ios"].as_u64().unwrap() > 1000, "{j}");
    assert_untouched(dir.path());
}

/// iodepth_low: a full queue drains to the mark before it is filled
/// again: requests go out at depths 5 to 16 (fio's depth shares move from
/// the 16 bucket to the lower ones), where without it they go out at 16.
#[test]
fn iodepth_low_drains_the_queue() {
    let dir = work_dir();
    let base = "[j]\nioengine=null\nsize=64m\nbs=4k\nrw=randread\niodepth=16\n";
    let level = |j: &Value, k: &str| j["iodepth_level"][k].as_f64().unwrap();
    let full = json_job(dir.path(), base);
    let low = json_job(dir.path(), &format!("{base}iodepth_low=4\n"));
    assert_eq!(low["read"]["total_ios"], 16_384);
    assert!(level(&full, "16") > 85.0, "{}", full["iodepth_level"]);
    assert!(level(&low, "16") < 75.0, "{}", low["iodepth_level"]);
    assert!(level(&low, "8") > 15.0, "{}", low["iodepth_level"]);
    assert_untouched(dir.path());
}
