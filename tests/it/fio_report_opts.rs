//! `iogauge fio` with the options that shape fio's report:
//! `percentile_list`, `clat_percentiles`, `lat_percentiles`,
//! `slat_percentiles`, `unified_rw_reporting`, `disable_lat`,
//! `disable_clat`, `disable_slat`, `disable_bw_measurement`, `stats`,
//! `significant_figures`, `bwavgtime`, `iopsavgtime` and `unit_base`.
//! The JSON's keys are checked against fio 3.33's for the same job files
//! (tests/fixtures/fio/report-opts/: each `NAME.fio` with fio's
//! `NAME.json`), the text against the lines fio prints for them.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/fio/report-opts"
);

/// A small null-engine job with `extra` lines.
fn job(extra: &str) -> String {
    format!("[x]\nioengine=null\nrw=randrw\nsize=1M\nbs=4k\n{extra}\n")
}

/// Run job file `text` in `dir` with `args`; its stdout, after checking
/// it succeeded and left nothing behind.
fn run_in(dir: &Path, text: &str, args: &[&str]) -> String {
    let before = tree(dir);
    std::fs::write(dir.join("t.fio"), text).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.push("t.fio");
    let (code, out, err) = fio_in(dir, &all);
    assert_eq!(code, 0, "{text}: {err}");
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    assert_eq!(tree(dir), before, "left behind");
    out
}

fn text(dir: &Path, extra: &str) -> String {
    run_in(dir, &job(extra), &[])
}

