//! Every JSON document iogauge writes matches docs/result-schema.json.
//!
//! Each command that takes `--json` runs for real, on small sizes in
//! temporary directories, and its output is validated (draft 2020-12, with
//! `format` checked). A failure lists every error with its instance path.
//! The schema itself is checked against the draft's meta-schema, and shown
//! to reject documents that are wrong, so a pass means something. The CSV
//! export is checked against the JSON of the same run.

use crate::common::*;
use jsonschema::Validator;
use jsonschema::error::{ValidationError, ValidationErrorKind};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

const SCHEMA_FILE: &str = "docs/result-schema.json";

/// The schema document, read once.
fn schema() -> &'static Value {
    static S: OnceLock<Value> = OnceLock::new();
    S.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCHEMA_FILE);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
    })
}

/// The validator, built once for every test.
fn validator() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| {
        jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(schema())
            .unwrap_or_else(|e| panic!("{SCHEMA_FILE} does not compile: {e}"))
    })
}

/// A message, cut short: some errors print the whole instance.
fn short(s: String) -> String {
    const MAX: usize = 300;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// Whether a branch of a `oneOf` failed on the document's `schema` name: it
/// describes another kind of document, and its errors say nothing.
fn other_kind(branch: &[ValidationError]) -> bool {
    branch.iter().any(|e| {
        e.instance_path().as_str() == "/schema"
            && matches!(e.kind(), ValidationErrorKind::Constant { .. })
    })
}

/// One line per error, `at PATH: message (schema: PATH)`. The top-level
/// `oneOf` is opened up: the errors shown are those of the branch the
/// document's `schema` names.
fn describe(e: &ValidationError, out: &mut Vec<String>) {
    let path = match e.instance_path().as_str() {
        "" => "/",
        p => p,
    };
    match e.kind() {
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            let claimed: Vec<_> = context.iter().filter(|b| !other_kind(b)).collect();
            if claimed.is_empty() {
                out.push(format!(
                    "at {path}: `schema` names no known document (schema: {})",
                    e.schema_path()
                ));
            }
            for branch in claimed {
                for inner in branch {
                    describe(inner, out);
                }
            }
        }
        _ => out.push(format!(
            "at {path}: {} (schema: {})",
            short(e.to_string()),
            e.schema_path()
        )),
    }
}

/// Every error of `doc`, described; empty when it is valid.
fn errors(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for e in validator().iter_errors(doc) {
        describe(&e, &mut out);
    }
    out
}

/// `doc` (from `what`) is valid, or the test fails listing every error.
pub(crate) fn assert_valid(what: &str, doc: &Value) {
    let errs = errors(doc);
    assert!(
        errs.is_empty(),
        "{what} does not match {SCHEMA_FILE} ({} errors):\n  {}",
        errs.len(),
        errs.join("\n  ")
    );
}

/// Read and validate the JSON document at `path`; return it.
fn validate_file(what: &str, path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{what}: cannot read {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{what}: {} is not JSON ({e}): {text}", path.display()));
    assert_valid(what, &doc);
    doc
}

/// Run `cmd`, which must succeed (no panic), within `timeout`.
fn succeed(what: &str, cmd: &mut assert_cmd::Command, timeout: Duration) -> String {
    let out = cmd.timeout(timeout).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{what} failed with {}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const SHORT: Duration = Duration::from_secs(60);

/// A scratch directory for `--dir` and one for the outputs.
struct Scratch {
    data: tempfile::TempDir,
    out: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            data: tempfile::tempdir().unwrap(),
            out: tempfile::tempdir().unwrap(),
        }
    }
    fn dir(&self) -> &str {
        p(self.data.path())
    }
    fn file(&self, name: &str) -> PathBuf {
        self.out.path().join(name)
    }
}

// ---------------------------------------------------------------- the schema itself

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    assert_eq!(
        schema()["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    if let Err(e) = jsonschema::draft202012::meta::validate(schema()) {
        panic!(
            "{SCHEMA_FILE} is not a valid draft 2020-12 schema: at {}: {e}",
            e.instance_path()
        );
    }
    validator();
}

