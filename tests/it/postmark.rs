//! Integration tests of `iogauge postmark`: the transcripts of Debian's
//! PostMark 1.53 (tests/fixtures/postmark, see its README) reproduced by the
//! binary with the timing figures masked; the command language from files
//! and from standard input; the JSON result; clean-up, also after Ctrl-C;
//! bad input; `--threads`.
//!
//! Every run is small (at most a few thousand files) and works in a
//! temporary directory.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/postmark");

/// What a run of the binary printed (stdout and stderr in one stream, as a
/// terminal shows them) and its exit code.
struct Ran {
    text: String,
    code: Option<i32>,
}

/// Run `iogauge postmark ARGS` in `cwd` with `stdin` as standard input,
/// stdout and stderr captured together (one file for both).
fn postmark(cwd: &Path, args: &[&str], stdin: &str) -> Ran {
    let both = tempfile::NamedTempFile::new().unwrap();
    // one open file description for both, so that they share the offset
    let out = both.reopen().unwrap();
    let err = out.try_clone().unwrap();
    let mut child = Command::new(bin_path())
        .arg("postmark")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut i = child.stdin.take().unwrap();
        let _ = i.write_all(stdin.as_bytes());
    }
    let status = child.wait().unwrap();
    let text = std::fs::read_to_string(both.path()).unwrap();
    assert!(!text.contains("panicked"), "{text}");
    Ran {
        text,
        code: status.code(),
    }
}

/// Standard output alone of `iogauge postmark ARGS`.
fn postmark_stdout(cwd: &Path, args: &[&str], stdin: &str) -> String {
    let out = iogauge()
        .arg("postmark")
        .args(args)
        .current_dir(cwd)
        .write_stdin(stdin)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Drop iogauge's additions: a blank line, a heading `iogauge: ...`, and the
/// blank or indented lines after it; and iogauge's own status lines.
fn postmark_part(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].is_empty() && lines.get(i + 1).is_some_and(|l| l.starts_with("iogauge: ")) {
            i += 2;
            while i < lines.len() && (lines[i].is_empty() || lines[i].starts_with("  ")) {
                i += 1;
            }
            continue;
        }
        // iogauge's warnings (volatile: the machine's memory and load) are not PostMark's
        if !lines[i].starts_with("iogauge: ") && !lines[i].starts_with("warning: ") {
            out.push_str(lines[i]);
            out.push('\n');
        }
        i += 1;
    }
    out
}

/// Remove `NAME:LINE: ` in front of messages about lines of `NAME`.
fn strip_locations(text: &str, names: &[&str]) -> String {
    text.lines()
        .map(|l| {
            for n in names {
                if let Some(rest) = l.strip_prefix(&format!("{n}:")) {
                    let (num, tail) = rest.split_once(": ").unwrap_or(("", rest));
                    if !num.is_empty() && num.chars().all(|c| c.is_ascii_digit()) {
                        return format!("{tail}\n");
                    }
                }
            }
            format!("{l}\n")
        })
        .collect()
}

/// A terse report line: 13 numbers.
fn is_terse(l: &str) -> bool {
    l.split(' ').count() == 13
        && l.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ' ')
}

/// Mask the timing figures of a verbose report line: seconds and every
/// "(... per second)". Counts and amounts stay.
fn mask_times(l: &str) -> String {
    let mut l = l.to_string();
    for suffix in [" seconds total", " seconds of transactions"] {
        if let Some(at) = l.find(suffix) {
            l = format!("\t#{}", &l[at..]);
        }
    }
    if let (Some(open), true) = (l.rfind('('), l.ends_with(" per second)")) {
        // keep the unit of data rates ("megabytes per second" -> "# per second")
        l = format!("{}(# per second)", &l[..open]);
    }
    l
}

/// Compare a PostMark transcript with iogauge's, line by line, timing
/// figures masked. Terse lines are compared exactly when both ran within
/// one second (then every interval is 1 and the line depends on the counts
/// only), by shape otherwise.
fn assert_same_transcript(name: &str, expected: &str, actual: &str) {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    for (i, (x, y)) in e.iter().zip(a.iter()).enumerate() {
        let same = if is_terse(x) && is_terse(y) {
            if x.starts_with("1 1 ") && y.starts_with("1 1 ") {
                x == y
            } else {
                true
            }
        } else {
            mask_times(x) == mask_times(y)
        };
        assert!(
            same,
            "{name}: line {} differs:\n  1.53:    {x:?}\n  iogauge: {y:?}\n--- iogauge's transcript:\n{actual}",
            i + 1
        );
    }
    assert_eq!(
        e.len(),
        a.len(),
        "{name}: {} lines from 1.53, {} from iogauge:\n{actual}",
        e.len(),
        a.len()
    );
}

