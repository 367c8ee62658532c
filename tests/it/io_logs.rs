//! `iogauge run --write-lat-log/--write-bw-log/--write-iops-log`: fio's
//! per-I/O logs, in fio's format (`time, value, ddir, bs[, offset], prio`),
//! checked against the result of the same run.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// One line of a fio log.
#[derive(Clone, Copy, Debug)]
struct Line {
    ms: u64,
    value: u64,
    ddir: u64,
    bs: u64,
    offset: Option<u64>,
}

/// Every line of the log at `path`, parsed as fio's tools split them
/// (`, `), with `fields` fields each (5, or 6 with the offset).
fn read(path: &Path, fields: usize) -> Vec<Line> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .map(|l| {
            let f: Vec<u64> = l
                .split(", ")
                .map(|x| x.parse().unwrap_or_else(|_| panic!("{l:?}: {x:?}")))
                .collect();
            assert_eq!(f.len(), fields, "{}: {l:?}", path.display());
            assert_eq!(f[fields - 1], 0, "priority: {l:?}");
            Line {
                ms: f[0],
                value: f[1],
                ddir: f[2],
                bs: f[3],
                offset: (fields == 6).then(|| f[4]),
            }
        })
        .collect()
}

/// Run `iogauge run` in `cwd` with `args`; its JSON result.
fn run_in(cwd: &Path, args: &[&str]) -> (Value, String) {
    let out = iogauge()
        .current_dir(cwd)
        .arg("run")
        .args(args)
        .args(["--json", "r.json"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(cwd.join("r.json")).unwrap()).unwrap();
    crate::schema::assert_valid("run with fio's logs", &v);
    (v, stdout)
}

fn lat(v: &Value, kind: &str, which: &str, field: &str) -> u64 {
    u64_at(v, &format!("ops.{kind}.{which}.{field}"))
}

#[test]
fn every_request_has_a_line_in_each_log() {
    let d = work_dir();
    let out = tempfile::tempdir().unwrap();
    let (v, text) = run_in(
        out.path(),
        &[
            "--engine",
            "nullq",
            "--iodepth",
            "4",
            "--ops",
            "2000",
            "--unique-bytes",
            "1M",
            "--dir",
            p(d.path()),
            "--write-lat-log",
            "j",
            "--write-bw-log",
            "j",
            "--write-iops-log",
            "j",
            "--log-offset",
        ],
    );
    assert_untouched(d.path());
    let (reads, writes) = (op_count(&v, "read"), op_count(&v, "write"));
    assert_eq!(reads + writes, 2000);
    let logs = v["io_logs"].as_array().expect("io_logs");
    let names: Vec<&str> = logs.iter().map(|l| l["path"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "j_lat.1.log",
            "j_clat.1.log",
            "j_slat.1.log",
            "j_bw.1.log",
            "j_iops.1.log"
        ]
    );
    for l in logs {
        assert_eq!(l["lines"], 2000, "{l}");
        let line = format!(
            "  {} log: {} (2000 lines)",
            l["log"].as_str().unwrap(),
            l["path"].as_str().unwrap()
        );
        assert!(text.contains(&line), "{line:?} not in {text}");
    }
    let read_log = |kind: &str| read(&out.path().join(format!("j_{kind}.1.log")), 6);
    let (lat_l, clat_l, slat_l) = (read_log("lat"), read_log("clat"), read_log("slat"));
    let (bw_l, iops_l) = (read_log("bw"), read_log("iops"));
    for (kind, ddir, count) in [("read", 0, reads), ("write", 1, writes)] {
        let mine = |log: &[Line]| -> Vec<Line> {
            log.iter().copied().filter(|l| l.ddir == ddir).collect()
        };
        let l = mine(&lat_l);
        assert_eq!(l.len() as u64, count, "{kind}");
        // the sizes add up to the bytes of the result
        let bytes: u64 = l.iter().map(|x| x.bs).sum();
        assert_eq!(bytes, u64_at(&v, &format!("ops.{kind}.bytes")), "{kind}");
        for (log, which) in [
            (&lat_l, "latency_ns"),
            (&clat_l, "completion_ns"),
            (&slat_l, "submission_ns"),
        ] {
            let (lo, hi) = (lat(&v, kind, which, "min"), lat(&v, kind, which, "max"));
            for x in mine(log) {
                assert!(
                    (lo..=hi).contains(&x.value),
                    "{kind} {which}: {x:?} not in {lo}..={hi}"
                );
            }
        }
    }
    let unique = 1 << 20;
    for (i, l) in lat_l.iter().enumerate() {
        assert!(l.ddir <= 1, "{l:?}");
        assert!(
            l.offset.unwrap() % 512 == 0 && l.offset.unwrap() + l.bs <= unique,
            "{l:?}"
        );
        // the logs hold the same requests in the same order
        for other in [&clat_l[i], &slat_l[i], &bw_l[i], &iops_l[i]] {
            assert_eq!(
                (other.ms, other.ddir, other.bs, other.offset),
                (l.ms, l.ddir, l.bs, l.offset)
            );
        }
        // lat is slat plus clat; bw is fio's bytes × 10⁶ / clat; iops 1
        assert_eq!(l.value, slat_l[i].value + clat_l[i].value, "{i}");
        let clat = clat_l[i].value;
        let bw = (l.bs * 1_000_000).checked_div(clat).unwrap_or(0);
        assert_eq!(bw_l[i].value, bw, "{i}");
        assert_eq!(iops_l[i].value, 1);
    }
    assert!(
        lat_l.windows(2).all(|w| w[0].ms <= w[1].ms),
        "time runs forward"
    );
    assert!(lat_l.last().unwrap().ms as f64 <= f64_at(&v, "elapsed_s") * 1000.0);
}

#[test]
fn a_synchronous_engine_writes_an_empty_slat_log_and_workers_their_own_files() {
    let d = work_dir();
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir(out.path().join("sub")).unwrap();
    let (v, _) = run_in(
        out.path(),
        &[
            "--ops",
            "300",
            "-p",
            "2",
            "--unique-bytes",
            "1M",
            "--read-frac",
            "1",
            "--dir",
            p(d.path()),
            "--write-lat-log",
            "sub/x",
        ],
    );
    let sub = out.path().join("sub");
    let r = lat(&v, "read", "latency_ns", "min")..=lat(&v, "read", "latency_ns", "max");
    for (job, n) in [(1, 150), (2, 150)] {
        let lat_l = read(&sub.join(format!("x_lat.{job}.log")), 5);
        let clat_l = read(&sub.join(format!("x_clat.{job}.log")), 5);
        assert_eq!(lat_l.len(), n);
        assert!(lat_l.iter().all(|l| l.ddir == 0 && r.contains(&l.value)));
        // no submission step: clat is the whole latency
        assert!(lat_l.iter().zip(&clat_l).all(|(a, b)| a.value == b.value));
        let slat = std::fs::read(sub.join(format!("x_slat.{job}.log"))).unwrap();
        assert!(slat.is_empty());
    }
    assert_eq!(v["io_logs"].as_array().unwrap().len(), 6);
}

/// Windows of 100 ms over a 1 s run: about ten lines per direction, whose
/// means and rates give back the result's.
#[test]
fn log_avg_msec_averages_each_window() {
    let d = work_dir();
    let out = tempfile::tempdir().unwrap();
    let (v, _) = run_in(
        out.path(),
        &[
            "--engine",
            "null",
            "--duration",
            "1s",
            "--size-mean",
            "4K",
            "--size-cv",
            "0",
            "--unique-bytes",
            "1M",
            "--dir",
            p(d.path()),
            "--write-lat-log",
            "w",
            "--write-bw-log",
            "w",
            "--write-iops-log",
            "w",
            "--log-avg-msec",
            "100",
        ],
    );
    let elapsed_ms = f64_at(&v, "elapsed_s") * 1000.0;
    let lat_l = read(&out.path().join("w_lat.1.log"), 5);
    let bw_l = read(&out.path().join("w_bw.1.log"), 5);
    let iops_l = read(&out.path().join("w_iops.1.log"), 5);
    for (kind, ddir) in [("read", 0), ("write", 1)] {
        let mine = |log: &[Line]| -> Vec<Line> {
            log.iter().copied().filter(|l| l.ddir == ddir).collect()
        };
        let (l, b, n) = (mine(&lat_l), mine(&bw_l), mine(&iops_l));
        assert!(
            (10..=11).contains(&l.len()),
            "{kind}: {} windows: {l:?}",
            l.len()
        );
        assert_eq!((l.len(), b.len()), (n.len(), n.len()));
        // windows end every 100 ms; the last at the end of the run
        for (i, x) in l.iter().enumerate() {
            if i + 1 < l.len() {
                assert_eq!(x.ms, 100 * (i as u64 + 1), "{kind}: {l:?}");
            } else {
                assert!(
                    x.ms as f64 <= elapsed_ms + 1.0 && x.ms > 900,
                    "{kind}: {l:?}"
                );
            }
            assert_eq!((x.bs, b[i].bs), (0, 0));
        }
        // the rates over the windows add up to the run's requests and bytes
        let mut prev = 0;
        let (mut ops, mut kib, mut lat_sum) = (0.0, 0.0, 0.0);
        for i in 0..l.len() {
            let len_s = (l[i].ms - prev) as f64 / 1000.0;
            prev = l[i].ms;
            ops += n[i].value as f64 * len_s;
            kib += b[i].value as f64 * len_s;
            lat_sum += l[i].value as f64 * n[i].value as f64 * len_s;
        }
        let count = op_count(&v, kind) as f64;
        let bytes = u64_at(&v, &format!("ops.{kind}.bytes")) as f64;
        assert!((ops / count - 1.0).abs() < 0.01, "{kind}: {ops} vs {count}");
        assert!(
            (kib * 1024.0 / bytes - 1.0).abs() < 0.01,
            "{kind}: {kib} KiB vs {bytes} B"
        );
        let mean = f64_at(&v, &format!("ops.{kind}.latency_ns.mean"));
        // each window's mean is rounded to the ns: 0.5 ns of tens
        assert!(
            ((lat_sum / ops) / mean - 1.0).abs() < 0.05,
            "{kind}: {} vs {mean}",
            lat_sum / ops
        );
    }
}

/// The ramp is not logged: time 0 is its end, and the lines are the
/// requests counted.
#[test]
fn the_ramp_is_not_logged() {
    let d = work_dir();
    let out = tempfile::tempdir().unwrap();
    let (v, _) = run_in(
        out.path(),
        &[
            "--engine",
            "null",
            "--rate",
            "2000",
            "--ramp",
            "200ms",
            "--duration",
            "300ms",
            "--unique-bytes",
            "1M",
            "--dir",
            p(d.path()),
            "--write-iops-log",
            "r",
        ],
    );
    let lines = read(&out.path().join("r_iops.1.log"), 5);
    let counted = op_count(&v, "read") + op_count(&v, "write");
    assert_eq!(lines.len() as u64, counted);
    assert!((500..=700).contains(&counted), "{counted}");
    assert!(lines.last().unwrap().ms <= 301, "{:?}", lines.last());
}

#[test]
fn bad_log_flags_are_refused_before_any_work() {
    let d = work_dir();
    let dir = p(d.path());
    let base = ["run", "--engine", "null", "--ops", "10", "--dir", dir];
    let nowhere = d.path().join("none/j");
    let j = d.path().join("j");
    let j = p(&j);
    for (extra, says) in [
        (vec!["--log-avg-msec", "100"], "none is asked for"),
        (
            vec!["--write-lat-log", j, "--log-max-value"],
            "--log-avg-msec",
        ),
        (
            vec!["--write-lat-log", j, "--log-avg-msec", "-5"],
            "--log-avg-msec",
        ),
        (
            vec!["--write-lat-log", j, "--log-avg-msec", "1x"],
            "whole number",
        ),
        (
            vec!["--write-lat-log", j, "--log-avg-msec", "10", "--log-offset"],
            "no offset",
        ),
        (vec!["--write-bw-log", ""], "empty"),
        (vec!["--write-bw-log", "dir/"], "names no file"),
        (vec!["--write-iops-log", p(&nowhere)], "does not exist"),
        (
            vec!["--write-lat-log", j, "--workers-as", "processes"],
            "threads",
        ),
    ] {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(&extra);
        let line = assert_usage_error(&args);
        assert!(line.contains(says), "{extra:?}: {line}");
    }
    assert_untouched(d.path());
}
