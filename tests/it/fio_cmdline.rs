//! fio's own command-line options (`l_opts[]` in fio's init.c) on `iogauge
//! fio`: each one iogauge runs changes what is printed as fio's would, each
//! one it refuses gives one line and exit 2. The terse lines are checked
//! field by field against lines fio 3.33 printed for the same jobs
//! (tests/fixtures/fio/terse/fio-3.33-*.txt, captured with
//! `fio --name=t --ioengine=null --rw=randrw --size=1m --bs=4k
//! --terse-version=V --minimal`, and with `--rw=randread
//! --description="two words"`).

use crate::common::*;
use std::path::Path;

const NULL_JOB: [&str; 5] = [
    "--name=t",
    "--ioengine=null",
    "--rw=randrw",
    "--size=1m",
    "--bs=4k",
];

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio/terse")
            .join(name),
    )
    .unwrap()
}

/// A terse line with its figures masked: each number after the terse
/// version becomes `N` (its `%` kept), a percentile keeps its label
/// (`99.000000%=N`); the program's version (fio's or iogauge's) becomes
/// `VERSION`.
fn masked(line: &str) -> String {
    let fields: Vec<&str> = line.trim_end().split(';').collect();
    let numeric = |f: &str| {
        !f.is_empty()
            && f.trim_end_matches('%')
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.')
    };
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if i == 0 {
                f.to_string()
            } else if i == 1 && fields[0] != "2" {
                "VERSION".to_string()
            } else if let Some((label, _)) = f.split_once("%=") {
                format!("{label}%=N")
            } else if numeric(f) {
                if f.ends_with('%') { "N%" } else { "N" }.to_string()
            } else {
                f.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    fio_in(dir, args)
}

#[test]
fn minimal_prints_fios_terse_line_field_for_field() {
    let dir = work_dir();
    let mut args = NULL_JOB.to_vec();
    args.push("--minimal");
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "one line per job, nothing else: {out}");
    let f: Vec<&str> = lines[0].split(';').collect();
    let fio = fixture("fio-3.33-v3.txt");
    assert_eq!(f.len(), fio.trim_end().split(';').count());
    assert_eq!(masked(lines[0]), masked(&fio), "fields and order as fio's");
    golden("fio/terse/iogauge-v3.masked", &(masked(lines[0]) + "\n"));
    assert_eq!(&f[..5], &["3", f[1], "t", "0", "0"]);
    assert!(f[1].starts_with("iogauge-"), "{}", f[1]);
    // 1 MiB moved in 4 KiB requests, shared by reads and writes
    let kib = |i: usize| f[i].parse::<u64>().unwrap();
    assert_eq!(kib(5) + kib(46), 1024);
    // the I/O depth: all at 1
    assert_eq!(f[92], "100.0%");
    assert_untouched(dir.path());
}

