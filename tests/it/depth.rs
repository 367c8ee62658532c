//! Queue depth through the runner's one issue loop: with the queued test
//! engine (nullq: completes after some polls, out of order) at --iodepth
//! 32, the requests in flight reach 32 and never exceed it, through `run`
//! and a classic benchmark; io_uring and libaio hold the depth on a real
//! file with O_DIRECT; a synchronous engine refuses a depth above 1.

use crate::common::*;
use serde_json::Value;

/// The io_depth block of a result: the deepest, and the bounds of the
/// buckets that saw issues.
fn depths(v: &Value) -> (u64, Vec<u64>) {
    let d = get(v, "summary.io_depth");
    let max = d["max"].as_u64().unwrap();
    let bounds = d["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["depth"].as_u64().unwrap())
        .collect();
    (max, bounds)
}

/// The requests in flight reached 32 and never went above.
fn assert_reached_32_and_no_more(v: &Value) {
    let (max, bounds) = depths(v);
    assert_eq!(max, 32);
    assert!(bounds.iter().all(|&b| b <= 32), "{bounds:?}");
}

/// `cmd` with `args` in a new work directory on `engine` at depth 32: its
/// result (checked against the shared contract, the depth reached and
/// kept) and its report. The directory is left as it was found.
fn at_depth_32(cmd: &str, engine: &str, args: &[&str]) -> (Value, String) {
    let (v, report) = run_queued(cmd, engine, "32", args);
    assert_reached_32_and_no_more(&v);
    (v, report)
}

#[test]
fn run_keeps_32_in_flight_and_no_more() {
    let (v, _) = at_depth_32(
        "run",
        "nullq",
        &["--ops", "20000", "-p", "2", "--unique-bytes", "8M"],
    );
    assert_eq!(get(&v, "config.io.iodepth").as_u64(), Some(32));
    // the budget is exact at depth: no request beyond it was issued
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 20000);
}

/// io_uring at depth 32 with O_DIRECT on a small file: every request
/// completes, 32 are in flight at the deepest, and the file goes.
#[test]
fn io_uring_keeps_32_in_flight_with_o_direct() {
    let (v, report) = at_depth_32(
        "run",
        "io_uring",
        &[
            "--direct",
            "--unique-bytes",
            "4M",
            "--size-mean",
            "4K",
            "--ops",
            "5000",
        ],
    );
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 5000);
    assert!(report.contains("engine io_uring, O_DIRECT"), "{report}");
}

#[test]
fn scientific_keeps_32_in_flight_and_no_more() {
    let (v, report) = at_depth_32(
        "scientific",
        "nullq",
        &["--size", "64M", "--request", "64K"],
    );
    assert_eq!(get(&v, "config.iodepth").as_u64(), Some(32));
    // every request of both phases, once
    assert_eq!(op_count(&v, "write"), 1024);
    assert_eq!(op_count(&v, "read"), 1024);
    assert!(report.contains("1024 requests"), "{report}");
    assert!(report.contains("32 requests in flight"), "{report}");
}

/// Both phases run on one io_uring ring per worker; the result says how
/// the kernel set it up.
#[test]
fn scientific_on_io_uring_names_the_rings_setup() {
    let (v, _) = at_depth_32(
        "scientific",
        "io_uring",
        &["--size", "4M", "--request", "64K"],
    );
    let mode = str_at(&v, "engine.mode");
    assert!(mode.ends_with(" ring"), "{mode}");
}

#[test]
fn one_request_at_a_time_writes_no_depth_and_sync_engines_refuse_more() {
    let dir = work_dir();
    let (v, _) = run_json(&[
        "run",
        "--dir",
        p(dir.path()),
        "--engine",
        "null",
        "--ops",
        "1000",
    ]);
    assert!(get(&v, "summary").get("io_depth").is_none());
    assert!(get(&v, "config.io").get("iodepth").is_none());
    for cmd in ["run", "scientific"] {
        let l = assert_usage_error(&[cmd, "--dir", p(dir.path()), "--iodepth", "8"]);
        assert!(l.contains("--iodepth 8") && l.contains("nullq"), "{l}");
        let l = assert_usage_error(&[cmd, "--dir", p(dir.path()), "--iodepth", "0"]);
        assert!(l.contains("queue depth"), "{l}");
    }
    assert_untouched(dir.path());
}

/// The self-scaling benchmark explores its workload space at a depth: every
/// point's workers keep 32 in flight (and never more), and the model says
/// so, so a validation of it measures at the same depth.
#[test]
fn selfscale_explores_at_a_depth_and_its_model_keeps_it() {
    let dir = work_dir();
    let out = dir.path().join("model");
    let mut args = null_model_args(p(dir.path()), p(&out));
    args[3] = "nullq";
    args.extend(["--iodepth", "32"]);
    let (v, report) = run_json(&args);
    assert_reached_32_and_no_more(&v);
    assert!(
        report.contains("32 requests in flight per worker"),
        "{report}"
    );
    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("model.json")).unwrap()).unwrap();
    assert_eq!(model["settings"]["iodepth"].as_u64(), Some(32));
}

/// The kernel's native AIO at depth 32 with O_DIRECT: the run completes
/// every request of its budget, 32 in flight and never more, and leaves
/// the work directory as it found it.
#[test]
fn libaio_keeps_32_direct_requests_in_flight() {
    let (v, _) = at_depth_32(
        "run",
        "libaio",
        &[
            "--direct",
            "--ops",
            "4000",
            "-p",
            "1",
            "--unique-bytes",
            "4M",
        ],
    );
    assert_eq!(get(&v, "config.io.iodepth").as_u64(), Some(32));
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 4000);
}