/// Every property the schema names says what it is.
#[test]
fn every_property_has_a_description() {
    fn walk(v: &Value, at: &str, missing: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    for (k, s) in props {
                        let has = s.get("description").is_some()
                            // a `$ref` to a described definition
                            || s.get("$ref").is_some()
                            // a collection narrowing a property it inherits
                            || s.get("const").is_some()
                            || s.get("items").is_some_and(|i| i.get("$ref").is_some());
                        if !has {
                            missing.push(format!("{at}/properties/{k}"));
                        }
                    }
                }
                for (k, s) in m {
                    walk(s, &format!("{at}/{k}"), missing);
                }
            }
            Value::Array(a) => {
                for (i, s) in a.iter().enumerate() {
                    walk(s, &format!("{at}/{i}"), missing);
                }
            }
            _ => {}
        }
    }
    let mut missing = Vec::new();
    walk(schema(), "", &mut missing);
    assert!(missing.is_empty(), "no description: {missing:#?}");
    for (name, def) in schema()["$defs"].as_object().unwrap() {
        assert!(
            def.get("description").is_some(),
            "$defs/{name} has no description"
        );
    }
}

/// A small valid result, built by the library as the commands build theirs.
fn sample_result() -> Value {
    use iogauge::report::{OpSummary, RunResult, now_rfc3339};
    let env = iogauge::env::detect(Path::new("."));
    let mut r = RunResult::new("run", json!({"ops": 3}), env, now_rfc3339());
    r.ops.insert(
        "read".into(),
        OpSummary {
            count: 3,
            bytes: 12,
            ..Default::default()
        },
    );
    r.summary.ops = 3;
    r.summary.bytes_read = 12;
    r.metric("iops", 1.5);
    // the rest of the generic workload's figures
    r.metric("requests_per_s", 1.5);
    r.metric(
        "request_latency_ns",
        iogauge::measure::LatencySummary::default(),
    );
    r.metric("mb_per_s", 0.0);
    serde_json::to_value(&r).unwrap()
}

fn sample_collection(schema: &str) -> Value {
    use iogauge::report::{Collection, Entry, RunResult};
    let r: RunResult = serde_json::from_value(sample_result()).unwrap();
    let c = Collection::new(schema, vec![Entry::new("run 1", r)]);
    serde_json::to_value(&c).unwrap()
}

/// The errors of `doc` after `change`; they must name `path`.
fn errors_after(doc: &Value, change: impl FnOnce(&mut Value), path: &str) -> Vec<String> {
    let mut d = doc.clone();
    change(&mut d);
    let errs = errors(&d);
    assert!(
        errs.iter().any(|e| e.starts_with(&format!("at {path}:"))),
        "expected an error at {path}, got {errs:#?}"
    );
    errs
}