/// A scratch directory laid out as regenerate.sh makes it: the fixture
/// files and the directories a, b and loc.
fn fixture_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let cwd = std::fs::canonicalize(d.path()).unwrap();
    for sub in ["a", "b", "loc"] {
        std::fs::create_dir(cwd.join(sub)).unwrap();
    }
    for f in [format!("{name}.pmrc"), "commands-loaded.pmrc".into()] {
        std::fs::copy(Path::new(FIXTURES).join(&f), cwd.join(&f)).unwrap();
    }
    (d, cwd)
}

/// Everything in `dir` that is not a fixture file or a fixture directory
/// (those must be empty).
fn leftovers(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = tree(dir)
        .into_iter()
        .filter(|p| !p.ends_with(".pmrc") && !["a", "b", "loc"].contains(&p.as_str()))
        .collect();
    v.sort();
    v
}

fn golden(name: &str, want_code: i32) {
    let (_d, cwd) = fixture_dir(name);
    let pmrc = format!("{name}.pmrc");
    let ran = postmark(&cwd, &[&pmrc], "");
    let expected =
        std::fs::read_to_string(Path::new(FIXTURES).join(format!("{name}.expected"))).unwrap();
    let ours = postmark_part(&strip_locations(
        &ran.text,
        &[&pmrc, "commands-loaded.pmrc"],
    ));
    let ours = ours.replace(
        &cwd.display().to_string(),
        &format!("/tmp/pm-fixtures/{name}"),
    );
    assert_same_transcript(name, &expected, &ours);
    assert_eq!(ran.code, Some(want_code), "{name}: {}", ran.text);
    assert!(
        leftovers(&cwd).is_empty(),
        "{name} left {:?}",
        leftovers(&cwd)
    );
}

macro_rules! golden_tests {
    ($($test:ident: $name:literal => $code:literal,)*) => {$(
        #[test]
        fn $test() {
            golden($name, $code);
        }
    )*};
}

golden_tests! {
    golden_spec_v1: "spec-v1" => 0,
    golden_spec_v2_subdirectories_and_a_location: "spec-v2" => 0,
    golden_spec_v3: "spec-v3" => 0,
    golden_spec_v4: "spec-v4" => 0,
    golden_spec_v5_out_of_files: "spec-v5-out-of-files" => 1,
    golden_defaults: "defaults" => 0,
    golden_float_byte_counters: "n1000-t5000-s500-20000" => 0,
    golden_biases: "bias-r2-c8" => 0,
    golden_subdirs10: "subdirs10" => 0,
    golden_unbuffered: "unbuffered" => 0,
    golden_two_weighted_locations: "two-locations" => 0,
    golden_out_of_files: "out-of-files" => 1,
    golden_fixed_size_terse: "fixed-size-terse" => 0,
    golden_table_full: "table-full" => 0,
    golden_dots: "dots" => 0,
    golden_command_language: "commands" => 2,
}

// ---------------------------------------------------------------- the JSON result

/// Run `script` (a .pmrc text ending with quit) with `--json -`; returns
/// the JSON and the transcript (on stderr).
fn run_json_script(cwd: &Path, script: &str, extra: &[&str]) -> (Value, String) {
    std::fs::write(cwd.join("t.pmrc"), script).unwrap();
    let out = iogauge()
        .arg("postmark")
        .arg("t.pmrc")
        .args(extra)
        .args(["--json", "-"])
        .current_dir(cwd)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    (v, stderr)
}

fn metric(v: &Value, name: &str) -> u64 {
    u64_at(v, &format!("metrics.{name}"))
}

