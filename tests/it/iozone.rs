//! Integration tests of `iogauge iozone`: IOzone's flags refused with one
//! line; auto mode's exact grid; single mode's JSON with every cell and
//! each test's percentiles; the `-R` report, the `-b` workbook read back,
//! the heatmaps; throughput mode with 3 children (processes and threads);
//! `-w`; Ctrl-C. Runs are small (at most a few MiB) in temporary
//! directories; the grid test uses the null engine.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// `iogauge iozone --dir DIR ARGS --json -`: the result, checked against
/// the shared contract, and the report.
fn iozone(dir: &Path, args: &[&str]) -> (Value, String) {
    let mut all = vec!["iozone", "--dir", p(dir)];
    all.extend_from_slice(args);
    let (v, report) = run_json(&all);
    check_result(&v);
    assert_eq!(str_at(&v, "benchmark"), "iozone");
    (v, report)
}

/// `iogauge iozone ARGS` with the report on stdout.
fn iozone_text(dir: &Path, args: &[&str]) -> String {
    let out = iogauge()
        .args(["iozone", "--dir", p(dir)])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "iozone {args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// The text table's data lines: kB in the first 16 columns, reclen in
/// the next 8 (IOzone's `%16lld%8lld`), then the figures.
fn table_rows(report: &str) -> Vec<(u64, u64)> {
    report
        .lines()
        .filter(|l| l.len() > 24 && l.is_char_boundary(24))
        .filter_map(|l| Some((l[..16].trim().parse().ok()?, l[16..24].trim().parse().ok()?)))
        .collect()
}

#[test]
fn bad_flags_are_refused_with_one_line() {
    let dir = work_dir();
    let d = p(dir.path());
    for (args, expect) in [
        (&["-Q"][..], "unsupported IOzone flag -Q"),
        (&["-K"], "-a -A -b"),
        (&["-s", "0"], "zero"),
        (&["-s", "12q"], "not a size"),
        (&["-i", "99"], "99"),
        (&["-i", "9"], "-E"),
        (&["-s"], "needs a value"),
        (&["-t", "2", "-l", "1"], "-t"),
        (&["-O", "-N"], "-N"),
        (&["-+p", "x"], "x"),
        (&["-a", "-s", "1m", "-n", "64k"], "-s"),
        (&["-i", "0", "--bogus"], "--bogus"),
        (&["stray"], "stray"),
        (&["-H", "0"], "-H 0: give 1 to"),
        (&["-k", "4", "-t", "2"], "throughput mode"),
        (
            &["-H", "4", "--engine", "psync"],
            "-H 4: --iodepth 4: engine 'psync'",
        ),
    ] {
        let mut all = vec!["iozone", "--dir", d];
        all.extend_from_slice(args);
        let line = assert_usage_error(&all);
        assert!(line.contains(expect), "{args:?}: {line}");
    }
    // an absolute -f that exists is not ours to overwrite or remove
    let theirs = dir.path().join("theirs");
    std::fs::write(&theirs, b"keep me").unwrap();
    let line = assert_usage_error(&[
        "iozone",
        "--dir",
        d,
        "-i",
        "0",
        "-f",
        p(&theirs),
        "--allow-outside",
    ]);
    assert!(line.contains("a file is there already"), "{line}");
    assert_eq!(std::fs::read(&theirs).unwrap(), b"keep me");
    std::fs::remove_file(&theirs).unwrap();
    assert_untouched(dir.path());
}

/// IOzone 3.489's auto mode with `-n 1m -g 64m`: files 1 MB to 64 MB,
/// doubling; records from 4 kB (`RECLEN_START`) doubling while they fit
/// the file, up to 16 MB (`MAXBUFFERSIZE`); files above 16 MB
/// (`CROSSOVER`) start at 64 kB (`LARGE_REC`). The ranges are the
/// defines and loops of iozone.c (`auto_test`, `init_file_sizes`,
/// `init_record_sizes`).
#[test]
fn auto_mode_grid_is_iozones() {
    let dir = work_dir();
    let report = iozone_text(
        dir.path(),
        &[
            "-a", "-n", "1m", "-g", "64m", "-i", "0", "-R", "--engine", "null",
        ],
    );
    let rows = table_rows(&report);
    let mut expected = Vec::new();
    for shift in 0..7 {
        let kb = 1024u64 << shift;
        let first = if kb > 16384 { 64 } else { 4 };
        let mut rec = first;
        while rec <= kb.min(16384) {
            expected.push((kb, rec));
            rec *= 2;
        }
    }
    assert_eq!(rows, expected, "{report}");
    assert_eq!(rows.len(), 9 + 10 + 11 + 12 + 13 + 9 + 9);
    // -R: the record sizes of the whole range across, zeros for the
    // records the crossover skipped
    let at = report.find("\"Writer report\"").expect(&report);
    let mut lines = report[at..].lines().skip(1);
    let head = lines.next().unwrap();
    let recs: Vec<&str> = head.split_whitespace().collect();
    assert_eq!(recs.len(), 13, "{head}");
    assert_eq!(recs[0], "\"4\"");
    assert_eq!(recs[12], "\"16384\"");
    let big = lines.find(|l| l.starts_with("\"32768\"")).unwrap();
    let cells: Vec<&str> = big.split_whitespace().skip(1).collect();
    assert_eq!(cells.len(), 13, "{big}");
    assert_eq!(&cells[..4], ["0", "0", "0", "0"], "{big}");
    assert!(cells[4..].iter().all(|c| *c != "0"), "{big}");
    assert!(report.contains("iozone test complete."));
    assert_untouched(dir.path());
}

#[test]
fn single_mode_json_has_every_figure_and_each_tests_latency() {
    let dir = work_dir();
    let (v, report) = iozone(
        dir.path(),
        &["-i", "0", "-i", "1", "-i", "2", "-s", "1m", "-r", "64k"],
    );
    assert!(get(&v, "complete").as_bool().unwrap());
    assert_eq!(str_at(&v, "metrics.mode"), "single");
    assert_eq!(str_at(&v, "metrics.units"), "kB/s");
    let cells = get(&v, "metrics.cells").as_array().unwrap();
    assert_eq!(cells.len(), 1);
    assert_eq!(u64_at(&cells[0], "file_kb"), 1024);
    assert_eq!(u64_at(&cells[0], "reclen_kb"), 64);
    for t in [
        "write",
        "rewrite",
        "read",
        "reread",
        "random_read",
        "random_write",
    ] {
        let fig = u64_at(&v, &format!("metrics.{t}"));
        assert!(fig > 0, "{t}");
        assert_eq!(u64_at(&cells[0], t), fig, "{t}");
        let kind = if t.contains("write") { "write" } else { "read" };
        // 1 MiB in 64 KiB records: 16 calls a pass
        assert_eq!(
            u64_at(&v, &format!("metrics.tests.{t}.ops.{kind}.count")),
            16,
            "{t}"
        );
        assert!(u64_at(&v, &format!("metrics.tests.{t}.ops.{kind}.latency_ns.p99")) > 0);
    }
    // the table row holds the same figures
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with("1024") && l.contains("64"))
        .expect(&report);
    let figs: Vec<u64> = line
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(figs[2], u64_at(&v, "metrics.write"), "{line}");
    assert_eq!(figs[7], u64_at(&v, "metrics.random_write"), "{line}");
    assert!(report.contains("iogauge details"), "{report}");
    assert_untouched(dir.path());
}