/// The validation bites: each of these wrong documents is refused, with
/// an error at the place that is wrong.
#[test]
fn wrong_documents_are_rejected() {
    let good = sample_result();
    assert_valid("the sample result", &good);

    let errs = errors_after(
        &good,
        |d| {
            d.as_object_mut().unwrap().remove("summary");
        },
        "/",
    );
    assert!(errs[0].contains("summary"), "{errs:?}");
    errors_after(&good, |d| d["summary"]["ops"] = json!(-1), "/summary/ops");
    errors_after(&good, |d| d["summary"]["ops"] = json!(1.5), "/summary/ops");
    errors_after(
        &good,
        |d| d["summary"]["io_time_fraction"] = json!(1.5),
        "/summary/io_time_fraction",
    );
    errors_after(&good, |d| d["summary"]["extra"] = json!(1), "/summary");
    // a benchmark's figures are typed: a complete IOStone result needs its
    // number, and a failed one may lack it
    let stone = |d: &mut Value| {
        d["benchmark"] = json!("iostone");
        d["metrics"] = json!({});
    };
    errors_after(&good, stone, "/metrics");
    errors_after(
        &good,
        |d| {
            stone(d);
            d["metrics"]["iostones_per_s"] = json!("fast");
        },
        "/metrics/iostones_per_s",
    );
    let mut failed = good.clone();
    stone(&mut failed);
    failed["complete"] = json!(false);
    assert_valid("a failed IOStone result without figures", &failed);
    errors_after(&good, |d| d["surprise"] = json!(true), "/");
    errors_after(
        &good,
        |d| d["started_at"] = json!("yesterday"),
        "/started_at",
    );
    errors_after(
        &good,
        |d| d["started_at"] = json!("2025-13-45T25:61:61Z"),
        "/started_at",
    );
    errors_after(&good, |d| d["tool"]["name"] = json!("fio"), "/tool/name");
    errors_after(&good, |d| d["config"] = json!(null), "/config");
    errors_after(&good, |d| d["error"] = json!(null), "/error");
    errors_after(&good, |d| d["elapsed_s"] = json!(null), "/elapsed_s");
    errors_after(
        &good,
        |d| d["ops"]["bogus"] = d["ops"]["read"].clone(),
        "/ops",
    );
    errors_after(
        &good,
        |d| d["ops"]["read"]["latency_ns"]["p50"] = json!(-3),
        "/ops/read/latency_ns/p50",
    );
    errors_after(
        &good,
        |d| {
            d["ops"]["read"]["latency_ns"]
                .as_object_mut()
                .unwrap()
                .remove("p9999");
        },
        "/ops/read/latency_ns",
    );
    errors_after(
        &good,
        |d| d["timeseries"]["ops"] = json!([1, -1]),
        "/timeseries/ops/1",
    );
    errors_after(
        &good,
        |d| d["environment"]["cpus"] = json!("two"),
        "/environment/cpus",
    );
    let errs = errors_after(&good, |d| d["schema"] = json!("iogauge/result/v2"), "/");
    assert!(errs[0].contains("names no known document"), "{errs:?}");

    // collections
    let session = sample_collection("iogauge/postmark-session/v1");
    assert_valid("a sample postmark session", &session);
    errors_after(&session, |d| d["quick"] = json!(true), "/");
    errors_after(
        &session,
        |d| d["entries"][0]["result"]["summary"]["bytes_read"] = json!(-12),
        "/entries/0/result/summary/bytes_read",
    );
    errors_after(
        &session,
        |d| d["entries"][0]["rank"] = json!(1),
        "/entries/0",
    );
    let mut survey = sample_collection("iogauge/survey/v1");
    survey["quick"] = json!(true);
    survey["environment"] = good["environment"].clone();
    survey["entries"][0]["figure"] = json!(12.5);
    survey["entries"][0]["unit"] = json!("MB/s");
    assert_valid("a sample survey", &survey);
    errors_after(
        &survey,
        |d| {
            d.as_object_mut().unwrap().remove("quick");
        },
        "/",
    );
    errors_after(
        &survey,
        |d| {
            d["entries"][0].as_object_mut().unwrap().remove("figure");
        },
        "/entries/0",
    );
    // NaN figures are written as null: refused
    errors_after(
        &survey,
        |d| d["entries"][0]["figure"] = json!(null),
        "/entries/0/figure",
    );
    let mut spectrum = sample_collection("iogauge/iobench-spectrum/v1");
    spectrum["entries"][0]["figure"] = json!(1.0);
    spectrum["entries"][0]["unit"] = json!("MB");
    errors_after(&spectrum, |_| {}, "/");
    spectrum["spectrum"] = json!(["FILES=1,2"]);
    assert_valid("a sample spectrum", &spectrum);
}

// ---------------------------------------------------------------- run

/// A short `run` in the scratch directory with `extra` flags, its JSON to `json`.
fn run(s: &Scratch, what: &str, extra: &[&str], json: &Path) {
    succeed(
        what,
        iogauge()
            .args([
                "run",
                "--ops",
                "2000",
                "--unique-bytes",
                "4M",
                "--dir",
                s.dir(),
            ])
            .args(extra)
            .args(["--json", p(json)]),
        SHORT,
    );
}

#[test]
fn run_writes_a_valid_result() {
    let s = Scratch::new();
    let f = s.file("run.json");
    run(&s, "run", &[], &f);
    let v = validate_file("run", &f);
    assert_eq!(v["benchmark"], "run");
    check_result(&v);
}

#[test]
fn run_on_the_null_engine_writes_a_valid_result() {
    let s = Scratch::new();
    let f = s.file("null.json");
    run(&s, "run --engine null", &["--engine", "null"], &f);
    let v = validate_file("run --engine null", &f);
    check_result(&v);
}

