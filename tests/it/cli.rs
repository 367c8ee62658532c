//! Integration tests of the `iogauge` command line: the result schema and
//! its consistency, clean-up of the work directory, Ctrl-C, exit codes of bad
//! input, the IOStone variants, the engines and the survey.
//!
//! Every run is small (a few MiB, `--ops` or well under a second) and works
//! in a temporary `--dir` that holds files of "someone else" which must
//! survive untouched. `IOGAUGE_BLESS=1` rewrites the golden report layouts
//! in tests/fixtures.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- version, help

#[test]
fn version_prints_the_version_and_the_commit() {
    let out = iogauge().arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.trim_end();
    let want = format!("iogauge {} (commit ", env!("CARGO_PKG_VERSION"));
    assert!(line.starts_with(&want), "{line:?}");
    let commit = line[want.len()..].strip_suffix(')').expect("closing ')'");
    assert!(
        commit == "unknown"
            || (!commit.is_empty() && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "commit {commit:?}"
    );
    // the JSON names the same build
    let dir = work_dir();
    let (v, _) = run_json(&[
        "run",
        "--engine",
        "null",
        "--ops",
        "10",
        "--dir",
        p(dir.path()),
    ]);
    assert_eq!(str_at(&v, "tool.commit"), commit);
    // -V says the same; the subcommands' --version name the subcommand
    // ("iogauge-run 0.1.0 (commit ...)") with the same version and commit
    iogauge()
        .arg("-V")
        .assert()
        .success()
        .stdout(format!("{line}\n"));
    let tail = &line["iogauge".len()..];
    for sub in ["run", "iostone", "survey"] {
        iogauge()
            .args([sub, "--version"])
            .assert()
            .success()
            .stdout(predicates::str::contains(tail));
    }
}

/// The subcommands `iogauge --help` lists.
fn subcommands() -> Vec<String> {
    let out = iogauge().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let subs: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // a long description wraps onto lines indented further
        .filter(|l| !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    for s in ["survey", "run", "iostone", "engines", "help"] {
        assert!(subs.iter().any(|x| x == s), "{s} missing from {subs:?}");
    }
    subs
}

#[test]
fn help_of_every_subcommand_exits_0() {
    let subs = subcommands();
    let mut cases: Vec<Vec<&str>> = vec![vec!["--help"], vec!["-h"], vec!["help"]];
    for s in &subs {
        // clap's own `help` takes no --help of its own (`iogauge help help` works)
        if s != "help" {
            cases.push(vec![s, "--help"]);
            cases.push(vec![s, "-h"]);
        }
        cases.push(vec!["help", s]);
    }
    for args in cases {
        let out = iogauge().args(&args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "iogauge {args:?}: {}", out.status);
        assert!(
            stdout.contains("Usage: iogauge"),
            "iogauge {args:?}: {stdout}"
        );
        assert!(out.stderr.is_empty(), "iogauge {args:?} wrote on stderr");
    }
    // each flag the contract relies on is documented
    let run_help = iogauge().args(["run", "--help"]).output().unwrap().stdout;
    let run_help = String::from_utf8(run_help).unwrap();
    for flag in [
        "--unique-bytes",
        "--size-mean",
        "--read-frac",
        "--seq-frac",
        "--processes",
        "--duration",
        "--ops",
        "--dir",
        "--engine",
        "--direct",
        "--fsync",
        "--json",
    ] {
        assert!(
            run_help.contains(flag),
            "run --help does not mention {flag}"
        );
    }
}

#[test]
fn engines_lists_every_engine() {
    let out = iogauge().arg("engines").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for e in ["psync", "sync", "buffered", "null", "mmap"] {
        assert!(names.contains(&e), "engine {e} missing from {text}");
    }
    // the one engine that cannot grow a file says so
    let mmap = text.lines().find(|l| l.starts_with("mmap ")).unwrap();
    assert!(mmap.contains("writes inside a file's size only"), "{mmap}");
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("psync ") && l.contains("inside a file's size"))
    );
}

#[test]
fn no_subcommand_is_a_usage_error_listing_every_command() {
    let out = iogauge().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("iogauge: a command is required"),
        "{stderr}"
    );
    for c in [
        "survey",
        "run",
        "iostone",
        "postmark",
        "iobench",
        "selfscale",
        "predict",
        "engines",
    ] {
        assert!(
            stderr.lines().any(|l| l.trim_start().starts_with(c)),
            "{c} is not listed: {stderr}"
        );
    }
    assert!(!stderr.contains("iobench-user"), "{stderr}");
    assert!(out.stdout.is_empty());
}

// ---------------------------------------------------------------- the result JSON

#[test]
fn run_json_has_the_whole_schema_and_adds_up() {
    let dir = work_dir();
    let (v, stderr) = run_json(&[
        "run",
        "--ops",
        "2000",
        "--unique-bytes",
        "2M",
        "--dir",
        p(dir.path()),
    ]);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "run");
    assert_eq!(get(&v, "complete"), &Value::Bool(true));
    assert_eq!(u64_at(&v, "summary.ops"), 2000, "--ops 2000");
    assert!(op_count(&v, "read") > 0 && op_count(&v, "write") > 0);
    assert!(!get(&v, "ops").as_object().unwrap().contains_key("fsync"));
    // the configuration after defaults
    assert_eq!(u64_at(&v, "config.workload.unique_bytes"), 2 << 20);
    assert_eq!(u64_at(&v, "config.workload.size_mean"), 20 << 10);
    assert_eq!(str_at(&v, "config.io.engine"), "psync");
    assert_eq!(u64_at(&v, "config.ops"), 2000);
    for m in ["iops", "mb_per_s", "mean_request_bytes"] {
        assert!(f64_at(&v, &format!("metrics.{m}")) > 0.0, "metrics.{m}");
    }
    // the environment describes where the run worked
    let target = str_at(&v, "environment.target_dir");
    let parent = dir.path().canonicalize().unwrap();
    assert!(
        Path::new(target).starts_with(&parent),
        "target_dir {target} is not under {}",
        parent.display()
    );
    // with --json - the report goes to stderr
    assert!(stderr.starts_with("iogauge run: "), "{stderr}");
    assert!(stderr.contains("2000 ops"), "{stderr}");
    assert_untouched(dir.path());
}