#[test]
fn every_terse_version_has_fios_fields() {
    let dir = work_dir();
    for v in ["2", "3", "4", "5"] {
        let mut args = NULL_JOB.to_vec();
        let tv = format!("--terse-version={v}");
        args.extend(["--output-format=terse", tv.as_str()]);
        let (code, out, err) = run(dir.path(), &args);
        assert_eq!(code, 0, "{v}: {err}");
        let fio = fixture(&format!("fio-3.33-v{v}.txt"));
        assert_eq!(masked(&out), masked(&fio), "version {v}");
    }
    // the description is the last field
    let (code, out, err) = run(
        dir.path(),
        &[
            "--name=t",
            "--ioengine=null",
            "--rw=randread",
            "--size=1m",
            "--bs=4k",
            "--description=two words",
            "-m",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(masked(&out), masked(&fixture("fio-3.33-description.txt")));
    let (code, _, err) = run(dir.path(), &["--terse-version=6", "--name=t"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("2, 3, 4 or 5"), "{err}");
}

#[test]
fn terse_beside_other_formats_comes_first() {
    let dir = work_dir();
    let mut args = NULL_JOB.to_vec();
    args.extend(["--output-format", "json,terse"]);
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    let (first, json) = out.split_once('\n').unwrap();
    assert!(first.starts_with("3;iogauge-"), "{first}");
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(v["jobs"][0]["jobname"], "t");
    // --append-terse adds it to the normal report
    let mut args = NULL_JOB.to_vec();
    args.push("--append-terse");
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Run status group 0"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("3;")).count(), 1);
    // --output FILE (as -o FILE) takes it all
    let mut args = NULL_JOB.to_vec();
    args.extend(["-m", "-o", "t.txt"]);
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty());
    let file = std::fs::read_to_string(dir.path().join("t.txt")).unwrap();
    assert!(file.starts_with("3;"), "{file}");
}

#[test]
fn refused_program_options_say_why_on_one_line() {
    let dir = work_dir();
    for opt in [
        "--server",
        "--server=ip:localhost",
        "--client=host1",
        "--remote-config=x.fio",
        "--daemonize=/tmp/x.pid",
        "--crctest",
        "--memcpytest",
        "--cpuclock-test",
        "--idle-prof=system",
        "--trigger-file=x",
        "--trigger-timeout=10",
        "--trigger=echo",
        "--trigger-remote=echo",
        "--debug=io",
        "--status-interval=10",
        "--latency-log=x",
        "--bandwidth-log",
        "--profile=tiobench",
        "--inflate-log=x.log.z",
        "--merge-blktrace-only",
        "-S",
        "-d",
    ] {
        let mut args = vec![opt];
        if opt == "-d" {
            args.push("io");
        }
        args.extend(NULL_JOB);
        let (code, out, err) = run(dir.path(), &args);
        assert_eq!(code, 2, "{opt}: {err}");
        assert!(out.is_empty(), "{opt}: {out}");
        assert_eq!(err.lines().count(), 1, "{opt}: {err}");
        assert!(
            err.contains("is a fio command-line option iogauge does not run: "),
            "{opt}: {err}"
        );
        assert!(!err.contains("unknown fio option"), "{opt}: {err}");
    }
    // fio's reasons, where it refuses the same thing
    let (_, _, err) = run(dir.path(), &["--status-interval", "10", "--name=t"]);
    assert!(err.contains("--eta-newline"), "{err}");
    assert_untouched(dir.path());
}

#[test]
fn readonly_refuses_a_job_that_writes_as_fio_does() {
    let dir = work_dir();
    for rw in ["write", "randrw", "trim", "rw"] {
        let rw_arg = format!("--rw={rw}");
        let (code, out, err) = run(
            dir.path(),
            &[
                "--readonly",
                "--name=x",
                "--ioengine=null",
                "--size=1m",
                &rw_arg,
            ],
        );
        assert_eq!(code, 2, "{rw}: {err}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("job <x> has write or trim bit set") && err.contains("--readonly"),
            "{err}"
        );
        assert!(err.contains("argument 6"), "the rw= word: {err}");
    }
    let (code, out, err) = run(
        dir.path(),
        &[
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--rw=randread",
            "-r",
            "--minimal",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("3;"));
    assert_untouched(dir.path());
}

#[test]
fn showcmd_prints_each_job_file_as_fio_does() {
    let dir = work_dir();
    std::fs::write(
        dir.path().join("j.fio"),
        "[global]\nioengine=null\nsize=1m\n[a]\nrw=randread\nbs=8k\n[b]\nrw=write\nstonewall\n",
    )
    .unwrap();
    let (code, out, err) = run(dir.path(), &["--showcmd", "j.fio"]);
    assert_eq!(code, 0, "{err}");
    // fio 3.33's `fio --showcmd j.fio`, byte for byte
    assert_eq!(
        out,
        "fio --ioengine=null --size=1m --name=a --rw=randread --bs=8k --name=b --rw=write --stonewall \n"
    );
    std::fs::remove_file(dir.path().join("j.fio")).unwrap();
    assert_untouched(dir.path());
}

#[test]
fn eta_never_prints_no_progress_and_eta_newline_prints_lines() {
    let dir = work_dir();
    let job = [
        "--name=t",
        "--ioengine=null",
        "--rw=randread",
        "--size=1m",
        "--time_based",
        "--runtime=2",
    ];
    let mut args = vec!["--eta=always", "--eta-newline=1"];
    args.extend(job);
    args.push("--minimal");
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("3;"));
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("fio: [")).collect();
    assert!(
        !lines.is_empty() && lines.len() <= 3,
        "a line a second: {err}"
    );
    assert!(lines[0].starts_with("fio: [00m:01s] "), "{err}");
    assert!(lines[0].contains(" IOPS"), "{err}");
    let mut args = vec!["--eta", "never", "--eta-newline=1"];
    args.extend(job);
    let (code, _, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let (code, _, err) = run(dir.path(), &["--eta=sometimes", "--name=t"]);
    assert_eq!(code, 2);
    assert!(err.contains("auto, always, never"), "{err}");
}

#[test]
fn information_options_print_and_stop() {
    let dir = work_dir();
    for v in ["--version", "-v"] {
        let (code, out, err) = run(dir.path(), &[v]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.starts_with("iogauge-") && out.contains("commit"),
            "{out}"
        );
    }
    let (code, out, _) = run(dir.path(), &["--cmdhelp"]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.trim() == "rwmixread"), "{out}");
    let (code, out, _) = run(dir.path(), &["--cmdhelp=bs"]);
    assert_eq!(code, 0);
    assert!(out.contains("bs: a fio job option iogauge runs"), "{out}");
    let (code, _, err) = run(dir.path(), &["--cmdhelp=cpumask"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not run"), "{err}");
    let (code, out, _) = run(dir.path(), &["--enghelp"]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.trim() == "io_uring"), "{out}");
    let (code, out, _) = run(dir.path(), &["--enghelp=pvsync2"]);
    assert_eq!(code, 0);
    assert!(out.contains("hipri"), "{out}");
    let (code, _, err) = run(dir.path(), &["--enghelp=rdma"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not run"), "{err}");
    let (code, out, _) = run(dir.path(), &["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Usage: iogauge fio"), "{out}");
}

#[test]
fn limits_and_notes() {
    let dir = work_dir();
    // two jobs (numjobs=2) are more than --max-jobs=1
    let (code, _, err) = run(
        dir.path(),
        &[
            "--max-jobs",
            "1",
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--numjobs=2",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("more than --max-jobs=1"), "{err}");
    // a note stops the run with --warnings-fatal
    let base = ["--name=t", "--ioengine=null", "--size=1m", "--cpumask=1"];
    let mut args = vec!["--ignore-unsupported", "--minimal"];
    args.extend(base);
    let (code, _, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("note:") && err.contains("cpumask"), "{err}");
    args.push("--warnings-fatal");
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("--warnings-fatal"), "{err}");
    // --alloc-size and --aux-path: checked, and a note says what they do
    let mut args = vec!["--alloc-size=1024", "-K", ".", "--minimal"];
    args.extend(&base[..3]);
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("3;"));
    assert!(
        err.contains("--alloc-size=1024") && err.contains("--aux-path=."),
        "{err}"
    );
    let (code, _, err) = run(dir.path(), &["--aux-path=/nonexistent-dir", "--name=t"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a directory"), "{err}");
    let (code, _, err) = run(dir.path(), &["-Z", "--name=t"]);
    assert_eq!(code, 2);
    assert!(err.contains("neither a fio option nor a job file"), "{err}");
    assert_untouched(dir.path());
}
