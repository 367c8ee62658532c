//! fio's steady-state detection (`ss`, `ss_dur`, `ss_ramp`,
//! `ss_interval`) through `iogauge fio`: a steady job ends once its window
//! is steady and reports fio's `steadystate` object and line; what iogauge
//! cannot judge as fio does is refused at its line.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// Run `job` (one job file's text) in `dir` with fio's normal and JSON
/// outputs and iogauge's result: exit code, the normal text, fio's JSON
/// document (iogauge's result under `iogauge`), stderr.
fn run_job(dir: &Path, job: &str) -> (i32, String, Value, String) {
    std::fs::write(dir.join("t.fio"), job).unwrap();
    let r = dir.join("r.json");
    let (code, out, err) = fio_in(
        dir,
        &["--output-format=normal,json", "--json", p(&r), "t.fio"],
    );
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    let own: Value = std::fs::read(&r)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let _ = std::fs::remove_file(&r);
    let at = out.find("\n{").map_or(0, |i| i + 1);
    let (text, json) = out.split_at(at);
    let mut v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    v["iogauge"] = own;
    (code, text.to_string(), v, err)
}

/// A job at a steady 1000 IOPS ends once two 1 s samples agree within
/// 20 %, long before its runtime, and reports the window as fio does.
#[test]
fn a_steady_job_ends_when_its_window_is_steady() {
    let dir = work_dir();
    let job = "[s]\nioengine=null\nrw=read\nbs=4k\nsize=1g\ntime_based\nruntime=30\nrate_iops=1000\nss=iops:20%\nss_dur=2\n";
    let (code, text, v, err) = run_job(dir.path(), job);
    assert_eq!(code, 0, "{err}");
    let j = &v["jobs"][0];
    let ss = &j["steadystate"];
    assert_eq!(ss["ss"], "iops:20.000000%", "{ss}");
    assert_eq!(ss["duration"], 2);
    assert_eq!(ss["attained"], 1, "{ss}");
    let crit = ss["criterion"].as_str().unwrap();
    assert!(crit.ends_with('%'), "{crit}");
    assert!(crit.trim_end_matches('%').parse::<f64>().unwrap() < 20.0);
    let iops: Vec<u64> = ss["data"]["iops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(iops.len(), 2, "{ss}");
    for x in &iops {
        assert!((800..=1200).contains(x), "{ss}");
    }
    let bw = ss["data"]["bw"].as_array().unwrap();
    assert_eq!(bw.len(), 2);
    // bytes per second: 4 KiB requests
    let bw_mean = u64_at(ss, "data.bw_mean");
    let iops_mean = u64_at(ss, "data.iops_mean");
    assert!(bw_mean.abs_diff(iops_mean * 4096) <= 2 * 4096, "{ss}");
    // it ended at the window's end, not the runtime's
    let runtime = u64_at(j, "job_runtime");
    assert!((1900..10_000).contains(&runtime), "runtime {runtime}");
    let line = text
        .lines()
        .find(|l| l.starts_with("  steadystate  : "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.starts_with("  steadystate  : attained=yes, bw="),
        "{line}"
    );
    assert!(
        line.contains("KiB/s (") && line.contains("kB/s), iops="),
        "{line}"
    );
    assert!(
        line.contains(", iops mean dev=") && line.ends_with('%'),
        "{line}"
    );
    // iogauge's own result holds the verdict too
    let m = &v["iogauge"]["entries"][0]["result"]["metrics"]["steadystate"];
    assert_eq!(m["attained"], true, "{}", v["iogauge"]);
    assert_untouched(dir.path());
}

/// A window that cannot be steady (a limit of 0) runs to the runtime and
/// says so; without `ss_dur` nothing is judged and no object is written,
/// as in fio.
#[test]
fn an_unsteady_job_runs_to_its_end_and_no_duration_judges_nothing() {
    let dir = work_dir();
    let job = "[s]\nioengine=null\nrw=read\nbs=4k\nsize=1g\ntime_based\nruntime=2\nrate_iops=500\nss=iops_slope:0%\nss_dur=2\n";
    let (code, text, v, err) = run_job(dir.path(), job);
    assert_eq!(code, 0, "{err}");
    let j = &v["jobs"][0];
    assert_eq!(j["steadystate"]["attained"], 0, "{}", j["steadystate"]);
    assert_eq!(j["steadystate"]["ss"], "iops_slope:0.000000%");
    assert!(u64_at(j, "job_runtime") >= 1990);
    assert!(text.contains("  steadystate  : attained=no, "), "{text}");
    assert!(text.contains(" iops slope="), "{text}");
    let job = "[s]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nss=iops:5%\n";
    let (code, text, v, err) = run_job(dir.path(), job);
    assert_eq!(code, 0, "{err}");
    assert!(v["jobs"][0].get("steadystate").is_none());
    assert!(!text.contains("steadystate"));
    assert_untouched(dir.path());
}

/// A group reported as one is judged as one, the group's jobs end
/// together, and the group's report carries the verdict.
#[test]
fn a_group_reported_as_one_is_judged_as_one() {
    let dir = work_dir();
    let job = "[global]\nioengine=null\nrw=read\nbs=4k\nsize=1g\ntime_based\nruntime=30\nrate_iops=500\ngroup_reporting\nss=bw:20%\nss_dur=2\nss_ramp=1\n[g]\nnumjobs=2\n";
    let (code, _text, v, err) = run_job(dir.path(), job);
    assert_eq!(code, 0, "{err}");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    let ss = &jobs[0]["steadystate"];
    assert_eq!(ss["attained"], 1, "{ss}");
    assert_eq!(ss["ss"], "bw:20.000000%");
    // both jobs' requests: about 1000 a second, 4 MB/s
    let bw_mean = u64_at(ss, "data.bw_mean");
    assert!((3_000_000..5_000_000).contains(&bw_mean), "{ss}");
    // the ramp of 1 s, then two samples
    let runtime = u64_at(&jobs[0], "job_runtime");
    assert!((2900..10_000).contains(&runtime), "runtime {runtime}");
}

/// What cannot be judged as fio judges it is refused at its line.
#[test]
fn steady_state_refusals_name_their_line() {
    let dir = work_dir();
    let cases: &[(&str, &str, &str)] = &[
        (
            "[a]\nioengine=null\nsize=1m\nss_dur=2\n[b]\nioengine=null\nsize=1m\nss_dur=2\n",
            "t.fio:4",
            "group_reporting",
        ),
        (
            "[global]\ngroup_reporting\nioengine=null\nsize=1m\n[a]\nss_dur=2\n[b]\nss_dur=3\n",
            "t.fio:",
            "consistent within reporting groups",
        ),
        (
            "[a]\nioengine=null\nsize=1m\nss_dur=2500ms\n",
            "t.fio:4",
            "multiple of the check interval",
        ),
        (
            "[a]\nioengine=null\nsize=1m\nss_dur=1\n",
            "t.fio:4",
            "longer than it",
        ),
        (
            "[a]\nioengine=null\nsize=1m\nss=lat:5%\nss_dur=2\n",
            "t.fio:4",
            "latency criteria",
        ),
        (
            "[a]\nioengine=null\nsize=1m\nss_interval=500ms\nss_dur=2\n",
            "t.fio:4",
            "at least 1s",
        ),
        (
            "[a]\nioengine=null\nsize=1m\nss_dur=2\nstartdelay=1\n",
            "t.fio:5",
            "startdelay",
        ),
        (
            "[a]\nioengine=null\nsize=1m\nss=iops\nss_dur=2\n",
            "t.fio:4",
            "criterion and its limit",
        ),
    ];
    for (job, at, why) in cases {
        std::fs::write(dir.path().join("t.fio"), job).unwrap();
        let (code, out, err) = fio_in(dir.path(), &["t.fio"]);
        assert_eq!(code, 2, "{job}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(at) && err.contains(why), "{job}: {err}");
    }
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    assert_untouched(dir.path());
}

/// `--parse-only` shows the settings under fio's names, its aliases set.
#[test]
fn parse_only_shows_the_settings() {
    let dir = work_dir();
    std::fs::write(
        dir.path().join("t.fio"),
        "[a]\nioengine=null\nsize=1m\nss=bw_slope:2%\nss_dur=30s\nss_ramp=5\n",
    )
    .unwrap();
    let (code, out, err) = fio_in(dir.path(), &["--parse-only", "t.fio"]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "bw_slope:2.000000%",
        "30000000000 ns",
        "5000000000 ns",
        "1000000000 ns",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
}
