//! `--repeat N` on the benchmarks, and `iogauge compare`: the series
//! document, its summary, comparing a file with itself and with doctored
//! copies, and the inputs compare refuses.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

fn write(path: &Path, v: &Value) {
    std::fs::write(path, v.to_string()).unwrap();
}

/// A tiny null-engine run whose time series is replaced by ten whole
/// seconds of about 1000 ops each (a steady run, a little noise), so the
/// bootstrap has intervals to resample; `scale` scales them and the
/// summary's rate.
fn doctored(dir: &Path, scale: f64) -> Value {
    let (mut v, _) = run_json(&["run", "--engine", "null", "--ops", "2000", "--dir", p(dir)]);
    let ops: Vec<u64> = (0..10)
        .map(|i| ((1000 + (i * 37) % 23) as f64 * scale) as u64)
        .collect();
    v["timeseries"]["interval_s"] = 1.0.into();
    v["timeseries"]["last_interval_s"] = 1.0.into();
    v["timeseries"]["bytes"] = serde_json::json!(ops.iter().map(|o| o * 4096).collect::<Vec<_>>());
    v["timeseries"]["ops"] = serde_json::json!(ops);
    v["summary"]["ops_per_s"] = (ops.iter().sum::<u64>() as f64 / 10.0).into();
    v
}

#[test]
fn repeat_3_on_run_writes_a_series_and_show_prints_it_again() {
    let d = work_dir();
    let args = [
        "run",
        "--engine",
        "null",
        "--ops",
        "3000",
        "--seed",
        "7",
        "--repeat",
        "3",
        "--dir",
        p(d.path()),
    ];
    let (v, report) = assert_show_repeats(&args);
    assert_eq!(v["schema"], "iogauge/repeats/v1");
    assert_eq!(v["benchmark"], "run");
    assert_eq!(v["complete"], true);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for (k, r) in runs.iter().enumerate() {
        assert_eq!(r["index"], k as u64 + 1);
        assert_eq!(r["seed"], 7 + k as u64);
        // each run ran with its own seed, and is a whole result
        assert_eq!(r["document"]["config"]["workload"]["seed"], 7 + k as u64);
        check_result(&r["document"]);
    }
    let stats = v["stats"].as_array().unwrap();
    let ops = stats
        .iter()
        .find(|s| s["metric"] == "summary.ops_per_s")
        .expect("ops/s in the stats");
    assert_eq!(ops["n"], 3);
    let (lo, mean, hi) = (
        ops["ci_low"].as_f64().unwrap(),
        ops["mean"].as_f64().unwrap(),
        ops["ci_high"].as_f64().unwrap(),
    );
    assert!(lo <= mean && mean <= hi && mean > 0.0);
    assert!(ops["cv"].as_f64().unwrap() >= 0.0);
    for k in 1..=3 {
        assert!(
            report.contains(&format!("== repeat {k} of 3 (seed {}) ==", 6 + k)),
            "{report}"
        );
    }
    assert!(
        report.contains("== summary: 3 of 3 runs of run, seeds 7 8 9 =="),
        "{report}"
    );
    assert!(report.contains("95 % CI"), "{report}");
    assert_untouched(d.path());
}

#[test]
fn repeat_csv_is_the_stats_table_and_cv_warn_warns() {
    let d = work_dir();
    let csv = d.path().join("s.csv");
    let out = iogauge()
        .args([
            "run",
            "--engine",
            "null",
            "--ops",
            "2000",
            "--repeat",
            "2",
            "--cv-warn",
            "0",
        ])
        .args(["--dir", p(d.path()), "--csv", p(&csv)])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "metric,better,throughput,n,mean,stddev,ci_low,ci_high,cv"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("summary.ops_per_s,higher,true,2,")
    );
    // a CV above 0 % passes --cv-warn 0: a warning line for ops/s
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("warning: summary.ops_per_s varies by"),
        "{stdout}"
    );
    std::fs::remove_file(&csv).unwrap();
    assert_untouched(d.path());
}

#[test]
fn repeat_refusals() {
    let d = work_dir();
    let line = assert_usage_error(&[
        "run",
        "--engine",
        "null",
        "--repeat",
        "0",
        "--dir",
        p(d.path()),
    ]);
    assert!(line.contains("--repeat"), "{line}");
    let line = assert_usage_error(&["survey", "--repeat", "2"]);
    assert!(line.contains("--repeat is for benchmarks"), "{line}");
    let line = assert_usage_error(&[
        "run",
        "--engine",
        "null",
        "--cv-warn",
        "3",
        "--dir",
        p(d.path()),
    ]);
    assert!(line.contains("--repeat"), "{line}");
    assert_untouched(d.path());
}

