//! Integration tests of IOBENCH's spectra: spectrum files (the paper's
//! profile shipped in examples/iobench), their errors, the figures a
//! spectrum draws, and `--chart`, which draws finished spectra without
//! running anything.
//!
//! Runs are threads on the null engine for 0.2 s each, on small files in
//! temporary directories.

use crate::common::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The keywords, so that the tests' environment cannot leak into a run.
const KEYS: [&str; 15] = [
    "RUN", "USERS", "FILES", "NRECS", "RECLEN", "READS", "WRITES", "LOCKS", "SLEEP", "START",
    "END", "DURATION", "WORK", "FILE0", "FILE1",
];

/// The paper's (files, users) pairs, in the order of its runs 1–8.
const PAIRS: [(u64, u64); 8] = [
    (4, 50),
    (4, 100),
    (8, 50),
    (8, 100),
    (8, 150),
    (8, 200),
    (16, 50),
    (16, 100),
];

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/iobench")
        .join(name)
}

fn iobench(cwd: &Path) -> assert_cmd::Command {
    let mut c = iogauge();
    c.current_dir(cwd).arg("iobench");
    for k in KEYS {
        c.env_remove(k);
    }
    c
}

/// A cheap run: small files, no end delay.
fn cheap_control(cwd: &Path) {
    std::fs::write(cwd.join("ctl"), "NRECS = 64; RECLEN = 512; END = 0;\n").unwrap();
}

const CHEAP: [&str; 4] = ["--threads", "--engine", "null", "-q"];