/// `-H 8`: the lseek + read/write passes keep 8 requests in flight on
/// the queued test engine; the config, the banner and the engine say so.
#[test]
fn dash_h_queues_the_passes_at_its_depth() {
    let dir = work_dir();
    let (v, report) = iozone(
        dir.path(),
        &[
            "-i", "0", "-i", "1", "-i", "2", "-s", "1m", "-r", "4k", "-H", "8", "--engine", "nullq",
        ],
    );
    assert_eq!(get(&v, "config.async_io.depth").as_u64(), Some(8));
    assert_eq!(get(&v, "config.async_io.no_copy").as_bool(), Some(false));
    assert_eq!(str_at(&v, "config.async_engine"), "nullq");
    assert_eq!(get(&v, "summary.io_depth.max").as_u64(), Some(8));
    // nullq has no setup to tell
    assert!(v.get("engine").is_none(), "{}", v["engine"]);
    // every record of every pass, at depth as one at a time
    for (t, kind) in [
        ("write", "write"),
        ("read", "read"),
        ("random_read", "read"),
    ] {
        let n = u64_at(&v, &format!("metrics.tests.{t}.ops.{kind}.count"));
        assert_eq!(n, 256, "{t}");
    }
    assert!(
        report.contains("POSIX async I/O (with bcopy). Depth 8"),
        "{report}"
    );
    assert_untouched(dir.path());
}

