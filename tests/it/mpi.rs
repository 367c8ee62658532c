//! Many clients: `mpirun -np N iogauge BENCH …` (built with `--features
//! mpi`; Open MPI's mpirun on the PATH). Every rank runs on this machine.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// `mpirun`, as root if need be, ranks oversubscribing the cores, with a
/// session directory of its own: Open MPI makes its session directory
/// under /tmp, and two jobs that start at once race to create it ("A call
/// to mkdir was unable to create the desired directory ... File exists").
/// Keep the directory until the job has ended.
pub fn mpirun_command() -> (Command, tempfile::TempDir) {
    let session = tempfile::Builder::new()
        .prefix("iogauge-ompi")
        .tempdir()
        .unwrap();
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe"])
        .env("OMPI_MCA_orte_tmpdir_base", session.path());
    (c, session)
}

/// `mpirun -np n iogauge args…` ([`mpirun_command`]).
pub fn mpirun(n: usize, args: &[&str]) -> Output {
    let (mut c, _session) = mpirun_command();
    c.arg("-np")
        .arg(n.to_string())
        .arg(bin_path())
        .args(args)
        .output()
        .expect("mpirun runs (Open MPI: apt-get install openmpi-bin)")
}

/// The result an MPI run wrote to `json`, after checking it succeeded.
pub fn result_of(out: &Output, json: &Path) -> Value {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

#[test]
fn four_ranks_of_run_merge_into_one_result() {
    let d = work_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("r.json");
    let out = mpirun(
        4,
        &[
            "run",
            "--dir",
            p(d.path()),
            "--unique-bytes",
            "2M",
            "--size-mean",
            "4K",
            "--ops",
            "5000",
            "--json",
            p(&json),
        ],
    );
    let v = result_of(&out, &json);
    check_result(&v);
    let c = get(&v, "cluster");
    assert_eq!(u64_at(c, "ranks"), 4);
    let ph = &get(c, "phases")[0];
    let ranks = get(ph, "per_rank").as_array().unwrap();
    assert_eq!(ranks.len(), 4);
    // the merged count is the ranks' sum, each rank its own budget
    let sum: u64 = ranks.iter().map(|r| u64_at(r, "ops")).sum();
    assert_eq!(sum, 20_000);
    assert_eq!(u64_at(&v, "summary.ops"), sum);
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), sum);
    // elapsed = last end − first start (seconds from the first start)
    let first = ranks
        .iter()
        .map(|r| f64_at(r, "start_s"))
        .fold(f64::MAX, f64::min);
    let last = ranks.iter().map(|r| f64_at(r, "end_s")).fold(0.0, f64::max);
    assert_eq!(first, 0.0);
    assert!((f64_at(&v, "elapsed_s") - last).abs() < 1e-6, "{v}");
    assert_eq!(u64_at(&v, "summary.workers"), 4);
    // the ranks started together and their clocks agree on one machine
    assert!(f64_at(ph, "start_spread_s") < 0.05, "{ph}");
    // (half the best of 8 round trips: tens of µs on a quiet machine, a
    // few ms when the test's neighbours keep both cores busy)
    assert!(u64_at(ph, "clock_bound_ns") < 20_000_000, "{ph}");
    // one report, rank 0's, with the job's lines
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("elapsed").count(), 1, "{text}");
    assert!(text.contains("MPI: 4 ranks on 1 host"), "{text}");
    assert_untouched(d.path());
}

#[test]
fn mpi_options_outside_mpirun_are_refused_in_one_line() {
    let d = work_dir();
    let e = assert_usage_error(&["run", "--dir", p(d.path()), "--stonewall"]);
    assert!(
        e.contains("--stonewall works across MPI ranks: start iogauge with mpirun"),
        "{e}"
    );
}

#[test]
fn a_command_that_does_not_run_across_ranks_is_refused() {
    let d = work_dir();
    let out = mpirun(2, &["bonnie", "-d", p(d.path())]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'bonnie' does not run across MPI ranks (mpirun started 2); these do: run,"),
        "{err}"
    );
    assert_untouched(d.path());
}