/// The result's figures agree with each other and with PostMark's counters.
fn check_postmark_result(v: &Value) {
    assert_eq!(str_at(v, "schema"), "iogauge/result/v1");
    assert_eq!(str_at(v, "benchmark"), "postmark");
    assert!(!str_at(v, "environment.fs_type").is_empty());
    for k in ["create", "read", "append", "delete", "transaction"] {
        let lat = get(v, &format!("ops.{k}.latency_ns"));
        let p = |q: &str| lat[q].as_f64().unwrap();
        assert!(
            p("min") <= p("p50") * 1.001 + 1.0 && p("p50") <= p("p99") * 1.001 + 1.0,
            "{k}"
        );
        assert!(p("p99") <= p("max") * 1.001 + 1.0, "{k}");
    }
    assert_eq!(op_count(v, "create"), metric(v, "files_created"));
    assert_eq!(op_count(v, "read"), metric(v, "files_read"));
    assert_eq!(op_count(v, "append"), metric(v, "files_appended"));
    assert_eq!(op_count(v, "delete"), metric(v, "files_deleted"));
    assert_eq!(op_count(v, "transaction"), metric(v, "transactions_done"));
    let ops: u64 = ["create", "read", "append", "delete"]
        .iter()
        .map(|k| op_count(v, k))
        .sum();
    assert_eq!(u64_at(v, "summary.ops"), ops);
    let bytes = |k: &str| v["ops"].get(k).map_or(0, |o| o["bytes"].as_u64().unwrap());
    assert_eq!(u64_at(v, "summary.bytes_read"), bytes("read"));
    assert_eq!(u64_at(v, "summary.bytes_read"), metric(v, "bytes_read"));
    assert_eq!(
        u64_at(v, "summary.bytes_written"),
        bytes("create") + bytes("append")
    );
    assert_eq!(
        u64_at(v, "summary.bytes_written"),
        metric(v, "bytes_written")
    );
    let sum = |k: &str| -> u64 {
        get(v, &format!("timeseries.{k}"))
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum("ops"), ops);
    assert_eq!(
        sum("bytes"),
        metric(v, "bytes_read") + metric(v, "bytes_written")
    );
    let elapsed = f64_at(v, "elapsed_s");
    assert!((f64_at(v, "metrics.elapsed_s") - elapsed).abs() < 1e-6);
    let tx_s = f64_at(v, "metrics.transactions_s");
    assert!(tx_s > 0.0 && tx_s <= elapsed);
    let rate = f64_at(v, "metrics.transactions_per_s");
    assert!((rate - metric(v, "transactions_done") as f64 / tx_s).abs() <= 1e-6 * rate);
    let io = f64_at(v, "summary.io_time_fraction");
    assert!((0.0..=1.0).contains(&io));
    assert_eq!(
        metric(v, "files_created"),
        metric(v, "files_created_alone") + metric(v, "files_created_mixed")
    );
    assert_eq!(
        metric(v, "files_deleted"),
        metric(v, "files_deleted_alone") + metric(v, "files_deleted_mixed")
    );
}

#[test]
fn json_carries_postmarks_counts_exactly() {
    let dir = work_dir();
    // the spec's third vector, verified against 1.53
    let script = format!(
        "set location {}\nset number 300\nset transactions 3000\nset bias read 2\n\
         set bias create 8\nset seed 7\nrun\nquit\n",
        dir.path().display()
    );
    let (v, transcript) = run_json_script(dir.path(), &script, &[]);
    check_postmark_result(&v);
    assert!(get(&v, "complete").as_bool().unwrap());
    let got: Vec<u64> = [
        "files_created",
        "files_read",
        "files_appended",
        "files_deleted",
        "files_deleted_alone",
        "bytes_read",
        "bytes_written",
    ]
    .iter()
    .map(|m| metric(&v, m))
    .collect();
    assert_eq!(got, [1155, 611, 2353, 1155, 600, 4579092, 9247583]);
    assert_eq!(metric(&v, "files_created_alone"), 300);
    assert_eq!(u64_at(&v, "config.number"), 300);
    assert_eq!(u64_at(&v, "config.threads"), 1);
    assert_eq!(str_at(&v, "config.engine"), "buffered");
    assert!(transcript.contains("\t1155 created ("), "{transcript}");
    assert!(transcript.contains("\niogauge: PostMark 1.53, engine buffered, 1 stream"));
    std::fs::remove_file(dir.path().join("t.pmrc")).unwrap();
    assert_untouched(dir.path());
}

#[test]
fn unbuffered_runs_use_the_sync_engine_and_engines_can_be_chosen() {
    let dir = work_dir();
    let loc = dir.path().display().to_string();
    let script = format!(
        "set location {loc}\nset number 50\nset transactions 200\nset buffering false\nrun\nquit\n"
    );
    let (v, _) = run_json_script(dir.path(), &script, &[]);
    assert_eq!(str_at(&v, "config.engine"), "sync");
    check_postmark_result(&v);
    let counts = |v: &Value| -> Vec<u64> {
        [
            "files_created",
            "files_read",
            "files_appended",
            "bytes_written",
        ]
        .iter()
        .map(|m| metric(v, m))
        .collect()
    };
    for engine in ["psync", "buffered", "null"] {
        let (w, _) = run_json_script(dir.path(), &script, &["--engine", engine]);
        assert_eq!(str_at(&w, "config.engine"), engine);
        assert_eq!(counts(&w), counts(&v), "{engine}");
    }
    std::fs::remove_file(dir.path().join("t.pmrc")).unwrap();
    assert_untouched(dir.path());
    let e = assert_usage_error(&["postmark", "--engine", "bogus"]);
    assert!(e.contains("unknown engine 'bogus'"), "{e}");
}