/// The CSV of a run: the fixed columns first, one row per op kind of the
/// JSON of the same run, in the same order, with the same counts.
#[test]
fn run_csv_matches_its_json() {
    let s = Scratch::new();
    let (f, c) = (s.file("run.json"), s.file("run.csv"));
    run(&s, "run --csv", &["--csv", p(&c)], &f);
    let v = validate_file("run --csv", &f);
    let text = std::fs::read_to_string(&c).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    assert_eq!(
        header[..5],
        ["run", "benchmark", "started_at", "complete", "elapsed_s"],
        "{text}"
    );
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}: {header:?}"))
    };
    let (op, count, bytes) = (col("op"), col("count"), col("bytes"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let ops = v["ops"].as_object().unwrap();
    assert!(!ops.is_empty());
    assert_eq!(rows.len(), ops.len(), "one row per op kind: {text}");
    for (row, (kind, o)) in rows.iter().zip(ops) {
        assert_eq!(row.len(), header.len(), "{row:?}");
        assert_eq!(row[0], "", "a single run has no label");
        assert_eq!(row[1], "run");
        assert_eq!(row[2], v["started_at"].as_str().unwrap());
        assert_eq!(row[3], v["complete"].to_string());
        assert_eq!(row[op], kind);
        assert_eq!(row[count], o["count"].to_string(), "{kind}");
        assert_eq!(row[bytes], o["bytes"].to_string(), "{kind}");
    }
}

// ---------------------------------------------------------------- iostone

#[test]
fn iostone_writes_valid_results() {
    for variant in [None, Some("c2")] {
        let s = Scratch::new();
        let f = s.file("iostone.json");
        let what = format!("iostone {variant:?}");
        let mut cmd = iogauge();
        cmd.arg("iostone");
        if let Some(v) = variant {
            cmd.args(["--variant", v]);
        }
        succeed(&what, cmd.args(["--dir", s.dir(), "--json", p(&f)]), SHORT);
        let v = validate_file(&what, &f);
        assert_eq!(v["benchmark"], "iostone");
        check_result(&v);
    }
}

// ---------------------------------------------------------------- postmark

fn postmark_session(s: &Scratch, runs: usize, json: &str) -> String {
    let mut script = format!(
        "set location {}\nset number 20\nset transactions 50\n",
        s.dir()
    );
    script += &"run\n".repeat(runs);
    script += "quit\n";
    succeed(
        &format!("postmark ({runs} runs)"),
        iogauge()
            .current_dir(s.out.path())
            .args(["postmark", "--json", json])
            .write_stdin(script),
        SHORT,
    )
}

#[test]
fn postmark_with_one_run_writes_a_valid_result() {
    let s = Scratch::new();
    let f = s.file("pm.json");
    postmark_session(&s, 1, p(&f));
    let v = validate_file("postmark, one run", &f);
    assert_eq!(v["schema"], "iogauge/result/v1");
    assert_eq!(v["benchmark"], "postmark");
}

#[test]
fn postmark_with_two_runs_writes_a_valid_session() {
    let s = Scratch::new();
    let f = s.file("pm.json");
    postmark_session(&s, 2, p(&f));
    let v = validate_file("postmark, two runs", &f);
    assert_eq!(v["schema"], "iogauge/postmark-session/v1");
    assert_eq!(v["entries"].as_array().unwrap().len(), 2);
}

#[test]
fn postmark_with_no_run_writes_an_empty_valid_session() {
    let s = Scratch::new();
    let stdout = succeed(
        "postmark, no run",
        iogauge()
            .current_dir(s.out.path())
            .args(["postmark", "--json", "-"])
            .write_stdin("quit\n"),
        SHORT,
    );
    let v: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}"));
    assert_valid("postmark, no run", &v);
    assert_eq!(v["schema"], "iogauge/postmark-session/v1");
    assert_eq!(v["entries"], json!([]));
}

// ---------------------------------------------------------------- iobench

/// IOBENCH's keywords, so that the tests' environment cannot leak into a run.
const IOBENCH_KEYS: [&str; 15] = [
    "RUN", "USERS", "FILES", "NRECS", "RECLEN", "READS", "WRITES", "LOCKS", "SLEEP", "START",
    "END", "DURATION", "WORK", "FILE0", "FILE1",
];