#[test]
fn json_to_a_file_and_the_report_to_stdout() {
    let dir = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("result.json");
    let out = iogauge()
        .args(["run", "--ops", "500", "--unique-bytes", "1M", "--dir"])
        .arg(dir.path())
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("iogauge run: "), "{stdout}");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    check_result(&v);
    assert_eq!(u64_at(&v, "summary.ops"), 500);
    assert_untouched(dir.path());
}

#[test]
fn quiet_prints_nothing_but_still_writes_the_json() {
    let dir = work_dir();
    let out = iogauge()
        .args([
            "run",
            "-q",
            "--ops",
            "300",
            "--unique-bytes",
            "1M",
            "--json",
            "-",
        ])
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_result(&v);
    iogauge()
        .args(["iostone", "-q", "--dir"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout("")
        .stderr("");
    assert_untouched(dir.path());
}

#[test]
fn duration_run_with_workers_and_files_adds_up_over_time() {
    let dir = work_dir();
    let (v, stderr) = run_json(&[
        "run",
        "--duration",
        "1.2",
        "-p",
        "2",
        "--files",
        "2",
        "--unique-bytes",
        "4M",
        "--dir",
        p(dir.path()),
    ]);
    check_result(&v);
    assert_eq!(u64_at(&v, "summary.workers"), 2);
    let elapsed = f64_at(&v, "elapsed_s");
    assert!((1.15..3.0).contains(&elapsed), "elapsed_s {elapsed}");
    assert!(
        get(&v, "timeseries.ops").as_array().unwrap().len() >= 2,
        "1.2 s gives two 1 s intervals"
    );
    assert!(stderr.contains("2 workers:"), "{stderr}");
    assert!(stderr.contains("IO/s per second over"), "{stderr}");
    assert_untouched(dir.path());
}

#[test]
fn op_budget_is_exact_over_several_workers() {
    let dir = work_dir();
    for (procs, ops) in [("1", "1"), ("3", "2001"), ("2", "777")] {
        let (v, _) = run_json(&[
            "run",
            "--engine",
            "null",
            "-p",
            procs,
            "--ops",
            ops,
            "--dir",
            p(dir.path()),
        ]);
        check_result(&v);
        assert_eq!(u64_at(&v, "summary.ops").to_string(), ops, "-p {procs}");
        assert_eq!(u64_at(&v, "summary.workers").to_string(), procs);
    }
    assert_untouched(dir.path());
}

#[test]
fn duration_and_ramp_bound_the_measured_phase() {
    let dir = work_dir();
    let t = Instant::now();
    let (v, _) = run_json(&[
        "run",
        "--engine",
        "null",
        "--duration",
        "0.3",
        "--ramp",
        "0.2",
        "--dir",
        p(dir.path()),
    ]);
    let wall = t.elapsed();
    check_result(&v);
    assert_eq!(f64_at(&v, "config.duration_s"), 0.3);
    assert_eq!(f64_at(&v, "config.ramp_s"), 0.2);
    let elapsed = f64_at(&v, "elapsed_s");
    assert!((0.29..1.0).contains(&elapsed), "elapsed_s {elapsed}");
    assert!(
        wall >= Duration::from_millis(500),
        "ramp + duration: {wall:?}"
    );
    assert!(u64_at(&v, "summary.ops") > 0);
    assert_untouched(dir.path());
}

#[test]
fn the_same_seed_issues_the_same_requests() {
    let dir = work_dir();
    let run = |seed: &str| {
        let (v, _) = run_json(&[
            "run",
            "--engine",
            "null",
            "--ops",
            "3000",
            "--unique-bytes",
            "8M",
            "--seed",
            seed,
            "--dir",
            p(dir.path()),
        ]);
        ["read", "write"].map(|k| (op_count(&v, k), u64_at(&v, &format!("ops.{k}.bytes"))))
    };
    assert_eq!(run("7"), run("7"));
    assert_ne!(run("7"), run("8"));
    assert_untouched(dir.path());
}

// ---------------------------------------------------------------- engines

#[test]
fn every_engine_completes_an_op_budget() {
    let dir = work_dir();
    for engine in ["sync", "psync", "buffered", "null"] {
        let (v, _) = run_json(&[
            "run",
            "--engine",
            engine,
            "--ops",
            "2000",
            "--unique-bytes",
            "2M",
            "--dir",
            p(dir.path()),
        ]);
        check_result(&v);
        assert_eq!(str_at(&v, "config.io.engine"), engine);
        assert_eq!(get(&v, "complete"), &Value::Bool(true), "{engine}");
        assert_eq!(u64_at(&v, "summary.ops"), 2000, "{engine}");
        assert_untouched(dir.path());
    }
}

#[test]
fn fsync_every_n_syncs_after_every_nth_write() {
    let dir = work_dir();
    for (engine, n, extra) in [
        ("psync", 10, None),
        ("sync", 7, Some("--fdatasync")),
        ("buffered", 10, None),
    ] {
        let policy = format!("every={n}");
        let mut args = vec![
            "run",
            "--engine",
            engine,
            "--fsync",
            &policy,
            "--ops",
            "2000",
            "--unique-bytes",
            "2M",
            "--read-frac",
            "0.3",
            "--dir",
            p(dir.path()),
        ];
        args.extend(extra);
        let (v, _) = run_json(&args);
        check_result(&v);
        let writes = op_count(&v, "write");
        assert!(writes >= 100, "{writes} writes");
        assert_eq!(
            op_count(&v, "fsync"),
            writes / n,
            "{engine} --fsync every={n}: {writes} writes"
        );
        // the op budget counts reads and writes; the fsyncs come on top
        assert_eq!(op_count(&v, "read") + writes, 2000);
        assert_eq!(u64_at(&v, "summary.ops"), 2000 + op_count(&v, "fsync"));
        assert_eq!(
            get(&v, "config.io.fdatasync"),
            &Value::Bool(extra.is_some())
        );
    }
    assert_untouched(dir.path());
}

#[test]
fn fsync_end_syncs_at_least_once() {
    let dir = work_dir();
    for files in ["1", "3"] {
        let (v, _) = run_json(&[
            "run",
            "--fsync",
            "end",
            "--files",
            files,
            "--ops",
            "1000",
            "--unique-bytes",
            "3M",
            "--dir",
            p(dir.path()),
        ]);
        check_result(&v);
        let fsyncs = op_count(&v, "fsync");
        assert!(fsyncs >= 1, "--fsync end gave no fsync");
        assert!(
            fsyncs <= files.parse().unwrap(),
            "one fsync per file at most"
        );
        assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 1000);
    }
    assert_untouched(dir.path());
}

/// `--ops N` counts reads and writes; fsyncs come on top (as fio's
/// number_ios), and the summary still adds every kind up.
#[test]
fn op_budget_is_exact_with_fsync_end() {
    let dir = work_dir();
    let (v, _) = run_json(&[
        "run",
        "--fsync",
        "end",
        "--ops",
        "1000",
        "--unique-bytes",
        "2M",
        "--dir",
        p(dir.path()),
    ]);
    let rw = u64_at(&v, "ops.read.count") + u64_at(&v, "ops.write.count");
    assert_eq!(rw, 1000);
    assert!(u64_at(&v, "ops.fsync.count") >= 1);
    assert_eq!(
        u64_at(&v, "summary.ops"),
        rw + u64_at(&v, "ops.fsync.count")
    );
}

#[test]
fn null_engine_creates_no_files() {
    let dir = work_dir();
    // 100 TiB would fail at once if anything were laid out
    let mut child = std::process::Command::new(bin_path())
        .args(["run", "--engine", "null", "--unique-bytes", "100T"])
        .args(["--duration", "0.5", "-q", "--dir"])
        .arg(dir.path())
        .spawn()
        .unwrap();
    let mut seen_work_dir = false;
    let status = loop {
        for entry in tree(dir.path()) {
            if ["keep", "sub", "sub/inner"].contains(&entry.as_str()) {
                continue;
            }
            // only the (empty) work directory may appear
            let path = dir.path().join(&entry);
            // the run may remove its work directory between the listing
            // and this look at it
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                seen_work_dir |= entry.starts_with("iogauge-run-");
                continue;
            };
            // ... and the marker of its owner (which the next run reads
            // to tell a killed run's leftovers)
            if entry.starts_with("iogauge-run-") && entry.ends_with("/.iogauge-owner") {
                continue;
            }
            assert!(
                meta.is_dir() && entry.starts_with("iogauge-run-") && !entry.contains('/'),
                "the null engine made {entry}"
            );
            seen_work_dir = true;
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status}");
    assert!(seen_work_dir, "never saw the run's work directory");
    assert_untouched(dir.path());
    // and IOStone
    iogauge()
        .args(["iostone", "--engine", "null", "-q", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    assert_untouched(dir.path());
}

// ---------------------------------------------------------------- the work directory

#[test]
fn the_work_directory_is_made_in_dir_and_removed_afterwards() {
    let dir = work_dir();
    let mut child = std::process::Command::new(bin_path())
        .args([
            "run",
            "--duration",
            "0.5",
            "--unique-bytes",
            "2M",
            "--files",
            "2",
        ])
        .args(["-q", "--dir"])
        .arg(dir.path())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let status = loop {
        for e in tree(dir.path()) {
            if !seen.contains(&e) {
                seen.push(e);
            }
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success());
    // the data lived in iogauge-run-<pid>-<n>/data.<i> under --dir ...
    let work = format!("iogauge-run-{}-", child.id());
    for f in ["data.0", "data.1"] {
        assert!(
            seen.iter()
                .any(|e| e.starts_with(&work) && e.ends_with(&format!("/{f}"))),
            "never saw {work}*/{f} in {seen:?}"
        );
    }
    // ... and is gone; what was there before is untouched
    assert_untouched(dir.path());
}

#[test]
fn a_json_path_in_a_missing_directory_is_refused_before_the_run() {
    let dir = work_dir();
    let out = iogauge()
        .args(["run", "--duration", "30s", "--unique-bytes", "1M"])
        .args(["--json", "/nonexistent/dir/result.json", "--dir"])
        .arg(dir.path())
        .timeout(Duration::from_secs(10))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/nonexistent/dir"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_untouched(dir.path());
}

// ---------------------------------------------------------------- signals

/// Start a 30 s run, send `sig` once it is measuring, and check that it
/// stops within 2 s with exit code 130, removes its files and writes the
/// partial result.
fn interrupt_a_run(sig: libc::c_int) {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("result.json");
    let stdout = std::fs::File::create(out.path().join("stdout")).unwrap();
    let stderr = std::fs::File::create(out.path().join("stderr")).unwrap();
    let mut child = std::process::Command::new(bin_path())
        .args(["run", "--duration", "30s", "--unique-bytes", "4M", "--dir"])
        .arg(dir.path())
        .arg("--json")
        .arg(&json)
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap();
    // wait for the data file, then let the timed phase run a while
    let t = Instant::now();
    while !tree(dir.path()).iter().any(|e| e.ends_with("/data.0")) {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the run never laid out its file"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(700));
    let (status, took) = signal_and_wait(&mut child, sig);
    let stdout = std::fs::read_to_string(out.path().join("stdout")).unwrap();
    let stderr = std::fs::read_to_string(out.path().join("stderr")).unwrap();
    assert!(took < Duration::from_secs(2), "took {took:?} to stop");
    assert_eq!(status.code(), Some(130), "{status}; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stdout.contains("INCOMPLETE RUN"), "{stdout}");
    assert_untouched(dir.path());
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    check_result(&v);
    assert_eq!(get(&v, "complete"), &Value::Bool(false));
    assert!(
        u64_at(&v, "summary.ops") > 0,
        "the partial result has the ops done"
    );
    let elapsed = f64_at(&v, "elapsed_s");
    assert!((0.3..5.0).contains(&elapsed), "elapsed_s {elapsed}");
}

#[test]
fn sigint_stops_cleans_up_and_writes_a_partial_result() {
    interrupt_a_run(libc::SIGINT);
}

#[test]
fn sigterm_stops_cleans_up_and_writes_a_partial_result() {
    interrupt_a_run(libc::SIGTERM);
}

// ---------------------------------------------------------------- bad input

#[test]
fn bad_run_input_is_a_one_line_usage_error() {
    let dir = work_dir();
    // (arguments, what the message must mention)
    let cases = [
        ("--bogus", "--bogus"),
        ("--read-frac 1.5", "1.5"),
        ("--seq-frac -0.5", "-0"), // clap reads "-0.5" as short flags
        ("--unique-bytes -1", "-1"),
        ("--unique-bytes=-1", "-1"),
        ("--unique-bytes 12Q", "12Q"),
        ("--unique-bytes 100", "--unique-bytes"),
        ("--size-mean 0", "--size-mean"),
        ("--size-cv=-1", "--size-cv"),
        ("--duration -1", "-1"),
        ("--duration=-1", "-1"),
        ("--duration 0", "--duration"),
        ("--duration soon", "soon"),
        ("--ops 0", "--ops"),
        ("--ops many", "many"),
        ("--processes 0", "--processes"),
        ("--files 0", "--files"),
        ("--align 3", "--align"),
        ("--direct --align 512", "--align"),
        ("--engine nope", "nope"),
        ("--fsync sometimes", "sometimes"),
        ("--fsync every=0", "every=0"),
        ("--direct --engine buffered", "buffered"),
    ];
    for (args, mention) in cases {
        let mut argv: Vec<&str> = vec!["run"];
        argv.extend(args.split(' '));
        // keep an accidental success short and small
        if !args.contains("--unique-bytes") {
            argv.extend(["--unique-bytes", "1M"]);
        }
        if !args.contains("--ops") && !args.contains("--duration") {
            argv.extend(["--ops", "10"]);
        }
        argv.extend(["--dir", p(dir.path())]);
        let line = assert_usage_error(&argv);
        assert!(
            line.contains(mention),
            "run {args}: {line:?} does not mention {mention}"
        );
        assert_untouched(dir.path());
    }
}

#[test]
fn bad_iostone_and_survey_input_is_a_one_line_usage_error() {
    let dir = work_dir();
    let cases = [
        ("iostone --bogus", "--bogus"),
        ("iostone --engine nope", "nope"),
        ("iostone --direct --engine buffered", "buffered"),
        ("run --fsync sometimes", "sometimes"),
        ("iostone --fsync end", "--fsync"),
        ("iostone --fdatasync", "--fdatasync"),
        ("run --fdatasync", "--fsync end"),
        ("run --unique-bytes -5M", "must be positive"),
        ("run --duration -1s", "must be positive"),
        ("run --threads -1", "--threads"),
        ("run -p -1", "must be positive"),
        ("run -p 0", "must be positive"),
        ("run --files 0", "must be positive"),
        (
            "run --size-mean 8M --unique-bytes 1M",
            "larger than each file",
        ),
        ("run -p 1000000", "ulimit -u"),
        ("run -p 30000 --files 1", "workers"),
        ("iobench --usage-file u.txt", "-u COMMAND"),
        ("iobench --chart c.svg", "--spectrum"),
        ("run --json /nonexistent/r.json", "does not exist"),
        ("run --csv /proc/r.csv", "/proc"),
        ("iostone --scale 0", "--scale"),
        ("iostone --variant c3", "c1, c2"),
        ("iostone --seeding random", "srandom, literal"),
        ("survey --bogus", "--bogus"),
    ];
    for (args, mention) in cases {
        let mut argv: Vec<&str> = args.split(' ').collect();
        argv.push(if argv[0] == "survey" {
            "--quick"
        } else {
            "--dir"
        });
        argv.push(p(dir.path()));
        let line = assert_usage_error(&argv);
        assert!(
            line.contains(mention),
            "{args}: {line:?} does not mention {mention}"
        );
        assert_untouched(dir.path());
    }
}

#[test]
fn missing_dir_is_a_usage_error() {
    let dir = work_dir();
    let missing = dir.path().join("not-there");
    let m = p(&missing);
    for argv in [
        vec!["run", "--ops", "10", "--unique-bytes", "1M", "--dir", m],
        vec!["run", "--engine", "null", "--ops", "10", "--dir", m],
        vec!["iostone", "--dir", m],
        vec!["survey", "--quick", m],
    ] {
        let line = assert_usage_error(&argv);
        assert!(line.contains(m), "{argv:?}: {line:?}");
    }
    // a file is not a directory
    let file = dir.path().join("keep");
    for sub in ["run", "iostone"] {
        let line = assert_usage_error(&[sub, "--dir", p(&file)]);
        assert!(line.contains("not a directory"), "{line:?}");
    }
    assert_untouched(dir.path());
}

/// Undo a `chattr +i` or a `chmod 0555` when the test ends, however it ends.
struct Restore<'a>(&'a Path, bool);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.1 {
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(self.0)
                .status();
        } else {
            let _ = std::fs::set_permissions(self.0, std::fs::Permissions::from_mode(0o700));
        }
    }
}

#[test]
fn read_only_dir_is_a_usage_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = work_dir();
    let d = dir.path();
    // Root writes through mode bits, so as root make the directory immutable
    // instead (root cannot write there either).
    let _restore = if is_root() {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(d)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIPPED: running as root and chattr +i does not work here");
            return;
        }
        Restore(d, true)
    } else {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o555)).unwrap();
        Restore(d, false)
    };
    for argv in [
        vec!["run", "--ops", "10", "--unique-bytes", "1M", "--dir", p(d)],
        vec!["run", "--engine", "null", "--ops", "10", "--dir", p(d)],
        vec!["iostone", "--dir", p(d)],
    ] {
        let line = assert_usage_error(&argv);
        assert!(line.contains(p(d)), "{argv:?}: {line:?}");
        assert!(line.contains("not writable"), "{argv:?}: {line:?}");
    }
    drop(_restore);
    assert_untouched(d);
}