/// `-k 4 -I` on a real file: io_uring (libaio where the kernel refuses
/// it) moves every record of every asynchronous test.
#[test]
fn dash_k_runs_every_asynchronous_test_on_a_queued_engine() {
    let dir = work_dir();
    let mut args = vec!["-s", "1m", "-r", "64k", "-k", "4", "-I"];
    for t in ["0", "1", "2", "3", "4", "5"] {
        args.extend_from_slice(&["-i", t]);
    }
    let (v, report) = iozone(dir.path(), &args);
    let engine = str_at(&v, "config.async_engine");
    assert!(["io_uring", "libaio"].contains(&engine), "{engine}");
    assert_eq!(str_at(&v, "config.engine"), "sync");
    if engine == "io_uring" {
        // the ring's setup, from the asynchronous passes
        assert!(
            str_at(&v, "engine.mode").ends_with(" ring"),
            "{}",
            v["engine"]
        );
    }
    for (t, kind) in [
        ("write", "write"),
        ("rewrite", "write"),
        ("read", "read"),
        ("reread", "read"),
        ("random_read", "read"),
        ("random_write", "write"),
        ("bkwd_read", "read"),
        ("record_rewrite", "write"),
        ("stride_read", "read"),
    ] {
        // 1 MiB in 64 KiB records: 16 a pass
        let n = u64_at(&v, &format!("metrics.tests.{t}.ops.{kind}.count"));
        assert_eq!(n, 16, "{t}");
        assert!(u64_at(&v, &format!("metrics.{t}")) > 0, "{t}");
    }
    assert!(
        report.contains("POSIX Async I/O (no bcopy). Depth 4"),
        "{report}"
    );
    assert_untouched(dir.path());
}

#[cfg(feature = "xlsx")]
#[test]
fn the_workbook_reads_back_with_iozones_layout() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let book = out.path().join("out.xlsx");
    let report = iozone_text(
        dir.path(),
        &[
            "-a",
            "-n",
            "64k",
            "-g",
            "256k",
            "-y",
            "16k",
            "-q",
            "64k",
            "-i",
            "0",
            "-b",
            p(&book),
        ],
    );
    assert!(report.contains("Excel output is below:"), "{report}");
    use calamine::{Data, Reader, Xlsx, open_workbook};
    let mut wb: Xlsx<_> = open_workbook(&book).unwrap();
    let sheet = wb.sheet_names()[0].clone();
    let r = wb.worksheet_range(&sheet).unwrap();
    let cell = |row: u32, col: u32| r.get_value((row, col)).cloned().unwrap_or(Data::Empty);
    // A1: the command line
    assert!(matches!(cell(0, 0), Data::String(s) if s.contains("iozone")));
    let title = (0..r.height() as u32)
        .find(|&i| matches!(cell(i, 0), Data::String(ref s) if s == "Writer Report"))
        .expect("a Writer Report section");
    // the record sizes across, the file sizes down, a figure in each cell
    let recs: Vec<f64> = (1..4)
        .map(|c| match cell(title + 1, c) {
            Data::Float(f) => f,
            d => panic!("record size cell: {d:?}"),
        })
        .collect();
    assert_eq!(recs, [16.0, 32.0, 64.0]);
    for (i, kb) in [64.0, 128.0, 256.0].iter().enumerate() {
        let row = title + 2 + i as u32;
        assert_eq!(cell(row, 0), Data::Float(*kb));
        for c in 1..4 {
            assert!(
                matches!(cell(row, c), Data::Float(f) if f > 0.0),
                "{kb} {c}"
            );
        }
    }
    assert_untouched(dir.path());
}

#[test]
fn plot_draws_one_heatmap_per_test() {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let plots = out.path().join("plots");
    iozone_text(
        dir.path(),
        &[
            "-a",
            "-n",
            "64k",
            "-g",
            "128k",
            "-y",
            "32k",
            "-q",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "--plot",
            p(&plots),
        ],
    );
    let mut names: Vec<String> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    for n in &names {
        let svg = std::fs::read_to_string(plots.join(n)).unwrap();
        assert!(svg.contains("<svg") && svg.contains("<rect"), "{n}");
    }
    assert_untouched(dir.path());
}

