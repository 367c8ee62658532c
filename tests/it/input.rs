//! Bad input (issue 33): every number bounded, user text escaped in one
//! line, space and limits checked before any work, help that offers only
//! what a command takes, `--check`, and the fuzz corpus of bench/fuzz.sh.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

const FFSB_PROFILE: &str = "examples/ffsb/mailserver.ffsb";

/// A small tmpfs mounted for the test, unmounted when dropped; `None`
/// (with the reason printed) where mounting is not permitted.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(options: &str) -> Option<Tmpfs> {
        let d = tempfile::tempdir().unwrap();
        let ok = Process::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(d.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: cannot mount a tmpfs ({options}) here");
            return None;
        }
        Some(Tmpfs(d))
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Process::new("umount").arg(self.0.path()).status();
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Issue 33 item 18: huge times panicked (exit 101, "cannot convert float
/// seconds to Duration"), and `99999999999h` started a run. Every time, on
/// the command line or in an input file, is refused above 30 days.
#[test]
fn huge_times_are_refused_with_the_maximum() {
    let dir = work_dir();
    let d = p(dir.path());
    let profile = root().join(FFSB_PROFILE);
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", "--dir", d, "--duration", "1e20"],
        vec!["run", "--dir", d, "--duration", "99999999999h"],
        vec!["run", "--dir", d, "--ramp", "1e20"],
        vec!["run", "--dir", d, "--thinktime", "1e20"],
        vec!["tpcb", "--dir", d, "--duration", "1e20"],
        vec!["laddis", "--dir", d, "--duration", "1e20"],
        vec!["sdet", "--dir", d, "--duration", "1e20"],
        vec!["iobench", "--dir", d, "--duration", "1e20"],
        vec!["ffsb", p(&profile), "--location", d, "--time", "1e20"],
        vec!["iozone", "--dir", d, "--settle", "1e20", "-s", "64k"],
        vec!["selfscale", d, "--point-time", "1e20"],
        vec!["scale", "run", "--dir", d, "--p90-under", "1e20"],
        vec![
            "iozone",
            "--dir",
            d,
            "-t",
            "2",
            "-d",
            "99999999999999",
            "-s",
            "64k",
        ],
    ];
    for args in cases {
        let line = assert_usage_error(&args);
        assert!(line.contains("30 days"), "{args:?}: {line}");
    }
    assert_untouched(dir.path());
    let line = assert_usage_error(&["run", "--dir", d, "--rate", "1e12"]);
    assert!(line.contains("1e9"), "{line}");

    // in input files too, with the file and line
    let files = tempfile::tempdir().unwrap();
    let ctl = files.path().join("c.ctl");
    std::fs::write(&ctl, "USERS = 1;\nDURATION = 50000;\n").unwrap();
    let line = assert_usage_error(&["iobench", p(&ctl), "--dir", d, "--ignore-env"]);
    assert!(
        line.contains("c.ctl:2: DURATION") && line.contains("30 days"),
        "{line}"
    );
    let ffsb = files.path().join("t.ffsb");
    std::fs::write(
        &ffsb,
        format!(
            "time=4294967295\n[filesystem0]\nlocation={d}\nnum_files=1\n[end0]\n\
             [threadgroup0]\nnum_threads=1\nread_weight=1\n[end0]\n"
        ),
    )
    .unwrap();
    let line = assert_usage_error(&["ffsb", p(&ffsb)]);
    assert!(
        line.contains("t.ffsb:1: time=") && line.contains("30 days"),
        "{line}"
    );
    assert_untouched(dir.path());
}

/// The first line of stderr has no raw control character, and says what
/// was typed with `escaped` in its place.
fn assert_escaped(args: &[&str], escaped: &str) {
    let line = assert_usage_error(args);
    assert!(
        !line
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{202e}'),
        "{args:?}: a raw control character in {line:?}"
    );
    assert!(line.contains(escaped), "{args:?}: no {escaped} in {line:?}");
}

