//! `iogauge fio`: fio's job files and command-line jobs, read with
//! `--parse-only` on the fixtures of tests/fixtures/fio/parse/ (golden
//! output), and the refusals with their file:line.

use crate::common::*;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/parse")
}

/// `iogauge fio ARGS` run in the fixtures' directory (so that the places
/// it prints are the fixtures' relative names).
fn fio(args: &[&str]) -> std::process::Output {
    iogauge()
        .current_dir(fixtures())
        .env("FIO_SIZE", "256m")
        .arg("fio")
        .args(args)
        .output()
        .unwrap()
}

fn refused(args: &[&str]) -> String {
    let out = fio(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn parse_only_shows_every_job_as_the_golden_file() {
    let before = tree(&fixtures());
    let out = fio(&["--parse-only", "basic.fio", "second.fio"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    let want = std::fs::read_to_string(fixtures().join("basic.out")).unwrap();
    assert_eq!(got, want);
    assert_eq!(tree(&fixtures()), before, "the parse wrote nothing");
}

#[test]
fn unsupported_and_unknown_options_are_named_with_their_place() {
    let e = refused(&["--parse-only", "unsupported.fio"]);
    assert!(
        e.starts_with(
            "iogauge: unsupported.fio:6: fio option 'cpumask' is not supported by iogauge"
        ),
        "{e}"
    );
    assert_eq!(
        refused(&["--parse-only", "unknown.fio"]),
        "iogauge: unknown.fio:3: unknown fio option 'blocksz'\n"
    );
    let e = refused(&["--parse-only", "loop.fio"]);
    assert!(
        e.starts_with("iogauge: inc/loop-b.inc:2: include loop-a.inc includes itself (through loop.fio → inc/loop-a.inc → inc/loop-b.inc)"),
        "{e}"
    );
    let e = refused(&["--parse-only", "badvalue.fio"]);
    assert!(
        e.starts_with("iogauge: badvalue.fio:2: size: '1.5g'"),
        "{e}"
    );
    let e = refused(&["--parse-only", "absent.fio"]);
    assert!(
        e.starts_with("iogauge: absent.fio: cannot read the job file"),
        "{e}"
    );
    // what a run cannot do is refused before anything is made
    let e = refused(&["--name=a", "--size=1m", "--verify=md5"]);
    assert!(
        e.starts_with("iogauge: command line, argument ") && e.contains("verify=md5"),
        "{e}"
    );
    let e = refused(&[]);
    assert!(e.contains("no jobs"), "{e}");
}

#[test]
fn ignore_unsupported_lists_what_it_left_out() {
    let out = fio(&["--parse-only", "--ignore-unsupported", "unsupported.fio"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with(
        "fio options left out (--ignore-unsupported):\n  cpumask=0xf  [job]  unsupported.fio:6\n  hipri  [job]  unsupported.fio:7\n1 job in 1 group; parsed only, nothing was run\n"
    ), "{text}");
}

#[test]
fn the_command_line_form_and_json() {
    let dir = work_dir();
    let json = dir.path().join("jobs.json");
    let out = fio(&[
        "--bs=8k",
        "--name=a",
        "--rw",
        "randwrite",
        "--iodepth=4",
        "--name=b",
        "--parse-only",
        "--section=b",
        "--output-format=json,normal",
        "--json",
        p(&json),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("[b] job 0 of 1, group 0, from command line, argument 7\n"),
        "{text}"
    );
    assert!(
        text.contains("  8192  ") && text.contains("command line, argument 2 (bs=8k)"),
        "{text}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schema"], "iogauge/fio-parse/v1");
    assert_eq!(doc["output_format"], serde_json::json!(["json", "normal"]));
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(doc["jobs"][0]["name"], "b");
    assert_eq!(doc["jobs"][0]["bs"]["read"], 8192);
    assert_eq!(
        doc["jobs"][0]["origin"]["bs"][0],
        "command line, argument 2"
    );
    let e = refused(&["--parse-only", "--name=a", "--cpumask=1"]);
    assert_eq!(
        e,
        "iogauge: command line, argument 4: fio option 'cpumask' is not supported by iogauge (--ignore-unsupported lists it and goes on)\n"
    );
    let e = refused(&["--parse-only", "--output-format=xml", "--name=a"]);
    assert!(e.contains("'xml' is not an output format"), "{e}");
}

#[test]
fn output_writes_the_report_to_a_file() {
    let dir = work_dir();
    let f = dir.path().join("parse.txt");
    let out = fio(&["--parse-only", "--name=a", "--output", p(&f)]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(
        text.ends_with("1 job in 1 group; parsed only, nothing was run\n"),
        "{text}"
    );
}
