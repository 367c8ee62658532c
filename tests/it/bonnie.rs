//! `iogauge bonnie`: each test issues the calls its program issues, the
//! reports keep their layouts, bonnie++'s CSV line has its 50 fields in
//! their order and bon_csv2html reads it, and bad input is refused.

use crate::common::*;
use serde_json::Value;
use std::process::Command as StdCommand;

fn s(d: &tempfile::TempDir) -> &str {
    d.path().to_str().unwrap()
}

/// `iogauge bonnie ARGS --json -` in a fresh directory: the result, the
/// text printed (stderr, as the JSON took stdout).
fn bonnie(args: &[&str]) -> (Value, String) {
    let d = work_dir();
    let mut all = vec!["bonnie", "-d", s(&d)];
    all.extend_from_slice(args);
    let (v, text) = run_json(&all);
    assert_untouched(d.path());
    (v, text)
}

fn ops(v: &Value, test: &str, kind: &str) -> u64 {
    v["metrics"][test]["ops"][kind]["count"]
        .as_u64()
        .unwrap_or(0)
}

fn bytes(v: &Value, test: &str, kind: &str) -> u64 {
    v["metrics"][test]["ops"][kind]["bytes"]
        .as_u64()
        .unwrap_or(0)
}

#[test]
fn bonnie_refills_its_stream_once_a_chunk_and_seeks_4000_times() {
    // 1 MiB in 16 KiB chunks: 64 chunks
    let (v, text) = bonnie(&["-s", "1", "-m", "box"]);
    assert_eq!(str_at(&v, "metrics.flavor"), "bonnie");
    // per-char: one write per chunk through the stream, one read per chunk
    assert_eq!(ops(&v, "putc", "write"), 64);
    assert_eq!(bytes(&v, "putc", "write"), 1 << 20);
    assert_eq!(ops(&v, "getc", "read"), 64);
    // block write: one write a chunk, no fsync (Bonnie only closes)
    assert_eq!(ops(&v, "put_block", "write"), 64);
    assert_eq!(ops(&v, "put_block", "fsync"), 0);
    // rewrite and block read read until read(2) returns 0: one more read
    assert_eq!(ops(&v, "rewrite", "read"), 65);
    assert_eq!(ops(&v, "rewrite", "write"), 64);
    assert_eq!(ops(&v, "get_block", "read"), 65);
    assert_eq!(bytes(&v, "get_block", "read"), 1 << 20);
    // seeks: 4000 over 3 processes; each rewrites its 1st, 11th, 21st...
    assert_eq!(ops(&v, "seeks", "read"), 4000);
    let w = ops(&v, "seeks", "write");
    assert!((400..=403).contains(&w), "{w} rewrites of 4000 seeks");
    for (k, x) in v["metrics"]["seeks"]["ops"].as_object().unwrap() {
        if k == "read" || k == "write" {
            assert_eq!(
                x["bytes"].as_u64().unwrap(),
                x["count"].as_u64().unwrap() * 16384
            );
        }
    }
    // Bonnie's table: its header lines and one data line
    let lines: Vec<&str> = text.lines().collect();
    let h = lines
        .iter()
        .position(|l| l.contains("-------Sequential Output--------"))
        .expect("Bonnie's table");
    assert_eq!(
        lines[h],
        "              -------Sequential Output-------- ---Sequential Input-- --Random--"
    );
    assert_eq!(
        lines[h + 1],
        "              -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---"
    );
    assert_eq!(
        lines[h + 2],
        "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU"
    );
    let data = lines[h + 3];
    assert!(data.starts_with("box         1 "), "{data}");
    let fields: Vec<&str> = data.split_whitespace().collect();
    assert_eq!(fields.len(), 14, "{data}");
    for f in &fields[2..] {
        assert!(f.parse::<f64>().is_ok(), "{f} in {data}");
    }
    // a 1 MiB file sits in the page cache, and the report says so
    assert!(text.contains("fits in this machine's page cache"), "{text}");
    assert!(text.contains("iogauge details: Bonnie (1996)"), "{text}");
}

