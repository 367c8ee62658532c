//! Integration tests of `iogauge ffsb`: every shipped profile runs for a
//! second in a temporary location and leaves nothing behind; a bad
//! profile is refused with its file:line; the time limit; the JSON; the
//! seed makes runs repeat; `--time 0` builds the file set only.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ffsb")
        .join(name)
}

/// `iogauge ffsb PROFILE --location DIR/loc ARGS --json -`, checked: the
/// location is left as it was, empty (the DIR/fs<i> of several file
/// systems, made by the run, are gone), and removed here.
fn ffsb(profile: &Path, dir: &Path, args: &[&str]) -> (Value, String) {
    let loc = dir.join("loc");
    std::fs::create_dir(&loc).unwrap();
    let mut all = vec!["ffsb", p(profile), "--location", p(&loc)];
    all.extend_from_slice(args);
    let (v, report) = run_json(&all);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "ffsb");
    assert_eq!(tree(&loc), Vec::<String>::new(), "the run left something");
    std::fs::remove_dir(&loc).unwrap();
    (v, report)
}

#[test]
fn every_shipped_profile_runs_and_cleans_up() {
    let names: Vec<String> = std::fs::read_dir(example(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ffsb"))
        .collect();
    assert!(names.len() >= 7, "{names:?}");
    // all at once: each is mostly its one second of run time
    std::thread::scope(|s| {
        for n in &names {
            s.spawn(move || {
                let dir = work_dir();
                let t = Instant::now();
                let (v, report) = ffsb(&example(n), dir.path(), &["--time", "1s"]);
                assert!(get(&v, "complete").as_bool().unwrap(), "{n}: {report}");
                assert!(report.contains("Transactions per Second"), "{n}");
                assert!(f64_at(&v, "metrics.transactions_per_s") > 0.0, "{n}");
                assert!(t.elapsed() < Duration::from_secs(60), "{n}");
                assert_untouched(dir.path());
            });
        }
    });
}

#[test]
fn the_time_limit_holds_within_a_second() {
    let dir = work_dir();
    let (v, report) = ffsb(
        &example("slides-example2.ffsb"),
        dir.path(),
        &["--time", "2s"],
    );
    let took = f64_at(&v, "elapsed_s");
    assert!((2.0..3.0).contains(&took), "{took}");
    let line = report
        .lines()
        .find(|l| l.starts_with("Benchmark took "))
        .expect(&report);
    assert!(line.ends_with(" sec"), "{line}");
    // FFSB's table: read and write, their shares of the transactions
    let read = get(&v, "metrics.total.ops.read");
    let write = get(&v, "metrics.total.ops.write");
    assert!(u64_at(read, "transactions") > 0 && u64_at(write, "transactions") > 0);
    // each read operation reads read_size (64 MiB) in 4 KiB calls
    assert_eq!(
        u64_at(read, "read_bytes"),
        u64_at(read, "transactions") * 4096
    );
    assert!(u64_at(read, "latency_ns.p50") > 0);
}

/// The same seed builds the same file set (names, directories and sizes
/// are all drawn from it); another seed builds another. `reuse=1` keeps
/// the set after `--time 0`, so it can be compared.
#[test]
fn the_same_seed_makes_the_same_choices() {
    let profile = "time=0\n[filesystem0]\n location=/x\n num_files=30\n num_dirs=3\n min_filesize=1k\n max_filesize=64k\n reuse=1\n[end0]\n";
    let dir = work_dir();
    let f = dir.path().join("p.ffsb");
    std::fs::write(&f, profile).unwrap();
    let set = |seed: &str| {
        let loc = dir.path().join(format!(
            "loc{seed}-{}",
            dir.path().read_dir().unwrap().count()
        ));
        std::fs::create_dir(&loc).unwrap();
        let out = iogauge()
            .args([
                "ffsb",
                p(&f),
                "--location",
                p(&loc),
                "--seed",
                seed,
                "--quiet",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut files: Vec<(String, u64)> = tree(&loc)
            .into_iter()
            .filter(|n| n.contains("datafile"))
            .map(|n| {
                let len = std::fs::metadata(loc.join(&n)).unwrap().len();
                (n, len)
            })
            .collect();
        files.sort();
        std::fs::remove_dir_all(&loc).unwrap();
        files
    };
    let (a, b, c) = (set("7"), set("7"), set("8"));
    assert_eq!(a.len(), 30);
    assert_eq!(a, b, "the same seed, the same file set");
    assert_ne!(a, c, "another seed, another file set");
    std::fs::remove_file(&f).unwrap();
}

#[test]
fn time_zero_builds_the_file_set_only() {
    let dir = work_dir();
    let (v, report) = ffsb(
        &example("slides-example1.ffsb"),
        dir.path(),
        &["--time", "0s"],
    );
    assert!(report.contains("Only creating the fileset"), "{report}");
    assert!(report.contains("Setup complete, exiting"), "{report}");
    assert_eq!(v["metrics"]["filesystems"][0]["files"], 1);
}

#[test]
fn bad_profiles_are_refused_with_file_and_line() {
    let dir = work_dir();
    let l = tempfile::tempdir().unwrap();
    for (text, line, phrase) in [
        (
            "time=1\n[filesystem0]\n location=/x\n num_file=3\n[end0]\n",
            4,
            "num_file",
        ),
        ("time=1\n[filesystem0]\n location=/x\n", 2, "[end"),
        ("time=1\ndirectio=2\n", 2, "directio"),
        (
            "time=1\n[filesystem0]\n location=/x\n max_filesize=4q\n[end0]\n",
            4,
            "4q",
        ),
    ] {
        let f = dir.path().join("bad.ffsb");
        std::fs::write(&f, text).unwrap();
        let msg = assert_usage_error(&["ffsb", p(&f), "--location", p(l.path())]);
        let at = format!("{}:{line}:", f.display());
        assert!(msg.contains(&at), "{text:?}: {msg}");
        assert!(msg.contains(phrase), "{text:?}: {msg}");
        std::fs::remove_file(&f).unwrap();
    }
    let msg = assert_usage_error(&["ffsb", p(&dir.path().join("none.ffsb"))]);
    assert!(msg.contains("cannot read"), "{msg}");
    // aging fills the file system: only with --allow-aging
    let f = dir.path().join("age.ffsb");
    std::fs::write(
        &f,
        "time=1\n[filesystem0]\n location=/x\n num_files=2\n min_filesize=4k\n max_filesize=4k\n agefs=1\n desired_util=0.99\n [threadgroup]\n  num_threads=1\n  create_weight=1\n  write_blocksize=4k\n [end]\n[end0]\n[threadgroup0]\n num_threads=1\n stat_weight=1\n[end0]\n",
    )
    .unwrap();
    let msg = assert_usage_error(&["ffsb", p(&f), "--location", p(l.path())]);
    assert!(msg.contains("--allow-aging"), "{msg}");
    let msg = assert_usage_error(&[
        "ffsb",
        p(&f),
        "--location",
        p(l.path()),
        "--allow-aging",
        "--max-age-bytes",
        "1M",
    ]);
    assert!(msg.contains("--max-age-bytes"), "{msg}");
    std::fs::remove_file(&f).unwrap();
    assert_untouched(dir.path());
}

/// Ctrl-C in the middle of a run: exit 130 at once, the partial result
/// written, the location removed.
#[test]
fn ctrl_c_stops_cleanly_with_a_partial_result() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let loc = out.path().join("loc");
    std::fs::create_dir(&loc).unwrap();
    let mut child = std::process::Command::new(bin_path())
        .arg("ffsb")
        .arg(example("fileserver.ffsb"))
        .args(["--location", p(&loc), "--time", "60s", "--json", p(&json)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    let (status, took) = signal_and_wait(&mut child, libc::SIGINT);
    assert_eq!(status.code(), Some(130), "{status}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(!get(&v, "complete").as_bool().unwrap());
    assert_eq!(tree(&loc), Vec::<String>::new(), "the run left something");
    assert_untouched(dir.path());
}

/// `callout` runs before the benchmark starts and is waited for.
#[test]
fn the_callout_runs_before_the_start() {
    let dir = work_dir();
    let mark = dir.path().join("called");
    let f = dir.path().join("c.ffsb");
    std::fs::write(
        &f,
        format!(
            "time=1\ncallout=touch {}\n[filesystem0]\n location=/x\n num_files=2\n min_filesize=4k\n max_filesize=4k\n[end0]\n[threadgroup0]\n num_threads=1\n stat_weight=1\n[end0]\n",
            mark.display()
        ),
    )
    .unwrap();
    let (_, report) = ffsb(&f, dir.path(), &[]);
    assert!(mark.exists(), "{report}");
    assert!(report.contains("executing callout"), "{report}");
    let (before, after) = report.split_once("executing callout").unwrap();
    assert!(!before.contains("Starting Actual Benchmark"));
    assert!(after.contains("Starting Actual Benchmark"));
    std::fs::remove_file(&mark).unwrap();
    std::fs::remove_file(&f).unwrap();
}

/// Issue 33: a shipped profile without --location named /mnt/ffsb, which
/// the run made, used and removed. A location that does not exist is
/// refused like every missing directory, and nothing is made.
#[test]
fn a_profile_location_that_does_not_exist_is_refused_and_not_made() {
    let profile = example("mailserver.ffsb");
    let text = std::fs::read_to_string(&profile).unwrap();
    let loc = text
        .lines()
        .map(|l| l.split_whitespace().collect::<String>())
        .find_map(|l| l.strip_prefix("location=").map(String::from))
        .expect("the profile names a location");
    if Path::new(&loc).exists() {
        eprintln!("skipped: {loc} exists on this machine");
        return;
    }
    let msg = assert_usage_error(&["ffsb", p(&profile), "--time", "1s"]);
    assert!(
        msg.contains(&format!("location {loc} does not exist")) && msg.contains("--location"),
        "{msg}"
    );
    assert!(!Path::new(&loc).exists(), "{loc} was made");
    // --location must exist too
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing");
    let msg = assert_usage_error(&["ffsb", p(&profile), "--location", p(&missing)]);
    assert!(msg.contains("does not exist"), "{msg}");
    assert!(!missing.exists());
}

/// FFSB draws its operation with one random byte modulo the sum of the
/// weights (for a sum below 256), so with weights 56 and 144 (sum 200)
/// the byte values 0–55, which choose read, are twice as likely as the
/// others: FFSB 6.0-rc2 runs read 112/256 = 43.75 % of the time (43.6 and
/// 43.9 % measured), not the 28 % of the weights. iogauge does the same.
#[test]
fn operations_come_in_ffsbs_biased_shares() {
    let dir = work_dir();
    let profile = dir.path().join("bias.ffsb");
    std::fs::write(
        &profile,
        "time=1\n[filesystem]\n\tlocation=/nowhere\n\tnum_files=100\n\tnum_dirs=2\n\
         \tmin_filesize=8k\n\tmax_filesize=8k\n[end]\n[threadgroup]\n\tnum_threads=2\n\
         \tread_weight=56\n\tstat_weight=144\n\tread_size=4k\n\tread_blocksize=4k\n[end]\n",
    )
    .unwrap();
    let (v, _) = ffsb(&profile, dir.path(), &["--seed", "3"]);
    let read = f64_at(&v, "metrics.total.ops.read.op_weight_share");
    let stat = f64_at(&v, "metrics.total.ops.stat.op_weight_share");
    assert!((0.415..0.46).contains(&read), "read {read}");
    assert!((read + stat - 1.0).abs() < 1e-9, "{read} + {stat}");
}

/// `iogauge show` prints FFSB's report of a saved result again: what the
/// run printed after its settings and progress lines (those are printed
/// as the run goes and are not in the result), with one thread group,
/// several with `[stats]`, and `--time 0`.
#[test]
fn show_prints_the_report_after_the_run_again() {
    for (name, time) in [
        ("slides-example2.ffsb", "1s"),
        ("profile_everything.ffsb", "1s"),
        ("slides-example1.ffsb", "0s"),
    ] {
        let dir = work_dir();
        let loc = dir.path().join("loc");
        std::fs::create_dir(&loc).unwrap();
        let json = dir.path().join("r.json");
        let out = iogauge()
            .args(["ffsb", p(&example(name)), "--location", p(&loc)])
            .args(["--time", time, "--json", p(&json)])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = String::from_utf8(out.stdout).unwrap();
        let shown = iogauge().args(["show", p(&json)]).output().unwrap();
        assert!(
            shown.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&shown.stderr)
        );
        let shown = String::from_utf8(shown.stdout).unwrap();
        assert!(!shown.is_empty(), "{name}");
        assert!(
            printed.ends_with(&shown),
            "{name}: the run printed\n{printed}\nshow printed\n{shown}"
        );
        // a figure read back is the one the run printed
        let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        if time != "0s" {
            let tps = f64_at(&v, "metrics.transactions_per_s");
            assert!(
                shown.contains(&format!("{tps:.2} Transactions per Second")),
                "{name}: {shown}"
            );
        }
        std::fs::remove_file(&json).unwrap();
        std::fs::remove_dir(&loc).unwrap();
        assert_untouched(dir.path());
    }
}

/// On io_uring every thread's ring is set up alike, and the result says
/// how (a psync run has nothing to say).
#[test]
fn io_uring_threads_name_their_rings_setup() {
    let dir = work_dir();
    let profile = example("slides-example2.ffsb");
    let (v, _) = ffsb(
        &profile,
        dir.path(),
        &["--time", "1s", "--engine", "io_uring"],
    );
    let mode = str_at(&v, "engine.mode");
    assert!(mode.ends_with(" ring"), "{mode}");
    let (v, _) = ffsb(&profile, dir.path(), &["--time", "1s"]);
    assert!(v.get("engine").is_none(), "{}", v["engine"]);
}
