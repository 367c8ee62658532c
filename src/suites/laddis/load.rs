//! LADDIS at one load point (`iogauge scale laddis`): the load is its
//! processes, or the NFS ops/s offered.

use super::run::{self as laddis, Options, Report};
use crate::measure::curve::{Load, Sample};
use crate::runner::{Pace, StopRule};
use crate::suites::load::{self, LoadPoint, Measured, Rep, Units};
use crate::suites::survey::with_bar;
use anyhow::Result;
use std::time::Duration;

/// What LADDIS's throughput counts.
pub const UNITS: Units = Units {
    unit_name: "NFS operation",
    unit: "ops/s",
};

/// LADDIS as its command's flags give it.
pub struct LaddisPoint {
    pub options: Options,
    /// One repetition's length.
    pub duration: Duration,
    /// Its pace; each repetition sets the rate (open loop) and the seed.
    pub pace: Pace,
    /// The claim was given: the file set does not follow an open loop's rate.
    pub claim_given: bool,
}

impl LoadPoint for LaddisPoint {
    fn units(&self) -> Units {
        UNITS
    }

    fn check(&self) -> Result<()> {
        self.options.check().map_err(crate::error::UsageError)?;
        Ok(())
    }

    fn queues(&self, _max: u16) -> Result<(), String> {
        Err("waits for each NFS operation before a load-generating process issues its next, as LADDIS defines its load: raise the processes (--procs) or the rate (--rates) instead".into())
    }

    /// Under mpirun, the job's load: [`laddis::run`] shares the processes,
    /// the rate and the file set out between the clients itself.
    fn measure(&self, r: &Rep) -> Result<Measured> {
        let load = r.job;
        let r = &Rep { load, ..*r };
        let mut o = self.options.clone();
        // each repetition its own operations and arrival schedule
        o.seed = r.seed(o.seed);
        match load {
            Load::Closed(n) if crate::cluster::ranks() > 1 => o.spread = Some(n),
            Load::Closed(n) => o.procs = n,
            // LADDIS's rule: the file set grows with the load asked
            Load::Open(rate) if !self.claim_given => o.claim = rate,
            // Open without a claim, or Depth (refused by `queues`)
            Load::Open(_) | Load::Depth(_) => {}
        }
        let rule = StopRule {
            duration: Some(self.duration),
            pace: r.pace(self.pace),
            ..Default::default()
        };
        let label = format!("laddis {}", load.label());
        let rep = with_bar(r.bars, &label, rule.duration, None, |p| {
            laddis::run(&o, rule, p)
        })?;
        Ok((sample_of(&rep), rep.result))
    }
}

/// A sample from a LADDIS run: its NFS operations' times.
pub fn sample_of(rep: &Report) -> Sample {
    let f = &rep.figures;
    load::sample_of(&rep.result, f.nfs_ops_per_s, f.nfs_ops)
}
