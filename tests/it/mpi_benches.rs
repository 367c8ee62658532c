//! The benchmarks under `mpirun -np 4` (built with `--features mpi`): each
//! rank's share in its own work directory (or its region of one shared
//! file), rank 0's report the job's, the merged counts the ranks' sum.

use crate::common::*;
use crate::mpi::{mpirun, result_of};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The sum of `key` over every rank of every phase of the job.
fn ranks_sum(v: &Value, key: &str) -> u64 {
    let c = get(v, "cluster");
    assert_eq!(u64_at(c, "ranks"), 4, "{c}");
    let phases = get(c, "phases").as_array().unwrap();
    let ranks = phases
        .iter()
        .flat_map(|ph| get(ph, "per_rank").as_array().unwrap());
    ranks.map(|r| u64_at(r, key)).sum()
}

/// The reads and writes each rank made on the shared file, from an strace
/// of each rank (`-y` names the file of each descriptor): (offset, length).
fn shared_io(trace: &str) -> Vec<(u64, u64)> {
    let mut pending: HashMap<String, bool> = HashMap::new();
    let mut io = Vec::new();
    for line in trace.lines() {
        let Some((pid, call)) = line.split_once(' ') else {
            continue;
        };
        let call = call.trim_start();
        let on_shared = |c: &str| c.starts_with("pread64(") || c.starts_with("pwrite64(");
        let args = if let Some(rest) = call.strip_prefix("<... pread64 resumed>") {
            pending.remove(pid).filter(|&s| s).map(|_| rest)
        } else if let Some(rest) = call.strip_prefix("<... pwrite64 resumed>") {
            pending.remove(pid).filter(|&s| s).map(|_| rest)
        } else if on_shared(call) && call.ends_with("<unfinished ...>") {
            pending.insert(pid.to_string(), call.contains("/shared>"));
            None
        } else if on_shared(call) && call.contains("/shared>") {
            Some(call)
        } else {
            None
        };
        let Some(args) = args else { continue };
        let head = args.rsplit_once(") = ").unwrap().0;
        let mut it = head.rsplitn(3, ", ");
        let off: u64 = it.next().unwrap().trim().parse().unwrap();
        let len: u64 = it.next().unwrap().trim().parse().unwrap();
        io.push((off, len));
    }
    io
}

#[test]
fn run_shared_file_keeps_each_rank_in_its_own_region() {
    let d = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("r.json");
    let traces = out_dir.path().join("trace");
    const U: u64 = 1 << 20;
    // each rank under strace, its trace named by its rank
    let (mut mpirun, _session) = crate::mpi::mpirun_command();
    let out = mpirun
        .args(["-np", "4"])
        .args(["sh", "-c"])
        .arg(
            r#"exec strace -f -qq -y -e trace=pread64,pwrite64 -o "$0.$OMPI_COMM_WORLD_RANK" "$@""#,
        )
        .arg(&traces)
        .arg(bin_path())
        .args(["run", "--shared-file", "--dir", p(d.path())])
        .args(["--unique-bytes", "1M", "--size-mean", "4K", "--ops", "2000"])
        .args(["--read-frac", "0.5", "--json", p(&json)])
        .output()
        .expect("mpirun and strace run");
    let v = result_of(&out, &json);
    check_result(&v);
    assert_eq!(get(&v, "config.shared_file"), &Value::Bool(true));
    assert_eq!(ranks_sum(&v, "ops"), 8000);
    assert_eq!(u64_at(&v, "summary.ops"), 8000);
    let seeds: Vec<u64> = get(&v, "cluster.seeds")
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert_eq!(seeds.len(), 4);
    assert_eq!(seeds[0], 1, "rank 0 keeps the given seed");
    let mut distinct = seeds.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{seeds:?}");
    for r in 0..4u64 {
        let t = std::fs::read_to_string(format!("{}.{r}", traces.display())).unwrap();
        let io = shared_io(&t);
        // the prefill (U bytes) and 2000 requests, all in [r·U, (r+1)·U)
        assert!(io.len() > 2000, "rank {r}: {} calls", io.len());
        for &(off, len) in &io {
            assert!(
                off >= r * U && off + len <= (r + 1) * U,
                "rank {r}: {len} bytes at {off}, outside its region"
            );
        }
        assert!(io.iter().any(|&(off, _)| off == r * U), "rank {r}");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("elapsed").count(), 1, "{text}");
    assert!(text.contains("MPI: 4 ranks on 1 host"), "{text}");
    assert_untouched(d.path());
}

#[test]
fn shared_file_outside_mpirun_is_refused_in_one_line() {
    let d = work_dir();
    let e = assert_usage_error(&["run", "--dir", p(d.path()), "--shared-file"]);
    assert!(
        e.contains("--shared-file works across MPI ranks: start iogauge with mpirun"),
        "{e}"
    );
    assert_untouched(d.path());
}

/// The job's text report and result of `args` on 4 ranks, after checking
/// the report came once with the job's lines and `dir` is as it was.
fn four_ranks(args: &[&str], dir: &Path) -> (String, Value) {
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("r.json");
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--json", p(&json)]);
    let out = mpirun(4, &all);
    let v = result_of(&out, &json);
    check_result(&v);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(text.matches("MPI: 4 ranks on 1 host").count(), 1, "{text}");
    assert_untouched(dir);
    (text, v)
}

