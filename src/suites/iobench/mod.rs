//! IOBENCH (Wolman & Olson, Prime Computer, 1989; version 5.0 of 25 May
//! 1989; docs/iobench.md).
//!
//! U users do as many transactions as they can for M minutes on F files of
//! N fixed-length records of B bytes, under a lock manager with L locks per
//! file kept in shared memory; each transaction is R reads (the last W of
//! them followed by a write of the same record) with CP·1000/R null-loop
//! iterations of CPU work after each read. The results file is the paper's
//! Figure 1; iogauge adds percentiles, the share of time spent in I/O, CPU
//! and memory, and the JSON result.
//!
//! - [`config`]: the keywords, the control-file language, the precedence
//!   control file > environment > default.
//! - `shm`: the shared region and the lock manager (atomics in a memfd
//!   mapping, so it works across processes).
//! - `user`: the transaction loop of one user (thread or process).
//! - `control`: the controller: lay-out, start gate, stop, dead users,
//!   Ctrl-C, metering.
//! - [`result`]: the result, typed: its config and figures.
//! - [`report`]: the results file, summary and `===` lines, and the
//!   terminal summary rendered from the result.
//! - `server`, `msgq`: Variant 1, the `ioserver` process that owns the
//!   lock table and serves lock requests over System V message queues.
//! - `chart`: the spectrum chart (SVG).

mod chart;
pub mod config;
mod control;
mod msgq;
pub mod report;
pub mod result;
mod server;
mod shm;
pub mod survey;
mod user;

pub use chart::{Figure, Series, figures, same_runs, series_of};
pub use config::Config;
pub use control::{Metering, Mode, PROCESS_KIND, Run, RunSpec, execute};
pub use result::{Figures, IoBench, figures_of, result_of};
pub use server::{SERVICE, ServerEnd, serve};

use crate::report::RunResult;
use crate::runner::NoProgress;
use anyhow::Result;
use std::path::Path;
use std::time::Duration;

/// The survey hook: run `config` for `duration` (users as `mode`) in a work
/// directory under `dir`, and return the result. Nothing is left behind.
/// Processes mode re-executes the running binary, so it needs `iogauge`
/// itself (not a test harness) to be the current executable.
pub fn run_for(config: &Config, mode: Mode, duration: Duration, dir: &Path) -> Result<RunResult> {
    let spec = RunSpec::new(config.clone(), mode, Some(duration), dir);
    let run = execute(&spec, &NoProgress)?;
    Ok(result_of(&run, &figures_of(&run), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3 files of 64 records of 512 bytes; 3 reads and 1 write per
    /// transaction.
    pub(super) fn small(users: u32) -> Config {
        Config {
            users,
            files: 3,
            nrecs: 64,
            reclen: 512,
            reads: 3,
            writes: 1,
            locks: 8,
            end: 0.0,
            ..Default::default()
        }
    }

    /// Threads: the counts add up — no lost or double-counted cycles.
    #[test]
    fn threads_run_and_everything_adds_up() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = small(8);
        let r = run_for(&cfg, Mode::Threads, Duration::from_millis(300), dir.path()).unwrap();
        assert!(r.complete, "{:?}", r.error);
        let m = |k: &str| r.metrics[k].as_f64().unwrap();
        let cycles = m("cycles") as u64;
        assert!(cycles > 0);
        let per_user: u64 = r.metrics["per_user"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["cycles"].as_u64().unwrap())
            .sum();
        assert_eq!(per_user, cycles);
        assert_eq!(r.ops["transaction"].count, cycles);
        assert_eq!(r.ops["read"].count, cycles * 3);
        assert_eq!(r.ops["write"].count, cycles);
        assert_eq!(r.ops["lock"].count, cycles * 3);
        assert_eq!(m("locks_taken") as u64, cycles * 3);
        assert_eq!(m("uses") as u64, cycles * 3);
        assert_eq!(r.summary.bytes_read, cycles * 3 * 512);
        assert_eq!(m("failed_users"), 0.0);
        assert!((m("mb_processed") - cycles as f64 * 4.0 * 512.0 / 1e6).abs() < 1e-9);
        // nothing left behind
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn no_locking_takes_no_locks() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = small(4);
        cfg.sleep = -1.0;
        let r = run_for(&cfg, Mode::Threads, Duration::from_millis(200), dir.path()).unwrap();
        assert!(r.complete);
        assert_eq!(r.metrics["locks_taken"].as_u64().unwrap(), 0);
        assert!(!r.ops.contains_key("lock"));
        assert!(r.metrics["uses"].as_u64().unwrap() > 0);
    }
}