#[test]
fn compare_a_file_with_itself_finds_no_change() {
    let d = work_dir();
    let t = tempfile::tempdir().unwrap();
    let base = t.path().join("base.json");
    write(&base, &doctored(d.path(), 1.0));
    let cmp = t.path().join("cmp.json");
    let out = iogauge()
        .args([
            "compare",
            p(&base),
            p(&base),
            "--fail-if-slower",
            "5%",
            "--json",
            p(&cmp),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("summary.ops_per_s "))
        .unwrap();
    assert!(
        line.contains("block-bootstrap") || line.contains("bootstrap"),
        "{line}"
    );
    assert!(line.ends_with("no significant change"), "{line}");
    assert!(stdout.contains("no metric significantly slower by more than 5 %"));
    let v: Value = serde_json::from_slice(&std::fs::read(&cmp).unwrap()).unwrap();
    assert_eq!(v["schema"], "iogauge/compare/v1");
    assert_eq!(v["metrics"][0]["metric"], "summary.ops_per_s");
    assert_eq!(v["metrics"][0]["method"], "block-bootstrap");
    assert_eq!(v["metrics"][0]["significant"], false);
    assert_eq!(v["failed"], serde_json::json!([]));
    assert_untouched(d.path());
}

#[test]
fn compare_flags_a_doctored_slowdown() {
    let d = work_dir();
    let t = tempfile::tempdir().unwrap();
    let (base, slow) = (t.path().join("base.json"), t.path().join("slow.json"));
    write(&base, &doctored(d.path(), 1.0));
    write(&slow, &doctored(d.path(), 0.8));
    let out = iogauge()
        .args(["compare", p(&base), p(&slow), "--fail-if-slower", "5"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("summary.ops_per_s "))
        .unwrap();
    assert!(line.contains("-20.0") && line.ends_with("slower"), "{line}");
    assert!(
        stdout.contains("FAIL: summary.ops_per_s is slower by 20.0"),
        "{stdout}"
    );
    // a bigger threshold than the slowdown passes
    iogauge()
        .args(["compare", p(&base), p(&slow), "--fail-if-slower", "25%"])
        .assert()
        .code(0);
    // the other way round it is faster
    let out = iogauge()
        .args(["compare", p(&slow), p(&base)])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("faster"));
    assert_untouched(d.path());
}

#[test]
fn compare_repeats_by_welch() {
    let d = work_dir();
    let t = tempfile::tempdir().unwrap();
    let series = t.path().join("r.json");
    iogauge()
        .args([
            "run", "--engine", "null", "--ops", "2000", "--repeat", "3", "-q",
        ])
        .args(["--dir", p(d.path()), "--json", p(&series)])
        .assert()
        .success();
    let out = iogauge()
        .args(["compare", p(&series), p(&series), "--fail-if-slower", "5%"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("welch p=1.000"), "{stdout}");
    assert!(stdout.contains("(run, 3 run(s))"), "{stdout}");
    // the same runs as a set of plain results, with throughputs set to known
    // figures (measured ones vary too much on a busy machine for a fixed
    // verdict), then at 80 % of them
    let v: Value = serde_json::from_slice(&std::fs::read(&series).unwrap()).unwrap();
    let mut base_files = Vec::new();
    let mut slow_files = Vec::new();
    for (k, r) in v["runs"].as_array().unwrap().iter().enumerate() {
        let ops = 1.0e6 * (0.99 + 0.01 * k as f64);
        let mut b_doc = r["document"].clone();
        b_doc["summary"]["ops_per_s"] = ops.into();
        let b = t.path().join(format!("b{k}.json"));
        write(&b, &b_doc);
        let mut s = r["document"].clone();
        s["summary"]["ops_per_s"] = (ops * 0.8).into();
        let n = t.path().join(format!("n{k}.json"));
        write(&n, &s);
        base_files.push(b);
        slow_files.push(n);
    }
    let out = iogauge()
        .arg("compare")
        .arg("--base")
        .args(&base_files)
        .arg("--new")
        .args(&slow_files)
        .args(["--metric", "summary.ops_per_s", "--fail-if-slower", "5%"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("summary.ops_per_s "))
        .unwrap();
    assert!(
        line.contains("welch p=") && line.ends_with("slower"),
        "{line}"
    );
    // --metric keeps only that metric
    assert!(!stdout.contains("ops.read.lat_p99_ns"), "{stdout}");
    assert_untouched(d.path());
}

#[test]
fn compare_refuses_bad_input_in_one_line() {
    let d = work_dir();
    let t = tempfile::tempdir().unwrap();
    let run = t.path().join("run.json");
    write(&run, &doctored(d.path(), 1.0));
    let missing = t.path().join("missing.json");
    let line = assert_usage_error(&["compare", p(&run), p(&missing)]);
    assert!(line.contains("missing.json"), "{line}");
    let junk = t.path().join("junk.json");
    std::fs::write(&junk, "not json").unwrap();
    let line = assert_usage_error(&["compare", p(&junk), p(&run)]);
    assert!(line.contains("not JSON"), "{line}");
    std::fs::write(&junk, "{\"a\": 1}").unwrap();
    let line = assert_usage_error(&["compare", p(&run), p(&junk)]);
    assert!(line.contains("not an iogauge result"), "{line}");
    let line = assert_usage_error(&["compare", p(&run)]);
    assert!(line.contains("two files"), "{line}");
    let line = assert_usage_error(&["compare", p(&run), p(&run), "--metric", "nope"]);
    assert!(line.contains("--metric nope"), "{line}");
    // different benchmarks: refused, unless --force
    let (iostone, _) = run_json(&["iostone", "--engine", "null", "--dir", p(d.path())]);
    let other = t.path().join("iostone.json");
    write(&other, &iostone);
    let line = assert_usage_error(&["compare", p(&run), p(&other)]);
    assert!(
        line.contains("not comparable") && line.contains("--force"),
        "{line}"
    );
    iogauge()
        .args(["compare", p(&run), p(&other), "--force"])
        .assert()
        .code(0);
    assert_untouched(d.path());
}