/// Run in `cwd`; it must succeed. Returns stdout.
fn succeed(cwd: &Path, args: &[&str]) -> String {
    let out = iobench(cwd).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "iobench {args:?}: {}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Bad usage or input, in `cwd`: exit code 2, one line on stderr naming the
/// problem, nothing on stdout. Returns that line.
fn usage_error(cwd: &Path, args: &[&str]) -> String {
    let out = iobench(cwd).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "iobench {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "iobench {args:?}: {stderr:?}");
    assert!(stderr.starts_with("iogauge: "), "{stderr}");
    assert!(out.stdout.is_empty(), "iobench {args:?} printed on stdout");
    stderr.trim_end().to_string()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The CP utilisation figures a results SVG lists in its trailing comment.
fn cp_values(svg: &str) -> Vec<f64> {
    svg.split("CP=")
        .skip(1)
        .map(|s| s.split('%').next().unwrap().parse().unwrap())
        .collect()
}

/// The paper's standard profile from examples/iobench/paper.spectrum runs
/// its eight (FILES, USERS) pairs in order; the spectrum draws the profile
/// and the results; `--chart` redraws them from the JSON without running,
/// and overlays a second JSON as a second series.
#[test]
fn the_papers_profile_runs_and_charts() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let c = cwd.path();
    cheap_control(c);
    let paper = example("paper.spectrum");
    let mut args = vec!["ctl", "--dir", p(dir.path()), "--json", "paper.json"];
    args.extend(CHEAP);
    args.extend(["--duration", "0.2s", "--spectrum", p(&paper)]);
    succeed(c, &args);
    let v = read_json(&c.join("paper.json"));
    assert_eq!(str_at(&v, "schema"), "iogauge/iobench-spectrum/v1");
    assert_eq!(get(&v, "complete"), &Value::Bool(true));
    assert_eq!(v["spectrum"], json!([p(&paper)]));
    let entries = get(&v, "entries").as_array().unwrap();
    let got: Vec<(u64, u64)> = entries
        .iter()
        .map(|e| {
            (
                u64_at(e, "result.config.parameters.files"),
                u64_at(e, "result.config.parameters.users"),
            )
        })
        .collect();
    assert_eq!(got, PAIRS);
    for (e, (f, u)) in entries.iter().zip(PAIRS) {
        assert_eq!(str_at(e, "name"), format!("FILES={f} USERS={u}"));
        // the control file's settings hold under the spectrum's
        assert_eq!(u64_at(e, "result.config.parameters.nrecs"), 64);
        assert_eq!(u64_at(e, "result.config.parameters.reclen"), 512);
        assert!(f64_at(e, "result.metrics.mb_processed") > 0.0);
    }
    // the figures, in the current directory by default
    let profile = std::fs::read_to_string(c.join("iobench-profile.svg")).unwrap();
    let results = std::fs::read_to_string(c.join("iobench-results.svg")).unwrap();
    assert_eq!(profile.matches("<circle").count(), 16, "files and users");
    assert_eq!(results.matches("<circle").count(), 16, "MB and CP");
    assert!(results.starts_with("<svg") && results.contains("CP utilisation (%)"));
    assert!(
        results.contains("FILES=16 USERS=100: paper MB="),
        "{results}"
    );
    assert_untouched(dir.path());

    // --chart: the same figures from the JSON, running nothing
    let before = std::fs::read(c.join("iobench.results")).unwrap();
    let t = Instant::now();
    let out = succeed(c, &["--chart", "paper.json", "--plot", "figs"]);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "--chart ran something"
    );
    assert_eq!(
        out,
        "Figures written to figs/iobench-profile.svg, figs/iobench-results.svg\n"
    );
    assert_eq!(std::fs::read(c.join("iobench.results")).unwrap(), before);
    let results = std::fs::read_to_string(c.join("figs/iobench-results.svg")).unwrap();
    assert_eq!(results.matches("<circle").count(), 16);
    let body = results.split("<!--").next().unwrap().trim_end();
    assert!(results.starts_with("<svg") && body.ends_with("</svg>"));
    let cp = cp_values(&results);
    assert_eq!(cp.len(), 8, "{results}");
    assert!(cp.iter().all(|x| (0.0..=100.0).contains(x)), "{cp:?}");
    let profile = std::fs::read_to_string(c.join("figs/iobench-profile.svg")).unwrap();
    assert_eq!(profile.matches("<circle").count(), 16);

    // two systems: two series, a legend naming both
    std::fs::copy(c.join("paper.json"), c.join("other.json")).unwrap();
    succeed(c, &["--chart", "paper.json", "other.json", "--plot", "two"]);
    let results = std::fs::read_to_string(c.join("two/iobench-results.svg")).unwrap();
    assert_eq!(results.matches("<circle").count(), 32);
    assert!(results.contains(">\npaper\n</text>") && results.contains(">\nother\n</text>"));
    assert_eq!(cp_values(&results).len(), 16);

    // ... but not two spectra of different runs
    let mut other = v.clone();
    other["entries"][2]["result"]["config"]["parameters"]["users"] = json!(75);
    std::fs::write(c.join("other.json"), other.to_string()).unwrap();
    let line = usage_error(c, &["--chart", "paper.json", "other.json", "--plot", "bad"]);
    assert!(
        line.contains("run 3 differs: USERS = 50 in paper") && line.contains("75 in other"),
        "{line}"
    );
    assert!(!c.join("bad").exists());
}

/// Lists and files combine as a cross product, the first item slowest; a
/// file's line is one alternative of several settings.
#[test]
fn lists_and_files_combine_first_slowest() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let c = cwd.path();
    cheap_control(c);
    std::fs::write(
        c.join("pairs.spectrum"),
        "# two runs\nFILES=1 USERS=2\n\nFILES=2 USERS=1 # the other\n",
    )
    .unwrap();
    let mut args = vec!["ctl", "--dir", p(dir.path()), "--json", "s.json"];
    args.extend(CHEAP);
    args.extend(["--duration", "0.1s", "--plot", "figs"]);
    args.extend(["--spectrum", "WORK=0,5", "pairs.spectrum"]);
    succeed(c, &args);
    let v = read_json(&c.join("s.json"));
    let names: Vec<&str> = get(&v, "entries")
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "WORK=0 FILES=1 USERS=2",
            "WORK=0 FILES=2 USERS=1",
            "WORK=5 FILES=1 USERS=2",
            "WORK=5 FILES=2 USERS=1"
        ]
    );
    assert_eq!(
        files_in(&c.join("figs")),
        ["iobench-profile.svg", "iobench-results.svg"]
    );
    // three parameters vary: three panels of four points
    let profile = std::fs::read_to_string(c.join("figs/iobench-profile.svg")).unwrap();
    assert_eq!(profile.matches("<circle").count(), 12);
    assert_untouched(dir.path());
}