#[test]
fn bonnie_pp_writes_a_byte_a_call_and_syncs_on_close() {
    // 4 MiB in 8 KiB chunks: 512 chunks; per-char over 1 MiB
    let (v, text) = bonnie(&[
        "--flavor", "bonnie++", "-s", "4", "-r", "0", "-f1", "-z", "42", "-m", "box",
    ]);
    assert_eq!(ops(&v, "putc", "write"), 1 << 20);
    assert_eq!(bytes(&v, "putc", "write"), 1 << 20);
    assert_eq!(ops(&v, "getc", "read"), 1 << 20);
    for t in ["putc", "put_block", "rewrite", "getc", "get_block"] {
        assert_eq!(ops(&v, t, "fsync"), 1, "{t}: fsync then close");
    }
    assert_eq!(ops(&v, "put_block", "write"), 512);
    assert_eq!(ops(&v, "rewrite", "read"), 512);
    assert_eq!(ops(&v, "rewrite", "write"), 512);
    assert_eq!(ops(&v, "get_block", "read"), 512);
    // 8192 seeks over 5 seekers, each closing with an fsync, and the
    // parent's sync of its own descriptor once it has fed the tickets
    assert_eq!(ops(&v, "seeks", "read"), 8192);
    assert_eq!(ops(&v, "seeks", "fsync"), 6);
    let w = ops(&v, "seeks", "write") as f64 / 8192.0;
    assert!((0.08..0.12).contains(&w), "update share {w}");
    assert_eq!(str_at(&v, "metrics.seed"), "42");
    // the same seed, the same tickets: the same number of updates
    let (v2, _) = bonnie(&[
        "--flavor", "bonnie++", "-s", "4", "-r", "0", "-f", "-z", "42",
    ]);
    assert_eq!(ops(&v2, "seeks", "write"), ops(&v, "seeks", "write"));
    assert!(
        v2["metrics"].get("putc").is_none(),
        "-f skips the per-char tests"
    );
    // bonnie++'s table
    let lines: Vec<&str> = text.lines().collect();
    let h = lines
        .iter()
        .position(|l| l.starts_with("Version 2.00a       ------Sequential Output------"))
        .expect("bonnie++'s table");
    assert_eq!(
        lines[h + 1],
        "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--"
    );
    assert_eq!(
        lines[h + 2],
        "Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP"
    );
    assert!(
        lines[h + 3].starts_with("box              4M "),
        "{}",
        lines[h + 3]
    );
    assert!(
        lines[h + 4].starts_with("Latency          "),
        "{}",
        lines[h + 4]
    );
}

/// 20000 tickets of 4 bytes do not fit bonnie++'s pipe (64 KiB): the
/// feeder writes them while the seekers read, and then syncs its own
/// descriptor of the file, as bonnie++'s parent does.
#[test]
fn bonnie_pp_feeds_more_tickets_than_the_pipe_holds_while_the_seekers_run() {
    let (v, _) = bonnie(&[
        "--flavor",
        "bonnie++",
        "-s",
        "2:8k:20000",
        "-r",
        "0",
        "-f",
        "-z",
        "5",
    ]);
    assert_eq!(ops(&v, "seeks", "read"), 20000);
    assert_eq!(u64_at(&v, "metrics.seeks.work"), 20000);
    assert_eq!(ops(&v, "seeks", "fsync"), 6, "5 seekers and the feeder");
}

fn csv_of(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.starts_with("1.98,"))
        .unwrap_or_else(|| panic!("no CSV line in {text}"));
    line.split(',').map(str::to_string).collect()
}