#[test]
fn several_runs_give_a_collection_and_run_file_gets_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let script =
        "set number 20\nset transactions 50\nrun\nset report terse\nrun report.txt\nquit\n";
    std::fs::write(dir.path().join("t.pmrc"), script).unwrap();
    let ran = postmark(
        dir.path(),
        &["t.pmrc", "--json", json.to_str().unwrap()],
        "",
    );
    assert_eq!(ran.code, Some(0), "{}", ran.text);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["schema"], "iogauge/postmark-session/v1");
    assert_eq!(v["complete"], true);
    let runs = v["entries"].as_array().expect("entries for two runs");
    assert_eq!(runs.len(), 2);
    for (i, r) in runs.iter().enumerate() {
        assert_eq!(r["name"], format!("run {}", i + 1));
        check_postmark_result(&r["result"]);
    }
    let report = std::fs::read_to_string(dir.path().join("report.txt")).unwrap();
    assert!(is_terse(report.trim_end()), "{report:?}");
    // the terse report went to the file, not to stdout
    assert!(!ran.text.lines().any(is_terse), "{}", ran.text);
}

// ---------------------------------------------------------------- the command language

#[test]
fn file_errors_name_the_line_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let script = "set number 0\nset size 10 5\n# a comment\n\nset bias read 12\nfrobnicate\nset number 12\nshow\nquit\n";
    std::fs::write(dir.path().join("bad.pmrc"), script).unwrap();
    let ran = postmark(dir.path(), &["bad.pmrc"], "");
    assert_eq!(ran.code, Some(2), "{}", ran.text);
    for want in [
        "bad.pmrc:1: Error: invalid number of files\n",
        "bad.pmrc:3: Eh?\n",
        "bad.pmrc:4: Eh?\n",
        "bad.pmrc:5: Error: no bias specified (0-10 for greater chance,-1 to disable)\n",
        "bad.pmrc:6: Eh?\n",
        "The base number of files is 12\n",
        // 1.53 takes a high bound below the low one as the low one, silently
        "Files are 10 bytes in size\n",
    ] {
        assert!(
            ran.text.contains(want),
            "{want:?} missing from:\n{}",
            ran.text
        );
    }
    assert!(!ran.text.contains("bad.pmrc:2:"), "{}", ran.text);
    let last = ran.text.lines().last().unwrap();
    assert!(
        last.starts_with("iogauge: 5 commands of the session were refused"),
        "{last}"
    );
    // Eh? goes to stdout, as in 1.53; the Error lines to stderr
    let stdout = postmark_stdout(dir.path(), &["bad.pmrc"], "");
    assert!(stdout.contains("bad.pmrc:3: Eh?"));
    assert!(!stdout.contains("Error:"));
}

#[test]
fn commands_piped_on_stdin_work_without_a_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let ran = postmark(
        dir.path(),
        &[],
        "set number 20\nset transactions 50\nhelp set s\n?\nshow\nrun\nexit\nset number 6\n",
    );
    assert_eq!(ran.code, Some(0), "{}", ran.text);
    let t = &ran.text;
    assert!(
        t.starts_with("PostMark v1.51 : 8/14/01\nset size - "),
        "{t}"
    );
    assert!(!t.contains("pm>"), "{t}");
    assert!(!t.contains("Reading configuration"), "{t}");
    assert!(t.contains("set seed - Sets seed for random number generator\nset subdirectories - "));
    assert!(t.contains("quit - Exit program\n"));
    assert!(t.contains("The base number of files is 20\n"));
    assert!(t.contains("Creating files...Done\nPerforming transactions..........Done\n"));
    assert!(!t.contains("is 6"));
    assert_eq!(leftover_work_dirs(dir.path()), Vec::<String>::new());
}

fn leftover_work_dirs(dir: &Path) -> Vec<String> {
    tree(dir)
        .into_iter()
        .filter(|p| p.starts_with("iogauge-"))
        .collect()
}