/// `iogauge show` prints a spectrum's runs again, each under its name, by
/// the summary a single run prints, with the figures of its result.
#[test]
fn show_prints_each_run_of_a_spectrum() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let c = cwd.path();
    cheap_control(c);
    let mut args = vec!["ctl", "--dir", p(dir.path()), "--json", "s.json"];
    args.extend(CHEAP);
    args.extend(["--duration", "0.1s", "--spectrum", "USERS=1,2"]);
    succeed(c, &args);
    let out = iogauge()
        .current_dir(c)
        .args(["show", "s.json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = String::from_utf8_lossy(&out.stdout);
    let v = read_json(&c.join("s.json"));
    let entries = get(&v, "entries").as_array().unwrap();
    assert_eq!(entries.len(), 2);
    for (users, e) in (1..).zip(entries) {
        let m = &e["result"]["metrics"];
        let run = format!("== USERS={users} ==\nIOBENCH run ");
        assert!(shown.contains(&run), "{run}: {shown}");
        let sizes = format!("4 files × 64 records × 512 B, {users} users,");
        assert!(shown.contains(&sizes), "{sizes}: {shown}");
        let totals = format!(
            "*** Total cycles = {}\n*** Total MB of data = {:.3}\n",
            m["cycles"].as_u64().unwrap(),
            m["mb_processed"].as_f64().unwrap()
        );
        assert!(shown.contains(&totals), "{totals}: {shown}");
    }
    assert_eq!(
        shown
            .matches("Results written to iobench.results\n")
            .count(),
        2
    );
    assert_untouched(dir.path());
}

/// A bad spectrum-file line is one line naming file:line, exit code 2, and
/// nothing runs or is written.
#[test]
fn bad_spectrum_files_name_the_line() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let c = cwd.path();
    cheap_control(c);
    let cases = [
        (
            "FILES=4 USERS=50\nFILES=8 USERS=lots\n",
            "bad.spectrum:2: USERS = lots: not a whole number",
        ),
        (
            "# pairs\nFILES=4 USER=50\n",
            "bad.spectrum:2: unknown keyword 'USER'",
        ),
        ("FILES=4 50\n", "bad.spectrum:1: '50' is not KEY=value"),
        (
            "FILES=4 FILES=8\n",
            "bad.spectrum:1: FILES is set twice on one line",
        ),
        ("# nothing\n\n", "bad.spectrum: no runs"),
        (
            "READS=2 WRITES=1\n\nREADS=1 WRITES=2\n",
            "bad.spectrum:3: WRITES = 2: WRITES must not exceed READS = 1",
        ),
        (
            "USERS = 4;\n",
            "bad.spectrum:1: ';' in a spectrum file: this looks like a control file",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(c.join("bad.spectrum"), text).unwrap();
        let mut args = vec!["ctl", "--dir", p(dir.path())];
        args.extend(CHEAP);
        args.extend([
            "--duration",
            "0.2s",
            "--spectrum",
            "WORK=0,5",
            "bad.spectrum",
        ]);
        let line = usage_error(c, &args);
        assert!(line.starts_with(&format!("iogauge: {want}")), "{line}");
    }
    // an item that is neither a file nor a list
    let line = usage_error(c, &["--spectrum", "no-such.spectrum"]);
    assert!(
        line.contains(
            "'no-such.spectrum': neither an existing spectrum file nor a KEY=v1,v2,... list"
        ),
        "{line}"
    );
    // one keyword from two items
    std::fs::write(c.join("u.spectrum"), "USERS=2\n").unwrap();
    let line = usage_error(c, &["--spectrum", "u.spectrum", "USERS=3"]);
    assert!(
        line.contains("USERS is already set by u.spectrum:1"),
        "{line}"
    );
    assert_eq!(files_in(c), ["bad.spectrum", "ctl", "u.spectrum"]);
    assert_untouched(dir.path());
}

/// A spectrum document as `--spectrum ... --json` writes it, reduced to
/// what the figures read.
fn small_spectrum() -> Value {
    json!({
        "schema": "iogauge/iobench-spectrum/v1",
        "complete": true,
        "spectrum": ["USERS=1"],
        "entries": [{
            "name": "USERS=1",
            "result": {
                "complete": true,
                "elapsed_s": 1.0,
                "environment": {"cpus": 2},
                "config": {"duration_s": 1.0, "parameters": {
                    "users": 1, "files": 4, "nrecs": 64, "reclen": 512, "reads": 1,
                    "writes": 1, "locks": 1000, "sleep": 0, "start": 0, "end": 0,
                    "duration": 1, "work": 0}},
                "metrics": {"mb_processed": 5.0, "cp_seconds": 0.5}
            }
        }]
    })
}

/// `--chart` refuses what it cannot draw with one line naming the file,
/// exit code 2, and writes nothing.
#[test]
fn chart_mode_refuses_bad_input() {
    let cwd = tempfile::tempdir().unwrap();
    let c = cwd.path();
    std::fs::write(c.join("ok.json"), small_spectrum().to_string()).unwrap();
    std::fs::write(c.join("text.json"), "not json at all").unwrap();
    std::fs::write(
        c.join("result.json"),
        r#"{"schema": "iogauge/result/v1", "benchmark": "iobench"}"#,
    )
    .unwrap();
    let mut no_metrics = small_spectrum();
    no_metrics["entries"][0]["result"]["metrics"]
        .as_object_mut()
        .unwrap()
        .remove("cp_seconds");
    std::fs::write(c.join("nometrics.json"), no_metrics.to_string()).unwrap();
    let mut cut = small_spectrum();
    cut["entries"][0]["result"]["complete"] = json!(false);
    std::fs::write(c.join("cut.json"), cut.to_string()).unwrap();
    let before = files_in(c);
    let cases: [(&[&str], &str); 8] = [
        (
            &["--chart", "missing.json"],
            "--chart missing.json: cannot read it",
        ),
        (&["--chart", "text.json"], "--chart text.json: not JSON"),
        (
            &["--chart", "ok.json", "result.json"],
            "--chart result.json: the schema is iogauge/result/v1, not iogauge/iobench-spectrum/v1",
        ),
        (
            &["--chart", "nometrics.json"],
            "--chart nometrics.json: run 1 (USERS=1) has no metrics.cp_seconds",
        ),
        (
            &["--chart", "cut.json"],
            "--chart cut.json: no run completed",
        ),
        (
            &["ctl", "--chart", "ok.json"],
            "--chart draws finished spectra",
        ),
        (
            &["--spectrum", "USERS=1", "--chart", "ok.json"],
            "--chart draws finished spectra and runs nothing, so it takes no --spectrum",
        ),
        (
            &["--chart", "ok.json", "--json", "x.json"],
            "so it takes no --json or --csv",
        ),
    ];
    for (args, want) in cases {
        let mut a = args.to_vec();
        a.extend(["--plot", "figs"]);
        let line = usage_error(c, &a);
        assert!(line.contains(want), "{line}");
        assert_eq!(files_in(c), before, "{args:?} wrote something");
    }
    // --plot alone, and --plot naming a file
    let line = usage_error(c, &["--plot", "figs"]);
    assert!(line.contains("give --spectrum or --chart"), "{line}");
    let line = usage_error(c, &["--chart", "ok.json", "--plot", "ok.json"]);
    assert!(line.contains("--plot ok.json: not a directory"), "{line}");
    // and the good file draws
    succeed(c, &["--chart", "ok.json", "--plot", "figs"]);
    let results = std::fs::read_to_string(c.join("figs/iobench-results.svg")).unwrap();
    // 0.5 CP seconds over 1 s on 2 processors
    assert!(results.contains("ok MB=5.000 CP=25.0%"), "{results}");
}