fn iobench(s: &Scratch, extra: &[&str], json: &Path) {
    std::fs::write(
        s.file("ctl"),
        "USERS = 2; FILES = 2; NRECS = 64; RECLEN = 512; END = 0;\n",
    )
    .unwrap();
    let mut cmd = iogauge();
    cmd.current_dir(s.out.path()).arg("iobench");
    for k in IOBENCH_KEYS {
        cmd.env_remove(k);
    }
    succeed(
        &format!("iobench {extra:?}"),
        cmd.args(["ctl", "--threads", "--duration", "0.2s", "--dir", s.dir()])
            .args(["-o", "results", "--json", p(json)])
            .args(extra),
        SHORT,
    );
}

#[test]
fn iobench_writes_a_valid_result() {
    let s = Scratch::new();
    let f = s.file("iobench.json");
    iobench(&s, &[], &f);
    let v = validate_file("iobench", &f);
    assert_eq!(v["schema"], "iogauge/result/v1");
    assert_eq!(v["benchmark"], "iobench");
}

#[test]
fn an_iobench_spectrum_writes_a_valid_collection() {
    let s = Scratch::new();
    let f = s.file("spectrum.json");
    iobench(&s, &["--spectrum", "FILES=1,2"], &f);
    let v = validate_file("iobench --spectrum", &f);
    assert_eq!(v["schema"], "iogauge/iobench-spectrum/v1");
    let names: Vec<&str> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["FILES=1", "FILES=2"]);
    assert_eq!(v["spectrum"], json!(["FILES=1,2"]));
}

// ---------------------------------------------------------------- scientific

/// Both phases of a small file; the CSV of the same run has a row per op
/// kind (write, fsync, read) and the two figures as columns.
#[test]
fn scientific_writes_a_valid_result() {
    let s = Scratch::new();
    let (f, c) = (s.file("scientific.json"), s.file("scientific.csv"));
    succeed(
        "scientific",
        iogauge().args([
            "scientific",
            "--size",
            "4M",
            "--dir",
            s.dir(),
            "--json",
            p(&f),
            "--csv",
            p(&c),
        ]),
        SHORT,
    );
    let v = validate_file("scientific", &f);
    assert_eq!(v["benchmark"], "scientific");
    check_result(&v);
    let text = std::fs::read_to_string(&c).unwrap();
    assert_eq!(
        text.lines().count(),
        1 + v["ops"].as_object().unwrap().len()
    );
    assert!(text.contains("metric.read_mb_per_s"), "{text}");
}

// ---------------------------------------------------------------- survey, selfscale

/// The smallest self-scaling pass: a sweep from 1 MiB to 8 MiB, 50 ms a
/// point (a few seconds), then `--validate 2` of the model it wrote.
/// (`predict --json` writes a list of predictions, not a document of
/// this schema.)
#[test]
fn selfscale_writes_a_valid_result() {
    let s = Scratch::new();
    let (f, out) = (s.file("selfscale.json"), s.file("model"));
    succeed(
        "selfscale --quick",
        iogauge().args([
            "selfscale",
            s.dir(),
            "--quick",
            "--max-bytes",
            "8M",
            "--min-bytes",
            "1M",
            "--point-time",
            "50ms",
            "--json",
            p(&f),
            "--out",
            p(&out),
        ]),
        Duration::from_secs(120),
    );
    let v = validate_file("selfscale", &f);
    assert_eq!(v["benchmark"], "selfscale");

    // --validate measures workloads against that model: a result too
    let (f, val) = (s.file("validate.json"), s.file("validate"));
    succeed(
        "selfscale --validate",
        iogauge().args([
            "selfscale",
            s.dir(),
            "--validate",
            "2",
            "--model",
            p(&out.join("model.json")),
            "--json",
            p(&f),
            "--out",
            p(&val),
        ]),
        SHORT,
    );
    let v = validate_file("selfscale --validate", &f);
    assert_eq!(v["benchmark"], "selfscale-validate");
}

// ---------------------------------------------------------------- bonnie