/// Three children, each its own file: the children's figures add up to
/// "Children see", the parent's figure is what they moved over its clock.
fn three_children(extra: &[&str]) {
    let dir = work_dir();
    let mut args = vec![
        "-t", "3", "-i", "0", "-s", "1m", "-r", "64k", "-C", "--settle", "0",
    ];
    args.extend_from_slice(extra);
    let (v, report) = iozone(dir.path(), &args);
    assert!(get(&v, "complete").as_bool().unwrap(), "{report}");
    let runs = get(&v, "metrics.throughput").as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(u64_at(&runs[0], "children"), 3);
    let phases = get(&runs[0], "phases").as_array().unwrap();
    let names: Vec<&str> = phases.iter().map(|p| str_at(p, "phase")).collect();
    assert_eq!(names, ["Initial write", "Rewrite"]);
    for ph in phases {
        let kids = get(ph, "children").as_array().unwrap();
        assert_eq!(kids.len(), 3);
        let sum: f64 = kids.iter().map(|k| f64_at(k, "rate")).sum();
        let children = f64_at(ph, "children_rate");
        assert!(
            (sum - children).abs() <= 1e-6 * children,
            "{sum} {children}"
        );
        let xfer: f64 = kids.iter().map(|k| f64_at(k, "xfer")).sum();
        let parent = f64_at(ph, "parent_rate");
        let secs = f64_at(ph, "parent_s");
        assert!(
            (xfer / secs - parent).abs() <= 1e-6 * parent,
            "{xfer} {secs} {parent}"
        );
        assert!((f64_at(ph, "avg_rate") - children / 3.0).abs() <= 1e-6 * children);
        // the first finisher counted its whole file
        let max_xfer = kids.iter().map(|k| f64_at(k, "xfer")).fold(0.0, f64::max);
        assert_eq!(max_xfer, 1024.0);
    }
    assert!(
        report.contains("Children see throughput for  3 initial writers"),
        "{report}"
    );
    assert!(
        report.contains("Parent sees throughput for  3 rewriters"),
        "{report}"
    );
    assert_eq!(report.matches("\tChild[").count(), 6, "{report}");
    assert_untouched(dir.path());
}

#[test]
fn throughput_mode_with_three_processes() {
    three_children(&[]);
}

#[test]
fn throughput_mode_with_three_threads() {
    three_children(&["-T"]);
}

#[test]
fn throughput_excel_report_has_a_column_per_child_count() {
    let dir = work_dir();
    let report = iozone_text(
        dir.path(),
        &[
            "-l", "1", "-u", "2", "-i", "0", "-+n", "-s", "256k", "-r", "64k", "-R", "-T",
            "--settle", "0",
        ],
    );
    let line = report
        .lines()
        .find(|l| l.starts_with("\"  Initial write \""))
        .expect(&report);
    // '"', 'Initial', 'write', '"' and a figure per child count
    assert_eq!(line.split_whitespace().count(), 4 + 2, "{line}");
    assert!(!report.contains("rewriters"), "-+n: {report}");
    assert_untouched(dir.path());
}

#[test]
fn dash_w_keeps_the_files_and_says_where() {
    let dir = work_dir();
    let report = iozone_text(dir.path(), &["-i", "0", "-s", "128k", "-w"]);
    let line = report
        .lines()
        .find(|l| l.contains("-w: the test files are kept in"))
        .expect(&report);
    let kept = Path::new(line.rsplit(' ').next().unwrap());
    assert!(kept.join("iozone.tmp").is_file(), "{line}");
    assert_eq!(
        std::fs::metadata(kept.join("iozone.tmp")).unwrap().len(),
        128 << 10
    );
    std::fs::remove_dir_all(kept).unwrap();
}

