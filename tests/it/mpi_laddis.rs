//! LADDIS on many clients and `scale` across ranks: `mpirun -np 4`, every
//! rank a client on this machine (built with `--features mpi`).

use crate::common::*;
use crate::mpi::{mpirun, result_of};
use serde_json::Value;

fn clients(v: &Value) -> Vec<Value> {
    get(v, "metrics.clients").as_array().unwrap().clone()
}

fn sum_u64(cs: &[Value], key: &str) -> u64 {
    cs.iter().map(|c| u64_at(c, key)).sum()
}

/// The server's load and file set are split between the clients, and the
/// server's figures are the clients' together.
#[test]
fn four_clients_share_the_server_load_and_file_set() {
    let d = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("l.json");
    // 10 000 003 bytes over 8 processes: 3 bytes left for the low ones
    let out = mpirun(
        4,
        &[
            "laddis",
            "--dir",
            p(d.path()),
            "--procs",
            "2",
            "--scaling",
            "off",
            "--fileset",
            "10000003",
            "--rate",
            "400",
            "--duration",
            "1",
            "--json",
            p(&json),
        ],
    );
    let v = result_of(&out, &json);
    check_result(&v);
    let cs = clients(&v);
    assert_eq!(cs.len(), 4, "{v}");
    for (r, c) in cs.iter().enumerate() {
        assert_eq!(u64_at(c, "rank"), r as u64);
        assert_eq!(u64_at(c, "procs"), 2);
        assert_eq!(f64_at(c, "offered_ops_per_s"), 100.0);
        assert!(u64_at(c, "nfs_ops") > 0, "{c}");
    }
    // the server's ops are the clients' sum; its mean, theirs weighted
    let ops = u64_at(&v, "metrics.nfs_ops");
    assert_eq!(sum_u64(&cs, "nfs_ops"), ops);
    let weighted: f64 = cs
        .iter()
        .map(|c| f64_at(c, "mean_response_ms") * u64_at(c, "nfs_ops") as f64)
        .sum::<f64>()
        / ops as f64;
    let mean = f64_at(&v, "metrics.mean_response_ms");
    assert!((weighted - mean).abs() <= mean * 1e-9, "{weighted} {mean}");
    assert_eq!(u64_at(&v, "metrics.procs"), 8);
    // the file set: the clients' parts make the server's, remainders low
    let bytes: Vec<u64> = cs.iter().map(|c| u64_at(c, "fileset_bytes")).collect();
    let base = 10_000_003 / 8 * 2;
    assert_eq!(bytes, [base + 2, base + 1, base, base]);
    assert_eq!(bytes.iter().sum::<u64>(), 10_000_003);
    assert_eq!(sum_u64(&cs, "files"), u64_at(&v, "metrics.files"));
    assert_eq!(
        sum_u64(&cs, "working_set_files"),
        u64_at(&v, "metrics.working_set_files")
    );
    // one report, rank 0's, with one table of the clients
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("one load point: 4 clients of 2 processes each, open loop at 400 ops/s (poisson), 100.0 ops/s a client"),
        "{text}"
    );
    assert_eq!(text.matches("Per client").count(), 1, "{text}");
    assert_eq!(text.matches("throughput:").count(), 1, "{text}");
    assert_untouched(d.path());
}

/// A load point of `scale` is the job's: its workers shared out between
/// the ranks, from one worker a rank.
#[test]
fn scale_spans_ranks_times_workers() {
    let d = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("s.json");
    let out = mpirun(
        4,
        &[
            "scale",
            "--max-procs",
            "8",
            "--max-reps",
            "1",
            "laddis",
            "--dir",
            p(d.path()),
            "--scaling",
            "off",
            "--fileset",
            "8M",
            "--duration",
            "300ms",
            "--json",
            p(&json),
        ],
    );
    let v = result_of(&out, &json);
    let loads: Vec<u64> = get(&v, "metrics.curve.points")
        .as_array()
        .unwrap()
        .iter()
        .map(|p| u64_at(p, "load.value"))
        .collect();
    assert_eq!(loads, [4, 8], "{v}");
    assert_eq!(u64_at(&v, "config.mpi_ranks"), 4);
    assert!(str_at(&v, "config.loads").starts_with("job-wide"), "{v}");
    // each point's phase: its workers over the four ranks
    let phases = get(&v, "cluster.phases").as_array().unwrap();
    let workers: Vec<Vec<u64>> = phases
        .iter()
        .map(|ph| {
            let ranks = get(ph, "per_rank").as_array().unwrap();
            ranks.iter().map(|r| u64_at(r, "workers")).collect()
        })
        .collect();
    assert_eq!(workers, [[1, 1, 1, 1], [2, 2, 2, 2]]);
    // the chosen point's throughput is the job's: all clients' ops
    let cs = clients(&v);
    assert_eq!(sum_u64(&cs, "nfs_ops"), u64_at(&v, "metrics.nfs_ops"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.matches("loads across 4 MPI ranks").count(),
        1,
        "{text}"
    );
    assert_untouched(d.path());
}

#[test]
fn scale_refuses_fewer_workers_than_ranks() {
    let d = work_dir();
    let out = mpirun(
        4,
        &["scale", "--max-procs", "2", "laddis", "--dir", p(d.path())],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--max-procs 2: under mpirun a point's workers are shared out between the 4 ranks; give 4 or more"),
        "{err}"
    );
    assert_untouched(d.path());
}