#[test]
fn bonnie_writes_valid_results() {
    let s = Scratch::new();
    for (what, extra) in [
        ("bonnie", &["-s", "1"][..]),
        (
            "bonnie++",
            &[
                "--flavor", "bonnie++", "-s", "2", "-r", "0", "-f1", "-n", "1:1k",
            ][..],
        ),
    ] {
        let f = s.file(&format!("{what}.json"));
        succeed(
            what,
            iogauge()
                .arg("bonnie")
                .args(["-d", s.dir()])
                .args(extra)
                .args(["--json", p(&f)]),
            SHORT,
        );
        let v = validate_file(what, &f);
        assert_eq!(v["benchmark"], "bonnie");
        check_result(&v);
        assert!(v["metrics"]["put_block"]["rate"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn bonnie_with_several_runs_writes_a_valid_collection() {
    let s = Scratch::new();
    let f = s.file("runs.json");
    succeed(
        "bonnie -x 2",
        iogauge()
            .args([
                "bonnie", "--flavor", "bonnie++", "-s", "1", "-r", "0", "-f", "-x", "2", "-d",
            ])
            .arg(s.dir())
            .args(["--json", p(&f)]),
        SHORT,
    );
    let v = validate_file("bonnie -x 2", &f);
    assert_eq!(v["schema"], "iogauge/bonnie-runs/v1");
    assert_eq!(v["entries"].as_array().unwrap().len(), 2);
}

// ---------------------------------------------------------------- iozone

/// Auto mode on a tiny grid and throughput mode with two threads: both
/// are result documents with IOzone's figures in `metrics`.
#[test]
fn iozone_writes_valid_results() {
    let s = Scratch::new();
    for (what, extra) in [
        (
            "auto",
            &[
                "-a", "-n", "64k", "-g", "128k", "-y", "32k", "-q", "64k", "-i", "0", "-i", "2",
            ][..],
        ),
        (
            "throughput",
            &[
                "-t", "2", "-T", "-i", "0", "-s", "256k", "-r", "64k", "--settle", "0",
            ][..],
        ),
    ] {
        let f = s.file(&format!("iozone-{what}.json"));
        succeed(
            what,
            iogauge()
                .args(["iozone", "--dir", s.dir()])
                .args(extra)
                .args(["--json", p(&f)]),
            SHORT,
        );
        let v = validate_file(what, &f);
        assert_eq!(v["benchmark"], "iozone");
        check_result(&v);
        assert_eq!(v["metrics"]["mode"], what);
    }
}

// ---------------------------------------------------------------- ffsb

/// A shipped profile for a second: a result document with FFSB's figures.
#[test]
fn ffsb_writes_a_valid_result() {
    let s = Scratch::new();
    let f = s.file("ffsb.json");
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ffsb/mailserver.ffsb");
    let loc = Path::new(s.dir()).join("loc");
    std::fs::create_dir(&loc).unwrap();
    succeed(
        "ffsb",
        iogauge().arg("ffsb").arg(&profile).args([
            "--location",
            p(&loc),
            "--time",
            "1s",
            "--json",
            p(&f),
        ]),
        SHORT,
    );
    let v = validate_file("ffsb", &f);
    assert_eq!(v["benchmark"], "ffsb");
    check_result(&v);
    assert!(v["metrics"]["transactions_per_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn an_open_loop_run_writes_a_valid_result() {
    let s = Scratch::new();
    let f = s.file("open.json");
    succeed(
        "run --rate",
        iogauge()
            .args(["run", "--duration", "0.5", "--unique-bytes", "4M"])
            .args(["--rate", "500", "--dir", s.dir(), "--json", p(&f)]),
        SHORT,
    );
    let v = validate_file("run --rate", &f);
    check_result(&v);
    assert!(v["summary"]["open_loop"]["issued"].as_u64().unwrap() > 0);
    assert!(v["ops"]["read"]["response_ns"]["p99"].as_u64().unwrap() > 0);
}

#[test]
fn tpcb_laddis_and_scale_write_valid_results() {
    let s = Scratch::new();
    let cases: [(&str, &[&str]); 3] = [
        ("tpcb", &["tpcb", "--duration", "0.3", "--rate", "200"]),
        (
            "laddis",
            &[
                "laddis",
                "--duration",
                "0.3",
                "--scaling",
                "off",
                "--fileset",
                "4M",
            ],
        ),
        (
            "scale",
            &[
                "scale",
                "--max-procs",
                "2",
                "--max-reps",
                "1",
                "run",
                "--duration",
                "0.2",
                "--unique-bytes",
                "4M",
            ],
        ),
    ];
    for (name, args) in cases {
        let f = s.file(&format!("{name}.json"));
        succeed(
            name,
            iogauge()
                .args(args)
                .args(["--dir", s.dir(), "--json", p(&f)]),
            SHORT,
        );
        let v = validate_file(name, &f);
        assert_eq!(v["benchmark"], name);
        check_result(&v);
    }
}
