//! `iogauge show`: a saved result's report again, and what it refuses.

use crate::common::*;

#[test]
fn show_prints_iostones_report_again() {
    let d = work_dir();
    for variant in ["c1", "c2"] {
        let (v, report) =
            assert_show_repeats(&["iostone", "--variant", variant, "--dir", p(d.path())]);
        assert!(report.contains("iostones/"), "{report}");
        assert!(f64_at(&v, "metrics.iostones_per_s") > 0.0);
    }
    assert_untouched(d.path());
}

#[test]
fn show_refuses_what_is_not_a_result() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing.json");
    let line = assert_usage_error(&["show", p(&missing)]);
    assert!(line.contains("missing.json"), "{line}");
    let bad = d.path().join("bad.json");
    std::fs::write(&bad, "{\"a\": 1}").unwrap();
    let line = assert_usage_error(&["show", p(&bad)]);
    assert!(line.contains("not an iogauge result"), "{line}");
    std::fs::write(&bad, "not json").unwrap();
    let line = assert_usage_error(&["show", p(&bad)]);
    assert!(line.contains("not JSON"), "{line}");
    // a result of a benchmark iogauge does not have
    let (mut v, _) = run_json(&["iostone", "--engine", "null", "--dir", p(d.path())]);
    v["benchmark"] = "frobnicate".into();
    std::fs::write(&bad, v.to_string()).unwrap();
    let line = assert_usage_error(&["show", p(&bad)]);
    assert!(line.contains("'frobnicate' is not a benchmark"), "{line}");
    // its figures missing
    v["benchmark"] = "iostone".into();
    v["metrics"] = serde_json::json!({});
    std::fs::write(&bad, v.to_string()).unwrap();
    let line = assert_usage_error(&["show", p(&bad)]);
    assert!(line.contains("iostones_per_s"), "{line}");
}