#[test]
fn pmrc_is_read_at_start_and_quit_there_ends_the_session() {
    let dir = tempfile::tempdir().unwrap();
    // no .pmrc: the banner, then stdin
    let ran = postmark(dir.path(), &[], "");
    assert_eq!(ran.text, "PostMark v1.51 : 8/14/01\n");
    assert_eq!(ran.code, Some(0));
    std::fs::write(dir.path().join(".pmrc"), "set number 33\nshow\nquit\n").unwrap();
    let ran = postmark(dir.path(), &[], "set number 44\nshow\n");
    assert!(ran.text.starts_with(
        "PostMark v1.51 : 8/14/01\nReading configuration from file '.pmrc'\nCurrent configuration is:\nThe base number of files is 33\n"
    ), "{}", ran.text);
    assert!(!ran.text.contains("44"), "stdin is not read after quit");
    // a file without quit: stdin follows; the last line without a newline
    // loses its last character (quitX -> quit)
    std::fs::write(dir.path().join(".pmrc"), "set number 33\n").unwrap();
    let ran = postmark(dir.path(), &[], "set number 44\nshow\nquitX");
    assert!(
        ran.text.contains("The base number of files is 44\n"),
        "{}",
        ran.text
    );
    assert_eq!(ran.code, Some(0), "{}", ran.text);
}

#[test]
fn a_missing_configuration_file_is_bad_usage() {
    let e = assert_usage_error(&["postmark", "/nonexistent/pm.pmrc"]);
    assert!(
        e.contains("cannot read configuration file '/nonexistent/pm.pmrc'"),
        "{e}"
    );
}

#[test]
fn shell_escape_runs_a_command() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.pmrc"),
        "!echo from-the-shell > shell-out.txt\n!echo on-stdout\nquit\n",
    )
    .unwrap();
    let ran = postmark(dir.path(), &["t.pmrc"], "");
    assert_eq!(ran.code, Some(0), "{}", ran.text);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shell-out.txt")).unwrap(),
        "from-the-shell\n"
    );
    assert!(ran.text.contains("on-stdout\n"), "{}", ran.text);
    let stdout = postmark_stdout(dir.path(), &["t.pmrc"], "");
    assert!(stdout.contains("on-stdout\n"), "{stdout}");
}

#[test]
fn quiet_prints_nothing_but_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.pmrc"),
        "set number 10\nset transactions 20\nset seed 0\nrun\nquit\n",
    )
    .unwrap();
    let out = iogauge()
        .args(["postmark", "t.pmrc", "--quiet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("t.pmrc:3: Error: invalid seed for random numbers\n"),
        "{err}"
    );
}

/// `--quiet` hides PostMark's `Eh?` (it goes to stdout), so the closing
/// line names the unknown commands itself.
#[test]
fn quiet_names_the_unknown_commands_it_hid() {
    let dir = tempfile::tempdir().unwrap();
    let out = iogauge()
        .args(["postmark", "-q"])
        .current_dir(dir.path())
        .write_stdin("frob\nquit\n")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        err,
        "iogauge: 1 command of the session was refused: 'frob' is not a PostMark command \
         ('help' lists the commands; --quiet hid PostMark's 'Eh?')\n"
    );

    // from a file, with a refusal that --quiet does not hide
    std::fs::write(
        dir.path().join("t.pmrc"),
        "set number 0\nfrobnicate 3\nquit\n",
    )
    .unwrap();
    let out = iogauge()
        .args(["postmark", "t.pmrc", "--quiet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(
        err,
        "t.pmrc:1: Error: invalid number of files\n\
         iogauge: 2 commands of the session were refused: 'frobnicate 3' (t.pmrc:2) is not a PostMark command \
         ('help' lists the commands; --quiet hid PostMark's 'Eh?'); the message of the other 1 is above\n"
    );
    // without --quiet the Eh? is there, and the line points to it
    let ran = postmark(dir.path(), &["t.pmrc"], "");
    assert!(ran.text.contains("t.pmrc:2: Eh?\n"), "{}", ran.text);
    assert!(
        ran.text.ends_with(
            "iogauge: 2 commands of the session were refused (see the messages above)\n"
        ),
        "{}",
        ran.text
    );
}

#[test]
fn fewer_than_ten_transactions_print_a_dot_each() {
    let dir = tempfile::tempdir().unwrap();
    let ran = postmark(dir.path(), &[], "set number 10\nset transactions 5\nrun\n");
    assert_eq!(ran.code, Some(0), "{}", ran.text);
    assert!(
        ran.text.contains("Performing transactions.....Done\n"),
        "{}",
        ran.text
    );
    assert!(
        ran.text.contains("Deleting files...Done\nTime:\n"),
        "{}",
        ran.text
    );
}

// ---------------------------------------------------------------- bad input and clean-up