#[test]
fn unwritable_pseudo_file_systems_are_a_usage_error() {
    for d in ["/proc/self", "/sys"] {
        for argv in [
            vec!["run", "--ops", "10", "--unique-bytes", "1M", "--dir", d],
            vec!["iostone", "--dir", d],
        ] {
            let line = assert_usage_error(&argv);
            assert!(line.contains(d), "{argv:?}: {line:?}");
        }
    }
}

#[test]
fn unwritable_proc_dir_with_the_null_engine_is_a_usage_error() {
    for argv in [
        vec![
            "run",
            "--engine",
            "null",
            "--ops",
            "10",
            "--dir",
            "/proc/self",
        ],
        vec!["iostone", "--engine", "null", "-q", "--dir", "/proc/self"],
    ] {
        assert_usage_error(&argv);
    }
}

#[test]
fn not_enough_space_is_a_usage_error() {
    let dir = work_dir();
    for extra in [&[][..], &["--files", "4"][..]] {
        let mut argv = vec![
            "run",
            "--unique-bytes",
            "100T",
            "--ops",
            "10",
            "--dir",
            p(dir.path()),
        ];
        argv.extend(extra);
        let line = assert_usage_error(&argv);
        assert!(line.contains("not enough space"), "{line:?}");
        assert_untouched(dir.path());
    }
}

