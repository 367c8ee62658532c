//! Integration tests of `iogauge predict` far from what its model measured
//! (a warning per parameter out of range, on stderr and in the JSON), and
//! of the command-line value errors of `predict`, `selfscale` and `iostone`
//! (one line, exit 2, naming what is missing or the valid values).

use crate::common::*;
use serde_json::Value;
use std::path::PathBuf;

/// A tiny model made on the null engine (no I/O, about a second), in a
/// temporary directory kept as long as the returned guard.
fn null_model() -> (tempfile::TempDir, PathBuf) {
    let work = work_dir();
    let outs = tempfile::tempdir().unwrap();
    let out = outs.path().join("m");
    let o = iogauge()
        .args(null_model_args(p(work.path()), p(&out)))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_untouched(work.path());
    (outs, out.join("model.json"))
}

const EXTRAPOLATION: &str =
    "the prediction extrapolates, holding the curves at their last measured values";

#[test]
fn predictions_outside_the_measured_ranges_warn_per_parameter() {
    let (_keep, model) = null_model();
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(
        m["ranges"]["unique_bytes"],
        serde_json::json!([1 << 20, 4 << 20])
    );
    let procs = m["ranges"]["process_num"][1].as_u64().unwrap();
    assert!(procs < 1000, "the test wants processNum 1000 out of range");

    let far = "uniqueBytes=100T,processNum=1000";
    let want = [
        format!(
            "uniqueBytes 100 TiB is 26214400.0× above the largest measured value (4 MiB; the model measured 1 MiB … 4 MiB): {EXTRAPOLATION}"
        ),
        format!(
            "processNum 1000 is {:.1}× above the largest measured value ({procs}; the model measured 1 … {procs}): {EXTRAPOLATION}",
            1000.0 / procs as f64
        ),
    ];

    // the text: the prediction on stdout, one warning line each on stderr
    let o = iogauge()
        .args(["predict", p(&model), "--workload", far])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("100 TiB"), "{stdout}");
    // an unvalidated model says its error is unknown
    assert!(
        stdout.contains("expected error: unknown (the model was not validated"),
        "{stdout}"
    );
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        want.iter()
            .map(|w| format!("iogauge: warning: {w}"))
            .collect::<Vec<_>>(),
        "{stderr}"
    );

    // the JSON: a warnings array per workload, empty for one in range
    let (v, stderr) = run_json(&[
        "predict",
        p(&model),
        "--workload",
        far,
        "--workload",
        "uniqueBytes=2M,sizeMean=8K,processNum=2",
    ]);
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert!(list[0]["predicted_mb_per_s"].as_f64().unwrap() > 0.0);
    let warnings: Vec<&str> = list[0]["warnings"]
        .as_array()
        .expect("a warnings array")
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings, want);
    assert_eq!(list[1]["warnings"], Value::Array(Vec::new()));
    assert!(list[0]["expected_median_error"].is_null());
    // with several workloads the lines say which
    for w in &want {
        assert!(
            stderr.contains(&format!("iogauge: warning: workload 1: {w}\n")),
            "{stderr}"
        );
    }
    assert!(!stderr.contains("workload 2"), "{stderr}");

    // in range: no warning at all
    let o = iogauge()
        .args(["predict", p(&model), "--workload", "uniqueBytes=3M"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // --quiet: nothing printed, the warnings still in the JSON
    let json = _keep.path().join("p.json");
    let o = iogauge()
        .args(["predict", p(&model), "--workload", far, "--quiet", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{o:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v[0]["warnings"].as_array().unwrap().len(), 2);
}

#[test]
fn value_errors_name_what_is_missing_or_the_valid_values() {
    let dir = work_dir();
    let d = p(dir.path());
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["predict"], vec!["MODEL.json"]),
        (vec!["iostone", "--variant", "c3"], vec!["c3", "c1, c2"]),
        (
            vec!["selfscale", d, "--engine", "warp"],
            vec!["warp", "psync, sync, buffered, null"],
        ),
        (
            vec!["selfscale", d, "--fsync", "sometimes"],
            vec!["never, end or every=N"],
        ),
        (
            vec!["selfscale", d, "--memory-limit", "lots"],
            vec!["'lots'", "size", "off"],
        ),
        (
            vec!["selfscale", d, "--max-regions", "x"],
            vec!["--max-regions", "'x' is not a whole number from 1 to 6"],
        ),
        (
            vec!["selfscale", d, "--max-regions", "9"],
            vec!["from 1 to 6"],
        ),
        (
            vec!["selfscale", d, "--validate", "0"],
            vec!["--validate", "from 1 to 10000"],
        ),
        (
            vec!["selfscale", d, "--validate", "2", "--refine", "x"],
            vec!["--refine", "from 0 to 1000"],
        ),
        (
            vec!["selfscale", d, "--seed", "-1"],
            vec!["--seed", "whole number"],
        ),
        (
            vec!["selfscale", d, "--size-cv", "lots"],
            vec!["--size-cv", "a number ≥ 0"],
        ),
    ];
    for (args, wants) in cases {
        let line = assert_usage_error(&args);
        for want in wants {
            assert!(
                line.contains(want),
                "iogauge {args:?}: {want:?} not in {line}"
            );
        }
    }
    assert_untouched(dir.path());
}

/// Issue 33: `--workload readFrac=1` failed with "uniqueBytes is missing"
/// though the help says a left-out parameter takes its region's focal
/// value. Without uniqueBytes the region is the sweep's; a CSV may leave
/// the column out too.
#[test]
fn a_workload_without_unique_bytes_takes_the_sweeps_region() {
    let (keep, model) = null_model();
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let at = m["sweep"]["fixed"]["unique_bytes"].as_u64().unwrap();
    // the last measured region that starts at or below it (else the first)
    let measured: Vec<&Value> = m["regions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["focal_point"].is_null())
        .collect();
    let region = measured
        .iter()
        .rev()
        .find(|r| r["from_bytes"].as_u64().unwrap() <= at)
        .unwrap_or(&measured[0]);
    let focal = &region["focal"];
    let (v, _) = run_json(&["predict", p(&model), "--workload", "readFrac=1"]);
    let w = &v[0]["workload"];
    assert_eq!(w["read_frac"], 1.0, "{v}");
    assert_eq!(w["unique_bytes"], focal["unique_bytes"], "{v}");
    assert_eq!(w["size_mean"], focal["size_mean"], "{v}");
    let csv = keep.path().join("w.csv");
    std::fs::write(&csv, "readFrac,seqFrac\n1,0\n0,1\n").unwrap();
    let (v, _) = run_json(&["predict", p(&model), "--csv", p(&csv)]);
    assert_eq!(v.as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v[1]["workload"]["seq_frac"], 1.0, "{v}");
}
