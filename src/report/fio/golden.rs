//! Golden tests against fio 3.33 itself: one run of fio written both as
//! JSON and as text (`--output-format=json,normal`). A report built from
//! the JSON's figures must print the text fio printed, line for line,
//! except the lines whose inputs the JSON does not hold (the bandwidth and
//! IOPS samples, the latency buckets, the CPU line's ctx and minf).

use super::json::{self, Doc, Node};
use super::{DirReport, DiskUtil, FioJobReport, LatStat, text};
use serde_json::Value;

const JSON: &str = include_str!("../../../tests/fixtures/fio-out/psync-randrw-2s.json");
const TEXT: &str = include_str!("../../../tests/fixtures/fio-out/psync-randrw-2s.txt");

fn lat(v: &Value) -> LatStat {
    LatStat {
        n: v["N"].as_u64().unwrap(),
        min: v["min"].as_u64().unwrap(),
        max: v["max"].as_u64().unwrap(),
        mean: v["mean"].as_f64().unwrap(),
        stddev: v["stddev"].as_f64().unwrap(),
        hist: None,
        given_percentiles: v.get("percentile").map(|p| {
            let mut l: Vec<(f64, u64)> = p
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, x)| (k.parse().unwrap(), x.as_u64().unwrap()))
                .collect();
            // serde_json's map sorts its keys as text
            l.sort_by(|a, b| a.0.total_cmp(&b.0));
            l
        }),
    }
}

fn dir(v: &Value) -> Option<DirReport> {
    (v["io_bytes"].as_u64()? > 0).then(|| DirReport {
        io_bytes: v["io_bytes"].as_u64().unwrap(),
        total_ios: v["total_ios"].as_u64().unwrap(),
        runtime_ms: v["runtime"].as_u64().unwrap(),
        slat: Some(lat(&v["slat_ns"])),
        clat: Some(lat(&v["clat_ns"])),
        lat: lat(&v["lat_ns"]),
        bw_samples: Vec::new(),
        iops_samples: Vec::new(),
    })
}

/// fio's JSON read back into a report.
fn from_fio(doc: &Value) -> (FioJobReport, Vec<DiskUtil>) {
    let j = &doc["jobs"][0];
    let mut r = FioJobReport::new(
        j["jobname"].as_str().unwrap(),
        j["groupid"].as_u64().unwrap() as u32,
        "randrw",
        "psync",
        1,
    );
    r.read = dir(&j["read"]);
    r.write = dir(&j["write"]);
    r.runtime_ms = j["job_runtime"].as_u64().unwrap();
    r.ended_ms = doc["timestamp_ms"].as_u64().unwrap();
    r.bs = [(4096, 4096); 3];
    r.depths = Some(crate::measure::depth::Depths::default());
    r.options = j["job options"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    let disks = doc["disk_util"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| DiskUtil {
            name: d["name"].as_str().unwrap().into(),
            read_ios: d["read_ios"].as_u64().unwrap(),
            write_ios: d["write_ios"].as_u64().unwrap(),
            read_merges: d["read_merges"].as_u64().unwrap(),
            write_merges: d["write_merges"].as_u64().unwrap(),
            read_ticks: d["read_ticks"].as_u64().unwrap(),
            write_ticks: d["write_ticks"].as_u64().unwrap(),
            in_queue: d["in_queue"].as_u64().unwrap(),
            util: d["util"].as_f64().unwrap(),
        })
        .collect();
    (r, disks)
}

/// Lines whose figures fio's JSON does not hold.
fn comparable(line: &str) -> bool {
    !["   bw (", "   iops ", "  lat (", "  cpu "]
        .iter()
        .any(|p| line.starts_with(p))
}

#[test]
fn prints_what_fio_printed() {
    let doc: Value = serde_json::from_str(JSON).unwrap();
    let (mut r, disks) = from_fio(&doc);
    // the pid the job line names
    let pid = TEXT
        .split(" pid=")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    r.pid = pid.parse().unwrap();
    let ours = text::render(std::slice::from_ref(&r), &disks);
    let want: Vec<&str> = TEXT.lines().filter(|l| comparable(l)).collect();
    let got: Vec<&str> = ours.lines().filter(|l| comparable(l)).collect();
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len(), "{ours}");
}

#[test]
fn header_is_fios() {
    let doc: Value = serde_json::from_str(JSON).unwrap();
    let (r, _) = from_fio(&doc);
    assert_eq!(
        text::header(&[r], "fio-3.33"),
        "rw: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
         ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 thread\n"
    );
}

/// Each key path of a JSON document with its type.
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
    out.push((prefix.to_string(), ty));
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

#[test]
fn json_has_fios_keys_types_and_figures() {
    let doc: Value = serde_json::from_str(JSON).unwrap();
    let (r, disks) = from_fio(&doc);
    let d = Doc {
        version: "fio-3.33",
        global: &[],
        plus: false,
        disks: &disks,
    };
    let text = json::render(std::slice::from_ref(&r), &d);
    let ours: Value = serde_json::from_str(&text).unwrap();
    let (mut want, mut got) = (Vec::new(), Vec::new());
    paths("", &doc, &mut want);
    paths("", &ours, &mut got);
    for w in &want {
        assert!(got.contains(w), "{w:?} missing or of another type");
    }
    // the figures carried over come out as fio wrote them
    for p in [
        "/fio version",
        "/timestamp",
        "/timestamp_ms",
        "/time",
        "/jobs/0/job options",
        "/jobs/0/read/io_bytes",
        "/jobs/0/read/io_kbytes",
        "/jobs/0/read/bw_bytes",
        "/jobs/0/read/bw",
        "/jobs/0/read/iops",
        "/jobs/0/read/clat_ns",
        "/jobs/0/read/lat_ns",
        "/jobs/0/write/clat_ns/percentile",
        "/jobs/0/write/runtime",
        "/jobs/0/trim",
        "/jobs/0/sync",
        "/jobs/0/job_runtime",
        "/jobs/0/iodepth_level",
        "/jobs/0/iodepth_submit",
        "/jobs/0/iodepth_complete",
        "/jobs/0/latency_depth",
        "/jobs/0/latency_percentile",
        "/disk_util",
    ] {
        assert_eq!(ours.pointer(p), doc.pointer(p), "{p}");
    }
}

#[test]
fn floats_stay_floats() {
    let mut s = String::new();
    Node::Float(0.0).write(&mut s, 0);
    assert_eq!(s, "0.000000");
    s.clear();
    Node::Float(f64::NAN).write(&mut s, 0);
    assert_eq!(s, "0.000000");
}