/// Runs `iozone ARGS` in a fresh directory, sends Ctrl-C after 1.5 s,
/// and checks what every interrupted run must do: exit 130 within 5 s, a
/// partial result in the JSON that `iogauge show` prints the report of as
/// the run printed it, nothing left in the directory. Returns the result.
fn interrupted(args: &[&str]) -> Value {
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    let printed = out.path().join("stdout");
    let mut child = std::process::Command::new(bin_path())
        .args(["iozone", "--dir", p(dir.path())])
        .args(args)
        .args(["--json", p(&json)])
        .stdout(std::fs::File::create(&printed).unwrap())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let (status, took) = signal_and_wait(&mut child, libc::SIGINT);
    assert_eq!(status.code(), Some(130), "{args:?}: {status}");
    assert!(took < Duration::from_secs(5), "{args:?}: {took:?}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(!get(&v, "complete").as_bool().unwrap());
    let shown = iogauge().args(["show", p(&json)]).output().unwrap();
    assert!(shown.status.success(), "{args:?}");
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout),
        std::fs::read_to_string(&printed).unwrap(),
        "{args:?}: iogauge show printed another report than the run"
    );
    assert_untouched(dir.path());
    v
}

#[test]
fn ctrl_c_stops_cleanly_with_a_partial_result() {
    let v = interrupted(&["-a", "-g", "64m", "-i", "0", "-i", "1"]);
    assert!(!get(&v, "metrics.cells").as_array().unwrap().is_empty());
}

/// Throughput mode with child processes, Ctrl-C during the pause between
/// phases: the phase done is in the partial result, no child is left.
#[test]
fn ctrl_c_in_throughput_mode_stops_the_children_and_cleans_up() {
    let v = interrupted(&[
        "-t", "2", "-i", "0", "-i", "1", "-s", "1m", "-r", "64k", "--settle", "60s",
    ]);
    let phases = get(&v, "metrics.throughput").as_array().unwrap()[0]["phases"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(
        phases, 1,
        "the initial write ran, then the pause was cut short"
    );
}

/// IOzone's text with what changes from run to run masked, as the
/// fixtures in tests/fixtures/iozone/ were made from IOzone 3.489's own
/// output: every number is `N` and the spaces before it (column padding,
/// which moves with the number's width) are one space; tabs, the other
/// spaces and the blank lines stay as they are, trailing spaces included.
/// The lines that name the program (`(iogauge)` after the version, the
/// build, the start time and the command line) are reduced to what both
/// share, and the text ends where iogauge's own details begin.
fn iozone_mask(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("iogauge details") {
            while lines.last().is_some_and(|l| l.is_empty()) {
                lines.pop();
            }
            break;
        }
        let line = if line.starts_with("\t        Version $Revision:") {
            line.replace(" (iogauge)", "")
        } else if line.starts_with("\t\tBuild: ") {
            "\t\tBuild: X ".to_string()
        } else if line.starts_with("\tRun began: ") {
            "\tRun began: X".to_string()
        } else if line.starts_with("\tCommand line used: ") {
            "\tCommand line used: X".to_string()
        } else {
            line.to_string()
        };
        let chars: Vec<char> = line.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let prev = if i > 0 { chars[i - 1] } else { ' ' };
            if c.is_ascii_digit() && !(prev.is_alphanumeric() || prev == '.') {
                let trimmed = out.trim_end_matches(' ').len();
                let padded = trimmed < out.len();
                out.truncate(trimmed);
                if padded {
                    out.push(' ');
                }
                out.push('N');
                while i < chars.len()
                    && (chars[i].is_ascii_digit()
                        || (chars[i] == '.'
                            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())))
                {
                    i += 1;
                }
                continue;
            }
            out.push(c);
            i += 1;
        }
        lines.push(out);
    }
    lines.join("\n") + "\n"
}