/// Issue 33 item 20: messages echoed CR, ESC, NUL and U+2028 from input
/// files and values raw; some printed more than one line.
#[test]
fn control_bytes_in_input_are_escaped_in_one_line() {
    let dir = work_dir();
    let d = p(dir.path());
    let files = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &[u8]| {
        let f = files.path().join(name);
        std::fs::write(&f, text).unwrap();
        f
    };
    let ctl = write("c.ctl", b"US\x1b[2JERS = 1;\n");
    assert_escaped(
        &["iobench", p(&ctl), "--dir", d, "--ignore-env"],
        "\\x1b[2J",
    );
    let ffsb = write("p.ffsb", "time=1\nbogus\u{2028}option=1\n".as_bytes());
    assert_escaped(&["ffsb", p(&ffsb)], "\\u{2028}");
    let mix = write("m.mix", b"look\rup 34\nread 66\n");
    assert_escaped(&["laddis", "--mix", p(&mix), "--dir", d], "look\\rup");
    assert_escaped(&["iozone", "--dir", d, "-s", "1\x1bm"], "1\\x1bm");
    assert_escaped(&["run", "--dir", d, "--unique-bytes", "1\r2M"], "1\\r2M");
    assert_escaped(&["run", "--dir", d, "--dur\u{202e}ation", "1"], "\\u{202e}");

    // PostMark's session: each refused command one line, escaped
    let pm = write(
        "x.pmrc",
        b"set location /nonexistent/\x1b[2J\r\nfr\0ob\nset location /nonexistent/a\xe2\x80\xa8b\nrun\nquit\n",
    );
    let out = iogauge()
        .args(["postmark", p(&pm), "--dir", d])
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        !stderr
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{2028}'),
        "{stderr:?}"
    );
    assert!(stderr.contains("/nonexistent/a\\u{2028}b"), "{stderr}");
    assert!(
        stderr.lines().last().unwrap().starts_with("iogauge: "),
        "{stderr}"
    );
    assert_untouched(dir.path());
}

/// Issue 33 item 21: `laddis --claim 1000000` planned a 5 TiB file set for
/// seconds, then failed on file descriptors. The space comes first, at once.
#[test]
fn laddis_checks_the_space_before_planning() {
    let dir = work_dir();
    let t = Instant::now();
    let line = assert_usage_error(&["laddis", "--claim", "1000000", "--dir", p(dir.path())]);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert!(
        line.contains(&format!("--dir {}: not enough space", p(dir.path()))),
        "{line}"
    );
    assert_untouched(dir.path());
}

/// Issue 33 item 21: on a directory too small, the survey printed its
/// scorecard's header, then "--dir DIR: not enough space", naming a flag
/// it does not have. It checks first, and names its DIR.
#[test]
fn survey_names_its_dir_and_checks_before_the_scorecard() {
    let Some(fs) = Tmpfs::mount("size=4m") else {
        return;
    };
    let out = iogauge()
        .args(["survey", "--quick"])
        .arg(fs.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        stderr.starts_with(&format!("iogauge: DIR {}: not enough space", p(fs.path()))),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(std::fs::read_dir(fs.path()).unwrap().count(), 0);
}

/// The class of item 21: the inodes a run makes are checked before it
/// starts, as its space is.
#[test]
fn inodes_are_checked_before_work() {
    let Some(fs) = Tmpfs::mount("size=64m,nr_inodes=8") else {
        return;
    };
    for check in [true, false] {
        let mut args = vec![
            "run",
            "--dir",
            p(fs.path()),
            "--files",
            "20",
            "--unique-bytes",
            "1M",
            "--size-mean",
            "4k",
            "--duration",
            "0.2s",
        ];
        if check {
            args.push("--check");
        }
        let line = assert_usage_error(&args);
        assert!(line.contains("free inodes"), "{line}");
        assert_eq!(std::fs::read_dir(fs.path()).unwrap().count(), 0);
    }
}

/// The class of item 18: counts and sizes past what the machine or iogauge
/// can hold are refused before any work, naming the flag: bonnie's -s
/// panicked on an overflow, `run -p 99999999999` started its workers
/// (and ignored SIGTERM while it did), scale's repetition flags were
/// clamped silently or named together.
#[test]
fn absurd_counts_and_sizes_are_refused_before_work() {
    let dir = work_dir();
    let d = p(dir.path());
    let files = tempfile::tempdir().unwrap();
    let pm = files.path().join("big.pmrc");
    std::fs::write(
        &pm,
        "set number 1073741823\nset size 1073741823\nrun\nquit\n",
    )
    .unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["bonnie", "-d", d, "-s", "17592186044416"], "1 EiB"),
        (
            vec!["bonnie", "-d", d, "-s", "18446744073709551615"],
            "1 EiB",
        ),
        (
            vec!["iozone", "--dir", d, "-s", "1125899906842625"],
            "1 EiB",
        ),
        (
            vec!["run", "--dir", d, "--unique-bytes", "1048577T"],
            "1 EiB",
        ),
        (
            vec!["run", "--dir", d, "-p", "99999999999", "--check"],
            "ulimit -u",
        ),
        (vec!["run", "--dir", d, "-p", "99999999999"], "ulimit -u"),
        (
            vec!["scale", "--max-procs", "99999999999", "run", "--dir", d],
            "--max-procs",
        ),
        (
            vec!["scale", "--min-reps", "9", "run", "--dir", d],
            "--min-reps 9 is more than --max-reps 5",
        ),
        (
            vec!["scale", "--target-ci", "NaN", "run", "--dir", d],
            "--target-ci NaN",
        ),
        (
            vec!["scale", "--confidence", "2", "run", "--dir", d],
            "--confidence 2",
        ),
    ];
    for (args, want) in cases {
        let line = assert_usage_error(&args);
        assert!(line.contains(want), "{args:?}: {line}");
    }
    assert_untouched(dir.path());
    // PostMark's file table (34 GiB here) is checked against memory
    // before it is made
    let avail_kib: u64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    if avail_kib > 60 << 20 {
        eprintln!("skipped: the machine has memory for a 34 GiB PostMark file table");
        return;
    }
    let out = iogauge()
        .args(["postmark", p(&pm), "--dir", d])
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("big.pmrc:3: Error: the file table"),
        "{stderr}"
    );
}

