//! `--log-hist FILE`: interval histograms in HdrHistogram's interval log.

use crate::common::*;
use base64::Engine as _;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use std::collections::BTreeMap;

/// Per tag: the (start s, length s, count) of each interval line, read by
/// hdrhistogram's own reader.
fn read_log(path: &std::path::Path) -> BTreeMap<String, Vec<(f64, f64, u64)>> {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("#[StartTime: "), "{text}");
    assert!(text.contains("#[BaseTime: "), "{text}");
    assert!(text.contains("nanoseconds"), "{text}");
    let mut by_tag: BTreeMap<String, Vec<(f64, f64, u64)>> = BTreeMap::new();
    for e in IntervalLogIterator::new(&bytes) {
        if let LogEntry::Interval(h) = e.expect("every line parses") {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(h.encoded_histogram())
                .unwrap();
            let hist: hdrhistogram::Histogram<u64> =
                Deserializer::new().deserialize(&mut &raw[..]).unwrap();
            by_tag
                .entry(h.tag().expect("a tag per kind").as_str().to_string())
                .or_default()
                .push((
                    h.start_timestamp().as_secs_f64(),
                    h.duration().as_secs_f64(),
                    hist.len(),
                ));
        }
    }
    by_tag
}

fn logged_run(extra: &[&str]) {
    let d = work_dir();
    let log = d.path().join("h.log");
    let json = d.path().join("r.json");
    let mut args = vec![
        "run",
        "--engine",
        "null",
        "--unique-bytes",
        "1M",
        "--size-mean",
        "4K",
        "--duration",
        "2.5s",
        "-q",
        "--dir",
        p(d.path()),
        "--log-hist",
        p(&log),
        "--json",
        p(&json),
    ];
    args.extend(extra);
    iogauge().args(&args).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let tags = read_log(&log);
    let kinds: Vec<&String> = v["ops"].as_object().unwrap().keys().collect();
    assert_eq!(
        tags.keys().collect::<Vec<_>>().len(),
        kinds.len(),
        "{tags:?}"
    );
    for k in kinds {
        let lines = &tags[k.as_str()];
        assert!(lines.len() >= 2, "{k}: {lines:?}");
        // intervals of 1 s from 0, the last one what was left of 2.5 s
        assert_eq!(lines[0].0, 0.0);
        assert_eq!(lines[1].0, 1.0);
        assert!(lines.iter().all(|l| l.1 > 0.0 && l.1 <= 1.0), "{lines:?}");
        let sum: u64 = lines.iter().map(|l| l.2).sum();
        assert_eq!(
            sum,
            op_count(&v, k),
            "{k}: the intervals add up to the count"
        );
    }
    std::fs::remove_file(&log).unwrap();
    std::fs::remove_file(&json).unwrap();
    assert_untouched(d.path());
}

#[test]
fn a_run_logs_its_intervals_per_kind() {
    logged_run(&[]);
}

#[test]
fn worker_processes_send_their_intervals() {
    logged_run(&["-p", "2", "--workers-as", "processes"]);
}

/// Several timed phases (two PostMark runs) go in one log, one after the
/// other, and still add up to the result's counts.
#[test]
fn phases_follow_one_another() {
    let d = work_dir();
    let log = d.path().join("pm.log");
    let json = d.path().join("pm.json");
    iogauge()
        .args([
            "postmark",
            "-q",
            "--dir",
            p(d.path()),
            "--log-hist",
            p(&log),
            "--log-hist-interval",
            "10ms",
            "--json",
            p(&json),
        ])
        .write_stdin("set transactions 300\nrun\nrun\n")
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let tags = read_log(&log);
    for k in ["create", "read", "transaction"] {
        let want: u64 = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| op_count(&e["result"], k))
            .sum();
        let got: u64 = tags[k].iter().map(|l| l.2).sum();
        assert_eq!(got, want, "{k}");
        assert!(
            tags[k].windows(2).all(|w| w[0].0 <= w[1].0),
            "{:?}",
            tags[k]
        );
    }
}

#[test]
fn bad_intervals_are_refused() {
    for bad in ["0", "500us", "soon", "40d"] {
        let line = assert_usage_error(&[
            "run",
            "--engine",
            "null",
            "--ops",
            "10",
            "--log-hist",
            "x.log",
            "--log-hist-interval",
            bad,
        ]);
        assert!(line.contains("--log-hist-interval"), "{line}");
    }
    assert_usage_error(&["run", "--engine", "null", "--log-hist-interval", "1s"]);
    assert_usage_error(&["run", "--engine", "null", "--log-hist", "-"]);
}

/// Every benchmark takes it.
#[test]
fn every_benchmark_has_the_flag() {
    for cmd in [
        "run",
        "iostone",
        "postmark",
        "iobench",
        "bonnie",
        "scientific",
        "iozone",
        "ffsb",
        "andrew",
        "sdet",
        "tpcb",
        "laddis",
        "selfscale",
        "survey",
    ] {
        let out = iogauge().args([cmd, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--log-hist <FILE>"), "{cmd}");
        assert!(help.contains("--log-hist-interval"), "{cmd}");
    }
}
