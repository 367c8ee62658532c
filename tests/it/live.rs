//! Live figures: `--status-interval` JSON lines and `--steady-state`.

use crate::common::*;
use serde_json::Value;

/// `run` on the null engine in `dir`, small, then `extra`.
fn null_run<'a>(dir: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        "--engine",
        "null",
        "--unique-bytes",
        "1M",
        "--size-mean",
        "4K",
        "--dir",
        dir,
    ];
    v.extend_from_slice(extra);
    v
}

/// Every line of `stdout` parsed as JSON (each must be).
fn json_lines(stdout: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(stdout);
    assert!(text.ends_with('\n'), "{text:?}");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}")))
        .collect()
}

/// The status lines among `lines`: increasing t_s and counts, rates above 0.
fn check_status(lines: &[Value], at_least: usize) {
    let status: Vec<&Value> = lines.iter().filter(|v| v["type"] == "status").collect();
    assert!(status.len() >= at_least, "{lines:?}");
    let mut last = (0.0, 0, 0);
    for s in &status {
        assert_eq!(s["benchmark"], "run");
        assert_eq!(s["phase"], 1);
        let t = s["t_s"].as_f64().unwrap();
        let (ops, bytes) = (s["ops"].as_u64().unwrap(), s["bytes"].as_u64().unwrap());
        assert!(
            t > last.0 && ops >= last.1 && bytes >= last.2,
            "{s} after {last:?}"
        );
        assert!(s["ops_per_s"].as_f64().unwrap() > 0.0, "{s}");
        assert!(s["bytes_per_s"].as_f64().unwrap() > 0.0, "{s}");
        last = (t, ops, bytes);
    }
}

#[test]
fn status_interval_prints_only_json_lines_with_rising_times() {
    let d = work_dir();
    for extra in [&[][..], &["-p", "2", "--workers-as", "processes"]] {
        let mut args = null_run(
            p(d.path()),
            &["--duration", "1s", "--status-interval", "0.2s"],
        );
        args.extend_from_slice(extra);
        let out = iogauge().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let lines = json_lines(&out.stdout);
        assert!(lines.iter().all(|v| v["type"] == "status"), "{lines:?}");
        check_status(&lines, 3);
        // the report went to stderr
        assert!(stderr.contains("iogauge run:"), "{stderr}");
    }
    assert_untouched(d.path());
}

#[test]
fn json_to_stdout_with_status_lines_is_one_more_line() {
    let d = work_dir();
    let args = null_run(
        p(d.path()),
        &[
            "--duration",
            "1s",
            "--status-interval",
            "0.25s",
            "--json",
            "-",
        ],
    );
    let out = iogauge().args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    let (result, status) = lines.split_last().unwrap();
    check_status(status, 2);
    assert_eq!(str_at(result, "schema"), "iogauge/result/v1");
    check_result(result);
    crate::schema::assert_valid("run --status-interval --json -", result);
    assert_untouched(d.path());
}

#[test]
fn steady_state_stops_the_run_and_says_when() {
    let d = work_dir();
    let args = null_run(
        p(d.path()),
        &[
            "--duration",
            "5s",
            "--steady-state",
            "iops:50%",
            "--steady-state-window",
            "2s",
        ],
    );
    let (v, report) = run_json(&args);
    check_result(&v);
    crate::schema::assert_valid("run --steady-state", &v);
    let elapsed = f64_at(&v, "elapsed_s");
    assert!(elapsed < 4.5, "ran {elapsed} s of 5");
    let ss = get(&v, "steady_state");
    assert_eq!(ss["spec"], "iops:50%");
    assert_eq!(ss["window_s"], 2);
    let ph = &ss["phases"][0];
    assert_eq!(ph["attained"], true, "{ss}");
    assert_eq!(ph["stopped_run"], true, "{ss}");
    let ev = &ph["events"][0];
    assert_eq!(ev["event"], "reached");
    let t = ev["t_s"].as_u64().unwrap();
    assert!((2..=4).contains(&t), "{ev}");
    assert!(ev["mean"].as_f64().unwrap() > 0.0);
    assert!(ev["criterion"].as_f64().unwrap() <= 50.0);
    // the run ended where it was reached (within the stop's grace)
    assert!(
        elapsed >= t as f64 && elapsed < t as f64 + 0.5,
        "{elapsed} vs {t}"
    );
    let line = report
        .lines()
        .find(|l| l.starts_with("Steady state (iops:50%, window 2 s): reached at"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(line.ends_with("the run stopped there"), "{line}");
    // `show` prints it again after the classic report
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), serde_json::to_vec(&v).unwrap()).unwrap();
    let shown = iogauge().args(["show", p(f.path())]).output().unwrap();
    assert!(shown.status.success());
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.ends_with(&format!("{line}\n")), "{shown}");
    assert_untouched(d.path());
}