/// Issue 33 item 21: `iogauge scale` alone listed all 17 top-level commands.
#[test]
fn scale_without_a_workload_lists_its_own() {
    let line = assert_usage_error(&["scale"]);
    assert!(line.contains("run, tpcb, laddis"), "{line}");
    assert!(!line.contains("postmark"), "{line}");
}

/// Issue 33 item 21: tpcb's help offered --direct and the engines buffered
/// and null, which it always refuses; ffsb's offered null.
#[test]
fn help_offers_only_what_the_command_takes() {
    let help = |cmd: &str| {
        let out = iogauge().args([cmd, "--help"]).output().unwrap();
        assert!(out.status.success());
        // as one line: the engine list may wrap
        let text = String::from_utf8(out.stdout).unwrap();
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let tpcb = help("tpcb");
    assert!(!tpcb.contains("--direct"), "{tpcb}");
    assert!(
        tpcb.contains("I/O engine: psync, sync, io_uring, libaio, pvsync, pvsync2 ("),
        "{tpcb}"
    );
    let ffsb = help("ffsb");
    assert!(
        ffsb.contains("I/O engine: psync, sync, buffered, io_uring, libaio, pvsync, pvsync2 ("),
        "{ffsb}"
    );
    // an unknown engine is told the ones the command takes
    let line = assert_usage_error(&["tpcb", "--engine", "warp"]);
    assert!(
        line.contains("the engines are: psync, sync, io_uring, libaio, pvsync, pvsync2 ("),
        "{line}"
    );
    let line = assert_usage_error(&["ffsb", FFSB_PROFILE, "--engine", "warp"]);
    assert!(
        line.contains(
            "the engines are: psync, sync, buffered, io_uring, libaio, pvsync, pvsync2 ("
        ),
        "{line}"
    );
    // what is not offered is still refused with its reason
    let dir = work_dir();
    for (args, why) in [
        (vec!["tpcb", "--direct"], "O_DIRECT"),
        (vec!["tpcb", "--engine", "null"], "no I/O"),
        (vec!["tpcb", "--engine", "buffered"], "own buffer"),
    ] {
        let mut args = args;
        args.extend(["--dir", p(dir.path())]);
        let line = assert_usage_error(&args);
        assert!(line.contains(why), "{args:?}: {line}");
    }
    assert_untouched(dir.path());
}

/// `--check` reads and checks everything, says so, and makes nothing: not
/// in --dir, not in the current directory, and runs no `!` command.
#[test]
fn check_runs_nothing() {
    let dir = work_dir();
    let d = p(dir.path());
    let cwd = tempfile::tempdir().unwrap();
    let c = |name: &str| cwd.path().join(name);
    std::fs::write(
        c("s.pmrc"),
        "set number 10\nset transactions 10\nrun report.txt\nshow shown.txt\n!touch shell-ran\nquit\n",
    )
    .unwrap();
    std::fs::write(c("m.mix"), "lookup 50\nread 30\nwrite 20\n").unwrap();
    let profile = root().join(FFSB_PROFILE);
    let ctl = root().join("examples/iobench/figure1.ctl");
    let spectrum = root().join("examples/iobench/paper.spectrum");
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", "--dir", d, "--unique-bytes", "1M"],
        vec!["postmark", "s.pmrc", "--dir", d],
        vec![
            "iobench",
            p(&ctl),
            "--dir",
            d,
            "--ignore-env",
            "-o",
            "r.txt",
        ],
        vec![
            "iobench",
            "--dir",
            d,
            "--spectrum",
            p(&spectrum),
            "-o",
            "r.txt",
        ],
        vec!["ffsb", p(&profile), "--location", d],
        vec![
            "iozone", "--dir", d, "-s", "1m", "-r", "4k", "-i", "0", "-i", "1",
        ],
        vec!["laddis", "--mix", "m.mix", "--dir", d],
        vec!["tpcb", "--dir", d],
        vec!["scale", "laddis", "--dir", d],
    ];
    for mut args in cases {
        args.push("--check");
        let out = iogauge()
            .args(&args)
            .current_dir(cwd.path())
            .write_stdin("")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.ends_with("checked; nothing was run\n"),
            "{args:?}: {stdout}"
        );
        assert_untouched(dir.path());
        let mut made: Vec<String> = std::fs::read_dir(cwd.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        made.sort();
        assert_eq!(made, ["m.mix", "s.pmrc"], "{args:?}");
    }
    // what a run would refuse, --check refuses
    let line = assert_usage_error(&["run", "--dir", d, "--duration", "0", "--check"]);
    assert!(line.contains("--duration"), "{line}");
    std::fs::write(c("bad.pmrc"), "set number 0\nrun\nquit\n").unwrap();
    let out = iogauge()
        .args(["postmark", "bad.pmrc", "--dir", d, "--check"])
        .current_dir(cwd.path())
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.pmrc:1: Error: invalid number of files")
    );
    assert_untouched(dir.path());
}

