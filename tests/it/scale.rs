//! `iogauge scale`, and the open-loop flags of the workloads: the curve,
//! its stop at a constraint, open-loop rates, the plot, bad input and
//! Ctrl-C, all through the binary in temporary directories.

use crate::common::*;
use serde_json::Value;
use std::time::Duration;

/// A small, fast generic workload: cached 4 KiB reads of a 4 MiB file.
const RUN: &[&str] = &[
    "--duration",
    "0.3",
    "--unique-bytes",
    "4m",
    "--size-mean",
    "4k",
    "--size-cv",
    "0",
    "--read-frac",
    "1",
];

fn points(v: &Value) -> &Vec<Value> {
    get(v, "metrics.curve.points").as_array().unwrap()
}

fn load_of(pt: &Value) -> (String, f64) {
    let l = get(pt, "load");
    (
        l["loop"].as_str().unwrap().to_string(),
        l["value"].as_f64().unwrap(),
    )
}

#[test]
fn a_closed_curve_of_run_has_its_points_peak_and_fit() {
    let dir = work_dir();
    let mut args = vec!["scale", "--max-procs", "4", "--max-reps", "1", "run"];
    args.extend_from_slice(&["--dir", p(dir.path())]);
    args.extend_from_slice(RUN);
    let (v, report) = run_json(&args);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "scale");
    assert_eq!(str_at(&v, "config.workload"), "run");
    assert_eq!(str_at(&v, "config.loop"), "closed");
    let pts = points(&v);
    let loads: Vec<f64> = pts.iter().map(|p| load_of(p).1).collect();
    // 1, 2, 4 (and perhaps 3, bisecting around a peak at 2 or 4)
    for n in [1.0, 2.0, 4.0] {
        assert!(loads.contains(&n), "{loads:?}");
    }
    assert!(loads.windows(2).all(|w| w[0] < w[1]), "sorted: {loads:?}");
    for pt in pts {
        assert_eq!(load_of(pt).0, "closed");
        assert_eq!(pt["reps"].as_array().unwrap().len(), 1);
        assert!(f64_at(pt, "mean.throughput") > 0.0);
        assert!(f64_at(pt, "mean.io_time_fraction") > 0.0);
    }
    // the peak is the highest throughput of the points
    let best = pts
        .iter()
        .map(|p| f64_at(p, "mean.throughput"))
        .fold(0.0, f64::max);
    assert_eq!(f64_at(&v, "metrics.peak_throughput"), best);
    // the law (three parameters) is fitted only to four concurrencies or
    // more: 3 is measured when the curve bisects around its peak
    if loads.len() >= 4 {
        assert!(f64_at(&v, "metrics.usl.lambda") > 0.0);
        assert!(f64_at(&v, "metrics.usl.sigma") >= 0.0);
        assert!(report.contains("USL fit:"), "{report}");
    } else {
        assert!(
            v["metrics"].get("usl").is_none_or(Value::is_null),
            "{report}"
        );
        assert!(report.contains("USL fit: none; it needs 4"), "{report}");
    }
    assert!(report.contains("peak:"), "{report}");
    assert!(report.contains("io_time"), "{report}");
    assert_untouched(dir.path());
}

/// The depth axis: two workers of `run` on the queued test engine, each
/// keeping 1, 2, 4, 8 requests in flight; the JSON and the report say
/// which axis, and the chosen point ran at its depth.
#[test]
fn a_depth_curve_of_run_raises_the_queue_depth_of_fixed_workers() {
    let dir = work_dir();
    let mut args = vec![
        "scale",
        "--axis",
        "depth",
        "--max-depth",
        "8",
        "--max-reps",
        "1",
        "run",
        "--engine",
        "nullq",
        "-p",
        "2",
    ];
    args.extend_from_slice(&["--dir", p(dir.path())]);
    args.extend_from_slice(RUN);
    let (v, report) = run_json(&args);
    check_result(&v);
    assert_eq!(str_at(&v, "config.axis"), "depth");
    assert_eq!(get(&v, "config.max_depth").as_u64(), Some(8));
    let pts = points(&v);
    let loads: Vec<f64> = pts.iter().map(|p| load_of(p).1).collect();
    // 1, 2, 4 at least (the test engine may stop rising by then), no
    // deeper than asked
    for n in [1.0, 2.0, 4.0] {
        assert!(loads.contains(&n), "{loads:?}");
    }
    assert!(loads.iter().all(|&n| n <= 8.0), "{loads:?}");
    assert!(pts.iter().all(|p| load_of(p).0 == "depth"), "{pts:?}");
    // the summary is the chosen point's: it ran with that many in flight
    // per worker, on the two workers given
    let chosen = get(&v, "config.chosen_point.value").as_u64().unwrap();
    // (a run at depth 1 carries no io_depth: one in flight by construction)
    let max = v["summary"]["io_depth"]["max"].as_u64().unwrap_or(1);
    assert_eq!(max, chosen, "{}", v["summary"]);
    let config = &v["config"]["workload_config"];
    // (an iodepth of 1 is left out)
    let iodepth = config["io"]["iodepth"].as_u64().unwrap_or(1);
    assert_eq!(iodepth, chosen);
    assert_eq!(
        config["workload"]["processes"].as_u64(),
        Some(2),
        "{config}"
    );
    assert!(
        report.contains("closed loop of 2 workers, rising queue depth"),
        "{report}"
    );
    assert!(report.contains("QD=1 "), "{report}");
    // the law is fitted to four depths or more; its N is then named
    if v["metrics"].get("usl").is_some_and(|u| !u.is_null()) {
        assert!(
            report.contains("USL fit (N: the queue depth): "),
            "{report}"
        );
    }
    assert_untouched(dir.path());
}