#[test]
fn the_csv_line_has_bonnie_pp_fields_in_order_and_bon_csv2html_reads_it() {
    let d = work_dir();
    let out = iogauge()
        .args(["bonnie", "--flavor", "bonnie++", "-d", s(&d)])
        .args([
            "-s",
            "2",
            "-r",
            "0",
            "-f1",
            "-n",
            "1:2k:1k:2",
            "-m",
            "box",
            "-z",
            "7",
            "-q",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_untouched(d.path());
    // -q: the CSV line alone on stdout, the text on stderr
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Version 2.00a"));
    let f = csv_of(&stdout);
    assert_eq!(f.len(), 50, "{stdout}");
    assert_eq!(
        &f[..9],
        ["1.98", "2.00a", "box", "1", "7", "2M", "8k", "8192", "5"]
    );
    // the six rates of the file tests and their CPU, then 12 latencies
    assert_eq!(&f[21..26], ["1", "2048", "1024", "2", "8k"]);
    for lat in &f[38..50] {
        assert!(
            lat.ends_with("us") || lat.ends_with("ms") || lat.ends_with('s'),
            "{lat}"
        );
    }
    for (i, v) in f[9..21].iter().chain(&f[26..38]).enumerate() {
        assert!(
            v == "+++++" || v == "+++" || v.parse::<f64>().is_ok(),
            "field {i}: {v}"
        );
    }
    // Debian's bon_csv2html renders it
    let Ok(mut child) = StdCommand::new("bon_csv2html")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    else {
        eprintln!(
            "skipped the bon_csv2html check: bon_csv2html is not installed (apt-get install bonnie++)"
        );
        return;
    };
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdout.as_bytes())
        .unwrap();
    let html = child.wait_with_output().unwrap();
    assert!(html.status.success());
    let html = String::from_utf8_lossy(&html.stdout);
    assert!(
        html.contains("<td>box</td>") || html.contains(">box<"),
        "{html}"
    );
    assert!(html.contains("2M"), "{html}");
}

#[test]
fn x_prints_a_header_and_one_csv_line_per_run() {
    let d = work_dir();
    let out = iogauge()
        .args(["bonnie", "--flavor", "bonnie++", "-d", s(&d)])
        .args(["-s", "1", "-r", "0", "-f", "-x", "2", "-q", "-z", "3"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header.len(), 50);
    assert_eq!(
        &header[5..9],
        ["file_size", "io_chunk_size", "num_seeks", "seek_proc_count"]
    );
    // every name once (the seek rate is `seeks`, the count `num_seeks`)
    let mut names = header.clone();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 50, "{}", lines[0]);
    assert_eq!(lines[1].split(',').count(), 50);
    assert_eq!(lines[2].split(',').count(), 50);
    assert_untouched(d.path());
}

#[test]
fn file_tests_create_stat_and_delete_exactly_the_files_asked() {
    // 1024 files of 1 KiB to 2 KiB over 3 directories
    let (v, text) = bonnie(&[
        "--flavor",
        "bonnie++",
        "-s",
        "0",
        "-n",
        "1:2k:1k:3",
        "-z",
        "9",
    ]);
    for t in ["seq_create", "ran_create"] {
        assert_eq!(ops(&v, t, "create"), 1024, "{t}");
        let b = bytes(&v, t, "write");
        assert!((1024 * 1024..=2048 * 1024).contains(&b), "{t}: {b} bytes");
    }
    for (t, made) in [("seq_stat", "seq_create"), ("ran_stat", "ran_create")] {
        assert_eq!(ops(&v, t, "stat"), 1024, "{t}");
        // a stat reads the file's data too
        assert_eq!(bytes(&v, t, "read"), bytes(&v, made, "write"), "{t}");
    }
    for t in ["seq_del", "ran_del"] {
        assert_eq!(ops(&v, t, "delete"), 1024, "{t}");
    }
    assert!(v["metrics"].get("put_block").is_none(), "-s 0: no big file");
    assert!(text.contains("files:max:min"), "{text}");
    assert!(text.contains("1:2048:1024/3"), "{text}");
    // links: one file and 1023 hard links
    let (v, _) = bonnie(&["--flavor", "bonnie++", "-s", "0", "-n", "1:-1"]);
    assert_eq!(ops(&v, "seq_create", "create"), 1024);
    assert_eq!(ops(&v, "ran_del", "delete"), 1024);
}

#[test]
fn with_b_every_write_and_create_is_synced() {
    let (v, _) = bonnie(&[
        "--flavor", "bonnie++", "-s", "1", "-r", "0", "-f", "-b", "-n", "1",
    ]);
    // block write: a sync per write, and the one on close
    assert_eq!(ops(&v, "put_block", "fsync"), 128 + 1);
    // each create syncs the file and its directory
    assert_eq!(ops(&v, "seq_create", "fsync"), 2 * 1024);
    assert_eq!(ops(&v, "seq_del", "fsync"), 1024);
}

#[test]
fn c_runs_copies_at_once_and_sums_their_work() {
    let (v, _) = bonnie(&[
        "--flavor", "bonnie++", "-s", "1", "-r", "0", "-f", "-c", "2", "-n", "1",
    ]);
    assert_eq!(ops(&v, "put_block", "write"), 2 * 128);
    assert_eq!(ops(&v, "seeks", "read"), 2 * 8192);
    assert_eq!(ops(&v, "seq_create", "create"), 2 * 1024);
    assert_eq!(u64_at(&v, "metrics.put_block.work"), 2 << 20);
}

/// bonnie++ 2.00a's -D adds O_DIRECT where it creates the file: the block
/// write. The rewrite, the block read and the seeks open it as it is,
/// through the page cache; the per-char write (which 2.00a opens with
/// O_DIRECT and where it fails) runs buffered, and the report says so.
#[test]
fn direct_covers_the_block_write_as_in_bonnie_pp_and_the_null_engine_runs() {
    let (v, text) = bonnie(&["--flavor", "bonnie++", "-s", "1", "-r", "0", "-f", "-D"]);
    assert_eq!(ops(&v, "get_block", "read"), 128);
    let direct = |t: &str| v["metrics"][t]["o_direct"].as_bool();
    assert_eq!(direct("put_block"), Some(true));
    for t in ["rewrite", "get_block", "seeks"] {
        assert_eq!(direct(t), Some(false), "{t}");
    }
    let note = str_at(&v, "metrics.direct_note");
    assert!(note.contains("block write only"), "{note}");
    assert!(!note.contains("per-char"), "-f: no per-char test: {note}");
    assert!(text.contains(note), "the note is in the report");
    let (v, text) = bonnie(&["--flavor", "bonnie++", "-s", "1", "-r", "0", "-f1", "-D"]);
    assert_eq!(ops(&v, "putc", "write"), 1 << 20);
    assert_eq!(v["metrics"]["putc"]["o_direct"].as_bool(), Some(false));
    let note = str_at(&v, "metrics.direct_note");
    assert!(
        note.contains("per-char write") && note.contains("stops"),
        "{note}"
    );
    assert!(text.contains(note), "the note is in the report");
    let (v, _) = bonnie(&["-s", "1", "--engine", "null"]);
    assert_eq!(ops(&v, "put_block", "write"), 64);
    assert_eq!(ops(&v, "seeks", "read"), 4000);
}

#[test]
fn html_prints_bonnie_row() {
    let d = work_dir();
    let out = iogauge()
        .args(["bonnie", "-s", "1", "--html", "-m", "a<b", "-d", s(&d)])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let row = stdout.lines().next().unwrap();
    assert!(row.starts_with("<TR><TD>a&lt;b</TD><TD>1</TD>"), "{row}");
    assert_eq!(row.matches("<TD>").count(), 14, "{row}");
}

#[test]
fn bad_input_is_refused_with_one_line() {
    let d = work_dir();
    let dir = s(&d);
    for (args, says) in [
        (vec!["-s", "0"], "at least 1"),
        (vec!["--flavor", "bonnie++", "-s", "0"], "nothing to do"),
        (
            vec!["-s", "100t", "-r", "0", "--flavor", "bonnie++"],
            "space",
        ),
        (vec!["-s", "100t"], "space"),
        (
            vec![
                "--flavor",
                "bonnie++",
                "-s",
                "1",
                "-r",
                "0",
                "-n",
                "1:2:3:4:5",
            ],
            "smaller than the min",
        ),
        (vec!["-n", "1"], "bonnie++'s"),
        (
            vec!["--flavor", "bonnie++", "-s", "100", "-r", "1000"],
            "double RAM",
        ),
        (
            vec!["--flavor", "bonnie++", "-s", "1:3k", "-r", "0"],
            "power of two",
        ),
        (vec!["-s", "1:8k"], "bonnie++"),
        (vec!["--frob"], "--frob"),
        (vec!["-s", "x"], "not a whole number"),
        (
            vec!["--flavor", "bonnie++", "-s", "1", "-r", "0", "-c", "0"],
            "0",
        ),
        (
            vec![
                "--flavor",
                "bonnie++",
                "-s",
                "1",
                "-r",
                "0",
                "-u",
                "no_such_user_here",
            ],
            "no user",
        ),
        (
            vec![
                "--flavor",
                "bonnie++",
                "-s",
                "1",
                "-r",
                "0",
                "-Z",
                "/nonexistent/rand",
            ],
            "-Z",
        ),
        (
            vec!["--flavor", "bonnie++", "-s", "1:1k", "-r", "0", "-D"],
            "O_DIRECT",
        ),
    ] {
        let mut all = vec!["bonnie", "-d", dir];
        all.extend(args.iter().copied());
        let e = assert_usage_error(&all);
        assert!(e.contains(says), "{args:?}: {e}");
        assert_untouched(d.path());
    }
    let e = assert_usage_error(&["bonnie", "-d", "/nonexistent/x", "-s", "1"]);
    assert!(e.contains("/nonexistent/x"), "{e}");
}

#[test]
fn ctrl_c_stops_cleans_up_and_writes_a_partial_result() {
    use std::time::Duration;
    let dir = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("r.json");
    // the null engine: a 100 GiB file written a character at a time
    let mut child = StdCommand::new(bin_path())
        .args(["bonnie", "--engine", "null", "-s", "100g", "-d"])
        .arg(dir.path())
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    let (status, _) = signal_and_wait(&mut child, libc::SIGINT);
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["complete"], false);
    let done = u64_at(&v, "metrics.putc.work");
    assert!(done > 0 && done < 100 << 30, "{done}");
    assert!(
        v["metrics"].get("put_block").is_none(),
        "stopped in the first test"
    );
    assert_untouched(dir.path());
}