/// How the fuzz corpus of a parser is run: its command line for a saved
/// input (a file, or `*.args.json`: the arguments themselves).
fn corpus_command(parser: &str, case: &Path, dir: &Path) -> Vec<String> {
    let f = p(case).to_string();
    let d = p(dir).to_string();
    let args = || -> Vec<String> {
        serde_json::from_str(&std::fs::read_to_string(case).unwrap()).unwrap()
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut cmd = match parser {
        "postmark" => s(&["postmark", &f, "--check", "--dir", &d]),
        "iobench-control" => s(&["iobench", &f, "--check", "--ignore-env", "--dir", &d]),
        "iobench-spectrum" => s(&["iobench", "--spectrum", &f, "--check", "--ignore-env"]),
        "ffsb" => s(&["ffsb", &f, "--location", &d, "--check"]),
        "fio-job" => s(&["fio", "--parse-only", &f]),
        "iozone" => s(&["iozone", "--dir", &d, "--check"]),
        "laddis-mix" => s(&["laddis", "--mix", &f, "--check", "--dir", &d]),
        "model" => s(&["predict", &f, "--workload", "uniqueBytes=2M"]),
        "size" => s(&["run", "--check", "--dir", &d, "--unique-bytes"]),
        "duration" => s(&["run", "--check", "--dir", &d, "--duration"]),
        "rate" => s(&["run", "--check", "--dir", &d, "--rate"]),
        other => panic!("tests/fuzz-corpus/{other}: no command for this parser"),
    };
    if parser.starts_with("iobench") {
        cmd.extend(s(&["--dir", &d, "-o", &format!("{d}/r")]));
    }
    if f.ends_with(".args.json") {
        cmd.extend(args());
    }
    cmd
}

/// Every input that ever failed bench/fuzz.sh (a panic, a hang, an exit
/// code other than 0 or 2, a refusal in more than one line, a raw control
/// byte, a file left behind), run again: accepted, or refused in one line
/// with exit 2, in time.
#[test]
fn fuzz_corpus() {
    let corpus = root().join("tests/fuzz-corpus");
    let mut parsers: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    parsers.sort();
    let mut ran = 0;
    for dir in parsers {
        let parser = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        cases.sort();
        for case in cases {
            let work = tempfile::tempdir().unwrap();
            let mut child = Process::new(bin_path())
                .args(corpus_command(&parser, &case, work.path()))
                .current_dir(work.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let status = wait_for(&mut child, Duration::from_secs(10));
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            let what = format!("{}: {stderr:?}", case.display());
            assert!(!stderr.contains("panicked"), "{what}");
            assert!(matches!(status.code(), Some(0 | 2)), "{status}: {what}");
            assert!(
                !stderr
                    .chars()
                    .any(|c| (c.is_control() && c != '\n') || c == '\u{2028}'),
                "{what}"
            );
            if status.code() == Some(2) {
                let last = stderr.lines().last().unwrap_or("");
                assert!(last.starts_with("iogauge: "), "{what}");
                if parser != "postmark" {
                    assert_eq!(stderr.lines().count(), 1, "{what}");
                }
            }
            assert_eq!(std::fs::read_dir(work.path()).unwrap().count(), 0, "{what}");
            ran += 1;
        }
    }
    assert!(ran > 0, "the corpus is empty");
}
