//! `--distribution`: skewed random offsets on `run`, and as an extension
//! of the self-scaling benchmark (recorded in its model, kept by predict).

use crate::common::*;

#[test]
fn run_records_its_distribution_and_refuses_bad_ones() {
    let d = work_dir();
    let (v, _) = run_json(&[
        "run",
        "--engine",
        "null",
        "--distribution",
        "zipf:1.2",
        "--unique-bytes",
        "2M",
        "--files",
        "2",
        "--size-mean",
        "4K",
        "--seq-frac",
        "0",
        "-p",
        "2",
        "--ops",
        "500",
        "--dir",
        p(d.path()),
    ]);
    check_result(&v);
    assert_eq!(str_at(&v, "config.workload.distribution"), "zipf:1.2");
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 500);
    // the default is recorded too, as fio's name for it
    let (v, report) = run_json(&[
        "run",
        "--engine",
        "null",
        "--unique-bytes",
        "1M",
        "--ops",
        "50",
        "--dir",
        p(d.path()),
    ]);
    assert_eq!(str_at(&v, "config.workload.distribution"), "random");
    assert!(!report.contains("random offsets"), "{report}");
    for (spec, says) in [
        ("zipf:1", "differ from 1"),
        ("pareto:1.5", "between 0 and 1"),
        ("zoned:60/10:30/20", "add up to 90"),
        ("gamma:2", "unknown name"),
        ("zoned_abs:50/1G:50/1G", "more than the 1.00 MiB"),
    ] {
        let line = assert_usage_error(&[
            "run",
            "--engine",
            "null",
            "--unique-bytes",
            "1M",
            "--ops",
            "5",
            "--distribution",
            spec,
            "--dir",
            p(d.path()),
        ]);
        assert!(line.contains(says), "{spec}: {line}");
    }
    assert_untouched(d.path());
}

#[test]
fn run_with_verify_keeps_each_worker_in_its_own_units() {
    let d = work_dir();
    let (v, _) = run_json(&[
        "run",
        "--distribution",
        "pareto:0.2",
        "--unique-bytes",
        "1M",
        "--size-mean",
        "4K",
        "-p",
        "2",
        "--ops",
        "400",
        "--verify",
        "--dir",
        p(d.path()),
    ]);
    assert_eq!(u64_at(&v, "verify.mismatches"), 0);
    assert!(u64_at(&v, "verify.units_checked") > 0);
    assert_untouched(d.path());
}

#[test]
fn selfscale_records_the_skew_and_predict_keeps_to_it() {
    let d = work_dir();
    let out = d.path().join("model");
    let data = work_dir();
    let mut args = null_model_args(p(data.path()), p(&out));
    args.extend(["--distribution", "zipf:1.2"]);
    let o = iogauge().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("random offsets zipf:1.2 (an extension"),
        "{text}"
    );
    let model = out.join("model.json");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(str_at(&m, "settings.distribution"), "zipf:1.2");
    // uniform workloads from a skewed model: refused, in one line
    let line = assert_usage_error(&["predict", p(&model), "--workload", "sizeMean=4K"]);
    assert!(
        line.contains("measured with random offsets zipf:1.2"),
        "{line}"
    );
    let o = iogauge()
        .args([
            "predict",
            p(&model),
            "--workload",
            "sizeMean=4K",
            "--distribution",
            "zipf:1.2",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("random offsets zipf:1.2"));
    assert_untouched(data.path());
}