/// `iogauge show` prints each report again: Bonnie's table and HTML row,
/// bonnie++'s tables and CSV line, and -x's CSV line or table alone; the
/// figures read back are those the report printed.
#[test]
fn show_prints_each_report_again() {
    let d = work_dir();
    let dir = s(&d);
    let bonnie = ["bonnie", "-d", dir, "-s", "1", "-r", "0", "-m", "box"];
    let pp = [
        "bonnie", "-d", dir, "--flavor", "bonnie++", "-s", "1", "-r", "0", "-z", "7",
    ];
    for extra in [&[][..], &["--html"], &["-x", "1"]] {
        let (v, report) = assert_show_repeats(&[&bonnie[..], extra].concat());
        let put_block = f64_at(&v, "metrics.put_block.rate") as i64;
        let row = report.lines().find(|l| l.contains("box")).unwrap();
        assert!(
            row.split(['<', '>', ' '])
                .any(|c| c == put_block.to_string()),
            "{put_block} KiB/s: {row}"
        );
        if extra.is_empty() {
            let rate = format!("{:.0} KiB/s", f64_at(&v, "metrics.put_block.rate"));
            assert!(report.contains(&rate), "{rate}: {report}");
        }
    }
    for extra in [&["-f1", "-n", "1"][..], &["-f", "-x", "1"]] {
        let (v, report) = assert_show_repeats(&[&pp[..], extra].concat());
        let csv = str_at(&v, "metrics.csv");
        assert_eq!(report.lines().last(), Some(csv), "{report}");
        assert_eq!(csv_of(&report)[4], "7");
        assert_eq!(report.contains("Version 2.00a"), !extra.contains(&"-x"));
    }
    assert_untouched(d.path());
}

/// The runs of -x 2 are shown again each under its name, by its CSV line.
#[test]
fn show_prints_each_run_of_x_again() {
    let d = work_dir();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("runs.json");
    let run = iogauge()
        .args(["bonnie", "--flavor", "bonnie++", "-d", s(&d)])
        .args(["-s", "1", "-r", "0", "-f", "-x", "2", "-z", "3", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(run.status.success());
    let printed = strip_warnings(&String::from_utf8(run.stdout).unwrap());
    let shown = iogauge().arg("show").arg(&json).output().unwrap();
    assert!(shown.status.success());
    let shown = strip_warnings(&String::from_utf8(shown.stdout).unwrap());
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(
        shown,
        format!("== run 1 ==\n{}\n\n== run 2 ==\n{}\n", lines[1], lines[2])
    );
    assert_untouched(d.path());
}