fn json(dir: &Path, extra: &str) -> (Value, String) {
    let out = run_in(dir, &job(extra), &["--output-format=json"]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    (v["jobs"][0].clone(), out)
}

/// A job file that is refused: exit code 2, one line; that line.
fn refused(dir: &Path, text: &str) -> String {
    std::fs::write(dir.join("t.fio"), text).unwrap();
    let (code, out, err) = fio_in(dir, &["t.fio"]);
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    assert_eq!(code, 2, "{text}: {out}{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// Each key path of a JSON value (the job's own `job options` and json+
/// bins left out), sorted.
fn key_paths(prefix: &str, v: &Value, out: &mut Vec<String>) {
    if let Value::Object(m) = v {
        for (k, x) in m {
            let p = format!("{prefix}/{k}");
            out.push(p.clone());
            if k != "job options" && k != "bins" {
                key_paths(&p, x, out);
            }
        }
    }
    out.sort();
}

fn paths(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    key_paths("", v, &mut out);
    out
}

/// For each job file fio 3.33 ran (its JSON kept beside it), iogauge's
/// JSON job entry has the same keys, percentile keys included.
#[test]
fn json_keys_match_fios_for_each_option() {
    let d = work_dir();
    for name in ["mixed", "both", "stats0", "latpct", "noclat"] {
        let fio_job = std::fs::read_to_string(Path::new(FIXTURES).join(format!("{name}.fio")))
            .expect("fixture job");
        let fio: Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(FIXTURES).join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let out = run_in(d.path(), &fio_job, &["--output-format=json"]);
        let ours: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            paths(&ours["jobs"][0]),
            paths(&fio["jobs"][0]),
            "{name}: the job's keys differ from fio 3.33's"
        );
    }
}

/// `percentile_list` replaces fio's list, sorted, in the JSON (keys
/// `"%f"`, in order) and in the text (as many digits after the point as
/// the list's longest).
#[test]
fn percentile_list_replaces_the_default_sorted() {
    let d = work_dir();
    let (j, raw) = json(d.path(), "percentile_list=99.9:50:99");
    let p = j["read"]["clat_ns"]["percentile"].as_object().unwrap();
    let keys: Vec<&str> = p.keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 3);
    for k in ["50.000000", "99.000000", "99.900000"] {
        assert!(keys.contains(&k), "{keys:?}");
    }
    // written in order, smallest first
    let at = |k: &str| raw.find(&format!("\"{k}\"")).unwrap();
    assert!(at("50.000000") < at("99.000000") && at("99.000000") < at("99.900000"));
    let v = |k: &str| p[k].as_u64().unwrap();
    assert!(v("50.000000") <= v("99.000000") && v("99.000000") <= v("99.900000"));
    let t = text(d.path(), "percentile_list=99.9:50:99");
    assert!(
        t.contains("    clat percentiles (nsec):\n     | 50.0th=["),
        "{t}"
    );
    assert!(t.contains("], 99.0th=["), "{t}");
    assert!(t.contains("], 99.9th=["), "{t}");
    assert!(!t.contains("99.95th"), "{t}");
    // one entry, two digits: fio's widths
    let t = text(d.path(), "percentile_list=99.99");
    assert!(t.contains("     | 99.99th=["), "{t}");
    let t = text(d.path(), "percentile_list=95");
    assert!(t.contains("     |  95th=["), "{t}");
}

/// More than 20 entries, a value above 100 or below 0, or one that is no
/// number, are refused at their line, as fio refuses them.
#[test]
fn percentile_list_refused_as_fio_refuses_it() {
    let d = work_dir();
    let many: Vec<String> = (1..=21).map(|i| i.to_string()).collect();
    let e = refused(
        d.path(),
        &job(&format!("percentile_list={}", many.join(":"))),
    );
    assert!(e.contains("t.fio:6:"), "{e}");
    assert!(e.contains("the list exceeding max length 20"), "{e}");
    let twenty: Vec<String> = (1..=20).map(|i| (i * 4).to_string()).collect();
    let t = text(d.path(), &format!("percentile_list={}", twenty.join(":")));
    assert!(t.contains(" 80th=["), "{t}");
    let e = refused(d.path(), &job("percentile_list=50:101"));
    assert!(e.contains("value out of range: 101.000000"), "{e}");
    let e = refused(d.path(), &job("percentile_list=50:abc"));
    assert!(e.contains("not a floating point value: abc"), "{e}");
}

/// `lat_percentiles=1` adds the total latency's percentiles after the
/// completion latency's (fio 3.33 shows both); `clat_percentiles=0`
/// leaves them out; a synchronous engine has no submission latency, so
/// `slat_percentiles=1` adds nothing.
#[test]
fn which_latencies_get_percentiles() {
    let d = work_dir();
    let t = text(d.path(), "lat_percentiles=1\nslat_percentiles=1");
    let c = t.find("    clat percentiles (nsec):").expect("clat block");
    let l = t.find("    lat percentiles (nsec):").expect("lat block");
    assert!(c < l, "{t}");
    assert!(!t.contains("slat"), "{t}");
    let (j, _) = json(d.path(), "lat_percentiles=1");
    for k in ["clat_ns", "lat_ns"] {
        assert!(j["write"][k]["percentile"].is_object(), "{k}: {j}");
    }
    assert!(j["write"]["slat_ns"].get("percentile").is_none());
    let t = text(d.path(), "clat_percentiles=0");
    assert!(!t.contains("percentiles"), "{t}");
    let (j, _) = json(d.path(), "clat_percentiles=0");
    assert!(j["read"]["clat_ns"].get("percentile").is_none(), "{j}");
    assert!(j["sync"]["lat_ns"].get("percentile").is_none());
    let (j, _) = json(d.path(), "clat_percentiles=0\nlat_percentiles=1");
    assert!(j["read"]["lat_ns"]["percentile"].is_object(), "{j}");
    assert!(j["read"]["clat_ns"].get("percentile").is_none(), "{j}");
}

/// `unified_rw_reporting=mixed` (or 1) sums reads and writes into one
/// `mixed` direction: the JSON has it alone (no read, write, trim or
/// sync), the text a `mixed:` block and a `MIXED:` group line; `both`
/// keeps each direction and adds the sum after them.
#[test]
fn unified_rw_reporting_sums_the_directions() {
    let d = work_dir();
    for form in ["mixed", "1"] {
        let (j, _) = json(d.path(), &format!("unified_rw_reporting={form}"));
        for k in ["read", "write", "trim", "sync"] {
            assert!(j.get(k).is_none(), "{form}: {k} in {j}");
        }
        assert_eq!(u64_at(&j, "mixed.total_ios"), 256, "{j}");
        assert_eq!(u64_at(&j, "mixed.io_bytes"), 1 << 20);
        assert_eq!(u64_at(&j, "mixed.clat_ns.N"), 256);
        assert!(j["mixed"]["clat_ns"]["percentile"].is_object());
    }
    let t = text(d.path(), "unified_rw_reporting=mixed");
    assert!(t.contains("\n  mixed: IOPS="), "{t}");
    assert!(
        !t.contains("  read: IOPS=") && !t.contains("  write: IOPS="),
        "{t}"
    );
    assert!(t.contains("issued rwts: total=256,0,0,0 "), "{t}");
    assert!(t.contains("\n  MIXED: bw="), "{t}");
    assert!(!t.contains("   READ: bw="), "{t}");

    let (j, _) = json(d.path(), "unified_rw_reporting=both");
    let r = u64_at(&j, "read.total_ios");
    let w = u64_at(&j, "write.total_ios");
    assert_eq!(r + w, 256);
    assert_eq!(u64_at(&j, "mixed.total_ios"), 256);
    assert_eq!(
        u64_at(&j, "mixed.clat_ns.N"),
        u64_at(&j, "read.clat_ns.N") + u64_at(&j, "write.clat_ns.N")
    );
    let t = text(d.path(), "unified_rw_reporting=both");
    let pos = |s: &str| t.find(s).unwrap_or_else(|| panic!("{s} not in {t}"));
    assert!(pos("  read: IOPS=") < pos("  write: IOPS="));
    assert!(pos("  write: IOPS=") < pos("  mixed: IOPS="));
    assert!(pos("   READ: bw=") < pos("  WRITE: bw="));
    assert!(pos("  WRITE: bw=") < pos("  MIXED: bw="));
    assert!(t.contains("io=1024KiB (1049kB), run="), "{t}");
    let e = refused(d.path(), &job("unified_rw_reporting=some"));
    assert!(
        e.contains("unified_rw_reporting is none, mixed or both"),
        "{e}"
    );
}

/// `disable_lat` and `disable_clat` drop those latencies: no line in
/// the text, zeros and no percentiles in the JSON; without the completion
/// latency fio counts no latency buckets either.
#[test]
fn disabled_latencies_are_not_reported() {
    let d = work_dir();
    let t = text(d.path(), "disable_lat=1");
    assert!(t.contains("    clat (nsec):"), "{t}");
    assert!(!t.contains("     lat ("), "{t}");
    let (j, _) = json(d.path(), "disable_lat=1");
    assert_eq!(u64_at(&j, "read.lat_ns.N"), 0);
    assert!(u64_at(&j, "read.clat_ns.N") > 0);
    let t = text(d.path(), "disable_clat=1");
    assert!(!t.contains("clat"), "{t}");
    assert!(
        !t.contains("  lat (nsec)   :") && !t.contains("  lat (usec)   :"),
        "{t}"
    );
    assert!(t.contains("     lat (nsec): min="), "{t}");
    let (j, _) = json(d.path(), "disable_clat=1");
    assert_eq!(u64_at(&j, "read.clat_ns.N"), 0);
    assert!(j["read"]["clat_ns"].get("percentile").is_none());
    let buckets: f64 = j["latency_ns"]
        .as_object()
        .unwrap()
        .values()
        .chain(j["latency_us"].as_object().unwrap().values())
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert_eq!(buckets, 0.0, "{j}");
    // accepted: fio's summary does not change with them here
    let t = text(
        d.path(),
        "disable_slat=1\ndisable_bw=1\ndisable_bw_measurement=0",
    );
    assert!(t.contains("    clat (nsec):"), "{t}");
}

/// `stats=0`: fio keeps no figures for the job; its text has no job block
/// and an empty group, its JSON an entry with no name, group -1.
#[test]
fn stats_off_reports_nothing_of_the_job() {
    let d = work_dir();
    let t = text(d.path(), "stats=0");
    assert!(!t.contains("(groupid="), "{t}");
    assert!(t.contains("\nRun status group 0 (all jobs):\n"), "{t}");
    assert!(!t.contains("READ: bw="), "{t}");
    let (j, _) = json(d.path(), "stats=0");
    assert!(j.get("jobname").is_none(), "{j}");
    assert_eq!(u64_at(&j, "groupid"), u32::MAX as u64);
    assert_eq!(u64_at(&j, "read.total_ios"), 0);
    let e = refused(d.path(), &job("stats=0\nwrite_iops_log=x"));
    assert!(e.contains("t.fio:6: stats=0 with write_*_log"), "{e}");
}

/// `significant_figures` and `unit_base=1`: fio's normal output with
/// fewer figures and rates in bits; the JSON does not change.
#[test]
fn significant_figures_and_bits() {
    let d = work_dir();
    let t = text(d.path(), "significant_figures=2\nunit_base=1");
    assert!(t.contains("bs=(R) 4KiB-4KiB, (W) 4KiB-4KiB"), "{t}");
    let line = t.lines().find(|l| l.starts_with("  read: IOPS=")).unwrap();
    assert!(line.contains("bit/s ("), "{line}");
    let g = t.lines().find(|l| l.starts_with("   READ: bw=")).unwrap();
    assert!(g.contains("bit/s"), "{g}");
    let t = text(d.path(), "significant_figures=10");
    assert!(t.contains("bs=(R) 4096B-4096B"), "{t}");
    let e = refused(d.path(), &job("significant_figures=11"));
    assert!(e.contains("significant_figures is 1 to 10"), "{e}");
    let e = refused(d.path(), &job("unit_base=2"));
    assert!(e.contains("unit_base is 0, 8 (bytes) or 1 (bits)"), "{e}");
}

/// `bwavgtime` and `iopsavgtime`: one bandwidth (IOPS) sample per period;
/// a period that is not whole seconds is refused at its line.
#[test]
fn sampling_periods_follow_bwavgtime_and_iopsavgtime() {
    let d = work_dir();
    let base = "rw=read\ntime_based=1\nruntime=2200ms\nrate_iops=2000";
    let (j, _) = json(d.path(), base);
    assert_eq!(u64_at(&j, "read.bw_samples"), 2, "{j}");
    assert_eq!(u64_at(&j, "read.iops_samples"), 2);
    let (j, _) = json(
        d.path(),
        &format!("{base}\nbwavgtime=2000\niopsavgtime=1000"),
    );
    assert_eq!(u64_at(&j, "read.bw_samples"), 1, "{j}");
    assert_eq!(u64_at(&j, "read.iops_samples"), 2);
    // 2000 IOPS of 4 KiB: 8000 KiB/s over the two seconds
    let mean = f64_at(&j, "read.bw_mean");
    assert!((7000.0..=8500.0).contains(&mean), "{mean}");
    let e = refused(d.path(), &job("bwavgtime=500"));
    assert!(e.contains("t.fio:6: bwavgtime: "), "{e}");
    assert!(e.contains("cannot sample every 500 ms"), "{e}");
    assert!(e.contains("multiple of 1000 ms"), "{e}");
}

/// Latency options that fio also applies to its per-I/O logs are refused
/// with those logs, which iogauge writes whole.
#[test]
fn disabled_latencies_with_logs_are_refused() {
    let d = work_dir();
    let e = refused(d.path(), &job("write_lat_log=x\ndisable_clat=1"));
    assert!(
        e.contains("t.fio:7: disable_clat=1 with write_lat_log"),
        "{e}"
    );
    let e = refused(d.path(), &job("write_bw_log=x\ndisable_bw_measurement=1"));
    assert!(e.contains("per-I/O write_bw_log"), "{e}");
}
