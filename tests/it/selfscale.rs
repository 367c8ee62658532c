//! Integration tests of `iogauge selfscale` and `iogauge predict`: a quick
//! model on tmpfs with tiny sizes (its files, valid SVGs, a prediction, a
//! validation with refinement), Ctrl-C (a partial model, exit 130, nothing
//! left behind, the memory cgroup removed), bad input (exit 2, one line) and
//! the survey hook.
//!
//! The synthetic checks of the procedure (regions, focal points, exact
//! prediction of separable functions, the model's round trip) are unit
//! tests in src/selfscale/tests.rs.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A work directory on tmpfs (with someone else's files in it), or `None`
/// where /dev/shm is missing.
fn shm_dir() -> Option<tempfile::TempDir> {
    if !Path::new("/dev/shm").is_dir() {
        eprintln!("skipped: no /dev/shm");
        return None;
    }
    let d = tempfile::tempdir_in("/dev/shm").ok()?;
    std::fs::write(d.path().join("keep"), KEEP_CONTENT).unwrap();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    std::fs::write(d.path().join("sub/inner"), b"inner\n").unwrap();
    Some(d)
}

/// An SVG document that a viewer will take: one root element, every text
/// element closed, no NaN or infinity in it.
fn assert_svg(path: &Path) {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = s.trim();
    assert!(
        t.starts_with("<svg") && t.ends_with("</svg>"),
        "{}",
        path.display()
    );
    assert_eq!(t.matches("<svg").count(), 1, "{}", path.display());
    assert_eq!(
        t.matches("<text").count(),
        t.matches("</text>").count(),
        "{}",
        path.display()
    );
    assert!(
        !t.contains("NaN") && !t.contains("inf\""),
        "{}",
        path.display()
    );
    assert!(
        t.contains("<circle") || t.contains("<polyline") || t.contains("<path"),
        "{} draws nothing",
        path.display()
    );
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn quick_model_graphs_prediction_validation_and_refinement_on_tmpfs() {
    let Some(dir) = shm_dir() else { return };
    let outs = tempfile::tempdir().unwrap();
    let out = outs.path().join("model");
    let t = Instant::now();
    let o = iogauge()
        .args([
            "selfscale",
            p(dir.path()),
            "--quick",
            "--max-bytes",
            "8M",
            "--point-time",
            "0.15s",
            "--out",
            p(&out),
            "--json",
            p(&outs.path().join("run.json")),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    eprintln!(
        "selfscale --quick on tmpfs: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    assert_untouched(dir.path());
    // the summary, on stdout and in summary.txt
    assert!(stdout.contains("uniqueBytes sweep"), "{stdout}");
    assert!(stdout.contains("What it learned:"), "{stdout}");
    assert!(stdout.contains("tmpfs"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(out.join("summary.txt")).unwrap(),
        strip_warnings(&stdout)
    );
    // the model
    let m = read_json(&out.join("model.json"));
    assert_eq!(str_at(&m, "schema"), "iogauge/selfscale-model/v1");
    assert_eq!(m["complete"], true);
    assert_eq!(str_at(&m, "settings.engine"), "psync");
    assert_eq!(f64_at(&m, "settings.size_cv"), 1.0);
    assert_eq!(u64_at(&m, "settings.seed"), 1);
    assert_eq!(m["settings"]["memory_limit"], Value::Null);
    assert_eq!(str_at(&m, "environment.fs_type"), "tmpfs");
    let regions = m["regions"].as_array().unwrap();
    assert!(!regions.is_empty());
    let points = m["points"].as_array().unwrap();
    assert!(points.len() >= 10, "{} points", points.len());
    for pt in points {
        assert!(pt["mb_per_s"].as_f64().unwrap() > 0.0, "{pt}");
        assert!(pt["rel_half_width"].as_f64().unwrap() >= 0.0, "{pt}");
        assert!(pt["seconds"].as_f64().unwrap() > 0.0, "{pt}");
        assert!(pt["batches"].as_u64().unwrap() >= 1, "{pt}");
        assert!(pt["converged"].is_boolean());
    }
    // the graphs: the sweep and four per region
    assert_svg(&out.join("unique_bytes.svg"));
    for r in regions {
        let n = r["number"].as_u64().unwrap();
        assert!(r["focal_point"].is_object());
        assert_eq!(r["curves"].as_array().unwrap().len(), 4);
        for key in ["size_mean", "read_frac", "seq_frac", "process_num"] {
            assert_svg(&out.join(format!("region-{n}-{key}.svg")));
        }
    }
    // the run's result document
    let r = read_json(&outs.path().join("run.json"));
    check_result(&r);
    assert_eq!(str_at(&r, "benchmark"), "selfscale");
    assert!(u64_at(&r, "summary.ops") > 0);
    assert_eq!(u64_at(&r, "metrics.points"), points.len() as u64);

    // predict: one workload, then a CSV of two
    let model = out.join("model.json");
    let (v, _) = run_json(&[
        "predict",
        p(&model),
        "--workload",
        "uniqueBytes=2M,sizeMean=8K,readFrac=0.3,seqFrac=0.7,processNum=2",
    ]);
    let list = v.as_array().expect("a list");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["region"].as_u64(), Some(1));
    assert!(list[0]["predicted_mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(list[0]["predicted_iops"].as_f64().unwrap() > 0.0);
    assert_eq!(list[0]["workload"]["size_mean"].as_u64(), Some(8192));
    // at the focal vector the prediction is the focal measurement
    let f = &regions[0]["focal"];
    let spec = format!(
        "uniqueBytes={},sizeMean={},readFrac={},seqFrac={},processNum={}",
        f["unique_bytes"], f["size_mean"], f["read_frac"], f["seq_frac"], f["process_num"]
    );
    let (v, _) = run_json(&["predict", p(&model), "--workload", &spec]);
    let want = regions[0]["focal_point"]["mb_per_s"].as_f64().unwrap();
    let got = v[0]["predicted_mb_per_s"].as_f64().unwrap();
    assert!((got / want - 1.0).abs() < 1e-9, "{got} vs {want}");
    let csv = outs.path().join("w.csv");
    std::fs::write(
        &csv,
        "uniqueBytes,sizeMean,readFrac\n1M,4K,1\n# a comment\n6M,64K,0\n",
    )
    .unwrap();
    let (v, _) = run_json(&["predict", p(&model), "--csv", p(&csv)]);
    assert_eq!(v.as_array().unwrap().len(), 2);
    let text = iogauge()
        .args(["predict", p(&model), "--csv", p(&csv)])
        .output()
        .unwrap();
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("MB/s"));

    // validate the model on 5 random workloads, refine with up to 2 points
    let vout = outs.path().join("validation");
    let (v, report) = run_json(&[
        "selfscale",
        p(dir.path()),
        "--validate",
        "5",
        "--model",
        p(&model),
        "--refine",
        "2",
        "--baseline",
        "a single number=1000",
        "--out",
        p(&vout),
    ]);
    assert_untouched(dir.path());
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "selfscale-validate");
    for k in [
        "median_error",
        "p75_error",
        "enhanced_error",
        "repeatability_error",
    ] {
        let x = f64_at(&v, &format!("metrics.{k}"));
        assert!(x.is_finite() && x >= 0.0, "{k} = {x}");
    }
    assert!(f64_at(&v, "metrics.p75_error") >= f64_at(&v, "metrics.median_error"));
    let w = v["metrics"]["workloads"].as_array().unwrap();
    assert_eq!(w.len(), 5);
    for c in w {
        assert!(c["measured_mb_per_s"].as_f64().unwrap() > 0.0);
        assert!(c["repeat_mb_per_s"].as_f64().unwrap() > 0.0);
        assert!(c["predicted_mb_per_s"].as_f64().unwrap() > 0.0);
    }
    assert!(v["metrics"]["refine"]["measured"].as_u64().unwrap() <= 2);
    assert_eq!(
        str_at(&v["metrics"]["baselines"][0], "name"),
        "a single number"
    );
    assert!(f64_at(&v["metrics"]["baselines"][0], "median_error") >= 0.0);
    assert!(report.contains("median error"), "{report}");
    assert!(!report.contains("another machine"), "{report}");
    assert_svg(&vout.join("scatter.svg"));
    assert!(vout.join("validation.json").is_file());
    assert!(vout.join("validation.txt").is_file());
    // the model now carries its expected error, and predict prints it
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(m["validation"]["workloads"], 5);
    assert_eq!(
        m["validation"]["median_error"].as_f64().unwrap(),
        f64_at(&v, "metrics.median_error")
    );
    // a model measured on another machine: validation says what differs
    let mut other = m.clone();
    other["environment"]["cpus"] = Value::from(64);
    other["environment"]["cpu_caches"] = Value::from("L1d 32 KiB, L2 1 MiB, L3 8 MiB");
    let moved = outs.path().join("other-machine.json");
    std::fs::write(&moved, other.to_string()).unwrap();
    let (_, report) = run_json(&[
        "selfscale",
        p(dir.path()),
        "--validate",
        "1",
        "--model",
        p(&moved),
        "--out",
        p(&outs.path().join("validation-other")),
    ]);
    let note = report
        .lines()
        .find(|l| l.contains("another machine"))
        .unwrap_or_else(|| panic!("no NOTE of another machine: {report}"));
    assert!(note.contains("64 CPUs, now"), "{note}");
    assert!(note.contains("L3 8 MiB, now"), "{note}");
    assert_untouched(dir.path());
    let (pv, _) = run_json(&["predict", p(&model), "--csv", p(&csv)]);
    assert_eq!(
        pv[0]["expected_median_error"].as_f64().unwrap(),
        f64_at(&v, "metrics.median_error")
    );
    let text = iogauge()
        .args(["predict", p(&model), "--csv", p(&csv)])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(
        out.contains("expected error: median ")
            && out.contains("(the model's validation on 5 random workloads"),
        "{out}"
    );
}

#[test]
fn ctrl_c_writes_a_partial_model_and_cleans_up() {
    let dir = work_dir();
    let outs = tempfile::tempdir().unwrap();
    let out = outs.path().join("m");
    // bound the page cache when this machine can (then the cgroup must go
    // too); tmpfs-free ext4-or-whatever temporary directory
    let cg = iogauge::selfscale::cgroup::probe().found.is_some() && is_root();
    let mut cmd = std::process::Command::new(bin_path());
    cmd.args([
        "selfscale",
        p(dir.path()),
        "--max-bytes",
        "64M",
        "--point-time",
        "1s",
        "--out",
        p(&out),
    ]);
    if cg {
        cmd.args(["--memory-limit", "256M"]);
    } else {
        cmd.args(["--memory-limit", "off"]);
    }
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // let it measure a few points
    std::thread::sleep(Duration::from_millis(3000));
    let cg_dir: Option<PathBuf> = if cg {
        std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.contains("iogauge-"))
                    .map(|l| l.rsplit(':').next().unwrap().to_string())
            })
            .map(PathBuf::from)
    } else {
        None
    };
    // SAFETY: kill(2) on our own child with a valid signal number.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let t = Instant::now();
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "it took {:?} to stop",
        t.elapsed()
    );
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_untouched(dir.path());
    let m = read_json(&out.join("model.json"));
    assert_eq!(m["complete"], false);
    assert!(!m["points"].as_array().unwrap().is_empty());
    assert!(
        std::fs::read_to_string(out.join("summary.txt"))
            .unwrap()
            .contains("INCOMPLETE")
    );
    if let Some(rel) = cg_dir {
        assert!(
            rel.to_string_lossy().ends_with(&format!("iogauge-{pid}")),
            "{rel:?}"
        );
        let gone = [
            "/sys/fs/cgroup/memory",
            "/sys/fs/cgroup",
            "/sys/fs/cgroup/unified",
        ]
        .iter()
        .all(|root| {
            !Path::new(root)
                .join(rel.strip_prefix("/").unwrap())
                .exists()
        });
        assert!(gone, "the memory cgroup {rel:?} was left behind");
        assert!(m["settings"]["memory_limit"].as_u64().is_some());
    } else {
        eprintln!("the page-cache bound was not tested: no memory cgroup (or not root)");
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = work_dir();
    let d = p(dir.path());
    let bad_model = dir.path().join("sub/inner");
    let csv = dir.path().join("bad.csv");
    std::fs::write(&csv, "uniqueBytes,readFrac\n1M,0.5\n2M,lots\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["selfscale", d, "--refine", "3"],
            "--refine needs --validate",
        ),
        (vec!["selfscale", "/nonexistent/dir"], "/nonexistent/dir"),
        (
            vec!["selfscale", d, "--memory-limit", "1M"],
            "--memory-limit",
        ),
        (vec!["selfscale", d, "--memory-limit", "lots"], "not a size"),
        (vec!["selfscale", d, "--fsync", "end"], "--fsync end"),
        (vec!["selfscale", d, "--engine", "warp"], "warp"),
        (vec!["selfscale", d, "--max-bytes", "2M"], "--max-bytes"),
        (vec!["selfscale", d, "--precision", "1.5"], "fraction"),
        (
            vec!["selfscale", d, "--model", "m.json"],
            "--model is for --validate",
        ),
        (vec!["selfscale", d, "--validate", "0"], "--validate"),
        (
            vec![
                "selfscale",
                d,
                "--validate",
                "3",
                "--model",
                "/nonexistent.json",
            ],
            "cannot read the model",
        ),
        (
            vec!["selfscale", d, "--validate", "3", "--model", p(&bad_model)],
            "not JSON",
        ),
        (
            vec!["selfscale", d, "--baseline", "x=1"],
            "--baseline is for --validate",
        ),
        (
            vec![
                "predict",
                "/nonexistent.json",
                "--workload",
                "uniqueBytes=1M",
            ],
            "cannot read the model",
        ),
        (
            vec!["predict", p(&bad_model), "--workload", "uniqueBytes=1M"],
            "not JSON",
        ),
    ];
    for (args, want) in cases {
        let line = assert_usage_error(&args);
        assert!(line.contains(want), "iogauge {args:?}: {line}");
    }
    // tmpfs files are the page cache: no memory limit there
    if let Some(shm) = shm_dir() {
        let line = assert_usage_error(&["selfscale", p(shm.path()), "--memory-limit", "1G"]);
        assert!(line.contains("tmpfs"), "{line}");
        assert_untouched(shm.path());
    }
    // a model for the predict errors: tiny, on the null engine (no I/O)
    let outs = tempfile::tempdir().unwrap();
    let out = outs.path().join("m");
    let o = iogauge()
        .args(null_model_args(d, p(&out)))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty(), "--quiet printed something");
    let model = out.join("model.json");
    let m = p(&model);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["predict", m], "at least one workload"),
        (
            vec!["predict", m, "--workload", " , "],
            "no parameter given",
        ),
        (
            vec!["predict", m, "--workload", "uniqueBytes=1M,readFrac=2"],
            "readFrac",
        ),
        (
            vec!["predict", m, "--workload", "uniqueBytes=1M,colour=red"],
            "unknown parameter",
        ),
        (vec!["predict", m, "--csv", p(&csv)], "bad.csv:3:"),
        (
            vec![
                "selfscale",
                d,
                "--validate",
                "2",
                "--model",
                m,
                "--engine",
                "psync",
            ],
            "--engine",
        ),
        (
            vec!["selfscale", d, "--validate", "2", "--model", m, "--quick"],
            "--quick",
        ),
    ];
    for (args, want) in cases {
        let line = assert_usage_error(&args);
        assert!(line.contains(want), "iogauge {args:?}: {line}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        3,
        "keep, sub, bad.csv and nothing else"
    );
}