#[test]
fn steady_state_hold_runs_to_the_end_and_a_run_that_never_settles_says_so() {
    let d = work_dir();
    let args = null_run(
        p(d.path()),
        &[
            "--duration",
            "3s",
            "--steady-state",
            "iops:50%",
            "--steady-state-window",
            "2s",
            "--steady-state-hold",
            "--status-interval",
            "0.5s",
            "--json",
            "-",
        ],
    );
    let out = iogauge().args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines = json_lines(&out.stdout);
    let v = lines.last().unwrap();
    assert!(f64_at(v, "elapsed_s") >= 2.9, "{}", f64_at(v, "elapsed_s"));
    let ph = &get(v, "steady_state")["phases"][0];
    assert_eq!(ph["attained"], true, "{ph}");
    assert_eq!(ph["stopped_run"], false, "{ph}");
    // the change was a line among the status lines
    let ev = lines
        .iter()
        .find(|l| l["type"] == "steady_state")
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(ev["event"], "reached");
    assert_eq!(ev["t_s"], ph["events"][0]["t_s"]);
    assert!(
        stderr.contains("Steady state (iops:50%, window 2 s): reached at"),
        "{stderr}"
    );

    // a window longer than the run: never reached, and said so
    let args = null_run(
        p(d.path()),
        &[
            "--duration",
            "1s",
            "--steady-state",
            "iops:50%",
            "--steady-state-window",
            "5s",
        ],
    );
    let (v, report) = run_json(&args);
    let ph = &get(&v, "steady_state")["phases"][0];
    assert_eq!(ph["attained"], false, "{ph}");
    assert!(ph["events"].as_array().unwrap().is_empty());
    assert!(report.contains("window 5 s): NOT reached"), "{report}");
    assert_untouched(d.path());
}

#[test]
fn bad_live_flags_are_one_line_and_exit_2() {
    let d = work_dir();
    let dir = p(d.path());
    for (extra, says) in [
        (
            &["--steady-state", "lat:5%"][..],
            "not a steady-state metric",
        ),
        (&["--steady-state", "iops"], "not a steady-state criterion"),
        (&["--steady-state", "iops:-5%"], "not a percentage above 0"),
        (&["--steady-state", "bw:fast"], "not a number above 0"),
        (
            &["--steady-state", "iops:5%", "--steady-state-window", "1s"],
            "at least 2s",
        ),
        (
            &[
                "--steady-state",
                "iops:5%",
                "--steady-state-window",
                "2500ms",
            ],
            "whole seconds",
        ),
        (&["--status-interval", "1ms"], "at least 10ms"),
        (
            &["--status-interval", "0.2s", "--csv", "-"],
            "cannot share stdout",
        ),
        (
            &["--steady-state", "iops:5%", "--ops", "1000"],
            "needs a run with a duration",
        ),
    ] {
        let args = null_run(dir, extra);
        let line = assert_usage_error(&args);
        assert!(line.contains(says), "{extra:?}: {line}");
    }
    assert_untouched(d.path());
}
