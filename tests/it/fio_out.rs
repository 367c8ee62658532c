//! `--fio` and `--fio-json`: a run laid out as fio 3.33 lays out its own,
//! checked against fio's output captured in tests/fixtures/fio-out/.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fio-out");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap()
}

/// Each key path of a JSON document with its type; the children of `job
/// options` are the job's own, and `disk_util` is there only where a disk
/// was measured, so neither is compared.
fn paths(prefix: &str, v: &Value, out: &mut Vec<(String, &'static str)>) {
    let ty = match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if prefix == "/disk_util" {
        return;
    }
    out.push((prefix.to_string(), ty));
    if prefix.ends_with("/job options") {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                paths(&format!("{prefix}/{k}"), x, out);
            }
        }
        Value::Array(a) => {
            for x in a.iter().take(1) {
                paths(&format!("{prefix}/0"), x, out);
            }
        }
        _ => {}
    }
}

/// A run of `iogauge run` with fio's outputs: (fio JSON, fio text, result).
fn fio_run(extra: &[&str]) -> (Value, String, Value) {
    let d = work_dir();
    let o = tempfile::tempdir().unwrap();
    let (fj, ft, rj) = (
        o.path().join("f.json"),
        o.path().join("f.txt"),
        o.path().join("r.json"),
    );
    let args: Vec<&str> = [
        "run",
        "--dir",
        p(d.path()),
        "--unique-bytes",
        "256K",
        "--size-mean",
        "4K",
        "--size-cv",
        "0",
        "--align",
        "4K",
        "--duration",
        "1100ms",
        "--quiet",
        "--fio-json",
        p(&fj),
        "--fio",
        p(&ft),
        "--json",
        p(&rj),
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .collect();
    let out = iogauge().args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty(), "--quiet prints nothing");
    assert_untouched(d.path());
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    (
        serde_json::from_str(&read(&fj)).unwrap(),
        read(&ft),
        serde_json::from_str(&read(&rj)).unwrap(),
    )
}

#[test]
fn fio_json_has_every_key_fio_writes_with_its_type() {
    let (ours, _, result) = fio_run(&[]);
    let mut got = Vec::new();
    paths("", &ours, &mut got);
    for f in [
        "null-randread.json",
        "psync-randrw.json",
        "psync-randread-plot.json",
    ] {
        let theirs: Value = serde_json::from_str(&fixture(f)).unwrap();
        let mut want = Vec::new();
        paths("", &theirs, &mut want);
        for w in &want {
            assert!(got.contains(w), "{f}: {w:?} missing or of another type");
        }
    }
    // the figures are the run's
    let job = &ours["jobs"][0];
    for dir in ["read", "write"] {
        let d = &job[dir];
        assert_eq!(u64_at(d, "total_ios"), op_count(&result, dir), "{dir}");
        assert_eq!(
            u64_at(d, "io_bytes"),
            u64_at(&result, &format!("ops.{dir}.bytes"))
        );
        assert_eq!(u64_at(d, "io_kbytes"), u64_at(d, "io_bytes") >> 10);
        assert_eq!(u64_at(d, "bw"), u64_at(d, "bw_bytes") / 1024);
        let runtime = u64_at(d, "runtime") as f64;
        let iops = u64_at(d, "total_ios") as f64 * 1000.0 / runtime;
        assert!((f64_at(d, "iops") - iops).abs() < 1e-6 * iops);
        // percentiles named as fio names them, rising, within min..max
        let clat = &d["clat_ns"];
        let p = clat["percentile"].as_object().unwrap();
        assert_eq!(p.len(), 17);
        let mut last = u64_at(clat, "min");
        for k in [
            "1.000000",
            "50.000000",
            "99.000000",
            "99.900000",
            "99.990000",
        ] {
            let v = p[k].as_u64().unwrap();
            assert!(v >= last && v <= u64_at(clat, "max"), "{k}: {v}");
            last = v;
        }
        // one request per call: the call is both clat and lat
        for k in ["min", "max", "N"] {
            assert_eq!(clat[k], d["lat_ns"][k], "{k}");
        }
        // psync: no submission latency, as fio for a sync engine
        assert_eq!(u64_at(d, "slat_ns.N"), 0);
        assert_eq!(u64_at(d, "lat_ns.N"), u64_at(d, "total_ios"));
    }
    let opts = &job["job options"];
    assert_eq!(str_at(opts, "rw"), "randrw");
    assert_eq!(str_at(opts, "bs"), "4096");
    assert_eq!(str_at(opts, "iodepth"), "1");
    assert_eq!(str_at(opts, "numjobs"), "1");
    assert_eq!(f64_at(job, "iodepth_level.1"), 100.0);
    let shares: f64 = ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| job[k].as_object().unwrap().values())
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((shares - 100.0).abs() < 0.5, "{shares}");
}

