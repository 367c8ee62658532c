//! LADDIS (SPEC SFS 1.0, the 097.LADDIS workload, released by SPEC in 1993)
//! and its ancestor nhfsstone (Legato, 1989–90): a synthetic NFS version 2
//! server load made of a fixed percentage mix of NFS operations, run
//! against a file set whose size grows with the throughput claimed.
//! LADDIS is named after the companies that wrote it (Legato, Auspex,
//! Digital, Data General, Interphase and Sun); unlike nhfsstone it drives
//! the server from many, possibly different, clients. Its tunable
//! parameters are the op mix, the number of clients, the request rate per
//! client, the total file-set size, the I/O block size and the share of
//! writes that append; it reports throughput (NFS ops/s) against average
//! response time, and its single figure is the highest throughput whose
//! average response time stays at or under 50 ms.
//!
//! iogauge runs the mix over a file set on any mounted directory by mapping
//! each NFS procedure onto the local system call that a client would turn
//! into it (nhfsstone did the same: it generated NFS traffic through the
//! client's own system calls).
//!
//! - [`mix`], free of I/O: the operations and their local mappings, the
//!   built-in and file-given mixes, the seeded choosers for operations and
//!   transfer sizes, and the file-set scaling rule.
//! - [`fileset`]: the file set, planned from its size by SPEC SFS's
//!   file-size table and working-set rule, and made untimed.
//! - [`run`]: one load point: the processes that issue the mix's calls
//!   (closed loop, think time or open loop at a rate), per-NFS-op
//!   statistics, NFS ops/s and the average response time against LADDIS's
//!   50 ms limit. `iogauge laddis` runs it once.

pub mod classic;
pub mod fileset;
pub mod load;
pub mod mix;
pub mod run;
pub mod survey;

use crate::report::RunResult;

/// LADDIS, typed: its load point, its figures and its report.
pub struct Laddis;

impl crate::suites::Benchmark for Laddis {
    const NAME: &'static str = "laddis";
    type Plan = run::Plan;
    type Figures = run::Figures;
    fn classic(plan: &run::Plan, figures: &run::Figures, result: &RunResult) -> String {
        classic::render(plan, figures, result)
    }
}