/// Depth where it means nothing, or set twice, is refused in one line.
#[test]
fn the_depth_axis_is_refused_where_it_has_no_meaning() {
    let dir = work_dir();
    let d = p(dir.path());
    for (args, says) in [
        (
            vec!["scale", "--axis", "depth", "run", "--dir", d],
            "--axis depth: run --iodepth 128: engine 'psync' completes each request",
        ),
        (
            vec!["scale", "--axis", "depth", "tpcb", "--dir", d],
            "--axis depth: tpcb reads each record",
        ),
        (
            vec!["scale", "--axis", "depth", "laddis", "--dir", d],
            "--axis depth: laddis waits for each NFS operation",
        ),
        (
            vec![
                "scale", "--axis", "depth", "--rates", "100", "run", "--dir", d, "--engine",
                "nullq",
            ],
            "open loop",
        ),
        (
            vec![
                "scale",
                "--axis",
                "depth",
                "run",
                "--dir",
                d,
                "--engine",
                "nullq",
                "--iodepth",
                "4",
            ],
            "--iodepth 4: on the depth axis",
        ),
        (
            vec![
                "scale",
                "--axis",
                "depth",
                "--max-depth",
                "0",
                "run",
                "--dir",
                d,
            ],
            "queue depth",
        ),
    ] {
        let line = assert_usage_error(&args);
        assert!(line.contains(says), "{args:?}: {line}");
    }
    assert_untouched(dir.path());
}