// ---------------------------------------------------------------- IOStone

/// `"<prefix><number><suffix>"` → the number.
fn number_in<'a>(line: &'a str, prefix: &str, suffix: &str) -> &'a str {
    line.strip_prefix(prefix)
        .and_then(|r| r.strip_suffix(suffix))
        .unwrap_or_else(|| panic!("{line:?} is not {prefix:?}<number>{suffix:?}"))
}

#[test]
fn iostone_c1_does_4608_transfers_and_prints_the_classic_lines() {
    let dir = work_dir();
    let (v, report) = run_json(&["iostone", "--dir", p(dir.path())]);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "iostone");
    assert_eq!(str_at(&v, "config.variant"), "c1");
    assert_eq!(str_at(&v, "config.engine"), "sync");
    assert_eq!(u64_at(&v, "config.data_bytes"), 4 << 20);
    assert_eq!(u64_at(&v, "summary.ops"), 4608);
    assert_eq!(op_count(&v, "read"), 3072);
    assert_eq!(op_count(&v, "write"), 1536);
    assert_eq!(u64_at(&v, "ops.read.bytes"), 8 << 20);
    assert_eq!(u64_at(&v, "ops.write.bytes"), 4 << 20);
    let stones = f64_at(&v, "metrics.iostones_per_s");
    let elapsed = f64_at(&v, "elapsed_s");
    assert!(stones > 0.0);
    assert!(
        (stones * elapsed - 400_000.0).abs() < 1.0,
        "C/1: 400000 / elapsed"
    );

    let lines: Vec<&str> = report.lines().collect();
    let t: f64 = number_in(lines[0], "total time = ", "").parse().unwrap();
    assert!(number_in(lines[0], "total time = ", "").contains('.'));
    assert!(
        (t - elapsed).abs() <= 1e-6,
        "total time {t} vs elapsed_s {elapsed}"
    );
    let n: u64 = number_in(lines[1], "This machine benchmarks at ", " iostones/second")
        .parse()
        .unwrap();
    assert!(n.abs_diff(stones as u64) <= 1, "{n} vs {stones}");
    assert_untouched(dir.path());
}