#[test]
fn postmark_on_four_ranks_reports_the_jobs_streams() {
    let d = work_dir();
    let cfg_dir = tempfile::tempdir().unwrap();
    // the configuration in a file: mpirun gives standard input to rank 0 only
    let pmrc = cfg_dir.path().join("pm.rc");
    std::fs::write(
        &pmrc,
        format!(
            "set location {}\nset number 100\nset transactions 300\nset seed 5\nrun\nquit\n",
            d.path().display()
        ),
    )
    .unwrap();
    let (text, v) = four_ranks(&["postmark", p(&pmrc)], d.path());
    assert_eq!(ranks_sum(&v, "ops"), u64_at(&v, "summary.ops"));
    // every rank's stream, numbered and seeded as --threads 4 would
    let streams = get(&v, "metrics.streams").as_array().unwrap();
    assert_eq!(streams.len(), 4, "{v}");
    for (k, s) in streams.iter().enumerate() {
        assert_eq!(u64_at(s, "stream"), k as u64);
        assert_eq!(u64_at(s, "seed"), 5 + k as u64);
    }
    let per_stream: u64 = streams.iter().map(|s| u64_at(s, "transactions_done")).sum();
    assert_eq!(per_stream, 1200, "{v}");
    assert_eq!(text.matches("Time:").count(), 1, "{text}");
}

#[test]
fn ffsb_on_four_ranks_keeps_each_ranks_file_set_apart() {
    let d = work_dir();
    let cfg_dir = tempfile::tempdir().unwrap();
    let profile = cfg_dir.path().join("p.ffsb");
    std::fs::write(
        &profile,
        "time=1\n[filesystem0]\n location=/x\n num_files=20\n num_dirs=2\n min_filesize=4k\n max_filesize=16k\n[end0]\n[threadgroup0]\n num_threads=2\n read_weight=1\n read_size=4k\n read_blocksize=4k\n write_weight=1\n write_size=4k\n write_blocksize=4k\n[end0]\n",
    )
    .unwrap();
    let (text, v) = four_ranks(&["ffsb", p(&profile), "--location", p(d.path())], d.path());
    assert_eq!(ranks_sum(&v, "ops"), u64_at(&v, "summary.ops"));
    assert_eq!(u64_at(&v, "summary.workers"), 8);
    assert_eq!(text.matches("Total Results").count(), 1, "{text}");
}

#[test]
fn iozone_throughput_on_four_ranks_counts_every_child() {
    let d = work_dir();
    let (text, v) = four_ranks(
        &[
            "iozone",
            "-t",
            "2",
            "-i",
            "0",
            "-s",
            "256k",
            "-r",
            "64k",
            "-x",
            "--settle",
            "0s",
            "--dir",
            p(d.path()),
        ],
        d.path(),
    );
    assert_eq!(ranks_sum(&v, "ops"), u64_at(&v, "summary.ops"));
    // 8 children in all, each writing its 256 kB file (4 records) in
    // each phase (write, rewrite; -x: no child stops at another's end)
    let phases = get(&v, "cluster.phases").as_array().unwrap().len() as u64;
    assert_eq!(phases, 2);
    assert_eq!(op_count(&v, "write"), 8 * 4 * phases, "{v}");
    assert!(
        text.contains("Children see throughput for  8 initial writers"),
        "{text}"
    );
    assert!(
        text.contains("Children see throughput for  8 rewriters"),
        "{text}"
    );
}

#[test]
fn iozone_other_modes_across_ranks_are_refused_in_one_line() {
    let d = work_dir();
    let out = mpirun(2, &["iozone", "-i", "0", "-s", "64k", "--dir", p(d.path())]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("iozone runs across MPI ranks in throughput mode only"),
        "{err}"
    );
    assert_untouched(d.path());
}

#[test]
fn tpcb_on_four_ranks_sums_the_transactions() {
    let d = work_dir();
    let (text, v) = four_ranks(
        &[
            "tpcb",
            "--duration",
            "1s",
            "--terminals",
            "1",
            "--dir",
            p(d.path()),
        ],
        d.path(),
    );
    assert_eq!(ranks_sum(&v, "ops"), u64_at(&v, "summary.ops"));
    assert_eq!(u64_at(&v, "summary.workers"), 4);
    assert_eq!(text.matches("iogauge details").count(), 1, "{text}");
}

#[test]
fn sdet_on_four_ranks_takes_one_curve() {
    let d = work_dir();
    let (text, v) = four_ranks(
        &[
            "sdet",
            "--max-procs",
            "2",
            "--duration",
            "0.5s",
            "--commands",
            "10",
            "--threads",
            "--dir",
            p(d.path()),
        ],
        d.path(),
    );
    let phases = get(&v, "cluster.phases").as_array().unwrap();
    assert!(!phases.is_empty());
    for ph in phases {
        let ranks = get(ph, "per_rank").as_array().unwrap();
        assert_eq!(ranks.len(), 4);
        assert!(ranks.iter().all(|r| u64_at(r, "ops") > 0), "{ph}");
    }
    assert_eq!(text.matches("stopped:").count(), 1, "{text}");
}