#[test]
fn missing_and_read_only_locations_are_refused_without_leftovers() {
    let dir = work_dir();
    let missing = dir.path().join("missing");
    let script = format!(
        "set location {}\nset number 10\nrun\nset number 0\nquit\n",
        missing.display()
    );
    std::fs::write(dir.path().join("t.pmrc"), &script).unwrap();
    let ran = postmark(dir.path(), &["t.pmrc"], "");
    assert_eq!(ran.code, Some(2), "{}", ran.text);
    assert!(
        ran.text.contains(&format!(
            "t.pmrc:3: Error: cannot use location '{}': does not exist\n",
            missing.display()
        )),
        "{}",
        ran.text
    );
    assert!(
        ran.text
            .contains("t.pmrc:4: Error: invalid number of files\n")
    );
    assert!(!ran.text.contains("Creating files"), "{}", ran.text);
    std::fs::remove_file(dir.path().join("t.pmrc")).unwrap();
    assert_untouched(dir.path());

    // a directory nobody may write in
    let ro = if is_root() {
        // root writes anywhere mode bits allow nothing; sysfs refuses mkdir
        let probe = Path::new("/sys/iogauge-probe");
        if std::fs::create_dir(probe).is_ok() {
            let _ = std::fs::remove_dir(probe);
            return;
        }
        PathBuf::from("/sys")
    } else {
        use std::os::unix::fs::PermissionsExt;
        let ro = dir.path().join("sub");
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        ro
    };
    let script = format!("set location {}\nset number 10\nrun\nquit\n", ro.display());
    std::fs::write(dir.path().join("t.pmrc"), &script).unwrap();
    let ran = postmark(dir.path(), &["t.pmrc"], "");
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert_eq!(ran.code, Some(2), "{}", ran.text);
    let want = if is_root() {
        format!(
            "t.pmrc:3: Error: cannot use location '{}': is on sysfs, a pseudo file system",
            ro.display()
        )
    } else {
        format!(
            "t.pmrc:3: Error: cannot use location '{}': is not writable (",
            ro.display()
        )
    };
    assert!(ran.text.contains(&want), "{}", ran.text);
    std::fs::remove_file(dir.path().join("t.pmrc")).unwrap();
    assert_untouched(dir.path());
}

/// Ctrl-C (and SIGTERM) in the middle of a run: the run stops within a
/// second, removes everything it made, writes the partial result and exits
/// with 130.
#[test]
fn an_interrupted_run_cleans_up_and_writes_a_partial_result() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let dir = work_dir();
        let json = tempfile::NamedTempFile::new().unwrap();
        let script = format!(
            "set location {}\nset subdirectories 4\nset number 2000\nset transactions 100000000\nrun\nquit\n",
            dir.path().display()
        );
        let rc = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(rc.path(), script).unwrap();
        let mut child = Command::new(bin_path())
            .args(["postmark", rc.path().to_str().unwrap(), "--json"])
            .arg(json.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // wait until the transactions run (the work directory holds files)
        let t = Instant::now();
        loop {
            let files = tree(dir.path()).len();
            if files > 2000 || t.elapsed() > Duration::from_secs(20) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: kill with a pid of our own child.
        unsafe { libc::kill(child.id() as i32, sig) };
        let sent = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                sent.elapsed() < Duration::from_secs(10),
                "no exit after the signal"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut err = String::new();
        use std::io::Read;
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(130), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains("interrupted"), "{err}");
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(json.path()).unwrap()).unwrap();
        assert!(!get(&v, "complete").as_bool().unwrap());
        assert!(op_count(&v, "create") >= 2000);
        assert!(op_count(&v, "transaction") > 0);
        assert_untouched(dir.path());
    }
}

#[test]
fn ctrl_c_at_the_prompt_ends_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin_path())
        .arg("postmark")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _keep_open = child.stdin.take();
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill with a pid of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "still waiting for input"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(130));
}

// ---------------------------------------------------------------- --threads