/// A fio text report with what changes from run to run masked: numbers
/// (with their unit prefixes), time units, padding, the date; the latency
/// bucket lines (which buckets appear depends on the figures) and fio's
/// disk lines (iogauge's `run` does not watch the disk) left out.
fn masked(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("  lat (")
            || line.starts_with("Disk stats")
            || line.starts_with("  vda")
        {
            continue;
        }
        let line = match line.find(" pid=") {
            Some(at) => format!("{} pid=N: DATE", &line[..at]),
            None => line.to_string(),
        };
        let mut m = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_digit() {
                while chars
                    .peek()
                    .is_some_and(|d| d.is_ascii_digit() || *d == '.')
                {
                    chars.next();
                }
                if chars.peek().is_some_and(|u| "kMGTPE".contains(*u)) {
                    chars.next();
                    if chars.peek() == Some(&'i') {
                        chars.next();
                    }
                }
                m.push('N');
            } else {
                m.push(c);
            }
        }
        let m = m
            .replace("(nsec)", "(T)")
            .replace("(usec)", "(T)")
            .replace("(msec)", "(T)")
            .replace("KiB/s)", "B/s)")
            .replace("MiB/s)", "B/s)");
        // padding inside brackets and after '='
        let m = m.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push(m.replace("[ N]", "[N]").replace("= N", "=N"));
    }
    out.into_iter().filter(|l| !l.is_empty()).collect()
}

#[test]
fn fio_text_lays_out_as_fios() {
    let (_, ours, _) = fio_run(&[]);
    let theirs = fixture("psync-randrw-2s.txt");
    // fio's own starts at the job (its set-up lines went to stdout first)
    let ours: Vec<String> = normal(masked(&ours).into_iter().skip(3).collect());
    // a job that reads and writes has no per-direction samples in iogauge
    // (docs/fio-output.md): fio's bw and iops lines are left out
    let theirs: Vec<String> = normal(
        masked(&theirs)
            .into_iter()
            .filter(|l| !l.starts_with("bw (") && !l.starts_with("iops :"))
            .collect(),
    );
    assert_eq!(ours, theirs, "{ours:#?}");
}

/// The job's name masked, and the percentile rows as one row (how many
/// fit a line depends on the widest figure, as in fio).
fn normal(lines: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        let l = match l.find(": (groupid=") {
            Some(at) => format!("JOB{}", &l[at..]),
            None => l,
        };
        match (l.strip_prefix("| "), out.last_mut()) {
            (Some(row), Some(prev)) if prev.starts_with("| ") => {
                prev.push(' ');
                prev.push_str(row);
            }
            _ => out.push(l),
        }
    }
    out
}

#[test]
fn fio_plots_reader_and_iogauges_own_read_it() {
    let (ours, _, _) = fio_run(&[]);
    let o = tempfile::tempdir().unwrap();
    let f = o.path().join("ours.json");
    std::fs::write(&f, serde_json::to_string(&ours).unwrap()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/fio_json_check.py");
    match std::process::Command::new("python3")
        .arg(script)
        .arg(&f)
        .arg(Path::new(FIXTURES).join("psync-randread-plot.json"))
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        ),
        Err(e) => eprintln!("skipped fio-plot's reader: no python3 ({e})"),
    }
    // `iogauge report` takes it as it takes fio's own
    let html = o.path().join("r.html");
    let out = iogauge()
        .arg("report")
        .arg(&f)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn only_one_output_goes_to_stdout() {
    let d = work_dir();
    let line = assert_usage_error(&["run", "--dir", p(d.path()), "--fio", "-", "--fio-json", "-"]);
    assert!(line.contains("can go to stdout"), "{line}");
    assert_untouched(d.path());
}