#[test]
fn the_curve_stops_at_the_constraint_and_its_maximum_meets_it() {
    let dir = work_dir();
    // nothing answers within a nanosecond: N=1 breaks it, and the curve ends
    let mut args = vec!["scale", "--p99-under", "1ns", "--max-reps", "1", "run"];
    args.extend_from_slice(&["--dir", p(dir.path())]);
    args.extend_from_slice(RUN);
    let (v, report) = run_json(&args);
    let pts = points(&v);
    assert_eq!(pts.len(), 1, "{report}");
    assert_eq!(pts[0]["meets"], Value::Bool(false));
    assert!(get(&v, "metrics.curve.best").is_null());
    assert!(report.contains("constraint was broken at N=1"), "{report}");
    assert!(report.contains("no point met it"), "{report}");

    // a constraint every point meets: the maximum under it is the peak
    let mut args = vec!["scale", "--p99-under", "10s", "--max-procs", "2"];
    args.extend_from_slice(&["--max-reps", "1", "run", "--dir", p(dir.path())]);
    args.extend_from_slice(RUN);
    let (v, report) = run_json(&args);
    for pt in points(&v) {
        assert_eq!(pt["meets"], Value::Bool(true));
        assert!(f64_at(pt, "mean.p99_s") <= 10.0);
    }
    assert_eq!(
        f64_at(&v, "metrics.best_throughput"),
        f64_at(&v, "metrics.peak_throughput")
    );
    assert!(report.contains("maximum under the constraint"), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn an_open_curve_keeps_its_rates_and_charges_response_times() {
    let dir = work_dir();
    let mut args = vec!["scale", "--rates", "200,400", "--max-reps", "1", "run"];
    args.extend_from_slice(&["--dir", p(dir.path()), "-p", "2", "--arrivals", "uniform"]);
    args.extend_from_slice(&RUN[2..]);
    args.extend_from_slice(&["--duration", "1"]);
    let (v, report) = run_json(&args);
    assert_eq!(str_at(&v, "config.loop"), "open");
    let pts = points(&v);
    assert_eq!(pts.len(), 2, "{report}");
    for (pt, rate) in pts.iter().zip([200.0, 400.0]) {
        assert_eq!(load_of(pt), ("open".to_string(), rate));
        assert_eq!(pt["saturated"], Value::Bool(false), "{report}");
        let issued = f64_at(pt, "mean.issued_per_s");
        assert!((issued / rate - 1.0).abs() < 0.02, "{rate}: {issued}");
        assert_eq!(u64_at(pt, "mean.missed"), 0);
    }
    assert!(report.contains("measured every rate asked for"), "{report}");
    assert!(report.contains("open loop"), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn an_open_loop_run_reports_service_and_response_times() {
    let dir = work_dir();
    let mut args = vec!["run", "--dir", p(dir.path()), "--rate", "1000"];
    args.extend_from_slice(&["--arrivals", "uniform", "-p", "2"]);
    args.extend_from_slice(&RUN[2..]);
    args.extend_from_slice(&["--duration", "1"]);
    let (v, report) = run_json(&args);
    check_result(&v);
    // the schedule holds 1000 requests a second; a starved machine may
    // leave a few at the very end unissued, which are counted as missed
    let issued = u64_at(&v, "summary.open_loop.issued");
    let missed = u64_at(&v, "summary.open_loop.missed");
    let scheduled = (issued + missed) as f64 / f64_at(&v, "elapsed_s");
    assert!((scheduled / 1000.0 - 1.0).abs() < 0.01, "{scheduled}");
    assert!(missed <= 10, "{missed}");
    let rate = f64_at(&v, "summary.open_loop.rate_issued");
    assert!((rate / 1000.0 - 1.0).abs() < 0.02, "{rate}");
    assert_eq!(f64_at(&v, "summary.open_loop.rate_offered"), 1000.0);
    // every read has both times; the response is never below the service
    assert_eq!(
        u64_at(&v, "summary.open_loop.issued"),
        u64_at(&v, "ops.read.count")
    );
    let service = f64_at(&v, "ops.read.latency_ns.mean");
    let response = f64_at(&v, "ops.read.response_ns.mean");
    assert!(response >= service, "{response} < {service}");
    assert!(f64_at(&v, "metrics.request_response_ns.p99") > 0.0);
    assert!(
        report.contains("response (from each request's intended start)"),
        "{report}"
    );
    // a closed loop has no response section
    let mut args = vec!["run", "--dir", p(dir.path()), "--thinktime", "1ms"];
    args.extend_from_slice(RUN);
    let (v, _) = run_json(&args);
    assert!(get(&v, "summary").get("open_loop").is_none());
    assert!(get(&v, "ops.read").get("response_ns").is_none());
    // 1 ms of think time bounds the rate of one worker below 1000/s
    assert!(f64_at(&v, "summary.ops_per_s") < 1000.0);
    assert_untouched(dir.path());
}

#[test]
fn the_plot_has_a_marker_per_point() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let svg = out.path().join("curve.svg");
    let mut args = vec!["scale", "--max-procs", "2", "--max-reps", "1"];
    args.extend_from_slice(&["--plot", p(&svg), "run", "--dir", p(dir.path())]);
    args.extend_from_slice(RUN);
    let (v, report) = run_json(&args);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..80.min(text.len())]);
    assert!(text.trim_end().ends_with("</svg>"));
    // one marker per point, and a ring around the chosen one
    let n = points(&v).len();
    assert_eq!(text.matches("<circle").count(), n + 1, "{report}");
    assert!(report.contains("plot: "), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn tpcb_and_laddis_curves_run() {
    let dir = work_dir();
    let d = p(dir.path());
    let (v, report) = run_json(&[
        "scale",
        "--p90-under",
        "2s",
        "--max-procs",
        "2",
        "--max-reps",
        "1",
        "tpcb",
        "--dir",
        d,
        "--duration",
        "0.3",
    ]);
    assert_eq!(str_at(&v, "config.workload"), "tpcb");
    assert_eq!(points(&v).len(), 2, "{report}");
    assert!(f64_at(&v, "metrics.best_throughput") > 0.0);
    assert!(report.contains("tx/s"), "{report}");
    let (v, report) = run_json(&[
        "scale",
        "--mean-under",
        "50ms",
        "--rates",
        "100,200",
        "--max-reps",
        "1",
        "laddis",
        "--dir",
        d,
        "--duration",
        "0.5",
        "--scaling",
        "off",
        "--fileset",
        "4M",
    ]);
    assert_eq!(str_at(&v, "config.workload"), "laddis");
    assert_eq!(points(&v).len(), 2, "{report}");
    assert!(report.contains("ops/s"), "{report}");
    assert_untouched(dir.path());
}

#[test]
fn bad_input_is_refused_with_one_line_and_nothing_left() {
    let dir = work_dir();
    let d = p(dir.path());
    for (args, says) in [
        (
            vec![
                "scale",
                "--p90-under",
                "2s",
                "--mean-under",
                "1s",
                "run",
                "--dir",
                d,
            ],
            "one constraint",
        ),
        (vec!["scale", "run", "--dir", d, "--rate", "10"], "--rate"),
        (vec!["scale", "run", "--dir", d, "--ops", "10"], "--ops"),
        (
            vec!["scale", "tpcb", "--dir", d, "--terminals", "8"],
            "--terminals",
        ),
        (
            vec!["scale", "run", "--dir", d, "-p", "3"],
            "-p/--processes",
        ),
        (
            vec!["scale", "--rates", "400,200", "run", "--dir", d],
            "increase",
        ),
        (
            vec!["scale", "--rates", "fast", "run", "--dir", d],
            "--rates",
        ),
        (
            vec![
                "scale",
                "--rates",
                "100",
                "run",
                "--dir",
                d,
                "--thinktime",
                "1ms",
            ],
            "--thinktime",
        ),
        (
            vec!["scale", "--max-points", "1", "run", "--dir", d],
            "--max-points",
        ),
        (
            vec!["scale", "--min-reps", "0", "run", "--dir", d],
            "--min-reps",
        ),
        (
            vec!["scale", "--p99-under", "0", "run", "--dir", d],
            "--p99-under",
        ),
        (
            vec!["scale", "--target-ci", "0", "run", "--dir", d],
            "--target-ci",
        ),
        (vec!["scale", "nosuch"], "nosuch"),
        (vec!["run", "--dir", d, "--rate", "0"], "--rate"),
        (
            vec!["run", "--dir", d, "--rate", "10", "--thinktime", "1ms"],
            "exclude",
        ),
    ] {
        let line = assert_usage_error(&args);
        assert!(line.contains(says), "{args:?}: {line}");
    }
    assert_untouched(dir.path());
}

/// Ctrl-C in the middle of a curve: exit 130 soon, the points so far
/// written, nothing left behind.
#[test]
fn ctrl_c_ends_the_curve_with_its_points_so_far() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let mut child = std::process::Command::new(bin_path())
        .args(["scale", "--max-reps", "1", "run", "--dir", p(dir.path())])
        .args([
            "--duration",
            "1",
            "--unique-bytes",
            "4m",
            "--json",
            p(&json),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // the first point (1 s) is done, the second under way
    std::thread::sleep(Duration::from_millis(1600));
    let (status, took) = signal_and_wait(&mut child, libc::SIGINT);
    assert_eq!(status.code(), Some(130), "{status}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(!get(&v, "complete").as_bool().unwrap());
    assert!(!points(&v).is_empty());
    assert_eq!(str_at(&v, "metrics.curve.stopped"), "interrupted");
    assert_untouched(dir.path());
}

#[test]
fn ffsb_takes_an_open_loop_as_a_labelled_extension() {
    let dir = work_dir();
    let scratch = tempfile::tempdir().unwrap();
    let loc = scratch.path().join("fs");
    std::fs::create_dir(&loc).unwrap();
    let (v, report) = run_json(&[
        "ffsb",
        "examples/ffsb/mailserver.ffsb",
        "--location",
        p(&loc),
        "--time",
        "1",
        "--rate",
        "500",
        "--arrivals",
        "uniform",
    ]);
    assert!(
        report.contains("iogauge extension, not FFSB: open loop"),
        "{report}"
    );
    // the issue rate over a 1 s run: within 5 % (a loaded machine has
    // made a late arrival cost 2.4 %)
    let issued = f64_at(&v, "summary.open_loop.rate_issued");
    assert!((issued / 500.0 - 1.0).abs() < 0.05, "{issued}");
    assert_eq!(tree(&loc), Vec::<String>::new(), "the run left something");
    assert_untouched(dir.path());
}