#[test]
fn iostone_c1_report_layout() {
    let dir = work_dir();
    let out = iogauge()
        .args(["iostone", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    // the original program's lines come first, on stdout
    let mut lines = stdout.lines();
    number_in(lines.next().unwrap(), "total time = ", "")
        .parse::<f64>()
        .unwrap();
    number_in(
        lines.next().unwrap(),
        "This machine benchmarks at ",
        " iostones/second",
    )
    .parse::<u64>()
    .unwrap();
    golden("iostone_c1.txt", &layout(&stdout));
    assert_untouched(dir.path());
}

#[test]
fn run_report_layout() {
    let dir = work_dir();
    let out = iogauge()
        .args(["run", "--ops", "2000", "--unique-bytes", "2M", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    golden(
        "run_report.txt",
        &layout(&String::from_utf8(out.stdout).unwrap()),
    );
    assert_untouched(dir.path());
}

/// The masked report, without the per-second spread line, which only
/// appears when a run lasts over a second.
fn layout(report: &str) -> String {
    mask(report)
        .lines()
        .filter(|l| !l.trim_start().starts_with("IO/s per second over"))
        // warnings follow the report and hang on the machine (its memory, its load)
        .filter(|l| !l.starts_with("warning: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn mask_hides_numbers_and_their_units() {
    assert_eq!(
        mask("  read     18.96 MiB    1353.0 MB/s    write    0 B  p99.9 C/1\n"),
        "  read N N MB/s write N p99.9 C/N\n"
    );
    assert_eq!(
        mask("  elapsed 0.015 s, 1 worker: 2000 ops, (64% of one core) 850 ns 1.1 µs 4.21 ms\n"),
        "  elapsed N, N worker: N ops, (N% of one core) N N N\n"
    );
    assert_eq!(
        mask("Total elapsed time is 0 seconds and 20 milliseconds."),
        "Total elapsed time is N seconds and N milliseconds.\n"
    );
}

#[test]
fn iostone_c2_opens_and_closes_every_access() {
    let dir = work_dir();
    let (v, report) = run_json(&["iostone", "--variant", "c2", "--dir", p(dir.path())]);
    check_result(&v);
    assert_eq!(str_at(&v, "config.variant"), "c2");
    assert_eq!(op_count(&v, "open"), 9504);
    assert_eq!(op_count(&v, "close"), 9504);
    let stones = f64_at(&v, "metrics.iostones_per_s");
    let elapsed = f64_at(&v, "elapsed_s");
    assert!(stones > 0.0);
    assert!(
        (stones * elapsed - 2_000_000.0).abs() < 1.0,
        "C/II: 2000000 / elapsed"
    );

    let lines: Vec<&str> = report.lines().collect();
    let rest = number_in(lines[0], "Total elapsed time is ", " milliseconds.");
    let (s, ms) = rest.split_once(" seconds and ").expect("N seconds and M");
    let (s, ms): (u64, u64) = (s.parse().unwrap(), ms.parse().unwrap());
    assert!(ms < 1000);
    let total_ms = s * 1000 + ms;
    assert!(
        total_ms.abs_diff((elapsed * 1000.0) as u64) <= 1,
        "{total_ms} ms vs {elapsed} s"
    );
    let n: u64 = number_in(lines[1], "This machine benchmarks at ", " iostones/sec.")
        .parse()
        .unwrap();
    assert!(n.abs_diff(stones.round() as u64) <= 1, "{n} vs {stones}");
    assert_untouched(dir.path());
}

#[test]
fn iostone_scale_2_doubles_the_file_not_the_transfers() {
    let dir = work_dir();
    let (v, _) = run_json(&["iostone", "--scale", "2", "--dir", p(dir.path())]);
    check_result(&v);
    assert_eq!(u64_at(&v, "config.scale"), 2);
    assert_eq!(u64_at(&v, "config.data_bytes"), 8 << 20);
    assert_eq!(u64_at(&v, "summary.ops"), 4608);
    assert_eq!(op_count(&v, "read"), 3072);
    assert_eq!(u64_at(&v, "ops.read.bytes"), 8 << 20);
    assert_eq!(u64_at(&v, "ops.write.bytes"), 4 << 20);
    assert!(f64_at(&v, "metrics.iostones_per_s") > 0.0);
    assert_untouched(dir.path());
}

#[test]
fn iostone_runs_on_the_other_engines() {
    let dir = work_dir();
    for engine in ["null", "buffered", "psync"] {
        let (v, report) = run_json(&["iostone", "--engine", engine, "--dir", p(dir.path())]);
        check_result(&v);
        assert_eq!(str_at(&v, "config.engine"), engine);
        assert_eq!(get(&v, "complete"), &Value::Bool(true));
        assert_eq!(u64_at(&v, "summary.ops"), 4608, "{engine}");
        assert_eq!(u64_at(&v, "ops.read.bytes"), 8 << 20, "{engine}");
        assert!(f64_at(&v, "metrics.iostones_per_s") > 0.0);
        assert!(report.contains(&format!("engine {engine}")), "{report}");
        assert_untouched(dir.path());
    }
}

// ---------------------------------------------------------------- survey

/// One quick survey (each costs ~30 s) checks the scorecard, the JSON
/// against the schema, the CSV, and the self-scaling model kept in `--out`
/// and nowhere else. (Where the model goes without `--out` is a unit test
/// of cli::survey.)
#[test]
fn survey_quick_prints_a_scorecard_and_keeps_only_what_was_asked() {
    let dir = work_dir();
    let cwd = tempfile::tempdir().unwrap();
    let out = iogauge()
        .current_dir(cwd.path())
        .args([
            "survey", "--quick", "--json", "-", "--csv", "s.csv", "--out", "m",
        ])
        .arg(dir.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // the JSON goes to stdout, the scorecard to stderr
    for s in ["benchmark", "iostone C/1", "iostone C/II", "io%: share"] {
        assert!(stderr.contains(s), "the scorecard lacks {s:?}:\n{stderr}");
    }
    let v: Value = serde_json::from_str(&stdout).unwrap();
    crate::schema::assert_valid("survey --quick", &v);
    // `iogauge show` prints the scorecard again from the JSON, all but the
    // lines naming the files written
    let saved = tempfile::tempdir().unwrap();
    let saved = saved.path().join("survey.json");
    std::fs::write(&saved, stdout.as_bytes()).unwrap();
    let shown = iogauge().args(["show", p(&saved)]).output().unwrap();
    assert!(shown.status.success(), "{shown:?}");
    let printed: String = stderr
        .lines()
        .filter(|l| !l.starts_with("wrote "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(String::from_utf8_lossy(&shown.stdout), printed);
    assert_eq!(str_at(&v, "schema"), "iogauge/survey/v1");
    assert_eq!(str_at(&v, "tool.name"), "iogauge");
    assert_eq!(get(&v, "quick"), &Value::Bool(true));
    assert_eq!(get(&v, "complete"), &Value::Bool(true));
    assert!(!str_at(&v, "environment.fs_type").is_empty());
    let entries = get(&v, "entries").as_array().expect("entries");
    let mut benchmarks: Vec<&str> = Vec::new();
    // the queued random-read row: measured, at depth 32, or (where the
    // kernel or the directory cannot) a line saying why in its place
    let qd32 = entries
        .iter()
        .find(|e| str_at(e, "name").contains("QD32"))
        .unwrap_or_else(|| panic!("no QD32 row:\n{stderr}"));
    let entries: Vec<&Value> = if qd32.get("figure").is_none() {
        let name = str_at(qd32, "name");
        let line = stderr
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no line {name}:\n{stderr}"));
        let why = format!("not measured: {}", str_at(qd32, "note"));
        assert!(line.contains(&why), "{line}");
        entries
            .iter()
            .filter(|e| e.get("figure").is_some())
            .collect()
    } else {
        assert_eq!(get(qd32, "result.config.io.iodepth").as_u64(), Some(32));
        assert_eq!(get(qd32, "result.summary.io_depth.max").as_u64(), Some(32));
        entries.iter().collect()
    };
    for &e in &entries {
        let name = str_at(e, "name");
        assert!(f64_at(e, "figure") > 0.0, "{name}");
        assert!(!str_at(e, "unit").is_empty(), "{name}");
        assert!(stderr.contains(name), "{name} missing from the scorecard");
        check_result(get(e, "result"));
        benchmarks.push(str_at(e, "result.benchmark"));
    }
    assert!(benchmarks.contains(&"run"), "{benchmarks:?}");
    for b in ["iostone", "postmark", "iobench", "selfscale"] {
        assert!(benchmarks.contains(&b), "{b} missing from {benchmarks:?}");
    }
    // issue 33: the legend names every unit shown and which are
    // lower-is-better; each row's latency is its own unit's (a TPC-B or
    // PostMark transaction, an Sdet script), not a read call's
    for e in &entries {
        let u = str_at(e, "unit");
        assert!(
            stderr.contains(&format!("    {u:<10}  ")),
            "the legend lacks {u}:\n{stderr}"
        );
    }
    assert!(stderr.contains("s (lower is better)"), "{stderr}");
    let row = |prefix: &str| {
        stderr
            .lines()
            .find(|l| l.trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no row {prefix}:\n{stderr}"))
    };
    for (prefix, of) in [
        ("tpcb", "transaction"),
        ("postmark", "transaction"),
        ("sdet", "script"),
        ("run: cached", "request"),
    ] {
        assert!(row(prefix).contains(&format!("%  {of}")), "{}", row(prefix));
    }
    assert!(row("andrew").contains("%  ") && !row("andrew").contains("read"));
    // every row has the same width up to its io% column
    let rows: Vec<&str> = stderr
        .lines()
        .filter(|l| l.ends_with('%') || l.contains("%  "))
        .collect();
    let at: Vec<usize> = rows
        .iter()
        .filter_map(|l| l.chars().position(|c| c == '%'))
        .collect();
    assert!(
        at.len() >= 8 && at.windows(2).all(|w| w[0] == w[1]),
        "{stderr}"
    );
    // the model is in --out, the CSV has a row per op kind of each entry,
    // and nothing else is left, here or in the surveyed directory
    let model = str_at(&v, "selfscale_model");
    assert!(model.ends_with("model.json"), "{model}");
    assert!(cwd.path().join(model).is_file(), "{model}");
    assert!(cwd.path().join("m/model.json").is_file());
    assert!(cwd.path().join("m/summary.txt").is_file());
    let ss = entries
        .iter()
        .find(|e| str_at(e, "result.benchmark") == "selfscale")
        .unwrap();
    assert!(str_at(ss, "name").starts_with("selfscale"));
    assert!(u64_at(ss, "result.summary.ops") > 0);
    assert!(u64_at(ss, "result.metrics.regions") >= 1);
    let csv = std::fs::read_to_string(cwd.path().join("s.csv")).unwrap();
    assert!(csv.starts_with("run,benchmark,"), "{csv}");
    assert!(
        csv.lines().any(|l| l.starts_with("iostone C/1,iostone,")),
        "{csv}"
    );
    assert_untouched(dir.path());
    let mut left: Vec<String> = std::fs::read_dir(cwd.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["m", "s.csv"]);
}

// ---------------------------------------------------------------- workers as processes

/// The same run as threads and as processes: the same op stream per worker
/// (the seed decides it), so the same counts and bytes, merged exactly.
#[test]
fn workers_as_processes_measure_what_threads_measure() {
    let dir = work_dir();
    let mut seen = Vec::new();
    for how in ["threads", "processes"] {
        let (v, _) = run_json(&[
            "run",
            "--ops",
            "30000",
            "-p",
            "3",
            "--unique-bytes",
            "4M",
            "--workers-as",
            how,
            "--dir",
            p(dir.path()),
        ]);
        check_result(&v);
        assert_eq!(get(&v, "complete"), &Value::Bool(true), "{how}");
        assert_eq!(u64_at(&v, "summary.ops"), 30000, "{how}");
        assert_eq!(u64_at(&v, "summary.workers"), 3, "{how}");
        assert_eq!(str_at(&v, "config.workers_as"), how);
        seen.push((
            u64_at(&v, "ops.read.count"),
            u64_at(&v, "ops.read.bytes"),
            u64_at(&v, "ops.write.bytes"),
        ));
        assert_untouched(dir.path());
    }
    assert_eq!(seen[0], seen[1], "threads and processes differ");
}

#[test]
fn a_process_run_stops_on_sigint_and_cleans_up() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iogauge"))
        .args([
            "run",
            "--duration",
            "30s",
            "-p",
            "2",
            "--unique-bytes",
            "4M",
        ])
        .args(["--workers-as", "processes", "--dir", p(dir.path())])
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) on our own child.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let t = std::time::Instant::now();
    let status = child.wait().unwrap();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(status.code(), Some(130));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(get(&v, "complete"), &Value::Bool(false));
    assert!(u64_at(&v, "summary.ops") > 0);
    assert_untouched(dir.path());
}

/// A name longer than a file system takes is refused before the run.
#[test]
fn an_unwritable_output_is_refused_before_any_work() {
    let dir = work_dir();
    let long = dir.path().join("x".repeat(300));
    let t = Instant::now();
    let line = assert_usage_error(&[
        "run",
        "--duration",
        "20s",
        "--dir",
        p(dir.path()),
        "--json",
        long.to_str().unwrap(),
    ]);
    assert!(line.contains("255"), "{line}");
    assert!(t.elapsed() < Duration::from_secs(5), "the run ran first");
    let line = assert_usage_error(&["survey", "--quick", "--json", p(dir.path()), p(dir.path())]);
    assert!(line.contains("is a directory"), "{line}");
    assert_untouched(dir.path());
}

/// tmpfs keeps files in memory: what cannot fit is refused, naming memory.
#[test]
fn memory_backed_directories_refuse_what_memory_cannot_hold() {
    if !Path::new("/dev/shm").is_dir() {
        eprintln!("skipped: no /dev/shm");
        return;
    }
    let line = assert_usage_error(&["selfscale", "/dev/shm", "--max-bytes", "100T"]);
    assert!(line.contains("not enough space"), "{line}");
    // what the file system has room for but memory has not
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let avail: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap()
        * 1024;
    let st = rustix::fs::statvfs("/dev/shm").unwrap();
    let free = st.f_bavail * st.f_frsize;
    if avail + avail / 50 + (1 << 20) > free {
        eprintln!("skipped the memory case: /dev/shm is smaller than the free memory");
        return;
    }
    let size = format!("{}", avail);
    for args in [
        vec!["selfscale", "/dev/shm", "--max-bytes", &size],
        vec!["run", "--dir", "/dev/shm", "--unique-bytes", &size],
    ] {
        let line = assert_usage_error(&args);
        assert!(line.contains("keeps files in memory"), "{line}");
    }
}

/// Interrupted without a result file: no word of a partial result written.
#[test]
fn an_interrupted_run_without_json_says_nothing_was_written() {
    let dir = work_dir();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iogauge"))
        .args([
            "run",
            "--duration",
            "30s",
            "--unique-bytes",
            "4M",
            "--dir",
            p(dir.path()),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: kill(2) on our own child.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("iogauge: interrupted"), "{stderr}");
    assert!(!stderr.contains("written"), "{stderr}");
    assert_untouched(dir.path());
}

#[test]
fn postmark_with_no_run_writes_an_empty_collection() {
    let out = iogauge()
        .args(["postmark", "--json", "-"])
        .write_stdin("quit\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(str_at(&v, "schema"), "iogauge/postmark-session/v1");
    assert_eq!(get(&v, "entries").as_array().unwrap().len(), 0);
}