#[test]
fn threads_run_independent_streams_and_report_each() {
    let dir = work_dir();
    let script = format!(
        "set location {}\nset number 100\nset transactions 300\nset subdirectories 3\nrun\nquit\n",
        dir.path().display()
    );
    let (v, transcript) = run_json_script(dir.path(), &script, &["--threads", "3"]);
    check_postmark_result(&v);
    assert_eq!(u64_at(&v, "config.threads"), 3);
    let streams = get(&v, "metrics.streams").as_array().unwrap();
    assert_eq!(streams.len(), 3);
    let seeds: Vec<u64> = streams
        .iter()
        .map(|s| s["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, [42, 43, 44]);
    let total: u64 = streams
        .iter()
        .map(|s| s["files_created"].as_u64().unwrap())
        .sum();
    assert_eq!(metric(&v, "files_created"), total);
    assert_eq!(metric(&v, "transactions_done"), 900);
    assert_eq!(u64_at(&v, "summary.workers"), 3);
    // stream 0 is a plain run with the base seed
    let (plain, _) = run_json_script(dir.path(), &script, &[]);
    for m in [
        "files_created",
        "files_read",
        "files_appended",
        "bytes_written",
    ] {
        assert_eq!(streams[0][m].as_u64().unwrap(), metric(&plain, m), "{m}");
    }
    assert!(transcript.contains("iogauge: PostMark 1.53, engine buffered, 3 streams"));
    assert!(transcript.contains("\n  stream "), "{transcript}");
    std::fs::remove_file(dir.path().join("t.pmrc")).unwrap();
    assert_untouched(dir.path());
}

#[test]
fn help_lists_the_subcommand() {
    let out = iogauge().args(["postmark", "--help"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in ["--threads", "--engine", "--json", "--quiet"] {
        assert!(text.contains(flag), "{flag}");
    }
    assert_usage_error(&["postmark", "--threads", "0"]);
}

// ---------------------------------------------------------------- out of space

/// A small ext4 file system on a loop device, unmounted and removed when
/// dropped (also when the test fails).
struct LoopFs {
    _dir: tempfile::TempDir,
    mnt: PathBuf,
}

impl LoopFs {
    /// A `size`-byte ext4 image mounted in a fresh directory, or why it
    /// cannot be made here.
    fn new(size: &str) -> Result<LoopFs, String> {
        if !is_root() {
            return Err("mounting a loop device needs root".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let img = dir.path().join("img");
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).map_err(|e| e.to_string())?;
        let run = |cmd: &str, args: &[&std::ffi::OsStr]| -> Result<(), String> {
            match Command::new(cmd).args(args).output() {
                Ok(o) if o.status.success() => Ok(()),
                Ok(o) => Err(format!(
                    "{cmd} failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                )),
                Err(e) => Err(format!("cannot run {cmd}: {e}")),
            }
        };
        run("truncate", &["-s".as_ref(), size.as_ref(), img.as_os_str()])?;
        run("mkfs.ext4", &["-q".as_ref(), img.as_os_str()])?;
        run(
            "mount",
            &[
                "-o".as_ref(),
                "loop".as_ref(),
                img.as_os_str(),
                mnt.as_os_str(),
            ],
        )?;
        Ok(LoopFs { _dir: dir, mnt })
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.mnt)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
        }
    }
}

/// A run that runs out of space part-way: its initial pool fits (so the
/// space check lets it start), but appends and creations grow it past the
/// 40 MiB file system. Every figure of every report (PostMark's, iogauge's
/// additions, the JSON) counts the bytes really written, fewer than the
/// planned ones, and the report says the run failed for want of space.
#[test]
fn out_of_space_reports_the_bytes_really_written() {
    let fs = match LoopFs::new("40M") {
        Ok(fs) => fs,
        Err(why) => {
            eprintln!("SKIPPED out_of_space_reports_the_bytes_really_written: {why}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.pmrc"),
        format!(
            "set location {}\nset number 8\nset size 1000000 3000000\nset transactions 300\n\
             set bias read 1\nset bias create 9\nrun\nquit\n",
            fs.mnt.display()
        ),
    )
    .unwrap();
    let json = dir.path().join("r.json");
    let json_arg = json.to_str().unwrap();
    // what PostMark means to write: the same plan, no I/O
    let planned = {
        let out = iogauge()
            .args([
                "postmark", "t.pmrc", "--quiet", "--engine", "null", "--json",
            ])
            .arg(&json)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        metric(&v, "bytes_written")
    };
    for engine in ["buffered", "sync"] {
        let out = iogauge()
            .args(["postmark", "t.pmrc", "--engine", engine, "--json", json_arg])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let all = format!("{stdout}\n--- stderr:\n{stderr}");
        assert!(!all.contains("panicked"), "{all}");
        assert_eq!(out.status.code(), Some(1), "{engine}: {all}");
        let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        check_postmark_result(&v);
        assert!(!get(&v, "complete").as_bool().unwrap());
        assert!(
            str_at(&v, "error").starts_with("out of space: "),
            "{engine}: {}",
            str_at(&v, "error")
        );
        assert_eq!(get(&v, "metrics.out_of_space").as_bool(), Some(true));
        let written = u64_at(&v, "summary.bytes_written");
        assert_eq!(metric(&v, "bytes_written"), written, "{engine}");
        assert!(
            written > 0 && written < planned,
            "{engine}: {written} B written, {planned} B planned"
        );
        // PostMark's report: scalef of the bytes written
        let mb = format!(
            "\t{:.2} megabytes written (",
            f64::from(written as f32 / 1048576.0)
        );
        assert!(stdout.contains(&mb), "{engine}: no {mb:?} in {all}");
        // iogauge's additions
        let data = format!(" B/s), {written} B written (");
        assert!(stdout.contains(&data), "{engine}: no {data:?} in {all}");
        let failed = format!(
            "  FAILED part-way (out of space): {} I/O error(s); the byte counts here and in PostMark's report above are what was really written ({written} B; PostMark planned {planned} B) and read\n",
            metric(&v, "io_errors")
        );
        assert!(stdout.contains(&failed), "{engine}: no {failed:?} in {all}");
        assert_shown_as_printed(&stdout, &json);
        assert!(
            stderr.contains("t.pmrc:7: iogauge: the run did not complete: out of space: "),
            "{engine}: {all}"
        );
        // nothing left behind
        assert_eq!(tree(&fs.mnt), ["lost+found"], "{engine}");
    }
}

// ---------------------------------------------------------------- iogauge show

/// `iogauge show JSON` prints what the session printed after each run's
/// progress lines (the run's report and iogauge's block), a session of
/// several runs each under `== run N ==`.
fn assert_shown_as_printed(printed: &str, json: &Path) -> String {
    let out = iogauge().args(["show", p(json)]).output().unwrap();
    assert!(
        out.status.success(),
        "iogauge show: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = String::from_utf8(out.stdout).unwrap();
    let end = " (removed)\n";
    let runs: Vec<&str> = printed
        .split("Deleting files...Done\n")
        .skip(1)
        .map(|r| {
            // the block, then the warnings iogauge printed after it
            let mut n = r.find(end).expect("iogauge's block") + end.len();
            while r[n..].starts_with("warning: ") {
                n += r[n..].find('\n').map_or(r.len() - n, |i| i + 1);
            }
            &r[..n]
        })
        .collect();
    let want = match runs[..] {
        [one] => one.to_string(),
        _ => runs
            .iter()
            .enumerate()
            .map(|(i, r)| format!("== run {} ==\n{r}", i + 1))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    assert_eq!(shown, want, "iogauge show printed another report");
    shown
}

/// Run `script` in `dir` with `--json`, then show the result; returns the
/// result and what was shown.
fn assert_show_repeats_session(dir: &Path, script: &str, extra: &[&str]) -> (Value, String) {
    std::fs::write(dir.join("t.pmrc"), script).unwrap();
    let json = dir.join("r.json");
    let out = iogauge()
        .args(["postmark", "t.pmrc", "--json", p(&json)])
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = assert_shown_as_printed(&String::from_utf8(out.stdout).unwrap(), &json);
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(dir.join("t.pmrc")).unwrap();
    std::fs::remove_file(json).unwrap();
    (v, shown)
}

#[test]
fn show_prints_each_report_again() {
    let dir = work_dir();
    let small = "set number 20\nset transactions 50\n";
    // verbose: a figure read back is the one printed
    let (v, shown) = assert_show_repeats_session(dir.path(), &format!("{small}run\nquit\n"), &[]);
    assert!(shown.starts_with("Time:\n"), "{shown}");
    let created = format!("\t{} created (", metric(&v, "files_created"));
    assert!(shown.contains(&created), "{shown}");
    let total = format!(
        "\n  time     {:.6} s total",
        f64_at(&v, "metrics.elapsed_s")
    );
    assert!(shown.contains(&total), "{shown}");
    // terse
    let (_, shown) = assert_show_repeats_session(
        dir.path(),
        &format!("{small}set report terse\nrun\nquit\n"),
        &[],
    );
    assert!(is_terse(shown.lines().next().unwrap()), "{shown}");
    // streams
    let (v, shown) = assert_show_repeats_session(
        dir.path(),
        &format!("{small}run\nquit\n"),
        &["--threads", "2"],
    );
    assert_eq!(get(&v, "metrics.streams").as_array().unwrap().len(), 2);
    assert!(shown.contains("\n  stream "), "{shown}");
    // a session of two runs, one of each format
    let (v, shown) = assert_show_repeats_session(
        dir.path(),
        &format!("{small}run\nset report terse\nrun\nquit\n"),
        &[],
    );
    assert_eq!(v["schema"], "iogauge/postmark-session/v1");
    assert!(shown.starts_with("== run 1 ==\nTime:\n"), "{shown}");
    assert!(shown.contains("\n== run 2 ==\n"), "{shown}");
    assert_untouched(dir.path());
}