/// IOzone 3.489's text, byte for byte where it does not change from run
/// to run: throughput mode's "Each process writes …" line before each
/// child count's phases, two blank lines after them, the `-R` table and
/// then "iozone test complete."; single mode's row with IOzone's blanks
/// for the tests that did not run (no trailing space more), then
/// "iozone test complete." and then the `-R` tables. The fixtures are
/// IOzone's own output of the same command lines, masked the same way.
#[test]
fn the_text_is_iozones_in_throughput_and_single_mode() {
    for (fixture, args) in [
        ("throughput-t2.txt", "-t 2 -s 1m -r 64k -i 0 -i 1"),
        ("throughput-t2-R.txt", "-t 2 -s 1m -r 64k -i 0 -i 1 -R"),
        ("throughput-l1-u2-R.txt", "-l 1 -u 2 -s 1m -r 64k -i 0 -R"),
        ("throughput-T-t2.txt", "-T -t 2 -s 4m -r 64k -i 0"),
        // -+u: each phase's CPU line (a capital U after the writers only)
        // and the CPU utilization report after the -R table
        (
            "throughput-t2-u-R.txt",
            "-t 2 -s 4m -r 64k -i 0 -i 1 -+u -R",
        ),
        // -+n: the rewrite and re-read rows stay in the -R table, as zeros
        (
            "throughput-t2-n-R.txt",
            "-t 2 -s 1m -r 64k -i 0 -i 1 -+n -R",
        ),
        ("single-R.txt", "-s 1m -r 64k -i 0 -i 1 -R"),
        // -E as IOzone built for Linux has it: pwrite and pread, no
        // vectored columns (-O keeps the figures narrower than their columns)
        ("single-E-O.txt", "-E -s 1m -r 64k -i 0 -i 9 -i 10 -O"),
    ] {
        let dir = work_dir();
        // no pause between the phases (it prints nothing)
        let mut args: Vec<&str> = args.split(' ').collect();
        args.extend(["--settle", "0s"]);
        let text = iozone_text(dir.path(), &args);
        golden(&format!("iozone/{fixture}"), &iozone_mask(&text));
        assert_untouched(dir.path());
    }
}

/// `iogauge show` prints IOzone's report again as the run printed it, in
/// each mode: single and auto mode (crossover placeholders in -R), -E with
/// -O, -+u, --plot, -w, throughput mode with processes and threads, -C,
/// -R, -+n and several child counts.
#[test]
fn show_prints_the_report_again_in_every_mode() {
    let dir = work_dir();
    let d = p(dir.path());
    let plots = tempfile::tempdir().unwrap();
    let small = ["-s", "256k", "-r", "64k"];
    let runs: [&[&str]; 9] = [
        &["-i", "0", "-i", "1"],
        &[
            "--engine", "null", "-a", "-n", "16m", "-g", "32m", "-i", "0", "-R",
        ],
        &["-E", "-i", "0", "-i", "9", "-i", "10", "-O"],
        &["-i", "0", "-i", "2", "-+u", "-R", "--plot", p(plots.path())],
        &["-t", "2", "-i", "0", "-i", "1", "-C", "-R", "--settle", "0"],
        &[
            "-T", "-l", "1", "-u", "2", "-i", "0", "-+u", "-C", "-R", "--settle", "0",
        ],
        &[
            "-t", "2", "-i", "0", "-i", "1", "-+n", "-R", "--settle", "0",
        ],
        &[
            "-t",
            "1",
            "-i",
            "0",
            "--plot",
            p(plots.path()),
            "--settle",
            "0",
        ],
        &["-i", "0", "-+n", "-e", "-c"],
    ];
    for args in runs {
        let mut all = vec!["iozone", "--dir", d];
        all.extend_from_slice(args);
        if !args.contains(&"-a") {
            all.extend_from_slice(&small);
        }
        let (v, report) = assert_show_repeats(&all);
        assert!(
            report.contains("iozone test complete."),
            "{args:?}: {report}"
        );
        if args.contains(&"-R") {
            let section = if args.contains(&"--settle") {
                "\"Throughput report Y-axis"
            } else {
                "\"Writer report\""
            };
            assert!(report.contains(section), "{args:?}: {report}");
        }
        // a figure read back is the one the run printed
        if let Some(line) = report
            .lines()
            .find(|l| l.starts_with("             256      64"))
        {
            let write: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
            assert_eq!(write, u64_at(&v, "metrics.write"), "{args:?}: {line}");
        } else if args.contains(&"--settle") {
            let rate = get(&v, "metrics.throughput")[0]["phases"][0]["children_rate"]
                .as_f64()
                .unwrap();
            assert!(
                report.contains(&format!("= {rate:10.2} kB/sec")),
                "{args:?}"
            );
        } else {
            assert!(!get(&v, "metrics.cells").as_array().unwrap().is_empty());
        }
    }
    assert_untouched(dir.path());
    // -w: where the files were kept, said again
    let kept = work_dir();
    let (v, report) = assert_show_repeats(&[
        "iozone",
        "--dir",
        p(kept.path()),
        "-i",
        "0",
        "-s",
        "64k",
        "-w",
    ]);
    let place = str_at(&v, "metrics.kept");
    assert!(report.contains(&format!("kept in {place}\n")), "{report}");
    std::fs::remove_dir_all(place).unwrap();
}