#[test]
fn help_names_the_options() {
    let out = iogauge().args(["selfscale", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "--out",
        "--quick",
        "--max-bytes",
        "--memory-limit",
        "--direct",
        "--engine",
        "--size-cv",
        "--seed",
        "--precision",
        "--point-time",
        "--validate",
        "--model",
        "--refine",
        "--json",
    ] {
        assert!(help.contains(flag), "selfscale --help lacks {flag}");
    }
    let out = iogauge().args(["predict", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for flag in ["--workload", "--csv", "--json", "MODEL.json"] {
        assert!(help.contains(flag), "predict --help lacks {flag}");
    }
}

/// How many times the set-up block (what was picked: the workload, the
/// sweep, the precision) appears in `text`.
fn setup_blocks(text: &str) -> (usize, usize) {
    (
        text.matches("workload: engine null").count(),
        text.matches("sweep: uniqueBytes 1 MiB … 4 MiB").count(),
    )
}

/// The set-up lines go to stderr as the run begins and the summary repeats
/// them: where stdout and stderr are one file (`>log 2>&1`), they are
/// printed once; apart, each stream has them once, and summary.txt always.
#[test]
fn the_setup_block_is_printed_once_when_stdout_and_stderr_are_one() {
    let dir = work_dir();
    let outs = tempfile::tempdir().unwrap();
    let out = outs.path().join("m");
    let both = tempfile::NamedTempFile::new().unwrap();
    let w = both.reopen().unwrap();
    let status = std::process::Command::new(bin_path())
        .args(null_model_args(p(dir.path()), p(&out)))
        .stdout(std::process::Stdio::from(w.try_clone().unwrap()))
        .stderr(std::process::Stdio::from(w))
        .status()
        .unwrap();
    let text = std::fs::read_to_string(both.path()).unwrap();
    assert!(status.success(), "{text}");
    assert_eq!(setup_blocks(&text), (1, 1), "{text}");
    assert!(text.contains("uniqueBytes sweep ("), "{text}");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert_eq!(setup_blocks(&summary), (1, 1), "{summary}");

    // apart: the notes on stderr, the whole summary on stdout
    let o = iogauge()
        .args(null_model_args(p(dir.path()), p(&out)))
        .output()
        .unwrap();
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(setup_blocks(&stdout), (1, 1), "{stdout}");
    assert_eq!(setup_blocks(&stderr), (1, 1), "{stderr}");
    assert_eq!(
        strip_warnings(&stdout),
        std::fs::read_to_string(out.join("summary.txt")).unwrap()
    );
    assert_untouched(dir.path());
}

/// On a terminal (a pseudo-terminal made by script(1)), with the progress
/// bar drawn, the set-up block appears once.
#[test]
fn the_setup_block_is_printed_once_on_a_terminal() {
    let has_script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        eprintln!(
            "SKIPPED the_setup_block_is_printed_once_on_a_terminal: no script(1) to make a pseudo-terminal"
        );
        return;
    }
    let dir = work_dir();
    let outs = tempfile::tempdir().unwrap();
    let out = outs.path().join("m");
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut cmd = quote(p(&bin_path()));
    for a in null_model_args(p(dir.path()), p(&out)) {
        cmd.push(' ');
        cmd.push_str(&quote(a));
    }
    let o = std::process::Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("uniqueBytes sweep ("), "{text}");
    assert_eq!(setup_blocks(&text), (1, 1), "{text}");
    assert_untouched(dir.path());
}

/// `iogauge show` prints a saved run's summary again: with and without
/// O_DIRECT (the `requests:` line), the same text as stdout and
/// summary.txt, and figures that are the model's.
#[test]
fn show_prints_the_summary_again() {
    let dir = work_dir();
    let outs = tempfile::tempdir().unwrap();
    for (name, extra) in [("buffered", None), ("direct", Some("--direct"))] {
        let out = outs.path().join(name);
        let mut args = null_model_args(p(dir.path()), p(&out));
        args.extend(extra);
        let (v, report) = assert_show_repeats(&args);
        assert_eq!(
            report,
            std::fs::read_to_string(out.join("summary.txt")).unwrap()
        );
        assert_eq!(report.contains(", O_DIRECT\n"), extra.is_some(), "{report}");
        // the figures read back are what the summary printed
        let points = u64_at(&v, "metrics.points");
        assert!(
            report.contains(&format!("precision: {points} points measured")),
            "{report}"
        );
        let focal = f64_at(&v["metrics"]["focal"][0], "mb_per_s");
        assert!(report.contains(&format!(" → {focal:.1} MB/s")), "{report}");
        // and the model's
        let m = read_json(&out.join("model.json"));
        assert_eq!(v["metrics"]["sweep"], m["sweep"]);
        assert_eq!(v["metrics"]["region_details"], m["regions"]);
        assert_eq!(v["metrics"]["boundaries"], m["boundaries"]);
        assert_eq!(v["config"]["settings"], m["settings"]);
    }
    assert_untouched(dir.path());
}
